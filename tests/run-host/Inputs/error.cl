//! param code int
//! param site int
//! result int
//! string 0 "before the error"
//! site 0 3 14
//! site 1 12 7
//! record-words 8
/* Prints one line, then stops with run-time error `code` at `site`, with
 * operands A = 7, B = 5 (code 0: no error, result 99). */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  kite_test_print_string(ctl, params, printbuf, 0);
  int code = (int)ctl64[KITE_CTL64_ARGS];
  if (code != 0) {
    ctl[KITE_CTL_ERROR] = code;
    ctl[KITE_CTL_ERROR_SITE] = (int)ctl64[KITE_CTL64_ARGS + 1];
    ctl64[KITE_CTL64_ERR_A] = 7;
    ctl64[KITE_CTL64_ERR_B] = 5;
  }
  ctl64[KITE_CTL64_RESULT] = 99;
  ctl[KITE_CTL_DONE] = 1;
}
