/* Joins and signals: the decrements of join counters (kite_dec, kite_sub),
 * a finished task's result handed up to its caller's node (kite_finish_at),
 * and the pieces of the generated kite_signal and dispatchers that every
 * program shares. */

/* n events fewer on counter p, shared; returns the count before. On NVIDIA
 * the atomic is acquire-release (KITE_DEC_FENCE). */
int kite_sub(volatile __global int *p, int n) {
#if defined(KITE_NVIDIA)
  int v;
  asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;" : "=r"(v) : "l"(p), "r"(-n) : "memory");
  return v;
#else
  return atomic_sub(p, n);
#endif
}

#if KITE_HAS_KEEP
/* One call fewer that kept record x (a kept form's frame, fast.cl) waits
 * for, after what it wrote: 1 where it was the last (the caller goes on
 * from its frame, or queues it), else 0. */
int kite_kept_count_off(kite_ctx *c, int x) {
  KITE_FENCE(); /* what was written, before the count that may let another lane read it */
  if (kite_sub(KITE_COUNTER(KITE_REC(c, x), KITE_KEPT_COUNTER), 1) != 1) return 0;
  KITE_FENCE(); /* every result, before they are read */
  return 1;
}

/* Slot `slot` of kept record x gets its result; kite_kept_count_off. */
int kite_kept_signal(kite_ctx *c, int x, int slot, long bits) {
  KITE_REC(c, x)[KITE_KEPT_RESULT + slot] = bits;
  return kite_kept_count_off(c, x);
}

/* What kite_fast handed back when its form kept its frames: the entry of
 * the call its top frame was making, made ready now; or the top frame's
 * own count of its record, given up (the last queues the record). */
void kite_kept_go(kite_ctx *c, long r) {
  const int x = (int)r, code = (int)(r >> 32);
  if (code != KITE_CODE_KEPT_RELEASE) kite_ready_at(c, x, code, -1);
  else if (kite_kept_count_off(c, x)) kite_ready(c, x, KITE_CODE_KEPT);
}
#endif

/* One event fewer on counter p; returns the count before. `own`: no other
 * lane can reach p's record now (its task's entry block has made nothing of
 * it runnable elsewhere yet), so a plain decrement does; else kite_sub's. */
KITE_OUT_OF_LINE_GPU int kite_dec(int own, volatile __global int *p) {
  if (own) {
    int v = *p;
    *p = v - 1;
    return v;
  }
  return kite_sub(p, 1);
}

/* Record `rec`'s task has finished: hand its result to the node of its caller
 * that waits for it, and go on up while callers finish too. `own`: this lane
 * made every signal of rec's task's last block, so it has seen every write.
 * `known`: `link` is rec's link, read by the finishing block when it
 * started (a link never changes without lane stacks); else it is read here.
 * `has`: that block returned `ret`, which is then the result (else it is
 * read from the record). One function for both: NVIDIA's compiler inlines
 * it at each call, and stopped doing so for UTS with two (docs/design.md,
 * "A finishing block's link and result"). */
KITE_OUT_OF_LINE void kite_finish_at(kite_ctx *c, int rec, int own, int known, long link, int has,
                                     long ret) {
  KITE_DEC_FENCE(own); /* see every write made before the last signal (a kite_dec) */
  if (!known) link = KITE_REC(c, rec)[0];
  long bits = has ? ret : KITE_REC(c, rec)[1];
  for (;;) {
    int parent = KITE_LINK_PARENT(link);
    int node = KITE_LINK_NODE(link);
#if KITE_SPLIT
    /* (A kept record's node is no block's: its signal is made in any part,
     * and the record goes on in its own, kite_block.) */
    if (parent >= 0 && !KITE_KEPT_NODE(node)) {
      int part = kite_part_of_node(node & ((1 << KITE_NODE_SHIFT) - 1));
      if (part >= 0 && part != KITE_PART) {
        /* Its caller's part finishes it (parts.cl): the record keeps the
         * result, and its link. */
        KITE_REC(c, rec)[1] = bits;
        kite_park(c, KITE_ENTRY(KITE_CODE_FINISH, rec), part);
        return;
      }
    }
#endif
    kite_free(c, rec);
    if (parent < 0) {
      c->ctl64[KITE_CTL64_RESULT] = bits;
      KITE_FENCE();
      atomic_xchg(&c->ctl[KITE_CTL_DONE], 1);
      return;
    }
#if KITE_KEEP
    if ((node & ((1 << KITE_NODE_SHIFT) - 1)) == KITE_NODE_KEPT) {
      /* A kept form's record: the last of its calls queues it. */
      if (kite_kept_signal(c, parent, node >> KITE_NODE_SHIFT, bits))
        kite_ready(c, parent, KITE_CODE_KEPT);
      return;
    }
#endif
    own = KITE_OWN(c, parent); /* the parent's counters are shared, unless private */
    rec = kite_signal(c, parent, node, bits, -1, &own);
    if (rec < 0) return;
    KITE_DEC_FENCE(own);
    kite_rec f = KITE_REC(c, rec);
    link = f[0];
    bits = f[1];
  }
}

#define kite_finish(c, rec, own) kite_finish_at(c, rec, own, 0, 0L, 0, 0L)

/* A block that may finish its task reads its record's link when it starts
 * (KITE_LINK_AHEAD), with whatever else it reads then, and finishes with it
 * and the value it returned, if it did, instead of reading them again. With
 * lane stacks a link changes (kite_escape clears its private bit), so it is
 * read when the task finishes. */
#if KITE_STACKS
#define KITE_LINK_AHEAD(f) 0L
#define KITE_FINISH_AHEAD(d, own, link, has, ret) kite_finish(c, d, own)
#else
#define KITE_LINK_AHEAD(f) ((f)[0])
#define KITE_FINISH_AHEAD(d, own, link, has, ret) \
  kite_finish_at(c, d, own, (d) == rec, link, (d) == rec && (has), ret)
#endif

/* How a block finishes its task, where a signal it made ended the task of
 * record d. In a large program the block leaves the finish to kite_block,
 * which makes it when the block returns (kite_finish_pending), so that the
 * program has one call of kite_finish_at for all its blocks, not one at
 * every signal of every block: the device compilers' work grows with the
 * paths through the call graph (every finish reaches kite_signal, which
 * reaches every task's signal function): NVIDIA's assembler took a
 * quarter less time on a program's PTX with those calls taken out, but
 * an H200's whole build of the 10-task synthetic program showed no gain
 * within its spread (docs/design.md, "Build time").
 * Nothing of the record is touched after its task ends, so the finish
 * comes as the block returns, a little later. A block ends its task at
 * most once. */
#if KITE_LARGE
void kite_finish_later(kite_ctx *c, int rec, int own, int known, long link, int has, long ret) {
  c->fin_rec = rec;
  c->fin_own = own;
  c->fin_known = known;
  c->fin_link = link;
  c->fin_has = has;
  c->fin_ret = ret;
}
void kite_finish_pending(kite_ctx *c) {
  if (c->fin_rec < 0) return;
  const int rec = c->fin_rec;
  c->fin_rec = -1;
  kite_finish_at(c, rec, c->fin_own, c->fin_known, c->fin_link, c->fin_has, c->fin_ret);
}
#define KITE_BLOCK_FINISH(d, own) kite_finish_later(c, d, own, 0, 0L, 0, 0L)
#if KITE_STACKS
#define KITE_BLOCK_FINISH_AHEAD(d, own, link, has, ret) KITE_BLOCK_FINISH(d, own)
#else
#define KITE_BLOCK_FINISH_AHEAD(d, own, link, has, ret) \
  kite_finish_later(c, d, own, (d) == rec, link, (d) == rec && (has), ret)
#endif
#else
#define KITE_BLOCK_FINISH(d, own) kite_finish(c, d, own)
#define KITE_BLOCK_FINISH_AHEAD(d, own, link, has, ret) KITE_FINISH_AHEAD(d, own, link, has, ret)
#endif

/* The pieces of the generated kite_signal and dispatchers that are the same
 * in every program. */

/* A direct map's call signals node (place << KITE_NODE_SHIFT) + n: leaves n
 * in *node and returns the place, its iteration's in the chunk (0 for any
 * other node). */
int kite_node_place(int *node) {
  if (*node < (1 << KITE_NODE_SHIFT)) return 0;
  int j = *node >> KITE_NODE_SHIFT;
  *node &= (1 << KITE_NODE_SHIFT) - 1;
  return j;
}

/* A map's record `rec` has run its n iterations: it is freed, and they are
 * counted off the map's counter (slot `end_slot`) in the record above it.
 * Returns that record if they were the last, else -1. */
KITE_OUT_OF_LINE int kite_record_done(kite_ctx *c, int rec, int n, int end_slot) {
  int parent = KITE_LINK_PARENT(KITE_REC(c, rec)[0]);
  kite_free(c, rec);
  if (atomic_sub(KITE_COUNTER(KITE_REC(c, parent), end_slot), n) != n) return -1;
  KITE_FENCE();
  return parent;
}

/* The task a task value `fn` names (a negative id, or a closure on the heap
 * whose first slot is the id; *env: the closure, or 0); -1 after reporting
 * a value that was never given one (`null_name`: the string that names it,
 * or -1). */
KITE_OUT_OF_LINE_GPU int kite_value_task(kite_ctx *c, long fn, int site, int null_name, long *env) {
  *env = 0;
  if (fn < 0) return (int)(-fn - 1);
  if (fn == 0) {
    kite_error(c, KITE_ERR_NULL, site, null_name, 0);
    return -1;
  }
  *env = fn;
  return (int)c->heap[fn];
}
