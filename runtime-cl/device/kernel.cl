/* The kernel the host launches, one work-group per worker: the residency
 * probe (KITE_MODE_PROBE), or a launch of the workers, after which they
 * hand back their free records and counts. */

__kernel void kite_uber(__global long *pool, __global long *deques, __global uint *deque_ctl,
                        __global long *printbuf, __global int *ctl, __global long *ctl64,
                        __global long *stats, __global int *params, __global long *heap,
                        __global long *parked) {
#if KITE_WIDE
  __local kite_worker worker_state;
#endif
  kite_ctx ctx;
  kite_ctx *c = &ctx;
  kite_ctx_init(c, pool, deques, deque_ctl, printbuf, ctl, ctl64, heap, params);
#if KITE_SPLIT
  c->parked = parked;
  c->parked_cap = params[KITE_PARAM_PARKED_CAP];
#endif
  c->worker = (int)get_group_id(0);
  c->lane = (int)get_local_id(0);
  if (c->worker >= c->num_workers) return;

  if (params[KITE_PARAM_MODE] == KITE_MODE_PROBE) {
    /* Are all workers resident at once? Each checks in and waits, boundedly,
     * for the others; one that gives up says so. */
    if (c->lane != 0) return;
    atomic_inc(&c->ctl[KITE_CTL_PROBE_ARRIVED]);
    int limit = params[KITE_PARAM_SPIN_LIMIT];
    for (int i = 0; i < limit; ++i)
      if (c->ctl[KITE_CTL_PROBE_ARRIVED] >= c->num_workers) return;
    atomic_xchg(&c->ctl[KITE_CTL_PROBE_FAILED], 1);
    return;
  }

  c->next = KITE_NONE;
  c->free_head = -1;
  c->free_count = 0;
  c->spare = -1;
  c->rng = 2463534242u ^ (uint)((c->worker * KITE_LANES + c->lane) * 7919 + 1);
  c->offload_seen = 0;
  c->offload_quiet = 0;
#if KITE_HAS_FAST
  c->fast_skip = 0;
  c->n_fast = 0;
#if !KITE_WIDE
  c->n_declined = c->n_skipped = c->n_stops = c->n_full = 0;
#endif
#if KITE_KEEP
  c->n_kept = 0;
#endif
#endif
  c->n_tasks = c->n_conts = c->n_answered = c->n_steal_tries = c->n_steals = c->n_chunk_ops = 0;
  c->trace_cap = params[KITE_PARAM_TRACE_CAP];
  long stride = KITE_STATS_WORDS + (long)KITE_TRACE_SPAN_WORDS * c->trace_cap;
  __global long *st = stats + (long)c->worker * stride;
  c->trace = (c->trace_cap > 0 && c->lane == 0) ? st + KITE_STATS_WORDS : 0;

#if KITE_WIDE
  c->w = &worker_state;
#if KITE_STACKS
  long stack[KITE_STACK];
  c->stack = stack;
  c->sp = 0;
#endif
  kite_run_wide(c, st, params[KITE_PARAM_SIMD_STATS], (uint)params[KITE_PARAM_DEQUE_START]);
#else
#if KITE_IN_PART(KITE_MAIN_PART)
  if (c->worker == 0 && c->ctl[KITE_CTL_STARTED] == 0) {
    c->ctl[KITE_CTL_STARTED] = 1;
    kite_start_main(c);
  }
#endif
  kite_take_resumes(c);
#if KITE_SPLIT
  kite_take_parked(c);
#endif
  kite_run_narrow(c, st);
#endif

  /* Records on the private list would be lost with this launch. */
#if KITE_WIDE
  kite_give_free(c);
#else
  if (c->free_head >= 0) kite_give_chunk(c, c->free_head);
  if (c->spare >= 0) kite_give_chunk(c, c->spare);
#endif
#if KITE_WIDE
  atom_add(&st[KITE_STAT_TASKS], c->n_tasks);
  atom_add(&st[KITE_STAT_CONTS], c->n_conts);
  atom_add(&st[KITE_STAT_ANSWERED], c->n_answered);
#if KITE_HAS_FAST
  atom_add(&st[KITE_STAT_FAST], c->n_fast);
#if KITE_KEEP
  atom_add(&st[KITE_STAT_KEPT], c->n_kept);
#endif
#endif
  atom_add(&st[KITE_STAT_CHUNK_OPS], c->n_chunk_ops);
#if KITE_STACKS
  atom_add(&st[KITE_STAT_STACKED], c->n_stacked);
#endif
#if KITE_HAND
  atom_add(&st[KITE_STAT_HANDED], c->n_handed);
#endif
  if (c->lane != 0) return;
#else
  st[KITE_STAT_TASKS] += c->n_tasks;
  st[KITE_STAT_CONTS] += c->n_conts;
  st[KITE_STAT_ANSWERED] += c->n_answered;
#if KITE_HAS_FAST
  st[KITE_STAT_FAST] += c->n_fast;
  st[KITE_STAT_DECLINED] += c->n_declined;
  st[KITE_STAT_SKIPPED] += c->n_skipped;
  st[KITE_STAT_STOPS] += c->n_stops;
  st[KITE_STAT_FULL] += c->n_full;
#if KITE_KEEP
  st[KITE_STAT_KEPT] += c->n_kept;
#endif
#endif
#endif
  st[KITE_STAT_STEAL_TRIES] += c->n_steal_tries;
  st[KITE_STAT_STEALS] += c->n_steals;
  st[KITE_STAT_LAUNCHES] += 1;
}
