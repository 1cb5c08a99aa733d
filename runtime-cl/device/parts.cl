/* A program in parts (KITE_SPLIT): kitec splits a large program's tasks
 * into parts, each recursive cycle of calls whole, and kite-run builds one
 * program per part (-DKITE_PART=k), whose kite_uber runs only that part's
 * blocks. Device compilers take time superlinear in the size of a kernel
 * and everything it calls, so K kernels of a bounded size build in time
 * linear in the program (docs/design.md, "Build time").
 *
 * The parts run in turns, one launch at a time, over the same buffers.
 * What a launch cannot run waits in the parked list (`parked`, kite_uber's
 * tenth argument: pairs of the entry and its part):
 * - an entry whose code is another part's (a call of another part's task,
 *   or its continuation queued by a signal): kite_block's default;
 * - a task that finished and whose caller's node is another part's: its
 *   record is kept with its result in slot 1, and parked as the entry
 *   (KITE_CODE_FINISH, rec), which that part's launch finishes
 *   (kite_finish_at, below).
 * A launch ends when it has parked something and every worker has found
 * no work (ctl[KITE_CTL_IDLE] counts them), or one has found none for
 * long: kite_parts_idle sets YIELD and KITE_CTL_PART_IDLE. kite-run then
 * moves the parked entries of the part it launches next to the front of
 * the list and says how many (ctl[KITE_CTL_PARKED_TAKE]); that launch's
 * workers queue them (kite_take_parked, below). Leaving early is
 * safe, as for maps and prints: what a worker holds stays in its deque,
 * and the next part's workers park whatever is not theirs.
 * Progress: a part is launched only when entries of it are parked, and it
 * runs at least those. */

#if KITE_SPLIT
/* Entry `entry` waits for part `part`'s launch. The list holds every entry
 * parked and not yet taken, at most one per record and code; a full list
 * is reported as a full deque would be. */
void kite_park(kite_ctx *c, long entry, int part) {
  int k = atomic_inc(&c->ctl[KITE_CTL_PARKED]);
  if (k >= c->parked_cap) {
    atomic_dec(&c->ctl[KITE_CTL_PARKED]);
    kite_error(c, KITE_ERR_QUEUE, -1, c->parked_cap, 0);
    return;
  }
  c->parked[2 * k] = entry;
  c->parked[2 * k + 1] = part;
}

/* kite_block's default: a code that is not this part's. */
void kite_block_foreign(kite_ctx *c, int rec, int code) {
  if (code == KITE_CODE_FINISH) {
    kite_finish(c, rec, 0);
    return;
  }
  kite_park(c, KITE_ENTRY(code, rec), kite_part_of_code(code));
}

/* The parked entries that are this part's, [0, ctl[KITE_CTL_PARKED_TAKE]):
 * a wide worker queues entries w, w + workers, ... when the launch starts
 * (every one runs at once); a narrow one takes the next share of those
 * that no worker has taken (ctl[KITE_CTL_PARKED_NEXT]) when it starts and
 * whenever it runs dry, since on a CPU more workers than compute units run
 * one after the other and the first must not wait for the others' shares.
 * Returns the entries it queued. */
int kite_take_parked(kite_ctx *c) {
  int n = c->ctl[KITE_CTL_PARKED_TAKE];
#if KITE_WIDE
  for (int i = c->worker; i < n; i += c->num_workers) kite_push(c, c->parked[2 * i], -1);
  if (c->worker == 0) c->ctl[KITE_CTL_PARKED_NEXT] = n; /* every worker takes its own */
  return 0;
#else
  if (c->ctl[KITE_CTL_PARKED_NEXT] >= n) return 0;
  int share = (n + c->num_workers - 1) / c->num_workers;
  int first = atomic_add(&c->ctl[KITE_CTL_PARKED_NEXT], share);
  int end = min(first + share, n);
  for (int i = first; i < end; ++i) kite_push(c, c->parked[2 * i], -1);
  return max(end - first, 0);
#endif
}

/* A worker that found no work `quiet` rounds in a row: leave when another
 * part has work waiting and every worker has found none, or this one has
 * found none for KITE_PARTS_QUIET rounds (then the others have likely run
 * dry too, or some never started: a CPU runs more workers than compute
 * units one after the other, and they would wait for each other). */
#define KITE_PARTS_QUIET 1024
void kite_parts_idle(kite_ctx *c, int quiet) {
  if (c->ctl[KITE_CTL_PARKED] > c->ctl[KITE_CTL_PARKED_TAKE] &&
      (c->ctl[KITE_CTL_IDLE] >= c->num_workers || quiet >= KITE_PARTS_QUIET) &&
      !c->ctl[KITE_CTL_PART_IDLE]) {
    atomic_xchg(&c->ctl[KITE_CTL_PART_IDLE], 1);
    atomic_xchg(&c->ctl[KITE_CTL_YIELD], 1);
  }
}
#endif
