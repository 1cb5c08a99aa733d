//! param name int
//! result int
//! string 0 "struct 'acc.next'"
//! site 0 4 9
//! record-words 8
/* Stops with the error of a value never given one at site 0, the value
 * named by string `name` (-1: kitec gave it no name). */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  ctl[KITE_CTL_ERROR] = KITE_ERR_NULL;
  ctl[KITE_CTL_ERROR_SITE] = 0;
  ctl64[KITE_CTL64_ERR_A] = ctl64[KITE_CTL64_ARGS];
  ctl64[KITE_CTL64_ERR_B] = 0;
  ctl64[KITE_CTL64_RESULT] = 0;
  ctl[KITE_CTL_DONE] = 1;
}
