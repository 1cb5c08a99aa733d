/* Wide workers: KITE_LANES work-items each. */

#if KITE_WIDE
/* A worker is a work-group of W = KITE_LANES work-items (a warp), and runs
 * in rounds. Lane 0 alone schedules between rounds; in a round each lane
 * runs at most one block. Two barriers split a round, three when its
 * entries come from the local queue:
 *
 *   schedule (lane 0): account for what the last round queued, publish
 *     what it put on the global deque, and choose this round's entries: up
 *     to W of the newest in the local queue, from one ring first (nseg
 *     segments of rings, which each lane copies its own entry from before
 *     the third barrier, after which lanes may queue into those slots); if
 *     it is empty, up to W popped from this worker's global deque; if that
 *     is empty too, up to W stolen from the victim that last round's probes
 *     found fullest (both copied to chunk[] by lane 0). An idle worker
 *     waits a little longer after each round that found nothing (on
 *     NVIDIA: nanosleep).
 *   run (every lane): take its entry and run the block; before that, copy
 *     entries being shared from the local queue to the global deque, and,
 *     when the worker is idle, KITE_PROBES lanes look at a random victim's
 *     deque each. What a block makes
 *     ready goes to the local queue (a local atomic reserves the slot), or,
 *     once that is full or the round has run long (NVIDIA: about 200 us), to the
 *     global deque past its bottom: a local atomic reserves the slot, and
 *     the lane that writes the last reserved entry publishes the new bottom,
 *     so that idle workers can take them while a long block still runs.
 *
 * Divergence. The lanes of a warp that run different block codes run one
 * code after another. The local queue therefore has KITE_CLASSES rings,
 * an entry going to ring (code mod KITE_CLASSES), and a round takes its
 * entries from the fullest ring: in fib(n), say, 32 calls at a time, or 32
 * continuations, rather than a mix of both.
 *
 * Sharing. The local queue is this worker's alone: nobody can steal from
 * it. Entries move to the global deque when a ring is nearly full (its
 * oldest, the ones likely to be the largest tasks) and, so that idle
 * workers find work, when a worker that holds more than a round's entries
 * finds its global deque emptied (it looks every other round): up to half
 * of them, the oldest of its fullest ring.
 *
 * The global deque is Chase and Lev's, taken by chunks: a thief reads top,
 * then bottom, then entries [top, top + s) with s at most half of what it
 * saw and at most W, and claims them with one compare-and-swap of top. The
 * owner pops k <= W from the bottom: it lowers bottom, fences, reads top;
 * if at least W entries remain below, no thief can reach its k (a thief's
 * range starts at the top the owner read and spans at most W); otherwise
 * it takes up to k from the top with a compare-and-swap, as a thief would,
 * and puts bottom back.
 *
 * Progress: no lane ever waits for another lane except at the barriers,
 * which every lane reaches after at most one block, and a block never
 * waits for anything; between workers every operation is lock-free. */

/* Lane 0: n entries into chunk[], from a global deque upwards from index
 * `from`, eight loads in flight at a time: a store waits for its load, so
 * one entry at a time would be n trips to memory in a row. */
void kite_take_deque(__local long *chunk, volatile __global long *q, uint from, int mask, int n) {
  for (int i = 0; i < n; i += 8) {
    long v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (i + j < n) v[j] = q[(from + i + j) & mask];
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (i + j < n) chunk[i + j] = v[j];
  }
}

/* Lane 0: entries popped from this worker's global deque into chunk[at ..]. */
int kite_pop_chunk(kite_ctx *c, int at) {
  __local kite_worker *w = c->w;
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
  volatile __global long *q = KITE_DEQUE(c, c->worker);
  uint B = w->bottom;
  uint t = dc[KITE_DEQUE_TOP];
  if (KITE_SPAN(B, t) <= 0) {
    w->top_seen = t;
    return 0;
  }
  int k = min(KITE_SPAN(B, t), KITE_LANES - at);
  uint b = B - k;
  atomic_xchg(&dc[KITE_DEQUE_BOTTOM], b);
  KITE_FENCE_SC();
  t = dc[KITE_DEQUE_TOP];
  if (KITE_SPAN(b, t) >= KITE_LANES) {
    kite_take_deque(w->chunk + at, q, b, c->deque_mask, k);
    w->bottom = b;
    w->top_seen = t;
    return k;
  }
  /* Few entries: race the thieves for them at the top. */
  for (;;) {
    int m = min(k, KITE_SPAN(B, t));
    if (m <= 0) {
      dc[KITE_DEQUE_BOTTOM] = B;
      w->top_seen = t;
      return 0;
    }
    kite_take_deque(w->chunk + at, q, t, c->deque_mask, m);
    KITE_FENCE();
    if (atomic_cmpxchg(&dc[KITE_DEQUE_TOP], t, t + m) == t) {
      dc[KITE_DEQUE_BOTTOM] = B;
      w->top_seen = t + m;
      return m;
    }
    t = dc[KITE_DEQUE_TOP];
  }
}

/* Lane 0: entries stolen from `victim` into chunk[]; 0 if none. */
int kite_steal_chunk(kite_ctx *c, int victim) {
  __local kite_worker *w = c->w;
  volatile __global uint *dc = KITE_DEQUE_CTL(c, victim);
  volatile __global long *q = KITE_DEQUE(c, victim);
  uint t = dc[KITE_DEQUE_TOP];
  KITE_FENCE();
  uint b = dc[KITE_DEQUE_BOTTOM];
  if (KITE_SPAN(b, t) <= 0) return 0;
  int s = min((KITE_SPAN(b, t) + 1) / 2, KITE_LANES);
  kite_take_deque(w->chunk, q, t, c->deque_mask, s);
  KITE_FENCE();
  if (atomic_cmpxchg(&dc[KITE_DEQUE_TOP], t, t + s) != t) return 0;
  return s;
}

/* Lane 0, before a launch ends by a yield: the local queue goes onto the
 * global deque, which outlives the launch. */
void kite_flush_local(kite_ctx *c) {
  __local kite_worker *w = c->w;
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
  volatile __global long *q = KITE_DEQUE(c, c->worker);
  uint t = dc[KITE_DEQUE_TOP];
  for (int k = 0; k < KITE_CLASSES; ++k) {
    for (; w->head[k] != w->tail[k]; w->head[k] += 1) {
      if (KITE_SPAN(w->bottom, t) > c->deque_mask) {
        kite_error(c, KITE_ERR_QUEUE, -1, c->deque_mask + 1, 0);
        return;
      }
      q[w->bottom & c->deque_mask] = w->lq[k][w->head[k] & KITE_CLASS_MASK];
      w->bottom += 1;
    }
  }
  KITE_FENCE();
  dc[KITE_DEQUE_BOTTOM] = w->bottom;
}

/* Lane 0, between rounds: see the comment above. */
void kite_schedule(kite_ctx *c, __global long *st, int *busy) {
  __local kite_worker *w = c->w;
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);

  /* 1. The round that ended: what its lanes queued and shared. */
  int count = 0, fullest = 0;
  for (int k = 0; k < KITE_CLASSES; ++k) {
    w->tail[k] += min(w->spawned[k], w->room[k]);
    w->spawned[k] = 0;
    int here = KITE_SPAN(w->tail[k], w->head[k]);
    count += here;
    if (here > KITE_SPAN(w->tail[fullest], w->head[fullest])) fullest = k;
  }
  int published = w->ov >> 16; /* the lanes published them, shared ones included */
  if (published > 0) {
    w->bottom += published;
    dc[KITE_DEQUE_BOTTOM] = w->bottom;
  }
  w->ov = 0;
  w->share_n = 0;
  if (w->n > 0) {
    w->stat[KITE_STAT_ROUNDS] += 1;
    w->stat[KITE_STAT_LANE_BLOCKS] += w->n;
    if (c->trace) c->span_blocks += w->n;
    uint paths = popcount(w->codes[0]) + popcount(w->codes[1]) + popcount(w->codes[2]) +
                 popcount(w->codes[3]);
    w->stat[KITE_STAT_PATHS] += paths;
    w->codes[0] = w->codes[1] = w->codes[2] = w->codes[3] = 0;
  }

  /* Keep the lanes' exchange of free records between an eighth and seven
   * eighths full, through the global stacks. */
  int stocked = w->stocked;
  if (stocked < KITE_LOCAL_CHUNKS / 8) {
    for (int i = 0; i < KITE_LOCAL_CHUNKS && stocked < KITE_LOCAL_CHUNKS / 2; ++i) {
      if (w->chunks[i] >= 0) continue;
      int chunk = kite_take_chunk(c);
      if (chunk < 0) break;
      c->n_chunk_ops += 1;
      w->chunks[i] = chunk;
      stocked += 1;
    }
    KITE_FENCE(); /* acquires the chunks' lists, which their givers fenced before giving */
  } else if (stocked > 7 * KITE_LOCAL_CHUNKS / 8) {
    for (int i = 0; i < KITE_LOCAL_CHUNKS && stocked > KITE_LOCAL_CHUNKS / 2; ++i) {
      if (w->chunks[i] < 0) continue;
      kite_give_chunk(c, w->chunks[i]);
      c->n_chunk_ops += 1;
      w->chunks[i] = -1;
      stocked -= 1;
    }
  }
  w->stocked = stocked;

  /* 2. Stop? Lane 0 read the flags at the end of the last round, busy or
   * idle (a print that passes the buffer's limit asks every worker to leave
   * soon: the buffer's headroom is two prints per lane). */
  w->round += 1;
  if (KITE_SPAN(w->top_next, w->top_seen) > 0) w->top_seen = w->top_next; /* top only grows */
  int flags = w->flags_next;
  w->flags_next = 0;
  if (flags) {
    if (!(c->ctl[KITE_CTL_DONE] | c->ctl[KITE_CTL_STOP])) kite_flush_local(c);
    w->stop = 1;
    w->n = 0;
    return;
  }

  /* 3. Move entries to the global deque: the oldest of the fullest ring
   * when it has less than a round's room left (so that what the lanes
   * make ready next stays local, and the global deque holds the oldest,
   * likely largest, tasks), or, when thieves have emptied the global deque,
   * up to half of its entries (at least a round's worth), keeping a round's
   * worth here. The ring's slots
   * they leave are reused only next round, after the lanes copied them. */
  uint share_head = w->head[fullest];
  int in_fullest = KITE_SPAN(w->tail[fullest], w->head[fullest]);
  int m = 0;
  if (in_fullest > KITE_CLASS_CAP - KITE_LANES) {
    m = min(in_fullest, in_fullest - (KITE_CLASS_CAP - KITE_LANES)); /* all, in rings smaller than a round */
  } else if (count > KITE_LANES && c->num_workers > 1) {
#if KITE_WIDE_FORMS
    /* Where lanes run sequential forms, a round may last as long as a
     * lane's form, and what waits in the local queue meanwhile is out of
     * every thief's reach: while any worker is idle, all but a round's
     * entries go to the global deque. On an H100, fib(40) took 12.8-13.1
     * ms so, 13.0-13.5 without (three runs each, one run); with a size cutoff
     * written into the artifact by hand (forms for fib(n < 15) only, never
     * stopping), 8.9-9.1 ms against 88-105: one worker ran 8,457 of the
     * 317,811 tasks, most none. Not for programs whose lanes run no form
     * (N-queens 39.8 ms against 31.8, tree sum 17.5 against 13.8: their
     * rounds are short, and the local queue's rings keep a round's lanes
     * on one block code). */
    if (c->ctl[KITE_CTL_IDLE] > 0)
      m = min(count - KITE_LANES, in_fullest);
    else
#endif
    if (KITE_SPAN(w->bottom, w->top_seen) <= 0)
      m = min(min(count - KITE_LANES, max(KITE_LANES, count / 2)), in_fullest);
  }
  if (m > 0) {
    int free = c->deque_mask + 1 - KITE_SPAN(w->bottom, w->top_seen);
    if (m > free) {
      w->top_seen = dc[KITE_DEQUE_TOP];
      free = c->deque_mask + 1 - KITE_SPAN(w->bottom, w->top_seen);
    }
    m = min(m, free);
    m = min(m, 0x3fff); /* w->ov counts reservations in 15 bits */
  }
  if (m > 0) {
    w->share_class = fullest;
    w->share_from = w->head[fullest];
    w->share_n = m;
    w->ov = m << 16;
    w->head[fullest] += m;
    count -= m;
  }
  /* Overflow past the bottom must find room: look at top again when the
   * deque looks more than half full. */
  if (KITE_SPAN(w->bottom, w->top_seen) > (c->deque_mask + 1) / 2) w->top_seen = dc[KITE_DEQUE_TOP];

  /* 4. This round's entries: the newest of one ring, then of the others
   * while lanes are left. The ring: the next after the last one taken that
   * holds a round's worth (so that no ring starves: in fib(n) the calls
   * would otherwise keep the continuations waiting), else the fullest. */
  int first = fullest;
  for (int r = 1; r <= KITE_CLASSES; ++r) {
    int k = (w->last + r) & (KITE_CLASSES - 1);
    if (KITE_SPAN(w->tail[k], w->head[k]) >= KITE_LANES) {
      first = k;
      break;
    }
  }
  w->last = first;
  int n = 0, stolen = 0, nseg = 0;
  for (int r = 0; r < KITE_CLASSES && n < KITE_LANES; ++r) {
    int k = (first + r) & (KITE_CLASSES - 1);
    uint tail = w->tail[k];
    int take = min(KITE_SPAN(tail, w->head[k]), KITE_LANES - n);
    if (take <= 0) continue;
    n += take;
    w->seg_k[nseg] = k;
    w->seg_from[nseg] = tail;
    w->seg_end[nseg] = n;
    nseg += 1;
    w->tail[k] = tail - take;
  }
  w->nseg = nseg;
  if (n == 0) {
    n = kite_pop_chunk(c, 0);
    if (n == 0 && w->probe) {
      /* The lanes probed last round: the fullest deque they saw. */
      int best = 0;
      for (int l = 1; l < KITE_PROBES; ++l)
        if (w->sizes[l] > w->sizes[best]) best = l;
      if (w->sizes[best] > 0) {
        c->n_steal_tries += 1;
        n = kite_steal_chunk(c, w->victims[best]);
        if (n > 0) {
          c->n_steals += 1;
          stolen = 1;
        }
      }
    }
  }
  w->n = n;
  w->probe = (n == 0 && c->num_workers > 1);
#if KITE_WIDE_FORMS
  int left = KITE_SPAN(w->bottom, w->top_seen);
  for (int k = 0; k < KITE_CLASSES; ++k) left += KITE_SPAN(w->tail[k], w->head[k]);
  w->fast_ok = left >= KITE_FAST_WIDE_SLACK;
#endif
  for (int k = 0; k < KITE_CLASSES; ++k) {
    uint from = (w->share_n > 0 && k == w->share_class) ? share_head : w->head[k];
    w->room[k] = KITE_CLASS_CAP - KITE_SPAN(w->tail[k], from);
  }

  if (n == 0) {
    if (KITE_COUNT_IDLE && w->idle == 0) atomic_inc(&c->ctl[KITE_CTL_IDLE]);
    w->idle += 1;
    w->stat[KITE_STAT_IDLE_ROUNDS] += 1;
#if KITE_OFFLOAD_MIN > 0
    kite_offload_idle(c);
#endif
#if KITE_SPLIT
    kite_parts_idle(c, w->idle);
#endif
    if (c->trace && *busy) {
      kite_span_end(c, st);
      *busy = 0;
    }
#if defined(KITE_NVIDIA)
    /* Idle: wait a little longer after each round that found nothing, up
     * to 2 us, so that thousands of idle warps do not keep the memory
     * system busy for the few that have work. */
    uint ns = 32u << min(w->idle, 6);
    asm volatile("nanosleep.u32 %0;" ::"r"(ns));
#endif
  } else {
    if (KITE_COUNT_IDLE && w->idle > 0) atomic_dec(&c->ctl[KITE_CTL_IDLE]);
    w->idle = 0;
    if (c->trace && !*busy) {
      kite_span_begin(c, stolen);
      *busy = 1;
    }
  }
}

#if KITE_STACKS
/* What is left on this lane's stack goes to the local queue, oldest first. */
void kite_spill(kite_ctx *c) {
  for (int i = 0; i < c->sp; ++i) kite_push(c, c->stack[i], -1);
  c->sp = 0;
}
#endif

void kite_run_wide(kite_ctx *c, __global long *st, int simd_stats, uint ring_start) {
  __local kite_worker *w = c->w;
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
  volatile __global long *q = KITE_DEQUE(c, c->worker);
  int busy = 0; /* lane 0, tracing: in a span */
#if defined(KITE_NVIDIA)
  ulong scheduled = 0; /* lane 0: when the last schedule ended */
#endif
  if (c->lane == 0) {
    for (int k = 0; k < KITE_CLASSES; ++k) {
      w->head[k] = w->tail[k] = ring_start;
      w->spawned[k] = 0;
      w->room[k] = KITE_CLASS_CAP;
    }
    w->ov = 0;
    w->round_start = 0;
    w->n = 0;
    w->bottom = dc[KITE_DEQUE_BOTTOM];
    w->top_seen = w->top_next = dc[KITE_DEQUE_TOP];
    w->flags_next = 0;
    w->share_n = 0;
    w->probe = 0;
    w->stop = 0;
    w->idle = 0;
#if KITE_WIDE_FORMS
    w->fast_ok = 0;
#endif
    w->last = 0;
    w->round = 0;
    w->codes[0] = w->codes[1] = w->codes[2] = w->codes[3] = 0;
    for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i) w->chunks[i] = -1;
    w->stocked = 0;
    w->nseg = 0;
    for (int i = 0; i < KITE_STATS_WORDS; ++i) w->stat[i] = 0;
#if KITE_IN_PART(KITE_MAIN_PART)
    if (c->worker == 0 && c->ctl[KITE_CTL_STARTED] == 0) {
      c->ctl[KITE_CTL_STARTED] = 1;
      kite_start_main(c);
#if KITE_STACKS
      kite_spill(c);
#endif
#if KITE_HAND
      if (c->next != KITE_NONE) kite_push(c, c->next, -1);
      c->next = KITE_NONE;
#endif
    }
#endif
    kite_take_resumes(c);
#if KITE_SPLIT
    kite_take_parked(c);
#endif
  }
  for (;;) {
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (c->lane == 0) {
#if defined(KITE_NVIDIA)
      /* --stats: where a round's time goes (the global timer, read only
       * then: it is slower to read than the multiprocessor's clock). */
      ulong now = 0;
      if (simd_stats) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (w->n > 0) w->stat[KITE_STAT_ROUND_NS] += (long)(now - scheduled);
      }
      kite_schedule(c, st, &busy);
      if (simd_stats) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(scheduled));
        if (w->n > 0) w->stat[KITE_STAT_SCHEDULE_NS] += (long)(scheduled - now);
      }
      ulong clock;
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(clock));
      w->round_start = clock;
#else
      kite_schedule(c, st, &busy);
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* and what lane 0 took */
    if (w->stop) break;
    long e = KITE_NONE;
    if (w->nseg > 0) {
      /* Each lane copies its own entry from the rings (lane 0 copying
       * them all, one after another, was a third of its scheduling), and
       * the lanes wait for each other before any queues into the slots. */
      if (c->lane < w->n) {
        int s = 0;
        while (c->lane >= w->seg_end[s]) ++s;
        int i = c->lane - (s > 0 ? w->seg_end[s - 1] : 0);
        e = w->lq[w->seg_k[s]][(w->seg_from[s] - 1 - i) & KITE_CLASS_MASK];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    } else if (c->lane < w->n) {
      e = w->chunk[c->lane];
    }
    if (c->lane < w->share_n) {
      int copied = 0;
      for (int i = c->lane; i < w->share_n; i += KITE_LANES, ++copied)
        q[(w->bottom + i) & c->deque_mask] =
            w->lq[w->share_class][(w->share_from + i) & KITE_CLASS_MASK];
      kite_written(c, copied);
    }
    if (w->probe && c->lane < KITE_PROBES) {
      c->rng ^= c->rng << 13;
      c->rng ^= c->rng >> 17;
      c->rng ^= c->rng << 5;
      int v = (int)(c->rng % (uint)(c->num_workers - 1));
      if (v >= c->worker) v += 1;
      volatile __global uint *vc = KITE_DEQUE_CTL(c, v);
      uint t = vc[KITE_DEQUE_TOP];
      uint b = vc[KITE_DEQUE_BOTTOM];
      w->victims[c->lane] = v;
      w->sizes[c->lane] = KITE_SPAN(b, t);
    }
    if (e != KITE_NONE) {
      int code = (int)(e >> 32);
      if (simd_stats) atomic_or(&w->codes[(code >> 5) & 3], 1u << (code & 31));
      /* No fence before the block: what it reads was written before its
       * entry was queued, by a lane of this worker (ordered by the round's
       * barriers) or by one of another worker, which fenced before it
       * published the entry or signalled the lane that queued it; lane 0's
       * steal and the lane's own signal acquired that, and the barriers
       * pass it on (design.md, "Device-wide ordering"). */
#if KITE_STACKS
      /* This block, then up to KITE_LANE_BLOCKS - 1 more from the lane's
       * stack, newest first (one call of kite_block: the uber-kernel's
       * switch is large), then the rest to the local queue. A print or an
       * error ends the turn. */
      c->turn_stop = 0;
      for (int k = 1;; ++k) {
        kite_block(c, (int)(e & 0xffffffffL), (int)(e >> 32));
        if (k >= KITE_LANE_BLOCKS || c->sp == 0 || c->turn_stop) break;
        e = c->stack[--c->sp];
        c->n_stacked += 1;
      }
      kite_spill(c);
#elif KITE_HAND
      /* This block, then up to KITE_HAND_BLOCKS - 1 more, each the tail
       * call its previous block kept in hand (one call of kite_block). The
       * last one kept goes to the local queue. No fence between them: the
       * lane itself wrote what the next reads. */
      c->turn_stop = 0;
      for (int k = 1;; ++k) {
        kite_block(c, (int)(e & 0xffffffffL), (int)(e >> 32));
        e = c->next;
        if (e == KITE_NONE) break;
        c->next = KITE_NONE;
        if (k >= KITE_HAND_BLOCKS || c->turn_stop) {
          kite_push(c, e, -1);
          break;
        }
        c->n_handed += 1;
      }
#else
      kite_block(c, (int)(e & 0xffffffffL), code);
#endif
    }
    if (c->lane == 0) {
      /* For the next schedule, read while the other lanes finish. */
      w->top_next = dc[KITE_DEQUE_TOP];
      w->flags_next = KITE_LEAVE(c);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (c->lane == 0) {
    if (KITE_COUNT_IDLE && w->idle > 0) atomic_dec(&c->ctl[KITE_CTL_IDLE]);
    if (c->trace && busy) kite_span_end(c, st);
    for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i)
      if (w->chunks[i] >= 0) kite_give_chunk(c, w->chunks[i]);
    for (int i = KITE_STAT_ROUNDS; i < KITE_STATS_WORDS; ++i) st[i] += w->stat[i];
  }
}
#endif
