/* Sequential forms (ir/fast_clones.h): whether a call runs its callee's
 * sequential form where it stands (kite_fast, which kitec emits) instead of
 * becoming a task, and when a long run of one stops.
 *
 * The rule. A task is worth making only for a worker that may take it:
 * while this worker's deque holds KITE_FAST_SLACK entries or more, idle
 * workers have those to steal (the oldest, nearest the root: the largest),
 * and a call made now would only be run later by this worker at a task's
 * cost. So such a call runs its sequential form; with fewer entries it
 * becomes a task, whose own calls are then queued. Alone (one worker)
 * every call runs its sequential form.
 *
 * The worst case. A sequential form runs to its end, and the work under it
 * is no longer split. So every KITE_FAST_CHECK calls it looks whether
 * another worker found no work (ctl[IDLE]) while this one's deque is empty;
 * then it stops, and the call becomes a task after all, whose calls go to
 * the deque. What it did is lost (it writes nothing but its own stack): at
 * most one form's work per worker each time others run dry, against the
 * cost of a task at every call.
 *
 * A wide worker (a GPU's warp) asks whether its local queue and global
 * deque held KITE_FAST_WIDE_SLACK entries when the round started (lane 0
 * looks, kite_worker::fast_ok): then every lane that
 * calls runs the form, side by side, as a hand-written kernel's lanes each
 * walk a subtree on a stack of their own. A GPU has thousands of workers,
 * some idle nearly all the time, so there a form stops at its first look
 * if any is idle: it costs at most KITE_FAST_CHECK + 1 calls more than the
 * task. A wide worker runs no form of a task that reads fields or
 * elements (cps::Task::fast_reads): each lane would chase its own pointers
 * through memory one load at a time, where as tasks the loads of many
 * lanes overlap (tree sum 22 on an H100: 12 ms as tasks, 20 with forms);
 * nor one that makes heap values (fast_allocates: tree sum's build, 9.6 s
 * with every call a form on its lane, 13.6 ms as tasks).
 * The workers count themselves idle (ctl[IDLE]) only where some worker may
 * run a form (KITE_HAS_FAST, config.cl).
 *
 * Kept forms (KITE_KEEP: under --fast-calls stop, and on narrow workers
 * of a run of at most two under the rule where some kept frame holds
 * arrays and a map whose iterations it may start: config.cl,
 * docs/design.md, "Kept forms"). Where kitec keeps a task's frames (whose
 * frame fits a record, with its arrays), a stop under --fast-calls stop
 * starts the later calls of the oldest frame that do not need what its
 * running call returns (or a map's later iterations) as tasks, in a record
 * the frame joins where it reaches them, and the form goes on
 * (print_fast.cpp, kite_kept_promote); a frame that reaches one still
 * under way and not to be taken back (kite_unpush), or a full stack, keeps
 * every frame in a record, and a record goes on as a task (KITE_CODE_KEPT)
 * when every call it waits for has returned. Under the rule a stop loses
 * the work of a form that has kept nothing, and keeps every frame of one
 * that went on from a kept frame, starting their calls ahead. A stop where
 * some frame is not kept loses the form's work as above.
 *
 * kite-run --fast-calls (KITE_FAST): 0, never: every call is a task; 1, the
 * rule (the default); 2, always, for tests: every call of a task that has
 * a sequential form runs it, unless its stack is full; 3, stop, for tests:
 * as always, and every form stops at every fourth call (where frames are
 * kept, each stop keeps them). */
/* (KITE_FAST's default, 1, is set in config.cl: KITE_KEEP reads it.) */
#define KITE_FAST_SLACK 2
/* A wide worker's: on an H100, fib(40) took 10.9-11.8 ms with 2 against
 * 12.3-13.9 with 16 (half a round's entries, the setting before) in five
 * calls; 10.8-12.0 with 1, 11.3-12.0 with 4, 11.9-12.9 with 8, and 28-29
 * with none (too few tasks: most workers idle;
 * bench/results/nvidia-h100/work-first.md). */
#ifndef KITE_FAST_WIDE_SLACK
#define KITE_FAST_WIDE_SLACK 2
#endif
/* Longs of a sequential form's stack, in private memory: a frame is two
 * longs and one per variable of its task (fib's: 5). A call that would
 * not fit becomes a task. A GPU's private memory is its local memory, a
 * slice per lane of every resident warp: smaller there. */
#ifndef KITE_FAST_WORDS
#if KITE_WIDE
#define KITE_FAST_WORDS 256
#elif KITE_KEEP
/* Where a full stack keeps its frames (UTS under the rule, two workers):
 * half as many keeps. On the 2-core EPYC, UTS 4000 8 124950 with two
 * workers took 73.3-77.0 ms with 2048 longs, 74.1-75.7 with 1536, 76.4-79.6
 * with 1024 and 77.4-80.6 with 3072; one worker 134-136, 135-136, 137-140
 * and 133-134. */
#define KITE_FAST_WORDS 2048
#else
#define KITE_FAST_WORDS 1024
#endif
#endif
/* Calls between two looks at whether to stop, less one (a mask). On a GPU
 * the first look nearly always stops the form (measured on an H100,
 * fib(40): 65 ms with every call a task; 53, 30, 30 and 40 ms with forms
 * of at most 1024, 256, 128 and 64 calls; 26 ms with 256 and a form
 * started while the worker holds half a round's entries instead of two
 * rounds'; 30 ms when the first look always stops it). */
#ifndef KITE_FAST_CHECK
#if KITE_FAST == 3
#define KITE_FAST_CHECK 3
#elif KITE_WIDE
#define KITE_FAST_CHECK 255
#else
#define KITE_FAST_CHECK 1023
#endif
#endif
/* The same, in a form that adds up its calls (print_fast.cpp,
 * fast_sum_form), whose calls cost a fraction of a frame's: on an H100,
 * fib(40) took 19.1-20.1 ms looking every 256 of them, 13.3-13.7 every
 * 1024, 23.0-23.6 every 4096, 18.7-19.3 every 64. */
#ifndef KITE_SUM_CHECK
#if KITE_FAST == 3 || !KITE_WIDE
#define KITE_SUM_CHECK KITE_FAST_CHECK
#else
#define KITE_SUM_CHECK 1023
#endif
#endif
/* Calls of this worker that become tasks after a sequential form found its
 * stack full: a chain of calls deeper than the stack then costs a stack's
 * worth of lost calls per this many tasks, not per task. */
#define KITE_FAST_SKIP 1024

#if KITE_HAS_FAST /* called by the generated code only where some task has a form */
/* Counts why calls became tasks, on narrow workers (kite_ctx::n_declined). */
#if KITE_WIDE
#define KITE_NARROW_COUNT(x)
#else
#define KITE_NARROW_COUNT(x) (x)
#endif
#if !KITE_WIDE
/* Entries this narrow worker has for thieves, on its deque. */
int kite_spare(kite_ctx *c) {
  volatile __global uint *dc = KITE_DEQUE_CTL(c, c->worker);
  return KITE_SPAN(dc[KITE_DEQUE_BOTTOM], dc[KITE_DEQUE_TOP]);
}
#endif

/* Whether a call runs its callee's form now; `reads`: 1 where the form
 * reads fields or elements, makes heap values or loops over a range, 2
 * where it also writes elements of arrays it did not make, which only a
 * form that keeps its frames may do (a constant at each call). */
int kite_fast_now(kite_ctx *c, int reads) {
#if KITE_FAST == 0 || !KITE_KEEP
  if (reads == 2) return 0;
#endif
#if KITE_FAST == 0
  return 0;
#else
#if KITE_WIDE && KITE_FAST == 1
  if (reads) return 0;
#endif
  if (c->fast_skip > 0) {
    c->fast_skip -= 1;
    KITE_NARROW_COUNT(c->n_skipped += 1);
    return 0;
  }
  if (KITE_FAST >= 2 || c->num_workers == 1) return 1;
#if KITE_WIDE_FORMS
  return c->w->fast_ok;
#elif KITE_WIDE
  return 0;
#else
  const int now = kite_spare(c) >= KITE_FAST_SLACK;
  c->n_declined += !now;
  return now;
#endif
#endif
}

/* A sequential form found its stack full: it stops, and so do the next
 * KITE_FAST_SKIP calls' forms before they start. */
long kite_fast_full(kite_ctx *c) {
  c->fast_skip = KITE_FAST_SKIP;
  KITE_NARROW_COUNT(c->n_full += 1);
  return 0L;
}

/* A kept frame's record (print_fast.cpp, kept_tail): its link, its
 * counter (the calls it waits for), the mask of its calls started ahead
 * whose results it has not yet used, the result of the call it was making
 * (slot 0), the results of calls started ahead (slot 1 + index), then the
 * frame. A call that returns to it signals node KITE_NODE_KEPT, which no
 * node of the program is, with its slot above KITE_NODE_SHIFT. */
#define KITE_KEPT_COUNTER 1
#define KITE_KEPT_MASK 2
#define KITE_KEPT_RESULT 3
#define KITE_KEPT_FRAME (4 + KITE_KEPT_SLOTS)
#define KITE_NODE_KEPT ((1 << KITE_NODE_SHIFT) - 1)
#define KITE_KEPT_LINK(x, slot) KITE_LINK(x, KITE_NODE_KEPT | ((slot) << KITE_NODE_SHIFT))
#define KITE_KEPT_NODE(node) (KITE_KEEP && ((node) & ((1 << KITE_NODE_SHIFT) - 1)) == KITE_NODE_KEPT)
/* In a program in parts, a kept record's frames go on only in the part
 * that kept them, whose kite_fast holds their tasks' forms: the part is
 * in the high half of the counter's long (kite_block parks the record's
 * entry elsewhere). */
#define KITE_KEPT_PART(X) (((volatile __global int *)((X) + KITE_KEPT_COUNTER))[1])
#if KITE_SPLIT
#define KITE_KEPT_MADE(X) (KITE_KEPT_PART(X) = KITE_PART)
#else
#define KITE_KEPT_MADE(X) ((void)0)
#endif

/* The place on a sequential form's stack of element i of the local array
 * at `base`, of length n (print_fast.cpp's fast_new): checked, as
 * kite_elem checks the heap's; a bad index is reported, and the place is
 * then the stack's spare long past its end. */
int kite_fast_at(kite_ctx *c, int base, int n, int i, int site) {
  if (KITE_UNLIKELY((uint)i >= (uint)n)) {
    kite_error(c, KITE_ERR_INDEX, site, i, n);
    return KITE_FAST_WORDS;
  }
  return base + 1 + i;
}

int kite_fast_stop(kite_ctx *c) {
  if (c->ctl[KITE_CTL_DONE] | c->ctl[KITE_CTL_STOP]) return 1;
#if KITE_FAST == 2
  return 0;
#elif KITE_FAST == 3
  return 1;
#else
#if KITE_WIDE
  return c->ctl[KITE_CTL_IDLE] > 0;
#else
  const int stop = c->ctl[KITE_CTL_IDLE] > 0 && kite_spare(c) <= 0;
  c->n_stops += stop;
  return stop;
#endif
#endif
}
#endif
#ifndef KITE_KEPT_NODE /* no forms: no kept records */
#define KITE_KEPT_NODE(node) 0
#endif
