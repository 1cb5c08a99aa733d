/* The context that every work-item carries (kite_ctx), a wide worker's
 * state in local memory (kite_worker), the layout of records, entries and
 * links, and the functions that the generated code supplies. */

typedef KITE_DATA __global long *kite_rec;

#if KITE_WIDE
/* The local queue is split by block code into KITE_CLASSES rings, so that a
 * round can take entries that run the same code (see wide.cl). */
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
 * workers" in wide.cl). */
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
#if KITE_WIDE_FORMS
  int fast_ok;  /* this round's calls may run sequential forms (kite_fast_now) */
#endif
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
#if KITE_HAS_FAST
  long n_fast;   /* calls that ran their callee's sequential form */
#if KITE_KEEP /* (KITE_FAST is 3 only where kite-run says so) */
  long n_kept; /* stops of forms that kept their work (fast.cl) */
#endif
  int fast_skip; /* calls that become tasks before the next sequential form (fast.cl) */
#if !KITE_WIDE
  /* Why calls became tasks after all (kite-run --stats; fast.cl): counted
   * on narrow workers only, where it costs nothing measurable (on an H100
   * the counters took fib(40)'s kernel from 217 registers to 223 and 12.6-12.9
   * ms to 13.1-13.9). */
  long n_declined, n_skipped, n_stops, n_full;
#endif
#endif
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
#if KITE_LARGE
  /* The finish a large program's block leaves to kite_block (joins.cl,
   * KITE_BLOCK_FINISH): the record whose task ended (-1: none) and the rest
   * of kite_finish_at's arguments. */
  int fin_rec, fin_own, fin_known, fin_has;
  long fin_link, fin_ret;
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
#if KITE_SPLIT
  __global long *parked; /* what other parts run (parts.cl): entry, part */
  int parked_cap;        /* pairs it holds */
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
#if KITE_SPLIT
/* The part of a block code and of a (caller's) node; -1: every part's. */
int kite_part_of_code(int code);
int kite_part_of_node(int node);
void kite_park(kite_ctx *c, long entry, int part);
#endif
