//! param a array<int>
//! param l array<long>
//! param f array<float>
//! param d array<double>
//! param b array<bool>
//! result long
//! record-words 8
/* Reads main's five array arguments from the heap. Prints their refs, the
 * heap's bump pointer and size, and the sum of heap[0 .. KITE_HEAP_FIRST)
 * (zero); then, when they have at most 64 elements in all, each array as a
 * list. Returns the sum of a. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  long zeros = 0;
  for (int k = 0; k < KITE_HEAP_FIRST; ++k) zeros += heap[k];
  int at = kite_test_reserve(ctl, params, 8);
  printbuf[at] = 8;
  for (int k = 0; k < 5; ++k) {
    printbuf[at + 1 + 2 * k] = KITE_PRINT_LONG;
    printbuf[at + 2 + 2 * k] = ctl64[KITE_CTL64_ARGS + k];
  }
  printbuf[at + 11] = KITE_PRINT_LONG; printbuf[at + 12] = ctl64[KITE_CTL64_HEAP_BUMP];
  printbuf[at + 13] = KITE_PRINT_LONG; printbuf[at + 14] = ctl64[KITE_CTL64_HEAP_SIZE];
  printbuf[at + 15] = KITE_PRINT_LONG; printbuf[at + 16] = zeros;

  long total = 0;
  for (int k = 0; k < 5; ++k) total += heap[ctl64[KITE_CTL64_ARGS + k]];
  if (total <= 64) {
    int tags[5] = {KITE_PRINT_INT, KITE_PRINT_LONG, KITE_PRINT_FLOAT, KITE_PRINT_DOUBLE,
                   KITE_PRINT_BOOL};
    int n = 5 + (int)total;
    at = kite_test_reserve(ctl, params, n);
    printbuf[at] = n;
    int item = 0;
    for (int k = 0; k < 5; ++k) {
      long ref = ctl64[KITE_CTL64_ARGS + k];
      long len = heap[ref];
      printbuf[at + 1 + 2 * item] = KITE_PRINT_LIST;
      printbuf[at + 2 + 2 * item] = len;
      ++item;
      for (long i = 0; i < len; ++i) {
        long bits = k == 1 || k == 3 ? heap[ref + 1 + i]
                                     : (long)((__global uint *)(heap + ref + 1))[i];
        if (k == 0) bits = ((__global int *)(heap + ref + 1))[i];
        printbuf[at + 1 + 2 * item] = tags[k];
        printbuf[at + 2 + 2 * item] = bits;
        ++item;
      }
    }
  }
  long sum = 0;
  long a = ctl64[KITE_CTL64_ARGS];
  for (long i = 0; i < heap[a]; ++i) sum += ((__global int *)(heap + a + 1))[i];
  ctl64[KITE_CTL64_RESULT] = sum;
  ctl[KITE_CTL_DONE] = 1;
}
