//! param n int
//! result array<int>
//! record-words 8
/* Allocates an array of n ints from the heap as the scheduler does (atomic
 * add on the bump pointer, KITE_ERR_HEAP past the end) and fills it with
 * i * i. n = -1 returns null (ref 0); n = -2 a ref outside the heap. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  int n = (int)ctl64[KITE_CTL64_ARGS];
  ctl[KITE_CTL_DONE] = 1;
  if (n < 0) {
    ctl64[KITE_CTL64_RESULT] = n == -1 ? 0 : ctl64[KITE_CTL64_HEAP_SIZE];
    return;
  }
  long longs = 1 + (n + 1) / 2;
  long ref = atom_add(&ctl64[KITE_CTL64_HEAP_BUMP], longs);
  if (ref + longs > ctl64[KITE_CTL64_HEAP_SIZE]) {
    ctl[KITE_CTL_ERROR] = KITE_ERR_HEAP;
    return;
  }
  heap[ref] = n;
  for (int i = 0; i < n; ++i) ((__global int *)(heap + ref + 1))[i] = i * i;
  ctl64[KITE_CTL64_RESULT] = ref;
}
