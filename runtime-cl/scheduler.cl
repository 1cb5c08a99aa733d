/* The Kite scheduler: persistent workers over work-stealing deques.
 *
 * kitec pastes this file into every program, after kite_abi.h and before the
 * generated code, which supplies kite_block (the uber-kernel's switch over
 * block codes), kite_signal (what a finished node or block tells its record)
 * and kite_start_main.
 *
 * Workers. The host launches exactly as many work-groups as can be resident
 * at once (on PoCL: the compute units; on a GPU: measured by KITE_MODE_PROBE),
 * each of one work-item, so every worker makes progress on its own and no
 * work-item ever waits on another of its own group.
 *
 * Work. An entry of a deque is a long: (block code << 32) | record index. A
 * record is KITE_FRAME_WORDS longs of the pool: a task's parameters, locals,
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
 * the number of tasks run.
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
 * is only as wide as the work-group, so there it is PTX's membar.gl. */
#if defined(KITE_NVIDIA)
#define KITE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define KITE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

#define KITE_CHUNK 32

/* Heap blocks of fewer longs than this that a task frees (kitec frees the
 * arrays a task makes and keeps to itself when it ends) are kept on a
 * per-worker list by size and reused by the next allocation of that size. */
#define KITE_HEAP_CLASSES 64

/* A map whose body calls no task gives each record up to this many
 * iterations to run one after another. */
#define KITE_MAP_CHUNK 64
/* One whose body calls tasks and is not direct (below): up to this many,
 * each iteration's graph finishing before the next starts. On a CPU that
 * saves a record, a split and a deque trip per iteration that calls
 * nothing; a GPU needs every iteration it can get in parallel. */
#if defined(KITE_CPU)
#define KITE_MAP_CALL_CHUNK 4
#else
#define KITE_MAP_CALL_CHUNK 1
#endif

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

typedef struct {
  KITE_DATA __global long *frames;
  volatile __global long *deques;
  volatile __global int *deque_ctl;
  volatile __global long *printbuf;
  volatile __global int *ctl;
  volatile __global long *ctl64;
  KITE_DATA __global long *heap;
  long heap_cur, heap_end; /* this worker's heap chunk: [cur, end) */
  long heap_free[KITE_HEAP_CLASSES]; /* freed blocks of each size, in longs */
  int worker, num_workers, num_frames, deque_mask, print_cap;
  long next;      /* the entry in hand, or KITE_NONE */
  int free_head;  /* private free list of records, linked through slot 0 */
  int free_count; /* its length, up to KITE_CHUNK */
  int spare;      /* a full chunk of free records, the next most recent; -1: none */
  uint rng;
  long n_tasks, n_conts, n_steal_tries, n_steals;
  /* Tracing (kite-run --trace): the span being run, and where spans go. */
  __global long *trace;  /* this worker's spans; null: no trace */
  int trace_cap;
  long span_start, span_blocks, span_stolen;
} kite_ctx;

#define KITE_REC(c, r) ((c)->frames + (long)(r) * KITE_FRAME_WORDS)
#define KITE_ENTRY(code, rec) (((long)(code) << 32) | (long)(uint)(rec))
#define KITE_LINK(parent, node) (((long)(node) << 32) | (long)(uint)(parent))
/* Typed access to a record's slots. */
#define KITE_I(f, s) (*(KITE_DATA __global int *)((f) + (s)))
#define KITE_L(f, s) ((f)[s])
#define KITE_F(f, s) (*(KITE_DATA __global float *)((f) + (s)))
#define KITE_D(f, s) (*(KITE_DATA __global double *)((f) + (s)))
#define KITE_COUNTER(f, s) ((volatile __global int *)((f) + (s)))

/* The generated part of the program. kite_signal returns the record whose
 * task the signal finished, or -1. */
void kite_block(kite_ctx *c, int rec, int code);
int kite_signal(kite_ctx *c, int rec, int node, long bits, int graph);
void kite_start_main(kite_ctx *c);

/* ---- Errors --------------------------------------------------------------- */

void kite_error(kite_ctx *c, int kind, int site, long a, long b) {
  if (atomic_cmpxchg(&c->ctl[KITE_CTL_ERROR], 0, kind) == 0) {
    c->ctl[KITE_CTL_ERROR_SITE] = site;
    c->ctl64[KITE_CTL64_ERR_A] = a;
    c->ctl64[KITE_CTL64_ERR_B] = b;
  }
  KITE_FENCE();
  atomic_xchg(&c->ctl[KITE_CTL_DONE], 1);
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
void kite_give_chunk(kite_ctx *c, int first) {
  volatile __global long *head = &c->ctl64[KITE_CTL64_FREE_CHUNKS];
  for (;;) {
    long old = *head;
    KITE_REC(c, first)[1] = (long)((int)(old & 0xffffffffL) - 1);
    KITE_FENCE();
    long tag = (old >> 32) + 1;
    long desired = (tag << 32) | (long)(uint)(first + 1);
    if (atom_cmpxchg(head, old, desired) == old) return;
  }
}

/* Takes a chunk from the global stack; -1 when it is empty. */
int kite_take_chunk(kite_ctx *c) {
  volatile __global long *head = &c->ctl64[KITE_CTL64_FREE_CHUNKS];
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

int kite_alloc(kite_ctx *c, int site) {
  if (c->free_head < 0) {
    int chunk = c->spare;
    c->spare = -1;
    if (chunk < 0) chunk = kite_take_chunk(c);
    if (chunk >= 0) {
      KITE_FENCE();
      c->free_head = chunk;
      c->free_count = KITE_CHUNK;
    } else {
      int base = atomic_add(&c->ctl[KITE_CTL_BUMP], KITE_CHUNK);
      if (base + KITE_CHUNK > c->num_frames) {
        kite_error(c, KITE_ERR_RECORDS, site, c->num_frames, 0);
        return -1;
      }
      for (int i = 0; i < KITE_CHUNK; ++i)
        KITE_REC(c, base + i)[0] = (i + 1 < KITE_CHUNK) ? (long)(base + i + 1) : -1L;
      c->free_head = base;
      c->free_count = KITE_CHUNK;
    }
  }
  int r = c->free_head;
  c->free_head = (int)KITE_REC(c, r)[0];
  c->free_count -= 1;
  if (c->free_head < 0) c->free_count = 0;
  return r;
}

/* A freed record goes on the private list, whose most recent records are
 * the ones still in this worker's cache: when the list makes a whole chunk
 * it becomes the spare, and the spare before it, older and colder, goes to
 * the global stack. */
void kite_free(kite_ctx *c, int r) {
  KITE_REC(c, r)[0] = (long)c->free_head;
  c->free_head = r;
  c->free_count += 1;
  if (c->free_count >= KITE_CHUNK) {
    if (c->spare >= 0) kite_give_chunk(c, c->spare);
    c->spare = c->free_head;
    c->free_head = -1;
    c->free_count = 0;
  }
}

/* ---- Deques (Chase-Lev) ---------------------------------------------------- */

/* Queues entry e; `site` is the Kite call that made it (-1: none), for the
 * error when the deque is full. */
void kite_push(kite_ctx *c, long e, int site) {
  volatile __global int *dc = c->deque_ctl + c->worker * KITE_DEQUE_CTL_STRIDE;
  volatile __global long *q = c->deques + (long)c->worker * (c->deque_mask + 1);
  int b = dc[KITE_DEQUE_BOTTOM];
  int t = dc[KITE_DEQUE_TOP]; /* a stale top only makes the deque look fuller */
  if (b - t > c->deque_mask) {
    kite_error(c, KITE_ERR_QUEUE, site, c->deque_mask + 1, 0);
    return;
  }
  q[b & c->deque_mask] = e;
  KITE_FENCE(); /* the entry before the bottom that publishes it */
  dc[KITE_DEQUE_BOTTOM] = b + 1;
}

long kite_pop(kite_ctx *c) {
  volatile __global int *dc = c->deque_ctl + c->worker * KITE_DEQUE_CTL_STRIDE;
  volatile __global long *q = c->deques + (long)c->worker * (c->deque_mask + 1);
  int b = dc[KITE_DEQUE_BOTTOM] - 1;
  /* The store of bottom must be seen before top is read (the one
   * store-to-load order Chase-Lev needs): an exchange and a fence. */
  atomic_xchg(&dc[KITE_DEQUE_BOTTOM], b);
  KITE_FENCE();
  int t = dc[KITE_DEQUE_TOP];
  if (b - t < 0) {
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
  volatile __global int *dc = c->deque_ctl + victim * KITE_DEQUE_CTL_STRIDE;
  volatile __global long *q = c->deques + (long)victim * (c->deque_mask + 1);
  int t = dc[KITE_DEQUE_TOP];
  KITE_FENCE();
  int b = dc[KITE_DEQUE_BOTTOM];
  if (b - t <= 0) return KITE_NONE;
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
void kite_ready_at(kite_ctx *c, int rec, int code, int site) {
  long e = KITE_ENTRY(code, rec);
  if (c->next == KITE_NONE) c->next = e;
  else kite_push(c, e, site);
}

void kite_ready(kite_ctx *c, int rec, int code) { kite_ready_at(c, rec, code, -1); }

/* Record `rec`'s task has finished: hand its result to the node of its caller
 * that waits for it, and go on up while callers finish too. */
void kite_finish(kite_ctx *c, int rec) {
  for (;;) {
    KITE_FENCE(); /* see every write made before the last signal */
    kite_rec f = KITE_REC(c, rec);
    long link = f[0];
    long bits = f[1];
    int parent = (int)(link & 0xffffffffL);
    int node = (int)(link >> 32);
    kite_free(c, rec);
    if (parent < 0) {
      c->ctl64[KITE_CTL64_RESULT] = bits;
      KITE_FENCE();
      atomic_xchg(&c->ctl[KITE_CTL_DONE], 1);
      return;
    }
    rec = kite_signal(c, parent, node, bits, -1);
    if (rec < 0) return;
  }
}

/* ---- The heap -------------------------------------------------------------- */

#define KITE_HEAP_CHUNK 4096L
/* Where a failed access points, so that the block can finish harmlessly
 * while the run stops: heap[2..8) is never allocated (kite_abi.h). */
#define KITE_SCRATCH 2L

/* `longs` zeroed longs of heap: a freed block of that size, or a new one
 * from this worker's chunk; 0 when the heap is exhausted. */
long kite_heap_alloc(kite_ctx *c, long longs, int site) {
  if (longs < KITE_HEAP_CLASSES) {
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

long kite_new_array(kite_ctx *c, int n, int elem_bytes, int site) {
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

/* Slot k of a struct, tuple or union; null is an error. */
KITE_DATA __global long *kite_field(kite_ctx *c, long ref, int k, int site) {
  if (ref == 0) {
    kite_error(c, KITE_ERR_NULL, site, 0, 0);
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
int kite_print_reserve(kite_ctx *c, int items) {
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

/* ---- The kernel ------------------------------------------------------------ */

__kernel void kite_uber(__global long *frames, __global long *deques, __global int *deque_ctl,
                        __global long *printbuf, __global int *ctl, __global long *ctl64,
                        __global long *stats, __global int *params, __global long *heap) {
  kite_ctx ctx;
  kite_ctx *c = &ctx;
  c->frames = frames;
  c->deques = deques;
  c->deque_ctl = deque_ctl;
  c->printbuf = printbuf;
  c->ctl = ctl;
  c->ctl64 = ctl64;
  c->heap = heap;
  c->heap_cur = c->heap_end = 0;
  for (int k = 0; k < KITE_HEAP_CLASSES; ++k) c->heap_free[k] = 0;
  c->worker = (int)get_global_id(0);
  c->num_workers = params[KITE_PARAM_NUM_WORKERS];
  c->num_frames = params[KITE_PARAM_NUM_FRAMES];
  c->deque_mask = params[KITE_PARAM_DEQUE_CAP] - 1;
  c->print_cap = params[KITE_PARAM_PRINT_CAP];
  if (c->worker >= c->num_workers) return;

  if (params[KITE_PARAM_MODE] == KITE_MODE_PROBE) {
    /* Are all workers resident at once? Each checks in and waits, boundedly,
     * for the others; one that gives up says so. */
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
  c->rng = 2463534242u ^ (uint)(c->worker * 7919 + 1);
  c->n_tasks = c->n_conts = c->n_steal_tries = c->n_steals = 0;
  c->trace_cap = params[KITE_PARAM_TRACE_CAP];
  long stride = KITE_STATS_WORDS + (long)KITE_TRACE_SPAN_WORDS * c->trace_cap;
  __global long *st = stats + (long)c->worker * stride;
  c->trace = c->trace_cap > 0 ? st + KITE_STATS_WORDS : 0;
  int busy = 0; /* tracing: in a span */

  if (c->worker == 0 && c->ctl[KITE_CTL_STARTED] == 0) {
    c->ctl[KITE_CTL_STARTED] = 1;
    kite_start_main(c);
  }

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
      if (c->ctl[KITE_CTL_DONE] | c->ctl[KITE_CTL_YIELD] | c->ctl[KITE_CTL_STOP]) break;
      c->next = kite_try_steal(c);
      stolen = 1;
      if (c->next == KITE_NONE) {
        /* Back off, so that idle workers do not keep the busy ones' deque
         * lines bouncing between caches: wait longer after each failure,
         * reading a line that nobody writes while work is going on. */
        for (int k = 0; k < backoff && !c->ctl[KITE_CTL_DONE]; ++k) {
        }
        backoff = min(2 * backoff + 1, KITE_MAX_BACKOFF);
        continue;
      }
      backoff = 0;
    } else if ((++iter & 31u) == 0 &&
               (c->ctl[KITE_CTL_DONE] | c->ctl[KITE_CTL_YIELD] | c->ctl[KITE_CTL_STOP])) {
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

  /* Records on the private list would be lost with this launch. */
  if (c->free_head >= 0) kite_give_chunk(c, c->free_head);
  if (c->spare >= 0) kite_give_chunk(c, c->spare);
  st[KITE_STAT_TASKS] += c->n_tasks;
  st[KITE_STAT_CONTS] += c->n_conts;
  st[KITE_STAT_STEAL_TRIES] += c->n_steal_tries;
  st[KITE_STAT_STEALS] += c->n_steals;
  st[KITE_STAT_LAUNCHES] += 1;
}
