//! result int
//! record-words 8
/* Knows nothing of probe mode: every launch just finishes with result 5. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  ctl64[KITE_CTL64_RESULT] = 5;
  ctl[KITE_CTL_DONE] = 1;
}
