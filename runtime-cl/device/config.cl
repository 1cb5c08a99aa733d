/* The Kite scheduler: persistent workers over work-stealing deques.
 *
 * kitec pastes kite_abi.h and the files of runtime-cl/device/, in the order
 * that runtime-cl/CMakeLists.txt lists them (KITE_CL_PARTS), into every
 * program, before the generated code, which supplies kite_block (the
 * uber-kernel's switch over block codes), kite_signal (what a finished node
 * or block tells its record) and kite_start_main. The files are one OpenCL C
 * text: each uses what the ones before it define. This one holds the
 * configuration: the macros that kite-run and kitec define, their defaults,
 * and what follows from them per device.
 *
 * Workers. The host launches exactly as many work-groups as can be resident
 * at once (on PoCL: the compute units; on a GPU: measured by KITE_MODE_PROBE),
 * one worker each, so every worker makes progress on its own. A narrow
 * worker (KITE_LANES 1, the CPU's) is one work-item and is described here;
 * a wide one (a warp, the GPU's) runs up to KITE_LANES blocks at a time in
 * rounds, over the same deques: see wide.cl.
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
 * The deque's algorithm is in deque.cl, the recycling of records in
 * pool.cl.
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
 * where a fence on each side cost two of each), so these are empty there. kitec emits KITE_DEC_FENCE only next to a
 * kite_dec, or where the next hand-over is a kite_dec or a queue's own
 * (docs/design.md, "Device-wide ordering"). */
#if defined(KITE_NVIDIA)
#define KITE_DEC_FENCE(own)
#else
#define KITE_DEC_FENCE(own) if (!(own)) KITE_FENCE()
#endif

/* Lanes per worker: 1 on a CPU, the SIMD width on a GPU (kite-run passes
 * -DKITE_LANES). A worker of W lanes is a work-group of W work-items; see
 * wide.cl. */
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
 * there. */
#if KITE_WIDE
#define KITE_COUNT_FENCE()
#else
#define KITE_COUNT_FENCE() KITE_FENCE()
#endif
/* Leaf answers (kitec answers a call at its site when the callee's guard
 * says it would only return what its arguments compute): in a direct map's
 * loop, narrow workers only. A wide worker runs that loop on one lane,
 * which would then test each iteration's guard in turn, where the calls
 * would have run on as many lanes the round after (docs/design.md, "Leaf
 * answers", has the measurements). */
#define KITE_ANSWER_IN_MAPS (!KITE_WIDE)
/* A task that starts with a `case` answers where the union holds the field
 * whose branch only returns: the caller reads the union's tag (and value).
 * Narrow workers only: on a wide worker that read is one more dependent
 * trip to memory in the calling lane, where the callees' lanes would have
 * made it side by side the round after (docs/design.md, "Leaf answers"). */
#define KITE_ANSWER_BY_CASE (!KITE_WIDE)
/* Bad indices inside loop nests are noted and reported when the nest ends
 * (kite_loop_elem_n, heap.cl) with wide workers, in programs whose loops check
 * an element at all (kitec defines KITE_LOOP_CHECKS); the others keep a
 * context and an error path without them. */
#ifndef KITE_LOOP_CHECKS
#define KITE_LOOP_CHECKS 0
#endif
#define KITE_LOOP_FAULTS (KITE_WIDE && KITE_LOOP_CHECKS)
/* Large programs (more blocks than kitec keeps in one function: kitec
 * defines KITE_LARGE) call some of the runtime's helpers instead of having
 * them inlined at each of their hundreds of sites. On GPUs, every larger
 * one (KITE_OUT_OF_LINE_GPU too: allocation, queueing, signals, joins,
 * errors): NVIDIA's compiler spends most of its build in ptxas,
 * superlinear in the size of what it compiles at once. On a CPU, those
 * whose call costs nothing measurable (KITE_OUT_OF_LINE: kite_push, the
 * signals and finishes, heap allocation): kite_push, inlined into every
 * kite_ready_at, was most of what PoCL compiled again at each call. The
 * others stay inlined there: called, a record's allocation and freeing,
 * kite_ready_at and kite_dec made examples/reduce.kite 35% slower, and
 * kite_error, in a loop's bounds check, cilksort 10%. Smaller programs
 * keep them all inline, which runs faster (docs/design.md, "Build time",
 * has the measurements). */
#ifndef KITE_LARGE
#define KITE_LARGE 0
#endif
/* Sequential forms (fast.cl): kitec defines KITE_HAS_FAST 0 where no task
 * has one, 1 where every form reads fields or elements (which wide
 * workers do not run), 2 where some form only computes. The state the
 * forms' rule keeps is there only when some worker may use it. */
#ifndef KITE_HAS_FAST
#define KITE_HAS_FAST 0
#endif
#define KITE_WIDE_FORMS (KITE_WIDE && KITE_HAS_FAST == 2)
/* A program in parts (parts.cl): kitec defines KITE_PARTS and
 * KITE_MAIN_PART, the part whose task is main; kite-run builds part k with
 * -DKITE_PART=k, or the whole program at once without it. */
#ifndef KITE_PARTS
#define KITE_PARTS 1
#endif
#ifndef KITE_MAIN_PART
#define KITE_MAIN_PART 0
#endif
#ifndef KITE_PART
#define KITE_PART -1
#endif
#define KITE_SPLIT (KITE_PARTS > 1 && KITE_PART >= 0)
#define KITE_IN_PART(k) (KITE_PART < 0 || KITE_PART == (k))
/* The code of a parked entry whose record's task finished (parts.cl). */
#define KITE_CODE_FINISH 0x7ffffff0
/* Kept forms (fast.cl): a sequential form that stops keeps its frames as
 * records, where kitec keeps some task's (KITE_HAS_KEEP; in a program in
 * parts, each record in the part that kept it): under --fast-calls stop;
 * and under the rule and `always` on narrow workers where some kept frame
 * holds arrays of its own and a map whose iterations it may start ahead
 * (KITE_HAS_KEEP 2), whose forms
 * would otherwise lose every frame under a full stack, in a run of at most
 * two workers, and where some form writes memory, which may run only where
 * forms keep (KITE_HAS_KEEP 3), in a run of any number (KITE_KEEP_RULE,
 * which kite-run sets). Elsewhere measured slower than losing the form's
 * work under the rule (docs/design.md, "Kept forms"). */
#ifndef KITE_HAS_KEEP
#define KITE_HAS_KEEP 0
#endif
#ifndef KITE_KEPT_SLOTS
#define KITE_KEPT_SLOTS 0
#endif
#ifndef KITE_FAST /* kite-run --fast-calls (fast.cl); 1: the rule */
#define KITE_FAST 1
#endif
#ifndef KITE_KEEP_RULE /* kite-run: narrow workers, at most two of them, keep under the rule */
#define KITE_KEEP_RULE 0
#endif
#define KITE_KEEP                                                                        \
  (KITE_HAS_KEEP && !KITE_STACKS &&                                                      \
   (KITE_FAST == 3 || (KITE_HAS_KEEP >= 2 && KITE_KEEP_RULE && KITE_FAST >= 1 && !KITE_WIDE)))
/* Whether a sequential form can run at all in this build. Under the rule
 * wide workers run no form that reads memory (kite_fast_now), so where
 * every form does (KITE_HAS_FAST 1) kite_fast is never called, and kitec's
 * definition of it is left out: the device compiler would otherwise
 * compile it only to drop it (NVIDIA's front end spends its time on it). */
#define KITE_FORMS_RUN (KITE_HAS_FAST && !(KITE_WIDE && KITE_FAST == 1 && KITE_HAS_FAST == 1))
/* The code of a kept frame's record: kite_fast goes on from its frame. */
#define KITE_CODE_KEPT 0x7fffffef
/* Not queued: kite_fast's caller gives up a suspended frame's own count
 * of its record (kite_kept_go). */
#define KITE_CODE_KEPT_RELEASE 0x7fffffee
/* Workers count themselves idle in ctl[KITE_CTL_IDLE] for the forms' rule
 * (wide ones only where they run forms) and the parts' turns. */
#define KITE_COUNT_IDLE ((KITE_WIDE ? KITE_WIDE_FORMS : KITE_HAS_FAST) || KITE_SPLIT)
#if KITE_LARGE
#define KITE_OUT_OF_LINE __attribute__((noinline))
#else
#define KITE_OUT_OF_LINE
#endif
#if KITE_LARGE && !defined(KITE_CPU)
#define KITE_OUT_OF_LINE_GPU __attribute__((noinline))
#else
#define KITE_OUT_OF_LINE_GPU
#endif
/* A helper's rare path (a record pool's refill and spill, once in a
 * chunk's worth of calls) is called on a GPU: inlined, the pool's loops
 * (unrolled over the lanes' chunk slots) were copied into every site of
 * the helper, a large part of a small program's code there. A CPU keeps it
 * inline, and `static` leaves PoCL no copy of its own to compile (the
 * 10-task synthetic program's first run took 10% longer with one). */
#if defined(KITE_CPU)
#define KITE_COLD static
#else
#define KITE_COLD static __attribute__((noinline))
#endif
/* So is the error path (kite_error), taken at most once a run. A CPU
 * keeps it inline too, where PoCL's compiler optimises a loop
 * whose bounds check calls it worse (cilksort 10% slower); a GPU's loops
 * note a bad index instead (KITE_LOOP_FAULTS) and do not call it. */
#if defined(KITE_CPU)
#define KITE_COLD_GPU
#else
#define KITE_COLD_GPU __attribute__((noinline))
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
 * their chains up a tree of calls made every lane's round longer). A tree
 * whose every level passes through a tail call (UTS's node calling
 * children) then costs one round a level on the way down, not two, and the
 * lone chain of continuations at the end of a deep tree's run goes up N
 * levels a round.
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
 * the deque, which on a CPU costs more than many light iterations
 * (docs/design.md, "Reductions and scans"). */
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
 * that keeps the few cores' caches calm; on a GPU a read costs a
 * microsecond and thousands of workers look for little work, so they try
 * again at once (docs/design.md, "Narrow workers"). */
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
 * other workers take them while the chunk goes on: a long chunk delays
 * none of them (docs/design.md, section 4, "direct"). */
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
