/* Narrow workers, one work-item each: the entry in hand, else a pop, else
 * a steal from a random victim. */

void kite_run_narrow(kite_ctx *c, __global long *st) {
  int busy = 0; /* tracing: in a span */
  int idle = 0; /* counted in ctl[IDLE] (fast.cl) */
  uint iter = 0;
  int backoff = 0;
  int quiet = 0; /* steals in a row that found nothing */
  for (;;) {
    if (c->next == KITE_NONE) c->next = kite_pop(c);
    int stolen = 0;
    if (c->next == KITE_NONE) {
      if (c->trace && busy) {
        kite_span_end(c, st);
        busy = 0;
      }
      if (KITE_LEAVE(c)) break;
#if KITE_SPLIT
      /* Parked entries of this launch that no worker has taken yet. */
      if (kite_take_parked(c) > 0) c->next = kite_pop(c);
      if (c->next == KITE_NONE) {
        c->next = kite_try_steal(c);
        stolen = 1;
      }
#else
      c->next = kite_try_steal(c);
      stolen = 1;
#endif
      if (c->next == KITE_NONE) {
        /* Back off, so that idle workers do not keep the busy ones' deque
         * lines bouncing between caches: wait longer after each failure,
         * reading a line that nobody writes while work is going on. */
        if (KITE_COUNT_IDLE && !idle) {
          atomic_inc(&c->ctl[KITE_CTL_IDLE]);
          idle = 1;
        }
        for (int k = 0; k < backoff && !c->ctl[KITE_CTL_DONE]; ++k) {
        }
#if KITE_OFFLOAD_MIN > 0
        kite_offload_idle(c);
#endif
#if KITE_SPLIT
        kite_parts_idle(c, ++quiet);
#endif
        backoff = min(2 * backoff + 1, KITE_MAX_BACKOFF);
        continue;
      }
      backoff = 0;
      quiet = 0;
      if (idle) {
        atomic_dec(&c->ctl[KITE_CTL_IDLE]);
        idle = 0;
      }
    } else if ((++iter & 31u) == 0 && KITE_LEAVE(c)) {
      /* Resume it next launch; after a stop there is none. */
      if (!(c->ctl[KITE_CTL_DONE] | c->ctl[KITE_CTL_STOP])) kite_push(c, c->next, -1);
      break;
    }
    long e = c->next;
    c->next = KITE_NONE;
    if (c->trace) {
      if (!busy) kite_span_begin(c, stolen);
      busy = 1;
      c->span_blocks += 1;
    }
    KITE_FENCE();
    kite_block(c, (int)(e & 0xffffffffL), (int)(e >> 32));
  }
  if (c->trace && busy) kite_span_end(c, st);
  if (idle) atomic_dec(&c->ctl[KITE_CTL_IDLE]);
}
