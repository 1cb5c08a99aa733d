/* The Kite scheduler: persistent workers over work-stealing deques.
 *
 * kitec pastes this file into every program, after kite_abi.h and before the
 * generated code, which supplies kite_block (the uber-kernel's switch over
 * block codes), kite_signal (what a finished node or block tells its record)
 * and kite_start_main.
 *
 * Workers. The host launches exactly as many work-groups as can be resident
 * at once (on PoCL: the compute units; on a GPU: measured by KITE_MODE_PROBE),
 * one worker each, so every worker makes progress on its own. A narrow
 * worker (KITE_LANES 1, the CPU's) is one work-item and is described here;
 * a wide one (a warp, the GPU's) runs up to KITE_LANES blocks at a time in
 * rounds, over the same deques: see "Wide workers" below.
 *
 * Work. An entry of a deque is a long: (block code << 32) | record index. A
 * record is KITE_RECORD_WORDS longs of the pool: a task's parameters, locals,
 * join counters, its result slot and the link to the node of its caller that
 * its result finishes. The worker keeps one entry in hand (`next`): the first
 * task a block spawns or the first continuation a finished task makes ready
 * runs next on the same worker without touching the deque, so a chain of
 * calls runs depth-first; everything else is pushed at the bottom of the
 * worker's deque, where idle workers steal it from the top (a random victim
 * each try; on CPUs an idle worker backs off between tries, see
 * KITE_MAX_BACKOFF).
 *
 * The deque is Chase and Lev's: the owner pushes and pops at the bottom
 * without atomics except when it takes the last entry; thieves take the top
 * with a compare-and-swap. Indices grow without bound and wrap at the
 * capacity, a power of two; a full deque is a run-time error, not a resize.
 * OpenCL 1.2 has no acquire/release, so shared state is `volatile __global`
 * and the store-to-load orderings the algorithm needs are KITE_FENCE plus
 * atomics, which are device-coherent on both PoCL and NVIDIA.
 *
 * Records are recycled through a private free list per worker, most recent
 * first, and one spare chunk; a worker that frees another whole chunk gives
 * the older spare back to a global lock-free stack (tagged against ABA), and
 * a worker with none takes a chunk from it or carves a new one from the
 * pool. Memory therefore stays bounded by the records alive at once, not by
 * the number of tasks run. A lane of a wide worker keeps its free records as
 * a stack of ids in local memory instead, and passes whole chunks (a record
 * that lists the ids of the others) to the other lanes of its worker; lane 0
 * trades them with the global stacks (see kite_alloc).
 *
 * Termination. A task finishes only after every task it started, so the run
 * is over exactly when main's record finishes: that worker sets ctl[DONE].
 * No counter is touched per task. Errors set DONE too. When the print buffer
 * passes its limit, ctl[YIELD] makes every worker leave at a block boundary,
 * keeping its deque; the host drains the buffer and launches again. The host
 * may set ctl[STOP] while a launch runs (kite-run --timeout): every worker
 * then leaves at its next check, as for YIELD, and the run is over.
 */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Kite's a * b + c rounds twice on every device, as the reference
 * interpreter does: no fused multiply-add unless a program asks for one. */
#pragma OPENCL FP_CONTRACT OFF

/* A fence that orders this worker's global loads and stores for every other
 * worker of the device. OpenCL 1.2's mem_fence is that on PoCL; on NVIDIA it
 * is only as wide as the work-group, so there it is PTX's: KITE_FENCE is an
 * acquire-release fence (a release before a store or atomic that hands data
 * over, an acquire after the load or atomic that receives it), KITE_FENCE_SC
 * also orders a store before a later load (Chase-Lev's pop needs that),
 * which costs more. */
#if defined(KITE_NVIDIA)
#define KITE_FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
#define KITE_FENCE_SC() asm volatile("membar.gl;" ::: "memory")
#else
#define KITE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define KITE_FENCE_SC() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
/* The fence on either side of a signal's shared decrement (kite_dec with
 * `own` false), the release of this lane's writes before it or the acquire
 * of the others' after it. On NVIDIA kite_dec's atomic is itself
 * acquire-release (PTX atom.acq_rel: one MEMBAR and one L1 invalidation,
 * where a fence on each side cost two of each; fib(40) 263 -> 207 ms on an
 * H200), so these are empty there. kitec emits KITE_DEC_FENCE only next to a
 * kite_dec, or where the next hand-over is a kite_dec or a queue's own
 * (docs/design.md, "Device-wide ordering"). */
#if defined(KITE_NVIDIA)
#define KITE_DEC_FENCE(own)
#else
#define KITE_DEC_FENCE(own) if (!(own)) KITE_FENCE()
#endif

/* Lanes per worker: 1 on a CPU, the SIMD width on a GPU (kite-run passes
 * -DKITE_LANES). A worker of W lanes is a work-group of W work-items; see
 * "Wide workers" below. */
#ifndef KITE_LANES
#define KITE_LANES 1
#endif
#if KITE_LANES > 1
#define KITE_WIDE 1
#else
#define KITE_WIDE 0
#endif
/* A direct map's count, set before its calls are queued, must be seen by
 * whoever runs them before their decrements. A narrow worker fences after
 * setting it. A wide worker's queue orders it already: the next round's
 * lanes run what a lane queued after the round's barrier, and an entry
 * that leaves for the global deque is published after a fence (lane 0's,
 * or kite_written's in the lane that queued it), so the fence is empty
 * there (UTS on an H200: 71.6 -> 70.5 ms, N-queens(14) 29.6 -> 28.9). */
#if KITE_WIDE
#define KITE_COUNT_FENCE()
#else
#define KITE_COUNT_FENCE() KITE_FENCE()
#endif
/* Leaf answers (kitec answers a call at its site when the callee's guard
 * says it would only return what its arguments compute): in a direct map's
 * loop, narrow workers only. A wide worker runs that loop on one lane,
 * which would then test each iteration's guard in turn, where the calls
 * would have run on as many lanes the round after: UTS on an H200 took 134
 * ms answered against 98, while on 2 PoCL cores it takes 34 against 95. */
#define KITE_ANSWER_IN_MAPS (!KITE_WIDE)
/* A task that starts with a `case` answers where the union holds the field
 * whose branch only returns: the caller reads the union's tag (and value).
 * Narrow workers only: on a wide worker that read is one more dependent
 * trip to memory in the calling lane, where the callees' lanes would have
 * made it side by side the round after (tree sum 22 on an H100: 12.0 ms
 * answered against 11.5; on 2 PoCL cores 1024 against 1264). */
#define KITE_ANSWER_BY_CASE (!KITE_WIDE)
/* Bad indices inside loop nests are noted and reported when the nest ends
 * (kite_loop_elem_n below) with wide workers, in programs whose loops check
 * an element at all (kitec defines KITE_LOOP_CHECKS); the others keep a
 * context and an error path without them. */
#ifndef KITE_LOOP_CHECKS
#define KITE_LOOP_CHECKS 0
#endif
#define KITE_LOOP_FAULTS (KITE_WIDE && KITE_LOOP_CHECKS)
/* Large programs (more blocks than kitec keeps in one function: kitec
 * defines KITE_LARGE) call the runtime's larger helpers (KITE_OUT_OF_LINE:
 * allocation, queueing, signals, joins, errors) instead of having them
 * inlined at each of their hundreds of sites, on GPUs (PoCL compiles the
 * block functions as they are). NVIDIA's compiler spends most of its build
 * in ptxas, superlinear in a function's size: inlined, a program of ten
 * ordinary tasks made 2.2 MB of PTX (62 000 lines in one function) and
 * built in 15 s; called, 0.6 MB in 3 s (docs/design.md, "Build time").
 * Smaller programs keep them inline: out of line, fib(40) ran 40% slower
 * on an H100, N-queens(14) 50%, UTS 70%. */
#ifndef KITE_LARGE
#define KITE_LARGE 0
#endif
#if KITE_LARGE && !defined(KITE_CPU)
#define KITE_OUT_OF_LINE __attribute__((noinline))
#else
#define KITE_OUT_OF_LINE
#endif
/* Lane stacks (kite-run --lane-blocks N, KITE_LANE_BLOCKS): a lane of a
 * wide worker runs up to N blocks a round, the first from the round's
 * chunk and the rest, depth first, from a stack of its own: what its
 * blocks make ready goes on its stack (KITE_STACK entries, private memory)
 * rather than into the worker's queues, and what is left there at the end
 * of its turn goes to the local queue, oldest first. A record made by a
 * call on such a lane is *private* (KITE_PRIV in its link) until a block of
 * it, or of a record below it, is queued where another lane may run it
 * (kite_escape): until then only this lane touches its counters, so its
 * signals need no atomic and no fence (KITE_OWN), as a task's entry block
 * alone with its record needs none (`own`). 1 (the default): one block per
 * lane and round, no stacks. See "Lane stacks" in docs/design.md. */
#ifndef KITE_LANE_BLOCKS
#define KITE_LANE_BLOCKS 1
#endif
#define KITE_STACKS (KITE_WIDE && KITE_LANE_BLOCKS > 1)
#define KITE_STACK 64
/* Going on (kite-run --hand-blocks N, KITE_HAND_BLOCKS): a lane of a wide
 * worker runs up to N blocks a round, the first from the round's chunk and
 * each of the others the callee of a tail call that its previous block made
 * (kite_tail_at: the same record) or, when the worker took at most one
 * entry this round, a continuation that its signal made ready (kite_ready),
 * kept in hand (`next`) instead of queued. Everything else a block makes
 * ready is queued as before, so that the round after spreads it over the
 * lanes: new calls, and continuations while the worker has work (then,
 * their chains up a tree of calls made every lane's round longer: fib(40)
 * on an H200 took 69.6 ms with them against 56.4 without). A tree whose
 * every level passes through a tail call (UTS's node calling children) then
 * costs one round a level on the way down, not two, and the lone chain of
 * continuations at the end of a deep tree's run goes up N levels a round.
 * What is in hand when the turn ends goes to the local queue. Not with lane
 * stacks, which keep everything a lane makes ready. See "Going on" in
 * docs/design.md. */
#ifndef KITE_HAND_BLOCKS
#define KITE_HAND_BLOCKS 1
#endif
#define KITE_HAND (KITE_WIDE && !KITE_STACKS && KITE_HAND_BLOCKS > 1)
/* A lane's turn of several blocks ends early at a print or an error. */
#define KITE_TURNS (KITE_STACKS || KITE_HAND)
/* Entries in a wide worker's local-memory queue, a power of two of at least
 * 2 * KITE_LANES (kite-run --local-queue). */
#ifndef KITE_LOCAL_QUEUE
#define KITE_LOCAL_QUEUE (64 * KITE_LANES)
#endif

/* Records per chunk of the free lists. Every lane keeps up to two chunks
 * of free records, so a GPU's many lanes take smaller ones. A wide
 * worker's chunk is its first record, which holds the ids of the others
 * from slot 2 on, two to a slot (slot 1 links it on a global stack): at
 * most 16 records, fewer where records are small. */
#if KITE_WIDE
#define KITE_CHUNK_FIT (1 + 2 * (KITE_RECORD_STRIDE - 2))
#define KITE_CHUNK (KITE_CHUNK_FIT < 16 ? KITE_CHUNK_FIT : 16)
#define KITE_FREE_CAP (2 * KITE_CHUNK)
#else
#define KITE_CHUNK 32
#endif

/* Heap blocks of fewer longs than this that a task frees (kitec frees the
 * arrays a task makes and keeps to itself when it ends) are kept on a
 * per-worker list by size and reused by the next allocation of that size. */
#define KITE_HEAP_CLASSES 64

/* A map whose body calls no task gives each record up to this many
 * iterations to run one after another. */
#define KITE_MAP_CHUNK 64
/* A reduction (a for loop kitec runs in parallel chunks, ir/reductions.h)
 * gives each record up to this many iterations, and runs a loop of no more
 * in order where it stands. A chunk ends in two atomics on the task's
 * record (its fold and the count of iterations done) after a trip through
 * the deque: on 2 PoCL workers, filling and summing 2*10^7 ints took 243,
 * 181 and 170 ms with chunks of 64, 512 and 4096. */
#if defined(KITE_CPU)
#define KITE_REDUCE_CHUNK 4096
#else
#define KITE_REDUCE_CHUNK 64
#endif
/* A scan (a reduction that also writes its elements) runs in chunks of
 * this many iterations, twice: first their totals, then, after one lane
 * has turned the totals into prefixes in order, their elements. That lane
 * works alone, so the chunks are long: BFS's 4*10^6 degrees make about
 * 4000 totals on a GPU. */
#if defined(KITE_CPU)
#define KITE_SCAN_CHUNK 4096
#else
#define KITE_SCAN_CHUNK 1024
#endif
/* One whose body calls tasks and is not direct (below): up to this many,
 * each iteration's graph finishing before the next starts. On a CPU that
 * saves a record, a split and a deque trip per iteration that calls
 * nothing; a GPU needs every iteration it can get in parallel. */
#if defined(KITE_CPU)
#define KITE_MAP_CALL_CHUNK 4
#else
#define KITE_MAP_CALL_CHUNK 1
#endif

/* Maps as kernels of their own: kite-run sets KITE_OFFLOAD_MIN (--map-kernel-min)
 * to the fewest iterations of a map that it runs as its own kernel; 0:
 * none. The workers leave for the host to launch the waiting maps' kernels
 * as soon as they hold this many iterations in all, or when a worker has
 * found no work in KITE_OFFLOAD_QUIET rounds (narrow workers: steal
 * attempts) in a row during which no map was added: the other workers have
 * likely made ready every map they are going to, so the host launches them
 * all at once. */
#ifndef KITE_OFFLOAD_MIN
#define KITE_OFFLOAD_MIN 0
#endif
/* (About four times the work-items an H200 holds at once.) */
#define KITE_OFFLOAD_BATCH (1L << 20)
#define KITE_OFFLOAD_QUIET 16

/* Idle workers wait up to this many reads between steal attempts. On a CPU
 * that keeps the few cores' caches calm (fib(32) on 2 PoCL workers: 185 ->
 * 110 ms); on a GPU a read costs a microsecond and thousands of workers look
 * for little work, so they try again at once (fib(30) on an H200: 32 ms with
 * backoff, 20 without). */
#if defined(KITE_CPU)
#define KITE_MAX_BACKOFF 4096
#else
#define KITE_MAX_BACKOFF 0
#endif
/* A direct map (one whose calls' results go straight to its elements) runs
 * up to this many iterations per record, spawning their calls as it goes;
 * the calls' links carry their iteration's place in the chunk above the node
 * (KITE_NODE_SHIFT + 6 bits < 31). The record's counter starts at
 * KITE_SPAWN_COUNT, more than a chunk can spawn. The calls are queued, so
 * other workers take them while the chunk goes on; on an H200, chunks of
 * 2, 8, 16 and 64 gave UTS the same times and N-queens(12) 30, 20, 18 and
 * 18 ms. */
#define KITE_MAP_SPAWN_CHUNK 64
#define KITE_SPAWN_COUNT (1 << 30)
/* A branch almost never taken (PoCL's clang knows the hint). */
#if defined(KITE_CPU)
#define KITE_UNLIKELY(x) __builtin_expect((x), 0)
#else
#define KITE_UNLIKELY(x) (x)
#endif
#define KITE_NONE (-1L)
/* Deque and local-ring indices are unsigned and wrap around (a worker may
 * queue more than 2^32 entries in a run): two of them are compared by
 * their signed distance, never directly. */
#define KITE_SPAN(a, b) ((int)((uint)(a) - (uint)(b)))

/* Records and the heap: `volatile` on GPUs, where it keeps loads out of the
 * non-coherent L1; plain on the CPU, where caches are coherent and the
 * compiler may then keep a block's variables in registers. Either way every
 * hand-over between workers goes through an atomic and KITE_FENCE. */
#if defined(KITE_CPU)
#define KITE_DATA
#else
#define KITE_DATA volatile
#endif

typedef KITE_DATA __global long *kite_rec;

#if KITE_WIDE
/* The local queue is split by block code into KITE_CLASSES rings, so that a
 * round can take entries that run the same code (see "Wide workers"). */
#define KITE_CLASSES 4
#define KITE_CLASS_CAP (KITE_LOCAL_QUEUE / KITE_CLASSES)
#define KITE_CLASS_MASK (KITE_CLASS_CAP - 1)
#define KITE_LOCAL_CHUNKS 32
/* Lanes of an idle worker that each look at a random victim's deque in a
 * round; the fullest is robbed next round. More lanes find work sooner but
 * flood the memory system when thousands of workers are idle. */
#define KITE_PROBES 4
/* A wide worker's state, in local memory; lane 0 writes it between rounds
 * and the lanes read it during one (the round's protocol is in "Wide
 * workers" below). */
typedef struct {
  long lq[KITE_CLASSES][KITE_CLASS_CAP]; /* the local queue: ring k holds [head[k], tail[k]) */
  long chunk[KITE_LANES]; /* this round's entries, when taken from a deque */
  /* Or, when taken from the rings (nseg > 0): lanes [seg_end[s - 1],
   * seg_end[s]) take ring seg_k[s]'s entries downwards from index
   * seg_from[s] - 1, newest first, each lane its own. */
  int nseg;
  int seg_k[KITE_CLASSES], seg_end[KITE_CLASSES];
  uint seg_from[KITE_CLASSES];
  int sizes[KITE_LANES];  /* steal probes: entries each lane's victim had */
  int victims[KITE_LANES]; /* and which worker that was */
  uint head[KITE_CLASSES], tail[KITE_CLASSES];
  int room[KITE_CLASSES];    /* run phase: entries the lanes may add to each ring */
  int spawned[KITE_CLASSES]; /* run phase: entries the lanes queued for each ring
                                (the first `room` went to it, the rest to the
                                global deque) */
  /* Run phase: the entries placed past the global deque's bottom, shared
   * ones first: (reserved << 16) | written, one word so that the lane that
   * writes the last reserved entry knows it and publishes them all. */
  int ov;
  ulong round_start; /* NVIDIA: when this round's blocks started (%clock64) */
  int n;        /* entries this round, in chunk[] */
  uint bottom;   /* this worker's global deque's bottom: only this worker moves it */
  uint top_seen; /* its top as last read: stale only makes the deque look fuller */
  uint top_next; /* read by lane 0 during a round, for the next schedule */
  int flags_next;
  /* Read phase: the lanes copy share_n entries of ring share_class, from
   * index share_from, to the global deque. */
  int share_class;
  uint share_from;
  int share_n;
  int probe;    /* run phase: the first KITE_PROBES lanes look for a victim */
  int idle;     /* rounds in a row that found no work */
  int last;     /* the ring the last round took its entries from */
  int stop;
  /* Chunks of free records the lanes pass to one another (-1: empty slot):
   * a lane that frees more than it allocates gives chunks here first, one
   * short of records takes them from here first, and only the imbalance of
   * the whole worker goes through the global stack. */
  int chunks[KITE_LOCAL_CHUNKS];
  int stocked; /* chunks[] that hold a chunk */
  /* Each lane's free records, a stack of ids (free_count of them, lane l's
   * i-th at fl[i * KITE_LANES + l], so that lanes at the same depth use
   * different banks): an allocation is a read of local memory, and the
   * allocations of one block do not wait for each other. */
  int fl[KITE_FREE_CAP * KITE_LANES];
  uint round;
  uint codes[4]; /* --stats: the block codes run this round, as a bit set */
  long stat[KITE_STATS_WORDS]; /* lane 0's counts, added to stats[] when the launch ends */
} kite_worker;
#endif

typedef struct {
  KITE_DATA __global long *pool;
  volatile __global long *deques;
  volatile __global uint *deque_ctl;
  volatile __global long *printbuf;
  volatile __global int *ctl;
  volatile __global long *ctl64;
  KITE_DATA __global long *heap;
  long heap_cur, heap_end; /* this worker's heap chunk: [cur, end) */
#if KITE_WIDE
  /* Freed blocks of each size, in longs: a table in the heap, made when the
   * lane first frees one (null until then), so that the many lanes' private
   * state stays small. */
  KITE_DATA __global long *heap_free;
#else
  long heap_free[KITE_HEAP_CLASSES]; /* freed blocks of each size, in longs */
#endif
  int worker, num_workers, num_records, deque_mask, print_cap;
  long next;      /* the entry in hand, or KITE_NONE */
  int free_head;  /* private free list of records, linked through slot 0 */
  int free_next;  /* the record after free_head (its slot 0), read ahead */
  int free_count; /* its length, up to KITE_CHUNK */
  int spare;      /* a full chunk of free records, the next most recent; -1: none */
  uint rng;
  long n_tasks, n_conts, n_answered, n_steal_tries, n_steals, n_chunk_ops;
  /* Tracing (kite-run --trace): the span being run, and where spans go. */
  __global long *trace;  /* this worker's spans; null: no trace */
  int trace_cap;
  long span_start, span_blocks, span_stolen;
  int lane;          /* this work-item's place in its worker */
  /* Idle: the iterations of waiting maps when last looked, and the idle
   * rounds since they changed (lane 0 of a wide worker). */
  long offload_seen;
  int offload_quiet;
  /* A bad index met inside a loop nest that calls no task, reported when
   * the nest ends (kite_loop_faults): its site (-1: none), index, length. */
#if KITE_LOOP_FAULTS
  int fault_site, fault_index;
  long fault_length;
#endif
#if KITE_WIDE
  __local kite_worker *w;
#endif
#if KITE_STACKS
  long *stack;     /* this lane's stack of ready blocks, KITE_STACK entries (an array of
                      kite_uber's, so that the context's fields can stay in registers) */
  int sp;          /* entries on it */
  long n_stacked;  /* blocks run from it */
#endif
#if KITE_TURNS
  int turn_stop;   /* 1: run no more blocks this turn (a print, an error) */
#endif
#if KITE_HAND
  long n_handed;   /* blocks run from `next` after the turn's first */
#endif
} kite_ctx;

/* Records lie KITE_RECORD_STRIDE longs apart: the artifact's KITE_RECORD_WORDS
 * rounded up by kite-run (--record-align) so that on a GPU no two records
 * share a cache line. */
#ifndef KITE_RECORD_STRIDE
#define KITE_RECORD_STRIDE KITE_RECORD_WORDS
#endif
#define KITE_REC(c, r) ((c)->pool + (long)(r) * KITE_RECORD_STRIDE)
#define KITE_ENTRY(code, rec) (((long)(code) << 32) | (long)(uint)(rec))
#define KITE_LINK(parent, node) (((long)(node) << 32) | (long)(uint)(parent))
/* A link's parent record and node; the bit above the node marks a private
 * record (KITE_STACKS). */
#define KITE_PRIV (1L << 62)
#define KITE_LINK_PARENT(link) ((int)((link) & 0xffffffffL))
#define KITE_LINK_NODE(link) ((int)(((link) >> 32) & 0x3fffffff))
#if KITE_STACKS
/* The link of a record that a call makes: private. */
#define KITE_CALL_LINK(parent, node) (KITE_LINK(parent, node) | KITE_PRIV)
/* Whether record r is private to this lane. */
#define KITE_OWN(c, r) ((KITE_REC(c, r)[0] & KITE_PRIV) != 0)
/* A block of a record whose signals took no fence (`own`) goes on this
 * lane's stack, or to a queue: the round's barrier orders what other lanes
 * of the worker see, and kite_push's fences what other workers see. */
#define KITE_READY_FENCE()
#else
#define KITE_CALL_LINK(parent, node) KITE_LINK(parent, node)
#define KITE_OWN(c, r) 0
#define KITE_READY_FENCE() KITE_FENCE()
#endif
/* Typed access to a record's slots. */
#define KITE_I(f, s) (*(KITE_DATA __global int *)((f) + (s)))
#define KITE_L(f, s) ((f)[s])
#define KITE_F(f, s) (*(KITE_DATA __global float *)((f) + (s)))
#define KITE_D(f, s) (*(KITE_DATA __global double *)((f) + (s)))
#define KITE_COUNTER(f, s) ((volatile __global int *)((f) + (s)))
/* Worker v's deque: its top and bottom, and its ring of entries. */
#define KITE_DEQUE_CTL(c, v) ((c)->deque_ctl + (v) * KITE_DEQUE_CTL_STRIDE)
#define KITE_DEQUE(c, v) ((c)->deques + (long)(v) * ((c)->deque_mask + 1))
/* Nonzero when the run is over or the workers must leave this launch. */
#define KITE_LEAVE(c) ((c)->ctl[KITE_CTL_DONE] | (c)->ctl[KITE_CTL_YIELD] | (c)->ctl[KITE_CTL_STOP])

/* The generated part of the program. kite_signal returns the record whose
 * task the signal finished, or -1. */
void kite_block(kite_ctx *c, int rec, int code);
KITE_OUT_OF_LINE int kite_signal(kite_ctx *c, int rec, int node, long bits, int graph, int *own);
void kite_start_main(kite_ctx *c);

/* ---- Errors --------------------------------------------------------------- */

KITE_OUT_OF_LINE void kite_error(kite_ctx *c, int kind, int site, long a, long b) {
#if KITE_LOOP_FAULTS
  if (c->fault_site >= 0) { /* a bad index came first */
    kind = KITE_ERR_INDEX;
    site = c->fault_site;
    a = c->fault_index;
    b = c->fault_length;
  }
#endif
  if (atomic_cmpxchg(&c->ctl[KITE_CTL_ERROR], 0, kind) == 0) {
    c->ctl[KITE_CTL_ERROR_SITE] = site;
    c->ctl64[KITE_CTL64_ERR_A] = a;
    c->ctl64[KITE_CTL64_ERR_B] = b;
  }
  KITE_FENCE();
  atomic_xchg(&c->ctl[KITE_CTL_DONE], 1);
#if KITE_TURNS
  c->turn_stop = 1;
#endif
}

int kite_div_i(kite_ctx *c, int a, int b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? (int)(0u - (uint)a) : a / b; /* INT_MIN / -1 wraps */
}
int kite_mod_i(kite_ctx *c, int a, int b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? 0 : a % b;
}
long kite_div_l(kite_ctx *c, long a, long b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? (long)(0ul - (ulong)a) : a / b;
}
long kite_mod_l(kite_ctx *c, long a, long b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? 0 : a % b;
}

/* int(x) and long(x) of a float or double: truncated, saturated, NaN -> 0.
 * OpenCL's saturating conversions say NaN gives 0, but NVIDIA's gives
 * INT_MIN for a double NaN; the test makes every device agree. */
int kite_int_of_float(float x) { return isnan(x) ? 0 : convert_int_sat_rtz(x); }
int kite_int_of_double(double x) { return isnan(x) ? 0 : convert_int_sat_rtz(x); }
long kite_long_of_float(float x) { return isnan(x) ? 0 : convert_long_sat_rtz(x); }
long kite_long_of_double(double x) { return isnan(x) ? 0 : convert_long_sat_rtz(x); }

/* |x|, wrapping: abs(INT_MIN) is INT_MIN. Not OpenCL's abs, whose unsigned
 * result PoCL computes as 0 for LONG_MIN. */
int kite_abs_i(int x) { return x < 0 ? as_int(0u - (uint)x) : x; }
long kite_abs_l(long x) { return x < 0 ? as_long(0ul - (ulong)x) : x; }

/* splitmix64's finaliser: a well-mixed 64-bit hash of a long. */
long kite_hash(long x) {
  ulong z = (ulong)x + 0x9e3779b97f4a7c15ul;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
  return (long)(z ^ (z >> 31));
}

/* ---- Records -------------------------------------------------------------- */

/* Pushes the chain of `count` free records starting at `first` (linked
 * through slot 0, ended by -1) onto the global stack of free chunks. */
void kite_give_chunk_to(kite_ctx *c, volatile __global long *head, int first) {
  for (;;) {
    long old = *head;
    KITE_REC(c, first)[1] = (long)((int)(old & 0xffffffffL) - 1);
    KITE_FENCE();
    long tag = (old >> 32) + 1;
    long desired = (tag << 32) | (long)(uint)(first + 1);
    if (atom_cmpxchg(head, old, desired) == old) return;
  }
}

/* A reduction's chunk folds its accumulators into the task's record, one
 * atomic read-modify-write each. The folds are associative and commutative
 * on wrapping integers, so the order in which chunks arrive changes no bit
 * of the result. */
#define KITE_FOLD(name, T, cas, value)                                   \
  void kite_fold_##name(volatile __global T *p, T v) {                   \
    T old = *p;                                                          \
    for (;;) {                                                           \
      T seen = cas(p, old, (value));                                     \
      if (seen == old) return;                                           \
      old = seen;                                                        \
    }                                                                    \
  }
void kite_fold_add_i(volatile __global int *p, int v) { atomic_add(p, v); }
KITE_FOLD(mul_i, int, atomic_cmpxchg, as_int((uint)old * (uint)v))
KITE_FOLD(and_i, int, atomic_cmpxchg, old & v)
KITE_FOLD(or_i, int, atomic_cmpxchg, old | v)
KITE_FOLD(xor_i, int, atomic_cmpxchg, old ^ v)
KITE_FOLD(min_i, int, atomic_cmpxchg, min(old, v))
KITE_FOLD(max_i, int, atomic_cmpxchg, max(old, v))
void kite_fold_add_l(volatile __global long *p, long v) { atom_add(p, v); }
KITE_FOLD(mul_l, long, atom_cmpxchg, as_long((ulong)old * (ulong)v))
KITE_FOLD(and_l, long, atom_cmpxchg, old & v)
KITE_FOLD(or_l, long, atom_cmpxchg, old | v)
KITE_FOLD(xor_l, long, atom_cmpxchg, old ^ v)
KITE_FOLD(min_l, long, atom_cmpxchg, min(old, v))
KITE_FOLD(max_l, long, atom_cmpxchg, max(old, v))

/* Takes a chunk from the global stack; -1 when it is empty. */
int kite_take_chunk_from(kite_ctx *c, volatile __global long *head) {
  for (;;) {
    long old = *head;
    int first = (int)(old & 0xffffffffL) - 1;
    if (first < 0) return -1;
    int after = (int)KITE_REC(c, first)[1];
    long tag = (old >> 32) + 1;
    long desired = (tag << 32) | (long)(uint)(after + 1);
    if (atom_cmpxchg(head, old, desired) == old) return first;
  }
}

/* Narrow workers share one stack; wide ones give to their shard and take
 * from it, else from a few of the others. */
#define KITE_SHARDS_TRIED 4
volatile __global long *kite_shard(kite_ctx *c, int k) {
  return &c->ctl64[KITE_CTL64_FREE_SHARDS + (k & (KITE_FREE_SHARDS - 1)) * KITE_FREE_SHARD_STRIDE];
}

void kite_give_chunk(kite_ctx *c, int first) {
  kite_give_chunk_to(c, KITE_WIDE ? kite_shard(c, c->worker) : &c->ctl64[KITE_CTL64_FREE_CHUNKS],
                     first);
}

int kite_take_chunk(kite_ctx *c) {
#if KITE_WIDE
  /* This worker's shard, then a few others, a different few each round:
   * while every stack is empty (the pool still growing), lane 0 would
   * otherwise wait for all KITE_FREE_SHARDS loads in turn every round. */
  for (int i = 0; i < KITE_SHARDS_TRIED; ++i) {
    int k = i == 0 ? c->worker : c->worker + (int)c->w->round * (KITE_SHARDS_TRIED - 1) + i;
    volatile __global long *head = kite_shard(c, k);
    if ((int)(*head & 0xffffffffL) == 0) continue; /* empty */
    int chunk = kite_take_chunk_from(c, head);
    if (chunk >= 0) return chunk;
  }
  return -1;
#else
  return kite_take_chunk_from(c, &c->ctl64[KITE_CTL64_FREE_CHUNKS]);
#endif
}

#if KITE_WIDE
/* A wide worker's chunk in global memory is its first record, which holds
 * the ids of the others, two to a slot from slot 2 on (-1 pads a short
 * chunk; slot 1 links it on a global stack). */

/* Writes the ids src[stride], src[2 * stride], .. (n - 1 of them) into
 * record f, the chunk's first. */
void kite_pack_chunk(kite_rec f, __local int *src, int stride, int n) {
  for (int i = 1; i < KITE_CHUNK; i += 2) {
    int lo = i < n ? src[i * stride] : -1;
    int hi = i + 1 < n ? src[(i + 1) * stride] : -1;
    f[2 + i / 2] = (long)(((ulong)(uint)hi << 32) | (uint)lo);
  }
}

/* The ids of chunk h (its first record: f) to dst[0], dst[stride], ..;
 * returns how many. All its slots are read before any is used: one trip
 * to memory. */
int kite_unpack_chunk(kite_rec f, __local int *dst, int stride, int h) {
  long v[KITE_CHUNK / 2 + 1]; /* + 1: no empty array where records have 2 slots */
  for (int i = 0; i < KITE_CHUNK / 2; ++i) v[i] = f[2 + i];
  int n = 1;
  dst[0] = h;
  for (int i = 1; i < KITE_CHUNK; ++i) {
    int id = (int)((i & 1) ? (v[i / 2] & 0xffffffffL) : (v[i / 2 - 1] >> 32));
    if (id >= 0) dst[n++ * stride] = id;
  }
  return n;
}

/* The lanes of a worker pass chunks to one another through
 * KITE_LOCAL_CHUNKS slots in local memory (-1: empty), an atomic exchange
 * per chunk. A chunk from another lane; -1: none. */
int kite_take_local_chunk(kite_ctx *c) {
  for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i) {
    int k = (c->lane + i) & (KITE_LOCAL_CHUNKS - 1);
    if (c->w->chunks[k] >= 0) {
      int chunk = atomic_xchg(&c->w->chunks[k], -1);
      if (chunk >= 0) {
        atomic_dec(&c->w->stocked);
        return chunk;
      }
    }
  }
  return -1;
}

/* Gives a chunk to the other lanes of this worker; 0 if every slot is full. */
int kite_give_local_chunk(kite_ctx *c, int chunk) {
  for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i) {
    int k = (c->lane + i) & (KITE_LOCAL_CHUNKS - 1);
    if (c->w->chunks[k] < 0 && atomic_cmpxchg(&c->w->chunks[k], -1, chunk) == -1) {
      atomic_inc(&c->w->stocked);
      return 1;
    }
  }
  return 0;
}

/* Each lane's free records are a stack of ids in local memory: an
 * allocation is a read of local memory, and the allocations of one block
 * do not wait for each other (a list linked through the records would make
 * each wait for the read of the one before). */
KITE_OUT_OF_LINE int kite_alloc(kite_ctx *c, int site) {
  __local int *fl = c->w->fl + c->lane;
  if (c->free_count == 0) {
    /* Lanes never wait on the global stack (in a warp its compare-and-swap
     * loop would run once per lane): lane 0 keeps the worker's chunks
     * stocked from it between rounds. */
    int chunk = kite_take_local_chunk(c);
    if (chunk >= 0) {
      KITE_FENCE(); /* its ids, written by the giver */
      c->free_count = kite_unpack_chunk(KITE_REC(c, chunk), fl, KITE_LANES, chunk);
    } else {
      int base = atomic_add(&c->ctl[KITE_CTL_BUMP], KITE_CHUNK);
      if (base + KITE_CHUNK > c->num_records) {
        kite_error(c, KITE_ERR_RECORDS, site, c->num_records, 0);
        return -1;
      }
      for (int i = 0; i < KITE_CHUNK; ++i) fl[i * KITE_LANES] = base + KITE_CHUNK - 1 - i;
      c->free_count = KITE_CHUNK;
    }
  }
  c->free_count -= 1;
  return fl[c->free_count * KITE_LANES];
}

/* The n ids fl[0], fl[KITE_LANES], .. as a chunk; returns it. */
int kite_chunk_of(kite_ctx *c, __local int *fl, int n) {
  int h = fl[0];
  kite_pack_chunk(KITE_REC(c, h), fl, KITE_LANES, n);
  return h;
}

/* A freed record goes on the lane's stack; when that is full, its older
 * half, the colder records, goes to the other lanes of the worker or, if
 * their slots are full, to the global stack. */
KITE_OUT_OF_LINE void kite_free(kite_ctx *c, int r) {
  __local int *fl = c->w->fl + c->lane;
  fl[c->free_count * KITE_LANES] = r;
  c->free_count += 1;
  if (c->free_count == KITE_FREE_CAP) {
    int h = kite_chunk_of(c, fl, KITE_CHUNK);
    for (int i = 0; i < KITE_CHUNK; ++i) fl[i * KITE_LANES] = fl[(KITE_CHUNK + i) * KITE_LANES];
    c->free_count = KITE_CHUNK;
    mem_fence(CLK_GLOBAL_MEM_FENCE); /* its ids, before another lane takes it */
    if (!kite_give_local_chunk(c, h)) {
      kite_give_chunk(c, h);
      c->n_chunk_ops += 1;
    }
  }
}

/* When the launch ends: the lane's free records to the global stack, which
 * outlives it. */
void kite_give_free(kite_ctx *c) {
  __local int *fl = c->w->fl + c->lane;
  for (int i = 0; i < c->free_count; i += KITE_CHUNK)
    kite_give_chunk(c, kite_chunk_of(c, fl + i * KITE_LANES, min(KITE_CHUNK, c->free_count - i)));
  c->free_count = 0;
}
#else
KITE_OUT_OF_LINE int kite_alloc(kite_ctx *c, int site) {
  if (c->free_head < 0) {
    int chunk = c->spare;
    c->spare = -1;
    if (chunk < 0) chunk = kite_take_chunk(c);
    if (chunk >= 0) {
      KITE_FENCE();
      c->free_head = chunk;
      c->free_next = (int)KITE_REC(c, chunk)[0];
      c->free_count = KITE_CHUNK;
    } else {
      int base = atomic_add(&c->ctl[KITE_CTL_BUMP], KITE_CHUNK);
      if (base + KITE_CHUNK > c->num_records) {
        kite_error(c, KITE_ERR_RECORDS, site, c->num_records, 0);
        return -1;
      }
      for (int i = 0; i < KITE_CHUNK; ++i)
        KITE_REC(c, base + i)[0] = (i + 1 < KITE_CHUNK) ? (long)(base + i + 1) : -1L;
      c->free_head = base;
      c->free_next = KITE_CHUNK > 1 ? base + 1 : -1;
      c->free_count = KITE_CHUNK;
    }
  }
  /* The next record's link is read now and needed only at the next
   * allocation: a GPU lane does not wait for a load until it uses the
   * value, so two calls in a row do not wait for each other's read. */
  int r = c->free_head;
  int h = c->free_next;
  c->free_head = h;
  c->free_next = h >= 0 ? (int)KITE_REC(c, h)[0] : -1;
  c->free_count -= 1;
  if (h < 0) c->free_count = 0;
  return r;
}

/* A freed record goes on the private list, whose most recent records are
 * the ones still in this worker's cache: when the list makes a whole chunk
 * it becomes the spare, and the spare before it, older and colder, goes to
 * the global stack. */
KITE_OUT_OF_LINE void kite_free(kite_ctx *c, int r) {
  KITE_REC(c, r)[0] = (long)c->free_head;
  c->free_next = c->free_head;
  c->free_head = r;
  c->free_count += 1;
  if (c->free_count >= KITE_CHUNK) {
    if (c->spare >= 0) kite_give_chunk(c, c->spare);
    c->spare = c->free_head;
    c->free_head = -1;
    c->free_count = 0;
  }
}
#endif

/* ---- Deques (Chase-Lev) ---------------------------------------------------- */

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
KITE_OUT_OF_LINE void kite_ready_at(kite_ctx *c, int rec, int code, int site) {
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
KITE_OUT_OF_LINE void kite_ready(kite_ctx *c, int rec, int code) {
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
KITE_OUT_OF_LINE void kite_tail_at(kite_ctx *c, int rec, int code, int site) {
#if KITE_HAND
  if (c->next == KITE_NONE) {
    c->next = KITE_ENTRY(code, rec);
    return;
  }
#endif
  kite_ready_at(c, rec, code, site);
}

/* ---- Maps as kernels of their own ------------------------------------------
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

/* One event fewer on counter p; returns the count before. `own`: no other
 * lane can reach p's record now (its task's entry block has made nothing of
 * it runnable elsewhere yet), so a plain decrement does; else kite_sub's. */
KITE_OUT_OF_LINE int kite_dec(int own, volatile __global int *p) {
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
 * it at each call, and stopped doing so for UTS with two (48 registers and
 * 248 bytes of private memory, 20% slower). */
KITE_OUT_OF_LINE void kite_finish_at(kite_ctx *c, int rec, int own, int known, long link, int has,
                                     long ret) {
  KITE_DEC_FENCE(own); /* see every write made before the last signal (a kite_dec) */
  if (!known) link = KITE_REC(c, rec)[0];
  long bits = has ? ret : KITE_REC(c, rec)[1];
  for (;;) {
    int parent = KITE_LINK_PARENT(link);
    int node = KITE_LINK_NODE(link);
    kite_free(c, rec);
    if (parent < 0) {
      c->ctl64[KITE_CTL64_RESULT] = bits;
      KITE_FENCE();
      atomic_xchg(&c->ctl[KITE_CTL_DONE], 1);
      return;
    }
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
KITE_OUT_OF_LINE int kite_value_task(kite_ctx *c, long fn, int site, int null_name, long *env) {
  *env = 0;
  if (fn < 0) return (int)(-fn - 1);
  if (fn == 0) {
    kite_error(c, KITE_ERR_NULL, site, null_name, 0);
    return -1;
  }
  *env = fn;
  return (int)c->heap[fn];
}

/* ---- The heap -------------------------------------------------------------- */

/* Longs of heap a worker (a lane, when wide) takes at a time. */
#if KITE_WIDE
#define KITE_HEAP_CHUNK 256L
#else
#define KITE_HEAP_CHUNK 4096L
#endif
/* Where a failed access points, so that the block can finish harmlessly
 * while the run stops: heap[2..8) is never allocated (kite_abi.h). */
#define KITE_SCRATCH 2L

/* `longs` zeroed longs of heap: a freed block of that size, or a new one
 * from this worker's chunk; 0 when the heap is exhausted. */
KITE_OUT_OF_LINE long kite_heap_alloc(kite_ctx *c, long longs, int site) {
  if (longs < KITE_HEAP_CLASSES && (!KITE_WIDE || c->heap_free)) {
    long r = c->heap_free[longs];
    if (r != 0) {
      c->heap_free[longs] = c->heap[r];
      for (long k = 0; k < longs; ++k) c->heap[r + k] = 0;
      return r;
    }
  }
  if (c->heap_cur + longs > c->heap_end) {
    long size = max(longs, KITE_HEAP_CHUNK);
    long at = atom_add(&c->ctl64[KITE_CTL64_HEAP_BUMP], size);
    if (at + size > c->ctl64[KITE_CTL64_HEAP_SIZE]) {
      kite_error(c, KITE_ERR_HEAP, site, 0, 0);
      c->heap_cur = c->heap_end = 0;
      return 0;
    }
    c->heap_cur = at;
    c->heap_end = at + size;
  }
  long r = c->heap_cur;
  c->heap_cur += longs;
  return r;
}

KITE_OUT_OF_LINE long kite_new_array(kite_ctx *c, int n, int elem_bytes, int site) {
  if (n < 0) {
    kite_error(c, KITE_ERR_LENGTH, site, n, 0);
    return 0;
  }
  long r = kite_heap_alloc(c, 1 + ((long)n * elem_bytes + 7) / 8, site);
  if (r != 0) c->heap[r] = n;
  return r;
}

int kite_length(kite_ctx *c, long array) { return (int)c->heap[array]; }

/* An array nothing refers to any more (0: none) goes back to this worker. */
void kite_free_array(kite_ctx *c, long array, int elem_bytes) {
  if (array == 0) return;
  long longs = 1 + (c->heap[array] * elem_bytes + 7) / 8;
  if (longs >= KITE_HEAP_CLASSES) return;
#if KITE_WIDE
  if (!c->heap_free) {
    /* The table, from this lane's chunk if it has room (else the block is
     * not reused): taking a new chunk here could fail a run that needs no
     * more heap. */
    if (c->heap_cur + KITE_HEAP_CLASSES > c->heap_end) return;
    c->heap_free = c->heap + c->heap_cur;
    c->heap_cur += KITE_HEAP_CLASSES;
  }
#endif
  c->heap[array] = c->heap_free[longs];
  c->heap_free[longs] = array;
}

/* The address of element i of `array`, checked against its length n. */
KITE_DATA __global void *kite_elem_n(kite_ctx *c, long array, int n, int i, int elem_bytes,
                                     int site) {
  if (KITE_UNLIKELY((uint)i >= (uint)n)) {
    kite_error(c, KITE_ERR_INDEX, site, i, n);
    return (KITE_DATA __global void *)(c->heap + KITE_SCRATCH);
  }
  return (KITE_DATA __global void *)((KITE_DATA __global char *)(c->heap + array + 1) +
                                     (long)i * elem_bytes);
}

/* Inside a loop nest that calls no task: element i of `array` (of length n,
 * or its own), checked. With wide workers (a GPU's) a bad index is noted in
 * the context instead of reported, and the nest ends with kite_loop_faults,
 * which reports the first; until then the lane prints nothing, and an error
 * of another kind reports the index instead. The loop then keeps no atomic
 * and no fence beside its checks, which lets the device compiler keep its
 * loads and registers for the work. With narrow workers (a CPU's) the
 * report at once is as fast: these are kite_elem_n and kite_elem. */
#if KITE_LOOP_FAULTS
__global void *kite_loop_elem_n(kite_ctx *c, long array, int n, int i, int elem_bytes, int site) {
  if (KITE_UNLIKELY((uint)i >= (uint)n)) {
    if (c->fault_site < 0) {
      c->fault_site = site;
      c->fault_index = i;
      c->fault_length = n;
    }
    return (__global void *)(c->heap + KITE_SCRATCH);
  }
  return (__global void *)((__global char *)(c->heap + array + 1) + (long)i * elem_bytes);
}

__global void *kite_loop_elem(kite_ctx *c, long array, int i, int elem_bytes, int site) {
  return kite_loop_elem_n(c, array, (int)c->heap[array], i, elem_bytes, site);
}

void kite_loop_faults(kite_ctx *c) {
  if (KITE_UNLIKELY(c->fault_site >= 0)) kite_error(c, KITE_ERR_INDEX, -1, 0, 0);
}
#else
#define kite_loop_elem_n kite_elem_n
#define kite_loop_elem kite_elem
#define kite_loop_faults(c) ((void)0)
#endif

/* Whether an index e(k) that is affine in a loop's variable k (modulo 2^32)
 * lies in [0, n) for all `steps` + 1 iterations from lo, given e(lo) and
 * e(lo + 1): the exact line from e(lo) with slope e(lo + 1) - e(lo) (which
 * fits a long) is in [0, n) at both ends, so at every iteration, where it
 * equals the wrapped index (ir/bounds.h). */
int kite_affine_in(int at_lo, int at_next, int steps, long n) {
  long last = (long)at_lo + (long)as_int((uint)at_next - (uint)at_lo) * (long)steps;
  return at_lo >= 0 && at_lo < n && last >= 0 && last < n;
}

/* The address of element i of `array`, checked against its length. */
KITE_DATA __global void *kite_elem(kite_ctx *c, long array, int i, int elem_bytes, int site) {
  long n = c->heap[array];
  if (KITE_UNLIKELY(i < 0 || i >= n)) {
    kite_error(c, KITE_ERR_INDEX, site, i, n);
    return (KITE_DATA __global void *)(c->heap + KITE_SCRATCH);
  }
  return (KITE_DATA __global void *)((KITE_DATA __global char *)(c->heap + array + 1) +
                                     (long)i * elem_bytes);
}

/* Slot k of a struct, tuple or union; null is an error, whose first operand
 * is the string that names the value (`struct 'p'`), or -1. */
KITE_DATA __global long *kite_field(kite_ctx *c, long ref, int k, int site, int null_name) {
  if (ref == 0) {
    kite_error(c, KITE_ERR_NULL, site, null_name, 0);
    return c->heap + KITE_SCRATCH;
  }
  return c->heap + ref + k;
}

long kite_range(int first, int last) { return ((long)last << 32) | (long)(uint)first; }
/* [first, last] as a Kite expression makes: a loop's index and a range's
 * length are ints, so a range may hold at most INT_MAX elements. */
long kite_range_checked(kite_ctx *c, int first, int last, int site) {
  if ((long)last - (long)first >= 2147483647L) kite_error(c, KITE_ERR_RANGE, site, first, last);
  return kite_range(first, last);
}
int kite_range_length(long r) {
  long n = (long)(int)(r >> 32) - (long)(int)(r & 0xffffffffL) + 1;
  return n < 0 ? 0 : (int)n;
}

/* ---- Print ------------------------------------------------------------------- */

/* Reserves a whole record of `items` items; -1 if the run is stopping. */
KITE_OUT_OF_LINE int kite_print_reserve(kite_ctx *c, int items) {
#if KITE_LOOP_FAULTS
  if (c->fault_site >= 0) return -1;
#endif
  if (c->ctl[KITE_CTL_DONE]) return -1;
  int words = 1 + 2 * items;
  volatile __global int *head = &c->ctl[KITE_CTL_PRINT_HEAD];
  int at;
  /* The head never passes the end, so the host always finds whole records. */
  for (;;) {
    at = *head;
    if (at + words > c->print_cap) {
      kite_error(c, KITE_ERR_PRINT, -1, 0, 0);
      return -1;
    }
    if (atomic_cmpxchg(head, at, at + words) == at) break;
  }
#if KITE_TURNS
  c->turn_stop = 1; /* the buffer's headroom is a few prints per lane */
#endif
  if (at + words > c->ctl[KITE_CTL_PRINT_LIMIT]) atomic_xchg(&c->ctl[KITE_CTL_YIELD], 1);
  c->printbuf[at] = items;
  return at + 1;
}

/* ---- Tracing ---------------------------------------------------------------- */

/* A clock for traces: NVIDIA's global timer, in ns. OpenCL C 1.2 has no
 * clock elsewhere, so there a logical one counts the blocks all workers have
 * run, advanced by each span's blocks when it ends: a busy stretch is as long
 * as the work done meanwhile. Either is read only where a span starts or
 * ends, never per block. */
void kite_span_begin(kite_ctx *c, int stolen) {
#if defined(KITE_NVIDIA)
  ulong t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  c->span_start = (long)t;
#else
  c->span_start = atom_add(&c->ctl64[KITE_CTL64_TRACE_CLOCK], 0L);
#endif
  c->span_blocks = 0;
  c->span_stolen = stolen;
}

void kite_span_end(kite_ctx *c, __global long *st) {
#if defined(KITE_NVIDIA)
  ulong t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  long end = (long)t;
#else
  long end = atom_add(&c->ctl64[KITE_CTL64_TRACE_CLOCK], c->span_blocks) + c->span_blocks;
#endif
  long k = st[KITE_STAT_TRACE_SPANS];
  if (k >= c->trace_cap) {
    st[KITE_STAT_TRACE_LOST] += 1;
    return;
  }
  __global long *span = c->trace + k * KITE_TRACE_SPAN_WORDS;
  span[0] = c->span_start;
  span[1] = end;
  span[2] = (c->span_blocks << 1) | c->span_stolen;
  st[KITE_STAT_TRACE_SPANS] = k + 1;
}

/* ---- Narrow workers: one work-item each ----------------------------------- */

void kite_run_narrow(kite_ctx *c, __global long *st) {
  int busy = 0; /* tracing: in a span */
  uint iter = 0;
  int backoff = 0;
  for (;;) {
    if (c->next == KITE_NONE) c->next = kite_pop(c);
    int stolen = 0;
    if (c->next == KITE_NONE) {
      if (c->trace && busy) {
        kite_span_end(c, st);
        busy = 0;
      }
      if (KITE_LEAVE(c)) break;
      c->next = kite_try_steal(c);
      stolen = 1;
      if (c->next == KITE_NONE) {
        /* Back off, so that idle workers do not keep the busy ones' deque
         * lines bouncing between caches: wait longer after each failure,
         * reading a line that nobody writes while work is going on. */
        for (int k = 0; k < backoff && !c->ctl[KITE_CTL_DONE]; ++k) {
        }
#if KITE_OFFLOAD_MIN > 0
        kite_offload_idle(c);
#endif
        backoff = min(2 * backoff + 1, KITE_MAX_BACKOFF);
        continue;
      }
      backoff = 0;
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
}

/* ---- Wide workers: KITE_LANES work-items each ------------------------------ */

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
  for (int k = 0; k < KITE_CLASSES; ++k) {
    uint from = (w->share_n > 0 && k == w->share_class) ? share_head : w->head[k];
    w->room[k] = KITE_CLASS_CAP - KITE_SPAN(w->tail[k], from);
  }

  if (n == 0) {
    w->idle += 1;
    w->stat[KITE_STAT_IDLE_ROUNDS] += 1;
#if KITE_OFFLOAD_MIN > 0
    kite_offload_idle(c);
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
    w->last = 0;
    w->round = 0;
    w->codes[0] = w->codes[1] = w->codes[2] = w->codes[3] = 0;
    for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i) w->chunks[i] = -1;
    w->stocked = 0;
    w->nseg = 0;
    for (int i = 0; i < KITE_STATS_WORDS; ++i) w->stat[i] = 0;
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
    kite_take_resumes(c);
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
    if (c->trace && busy) kite_span_end(c, st);
    for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i)
      if (w->chunks[i] >= 0) kite_give_chunk(c, w->chunks[i]);
    for (int i = KITE_STAT_ROUNDS; i < KITE_STATS_WORDS; ++i) st[i] += w->stat[i];
  }
}
#endif

/* ---- The kernel ------------------------------------------------------------ */

__kernel void kite_uber(__global long *pool, __global long *deques, __global uint *deque_ctl,
                        __global long *printbuf, __global int *ctl, __global long *ctl64,
                        __global long *stats, __global int *params, __global long *heap) {
#if KITE_WIDE
  __local kite_worker worker_state;
#endif
  kite_ctx ctx;
  kite_ctx *c = &ctx;
  kite_ctx_init(c, pool, deques, deque_ctl, printbuf, ctl, ctl64, heap, params);
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
  if (c->worker == 0 && c->ctl[KITE_CTL_STARTED] == 0) {
    c->ctl[KITE_CTL_STARTED] = 1;
    kite_start_main(c);
  }
  kite_take_resumes(c);
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
#endif
  st[KITE_STAT_STEAL_TRIES] += c->n_steal_tries;
  st[KITE_STAT_STEALS] += c->n_steals;
  st[KITE_STAT_LAUNCHES] += 1;
}
