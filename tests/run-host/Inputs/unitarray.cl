//! result array<array<int>>
//! record-words 8
/* Returns a heap value, which kite-run cannot print yet. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  ctl64[KITE_CTL64_RESULT] = 1234;
  ctl[KITE_CTL_DONE] = 1;
}
