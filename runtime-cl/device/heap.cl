/* The heap: arrays, structs, unions, tuples and closures, taken from
 * per-worker chunks, freed arrays reused by size; checked access to
 * elements and fields, and ranges. */

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

/* The same, with the heap's address in hand (`hp`, which the generated
 * code reads from c->heap once per loop nest: Printer::enter_loop): the
 * checked path's call is the only place the loop reads `c`. */
__global void *kite_loop_elem_nh(kite_ctx *c, KITE_DATA __global long *hp, long array, int n,
                                 int i, int elem_bytes, int site) {
  if (KITE_UNLIKELY((uint)i >= (uint)n))
    return (__global void *)kite_loop_elem_n(c, array, n, i, elem_bytes, site);
  return (__global void *)((__global char *)(hp + array + 1) + (long)i * elem_bytes);
}

__global void *kite_loop_elem_h(kite_ctx *c, KITE_DATA __global long *hp, long array, int i,
                                int elem_bytes, int site) {
  return kite_loop_elem_nh(c, hp, array, (int)hp[array], i, elem_bytes, site);
}

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
