//! param a array<int>
//! result array<int>
//! record-words 8
/* Returns its array argument (make-kart.py's overrides pick the types). */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  ctl64[KITE_CTL64_RESULT] = ctl64[KITE_CTL64_ARGS];
  ctl[KITE_CTL_DONE] = 1;
}
