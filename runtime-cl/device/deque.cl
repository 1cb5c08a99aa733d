/* Queueing a block that may run: in hand, or on the worker's deque.
 *
 * The deque is Chase and Lev's: the owner pushes and pops at the bottom
 * without atomics except when it takes the last entry; thieves take the top
 * with a compare-and-swap. Indices grow without bound and wrap at the
 * capacity, a power of two; a full deque is a run-time error, not a resize.
 * OpenCL 1.2 has no acquire/release, so shared state is `volatile __global`
 * and the store-to-load orderings the algorithm needs are KITE_FENCE plus
 * atomics, which are device-coherent on both PoCL and NVIDIA. A wide worker
 * pushes into its local queue first (kite_push), and pops and steals whole
 * chunks of its global deque (wide.cl). */

#if KITE_WIDE
/* Rounds longer than this are long: their lanes put what they make ready on
 * the global deque at once, where idle workers can take it, instead of
 * holding it in the local queue until the round's last block ends (a
 * block with a long loop would otherwise keep its siblings waiting). In
 * cycles of the multiprocessor's clock (NVIDIA's %clock64, cheap to read):
 * about 200 us at 2 GHz. */
#define KITE_LONG_ROUND_CYCLES 400000UL

/* `n` more entries are written past the global deque's bottom: when they
 * complete what was reserved, publish them all. */
void kite_written(kite_ctx *c, int n) {
  KITE_FENCE(); /* the entries, and the records they name, before bottom */
  int old = atomic_add(&c->w->ov, n);
  int reserved = old >> 16, written = (old & 0xffff) + n;
  if (written == reserved) {
    volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
    atomic_xchg(&dc[KITE_DEQUE_BOTTOM], c->w->bottom + reserved);
  }
}
#endif

#if KITE_STACKS
/* A block of record r is about to be queued where another lane may run it:
 * r and the private records above it (whose counters its end reaches) are
 * private no longer. */
KITE_OUT_OF_LINE void kite_escape(kite_ctx *c, int r) {
  int any = 0;
  while (r >= 0) {
    kite_rec f = KITE_REC(c, r);
    long link = f[0];
    if (!(link & KITE_PRIV)) break;
    f[0] = link & ~KITE_PRIV;
    any = 1;
    r = KITE_LINK_PARENT(link);
  }
  if (any) KITE_FENCE(); /* their plain writes, before anyone takes the entry */
}
#endif

/* Queues entry e; `site` is the Kite call that made it (-1: none), for the
 * error when the deque is full. */
KITE_OUT_OF_LINE void kite_push(kite_ctx *c, long e, int site) {
#if KITE_STACKS
  kite_escape(c, (int)(e & 0xffffffffL));
#endif
#if KITE_WIDE
  /* Into its ring of the local queue while that has room and the round is
   * not long, else onto the global deque past its bottom. */
  __local kite_worker *w = c->w;
  int k = (int)(e >> 32) & (KITE_CLASSES - 1);
#if defined(KITE_NVIDIA)
  ulong now;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(now));
  int keep = now - w->round_start < KITE_LONG_ROUND_CYCLES;
#else
  int keep = 1;
#endif
  if (keep) {
    int i = atomic_inc(&w->spawned[k]);
    if (i < w->room[k]) {
      w->lq[k][(w->tail[k] + i) & KITE_CLASS_MASK] = e;
      return;
    }
  }
  int j = atomic_add(&w->ov, 1 << 16) >> 16;
  uint b = w->bottom + j;
  if (j >= 0x7fff || KITE_SPAN(b, w->top_seen) > c->deque_mask) {
    kite_error(c, KITE_ERR_QUEUE, site, c->deque_mask + 1, 0);
    return;
  }
  KITE_DEQUE(c, c->worker)[b & c->deque_mask] = e;
  kite_written(c, 1);
#else
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
  volatile __global long *q = KITE_DEQUE(c, c->worker);
  uint b = dc[KITE_DEQUE_BOTTOM];
  uint t = dc[KITE_DEQUE_TOP]; /* a stale top only makes the deque look fuller */
  if (KITE_SPAN(b, t) > c->deque_mask) {
    kite_error(c, KITE_ERR_QUEUE, site, c->deque_mask + 1, 0);
    return;
  }
  q[b & c->deque_mask] = e;
  KITE_FENCE(); /* the entry before the bottom that publishes it */
  dc[KITE_DEQUE_BOTTOM] = b + 1;
#endif
}

long kite_pop(kite_ctx *c) {
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
  volatile __global long *q = KITE_DEQUE(c, c->worker);
  uint b = dc[KITE_DEQUE_BOTTOM] - 1;
  /* The store of bottom must be seen before top is read (the one
   * store-to-load order Chase-Lev needs): an exchange and a fence. */
  atomic_xchg(&dc[KITE_DEQUE_BOTTOM], b);
  KITE_FENCE_SC();
  uint t = dc[KITE_DEQUE_TOP];
  if (KITE_SPAN(b, t) < 0) {
    dc[KITE_DEQUE_BOTTOM] = t;
    return KITE_NONE;
  }
  long e = q[b & c->deque_mask];
  if (b != t) return e;
  /* The last entry: race the thieves for it. */
  int won = atomic_cmpxchg(&dc[KITE_DEQUE_TOP], t, t + 1) == t;
  dc[KITE_DEQUE_BOTTOM] = t + 1;
  return won ? e : KITE_NONE;
}

#if !KITE_WIDE
/* Entry e taken back, where it is still the newest on this worker's deque
 * (no thief took it) and its record's link is still `link`: 1; else 0,
 * and the deque as it was. A kept form's frame takes back an iteration it
 * started ahead (print_fast.cpp); the link tells its call from a later one
 * in the same record, once the call has run and its record was reused. */
int kite_unpush(kite_ctx *c, long e, long link) {
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
  volatile __global long *q = KITE_DEQUE(c, c->worker);
  const uint b = dc[KITE_DEQUE_BOTTOM];
  if (KITE_SPAN(b, dc[KITE_DEQUE_TOP]) <= 0 || q[(b - 1) & c->deque_mask] != e) return 0;
  const long got = kite_pop(c);
  if (got == e && KITE_REC(c, (int)got)[0] == link) return 1;
  if (got != KITE_NONE) kite_push(c, got, -1);
  return 0;
}
#endif

long kite_steal(kite_ctx *c, int victim) {
  volatile __global uint *dc = KITE_DEQUE_CTL(c, victim);
  volatile __global long *q = KITE_DEQUE(c, victim);
  uint t = dc[KITE_DEQUE_TOP];
  KITE_FENCE();
  uint b = dc[KITE_DEQUE_BOTTOM];
  if (KITE_SPAN(b, t) <= 0) return KITE_NONE;
  long e = q[t & c->deque_mask];
  KITE_FENCE();
  if (atomic_cmpxchg(&dc[KITE_DEQUE_TOP], t, t + 1) != t) return KITE_NONE;
  return e;
}

long kite_try_steal(kite_ctx *c) {
  if (c->num_workers < 2) return KITE_NONE;
  c->rng ^= c->rng << 13;
  c->rng ^= c->rng >> 17;
  c->rng ^= c->rng << 5;
  int v = (int)(c->rng % (uint)(c->num_workers - 1));
  if (v >= c->worker) v += 1;
  c->n_steal_tries += 1;
  long e = kite_steal(c, v);
  if (e != KITE_NONE) c->n_steals += 1;
  return e;
}

/* A block of record `rec` may run: keep it in hand, or queue it. `site`:
 * the Kite call that started it, or -1. */
KITE_OUT_OF_LINE_GPU void kite_ready_at(kite_ctx *c, int rec, int code, int site) {
  long e = KITE_ENTRY(code, rec);
#if KITE_STACKS
  if (c->sp < KITE_STACK) {
    c->stack[c->sp++] = e;
    return;
  }
#endif
  if (KITE_WIDE || c->next != KITE_NONE) kite_push(c, e, site);
  else c->next = e;
}

/* A block of a task under way (a continuation, a loop's next step) may run.
 * A lane that goes on keeps it in hand when its worker took at most one
 * entry this round: alone, the worker would run it next round anyway, on
 * this lane, after a round's scheduling ("Going on" in docs/design.md). */
KITE_OUT_OF_LINE_GPU void kite_ready(kite_ctx *c, int rec, int code) {
#if KITE_HAND
  if (c->next == KITE_NONE && c->w->n <= 1) {
    c->next = KITE_ENTRY(code, rec);
    return;
  }
#endif
  kite_ready_at(c, rec, code, -1);
}

/* A tail call: the callee's entry block, in the caller's record, may run.
 * A lane that goes on (KITE_HAND) keeps it in hand for this round; else it
 * is made ready as any other block. */
KITE_OUT_OF_LINE_GPU void kite_tail_at(kite_ctx *c, int rec, int code, int site) {
#if KITE_HAND
  if (c->next == KITE_NONE) {
    c->next = KITE_ENTRY(code, rec);
    return;
  }
#endif
  kite_ready_at(c, rec, code, site);
}
