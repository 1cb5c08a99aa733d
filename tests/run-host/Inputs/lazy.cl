//! result unit
//! record-words 8
/* Returns without finishing or yielding: kite-run must not relaunch forever. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
}
