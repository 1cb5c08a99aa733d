/* Maps as kernels of their own (kite_offload, the resume list), and the
 * context as every kernel starts it: kite_uber's (kite_ctx_init) and a map
 * kernel's work-item's (kite_map_ctx).
 *
 * A long map whose body calls no task, allocates nothing and prints nothing
 * (ir/kernels.h) runs as kitec's kernel kite_map_<code>, one work-item per
 * iteration, between two launches of kite_uber: on a GPU that fills every
 * lane of every multiprocessor, which the workers' rounds cannot. Its
 * record `rec` (code: its split block) holds what the iterations read; the
 * map's counter in the task's record is 0 and the record covers no
 * iterations, so when the host queues it again after the kernel (the
 * resume list) it only ends the map. Returns 0 when the list is full: the
 * map then runs on the workers. */
int kite_offload(kite_ctx *c, int code, int rec, int n) {
#if KITE_STACKS
  kite_escape(c, rec); /* the map kernel's work-items read it */
#endif
  int k = atomic_inc(&c->ctl[KITE_CTL_OFFLOADS]);
  if (k >= KITE_OFFLOAD_CAP) {
    atomic_dec(&c->ctl[KITE_CTL_OFFLOADS]); /* never below the cap: k was taken */
    return 0;
  }
  c->ctl64[KITE_CTL64_OFFLOADS + 2 * k] = KITE_ENTRY(code, rec);
  c->ctl64[KITE_CTL64_OFFLOADS + 2 * k + 1] = n;
  if (atom_add(&c->ctl64[KITE_CTL64_OFFLOAD_ITERS], (long)n) + n >= KITE_OFFLOAD_BATCH)
    atomic_xchg(&c->ctl[KITE_CTL_YIELD], 1);
  return 1;
}

/* A worker that found no work: leave for the waiting maps when none has
 * been added for KITE_OFFLOAD_QUIET of its idle rounds. */
void kite_offload_idle(kite_ctx *c) {
  if (c->ctl[KITE_CTL_OFFLOADS] == 0) {
    c->offload_quiet = 0;
    return;
  }
  long now = c->ctl64[KITE_CTL64_OFFLOAD_ITERS];
  if (now != c->offload_seen) {
    c->offload_seen = now;
    c->offload_quiet = 0;
  } else if (++c->offload_quiet >= KITE_OFFLOAD_QUIET) {
    atomic_xchg(&c->ctl[KITE_CTL_YIELD], 1);
  }
}

/* When a launch starts: the maps whose kernels ran since the last one end.
 * Worker w queues resume entries w, w + workers, ... */
void kite_take_resumes(kite_ctx *c) {
  int n = c->ctl[KITE_CTL_RESUMES];
  for (int i = c->worker; i < n; i += c->num_workers) kite_push(c, c->ctl64[KITE_CTL64_RESUMES + i], -1);
}

/* The context's buffers and sizes, as every kernel starts it. */
void kite_ctx_init(kite_ctx *c, __global long *pool, __global long *deques,
                   __global uint *deque_ctl, __global long *printbuf, __global int *ctl,
                   __global long *ctl64, __global long *heap, __global int *params) {
  c->pool = pool;
  c->deques = deques;
  c->deque_ctl = deque_ctl;
  c->printbuf = printbuf;
  c->ctl = ctl;
  c->ctl64 = ctl64;
  c->heap = heap;
  c->heap_cur = c->heap_end = 0;
#if KITE_WIDE
  c->heap_free = 0;
#else
  for (int k = 0; k < KITE_HEAP_CLASSES; ++k) c->heap_free[k] = 0;
#endif
  c->num_workers = params[KITE_PARAM_NUM_WORKERS];
  c->num_records = params[KITE_PARAM_NUM_RECORDS];
  c->deque_mask = params[KITE_PARAM_DEQUE_CAP] - 1;
  c->print_cap = params[KITE_PARAM_PRINT_CAP];
#if KITE_LOOP_FAULTS
  c->fault_site = -1;
#endif
#if KITE_LARGE
  c->fin_rec = -1;
#endif
#if KITE_STACKS
  c->stack = 0;
  c->sp = KITE_STACK; /* a map kernel's work-item has no stack */
  c->n_stacked = 0;
#endif
#if KITE_TURNS
  c->turn_stop = 0;
#endif
#if KITE_HAND
  c->n_handed = 0;
#endif
}

/* A map kernel's work-item: a context with no worker, no queue and no heap
 * chunk, for the blocks' helpers (errors, lengths, element access). Its
 * iterations call no task (ir/kernels.h), so they never make a block ready:
 * kite_ready and kite_push, which use the worker (c->w), are not reached
 * from it. */
void kite_map_ctx(kite_ctx *c, __global long *pool, __global int *ctl, __global long *ctl64,
                  __global long *heap, __global int *params) {
  kite_ctx_init(c, pool, 0, 0, 0, ctl, ctl64, heap, params);
#if KITE_WIDE
  c->w = 0;
#endif
  c->worker = -1;
  c->lane = 0;
  c->next = KITE_NONE;
  c->free_head = c->spare = -1;
  c->free_count = 0;
  c->trace = 0;
  c->trace_cap = 0;
}
