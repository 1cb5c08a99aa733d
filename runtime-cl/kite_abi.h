/* The contract between kite-run (host C++), the scheduler
 * (runtime-cl/device/) and the code kitec generates. Plain #defines so that
 * both C++ and OpenCL C include it; kitec pastes it at the top of every
 * generated program.
 *
 * Kernel `kite_uber` arguments, in order:
 *   0 __global long *pool     record pool: num_records * record_words longs
 *   1 __global long *deques     num_workers * deque_cap entries, one deque each
 *   2 __global int  *deque_ctl  num_workers * KITE_DEQUE_CTL_STRIDE ints
 *   3 __global long *printbuf   print_cap longs of print records
 *   4 __global int  *ctl        KITE_CTL_INTS ints of control block
 *   5 __global long *ctl64      KITE_CTL64_LONGS longs of control block
 *   6 __global long *stats      num_workers * KITE_STATS_WORDS longs
 *   7 __global int  *params     KITE_PARAM_COUNT ints, below
 *   8 __global long *heap       ctl64[KITE_CTL64_HEAP_SIZE] longs: the device heap
 *   9 __global long *parked     a program in parts: params[KITE_PARAM_PARKED_CAP] pairs
 *                               (entry, part) of work for other parts (device/parts.cl)
 * A map kernel, kite_map_<code> (code: the map's split block), takes the
 * first nine arguments and then `int first`: work-item (i, y) runs iteration
 * i of the map whose entry is ctl64[KITE_CTL64_RESUMES + first + y], in
 * work-groups of (a power of two up to KITE_MAP_GROUP, 1) work-items.
 * Every buffer starts zero-filled; the host writes params, main's arguments
 * (ctl64[KITE_CTL64_ARGS + i], as raw bits), ctl[KITE_CTL_PRINT_LIMIT], the
 * heap's size and bump pointer, and main's array arguments into the heap.
 *
 * The heap. A heap value (array, struct, union, tuple) is a long: its offset
 * in longs from the start of the heap; 0 is the null value a declared but
 * unassigned variable holds, and heap[0..KITE_HEAP_FIRST) is never
 * allocated: heap[0] stays zero so that null reads as an empty array, and
 * heap[2..8) is where the scheduler points a failed access while the run
 * stops. Layouts:
 *   array   heap[ref] = length; the elements follow from heap + ref + 1,
 *           packed: 4 bytes each for int, float and bool (0/1), 8 bytes for
 *           long, double and heap values (refs); ranges are 8 bytes.
 *   struct, tuple   one 8-byte slot per field/member, from heap[ref].
 *   union   heap[ref] = the field's index (tag); heap[ref + 1] = its value.
 * A range value is a long: the first int in the low 32 bits, the last in
 * the high 32. Workers allocate from private chunks carved with an atomic
 * add on ctl64[KITE_CTL64_HEAP_BUMP]; the bump pointer never goes back
 * during a run, but an array that only its finished task used goes on the
 * freeing worker's (or lane's) free list of its size and is reused from
 * there (kite_free_array in device/heap.cl).
 */
#ifndef KITE_ABI_H
#define KITE_ABI_H

/* params[] */
#define KITE_PARAM_NUM_WORKERS 0 /* work-groups in the grid, one worker each */
#define KITE_PARAM_NUM_RECORDS 1  /* records in the pool */
#define KITE_PARAM_DEQUE_CAP 2   /* entries per deque, a power of two */
#define KITE_PARAM_PRINT_CAP 3   /* longs in printbuf */
#define KITE_PARAM_MODE 4        /* KITE_MODE_RUN or KITE_MODE_PROBE */
#define KITE_PARAM_SPIN_LIMIT 5  /* probe: iterations to wait for the others */
#define KITE_PARAM_TRACE_CAP 6   /* busy spans each worker may record; 0: no trace */
#define KITE_PARAM_SIMD_STATS 7  /* 1: wide workers count the block codes of each round */
#define KITE_PARAM_DEQUE_START 8 /* the index every deque and local ring starts at (tests) */
#define KITE_PARAM_PARKED_CAP 9 /* pairs in the parked list (parts.cl) */
#define KITE_PARAM_COUNT 10

#define KITE_MODE_RUN 0
#define KITE_MODE_PROBE 1 /* every worker checks in; are all resident at once? */

/* ctl[] (ints) */
#define KITE_CTL_DONE 0        /* 1: main finished or an error stopped the run */
#define KITE_CTL_ERROR 1       /* first run-time error, KITE_ERR_*; 0 = none */
#define KITE_CTL_ERROR_SITE 2  /* its index in the artifact's site table, -1 none */
#define KITE_CTL_YIELD 3       /* 1: workers leave at the next block boundary */
#define KITE_CTL_PRINT_HEAD 4  /* next free long in printbuf */
#define KITE_CTL_PRINT_LIMIT 5 /* reserving past this sets YIELD (host drains) */
#define KITE_CTL_BUMP 6        /* records ever carved from the pool (high water) */
#define KITE_CTL_STARTED 7     /* 1 once main's record has been created */
#define KITE_CTL_PROBE_ARRIVED 8
#define KITE_CTL_PROBE_FAILED 9
#define KITE_CTL_STOP 10       /* 1: the host stops the run (kite-run --timeout): it
                                  may write it while a launch runs; workers leave
                                  at the next block boundary and drop their work */
#define KITE_CTL_OFFLOADS 11   /* maps waiting in ctl64[KITE_CTL64_OFFLOADS] for their kernels */
#define KITE_CTL_RESUMES 12    /* entries in ctl64[KITE_CTL64_RESUMES]: worker w queues
                                  entries w, w + workers, ... when the launch starts */
#define KITE_CTL_IDLE 13       /* workers that found no work at their last look (fast.cl, parts.cl) */
#define KITE_CTL_PARKED 14     /* pairs in the parked list (device/parts.cl) */
#define KITE_CTL_PARKED_TAKE 15 /* the first of them, this launch's part's, that it queues */
#define KITE_CTL_PART_IDLE 16  /* 1: the launch left for another part's parked work */
#define KITE_CTL_PARKED_NEXT 17 /* the next of the TAKE entries to take: those before it
                                   were queued (narrow workers take them in shares) */
#define KITE_CTL_INTS 32

/* ctl64[] (longs) */
#define KITE_CTL64_RESULT 0     /* main's result, raw bits */
#define KITE_CTL64_ERR_A 1      /* error operands (index, length, ...) */
#define KITE_CTL64_ERR_B 2
#define KITE_CTL64_FREE_CHUNKS 3 /* lock-free stack of free record chunks: tag<<32 | head+1 */
#define KITE_CTL64_HEAP_SIZE 4  /* longs in the heap (host-written) */
#define KITE_CTL64_HEAP_BUMP 5  /* next never-allocated long of the heap; the host
                                   starts it past main's array arguments */
#define KITE_CTL64_TRACE_CLOCK 6 /* traces without a device clock: blocks run, all workers */
#define KITE_CTL64_OFFLOAD_ITERS 7 /* the iterations of the maps in ctl64[KITE_CTL64_OFFLOADS] */
#define KITE_CTL64_ARGS 8       /* main's arguments, raw bits, one long each */
#define KITE_MAX_MAIN_ARGS 24
/* Wide workers' free-record chunks: KITE_FREE_SHARDS lock-free stacks like
 * KITE_CTL64_FREE_CHUNKS, one 128-byte line each, so that thousands of
 * workers do not all compare-and-swap one word. */
#define KITE_CTL64_FREE_SHARDS 32
#define KITE_FREE_SHARDS 32
#define KITE_FREE_SHARD_STRIDE 16
/* Maps run as kernels of their own (kitec's map kernels, below): up to
 * KITE_OFFLOAD_CAP of them wait at a time, two longs each: the entry of the
 * record that ends the map (KITE_ENTRY(split block, record)) and its
 * iterations. After their kernels the host writes those entries, in the
 * order it launched them, to the resume list. */
#define KITE_OFFLOAD_CAP 1024
#define KITE_MAP_GROUP 128 /* the most work-items of a map kernel's work-group */
#define KITE_CTL64_OFFLOADS (KITE_CTL64_FREE_SHARDS + KITE_FREE_SHARDS * KITE_FREE_SHARD_STRIDE)
#define KITE_CTL64_RESUMES (KITE_CTL64_OFFLOADS + 2 * KITE_OFFLOAD_CAP)
#define KITE_CTL64_LONGS (KITE_CTL64_RESUMES + KITE_OFFLOAD_CAP)

/* deque_ctl[]: per worker, padded to a 128-byte line. A deque holds the
 * entries [top, bottom) of its ring; both indices only grow (mod 2^32). */
#define KITE_DEQUE_TOP 0
#define KITE_DEQUE_BOTTOM 1
#define KITE_DEQUE_CTL_STRIDE 32

/* stats[]: per worker */
#define KITE_STAT_TASKS 0        /* task bodies started */
#define KITE_STAT_CONTS 1        /* continuations run */
#define KITE_STAT_STEAL_TRIES 2
#define KITE_STAT_STEALS 3
#define KITE_STAT_LAUNCHES 4     /* kernel launches this worker took part in */
#define KITE_STAT_TRACE_SPANS 5  /* busy spans recorded (kite-run --trace) */
#define KITE_STAT_TRACE_LOST 6   /* busy spans not recorded: the trace was full */
/* Wide workers (KITE_LANES > 1): */
#define KITE_STAT_ROUNDS 7       /* rounds that ran at least one block */
#define KITE_STAT_LANE_BLOCKS 8  /* blocks run, summed over those rounds' lanes */
#define KITE_STAT_PATHS 9        /* with params[SIMD_STATS]: distinct block codes per round, summed */
#define KITE_STAT_IDLE_ROUNDS 10 /* rounds that found no work */
#define KITE_STAT_CHUNK_OPS 11   /* chunks of free records given to or taken from the global stacks */
#define KITE_STAT_SCHEDULE_NS 12 /* NVIDIA: ns lane 0 spent scheduling (rounds with work) */
#define KITE_STAT_ROUND_NS 13    /* NVIDIA: ns from scheduling to the next round (rounds with work) */
#define KITE_STAT_STACKED 14     /* blocks run from the lanes' own stacks (kite-run --lane-blocks) */
#define KITE_STAT_ANSWERED 15    /* calls answered where they were made (kitec's leaf answers) */
#define KITE_STAT_HANDED 16      /* blocks a lane went on to in its turn (kite-run --hand-blocks) */
#define KITE_STAT_FAST 17        /* calls that ran their callee's sequential form (kite_fast) */
#define KITE_STAT_KEPT 18        /* stops of forms that kept their work (fast.cl, kept forms) */
#define KITE_STAT_DECLINED 19    /* calls of tasks with a form that the rule made tasks (fast.cl) */
#define KITE_STAT_SKIPPED 20     /* the same, after a form's stack was full (KITE_FAST_SKIP) */
#define KITE_STAT_STOPS 21       /* looks at which a form stopped (kept or not) */
#define KITE_STAT_FULL 22        /* forms whose stack was full (lost or kept) */
#define KITE_STATS_WORDS 23
/* With a trace, each worker's stats are followed by KITE_TRACE_SPAN_WORDS
 * longs per span: the stride of stats[] is KITE_STATS_WORDS +
 * KITE_TRACE_SPAN_WORDS * params[KITE_PARAM_TRACE_CAP]. A span is a time
 * the worker ran blocks without running dry: its start and end (ns of the
 * device's clock on NVIDIA; elsewhere a logical clock: the blocks all
 * workers have run) and (blocks << 1 | stolen), stolen
 * when its first block came from another worker's deque. */
#define KITE_TRACE_SPAN_WORDS 3

/* Run-time errors (ctl[KITE_CTL_ERROR]); kite-run words them. */
#define KITE_ERR_NONE 0
#define KITE_ERR_DIV_ZERO 1       /* integer division or remainder by zero */
#define KITE_ERR_INDEX 2          /* A = index, B = length */
#define KITE_ERR_HEAP 3           /* device heap exhausted */
#define KITE_ERR_RECORDS 4        /* A = pool size: task/continuation records exhausted */
#define KITE_ERR_QUEUE 5          /* A = capacity: a worker's deque is full */
#define KITE_ERR_PRINT 6          /* one block printed more than the buffer holds */
#define KITE_ERR_CASE 7           /* union tag matched no branch */
#define KITE_ERR_NULL 8           /* A = the string naming a value never given one, or -1 */
#define KITE_ERR_LENGTH 9         /* A = a negative array length given to new */
#define KITE_ERR_RANGE 10         /* A, B = a range's ends: more than INT_MAX elements */

/* Print records in printbuf: a header long holding the item count n, then n
 * (tag, value) pairs of longs. Records are whole: one reservation per print. */
#define KITE_PRINT_INT 1    /* value: the int, sign-extended */
#define KITE_PRINT_LONG 2
#define KITE_PRINT_FLOAT 3  /* value: the float's bits in the low 32 */
#define KITE_PRINT_DOUBLE 4 /* value: the double's bits */
#define KITE_PRINT_BOOL 5
#define KITE_PRINT_STRING 6 /* value: index in the artifact's string table */
#define KITE_PRINT_LIST 7   /* value: n; the next n items are an array's elements: [a, b] */
#define KITE_PRINT_TUPLE 8  /* value: n; the next n items are a tuple's members: (a, b) */
#define KITE_PRINT_RANGE 9  /* value: a range, printed [a, b] */

#define KITE_HEAP_FIRST 8   /* the first heap offset ever allocated */

#endif
