//! param i int
//! param l long
//! param f float
//! param d double
//! param b bool
//! result double
//! record-words 8
/* Prints main's five arguments back as the device received them, plus the
 * raw bits of each (to check sign extension and float placement), and returns
 * d / 4. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  int tags[5] = {KITE_PRINT_INT, KITE_PRINT_LONG, KITE_PRINT_FLOAT, KITE_PRINT_DOUBLE,
                 KITE_PRINT_BOOL};
  int at = kite_test_reserve(ctl, params, 5);
  printbuf[at] = 5;
  for (int k = 0; k < 5; ++k) {
    printbuf[at + 1 + 2 * k] = tags[k];
    printbuf[at + 2 + 2 * k] = ctl64[KITE_CTL64_ARGS + k];
  }
  at = kite_test_reserve(ctl, params, 5);
  printbuf[at] = 5;
  for (int k = 0; k < 5; ++k) {
    printbuf[at + 1 + 2 * k] = KITE_PRINT_LONG;
    printbuf[at + 2 + 2 * k] = ctl64[KITE_CTL64_ARGS + k];
  }
  ctl64[KITE_CTL64_RESULT] = as_long(as_double(ctl64[KITE_CTL64_ARGS + 3]) / 4);
  ctl[KITE_CTL_DONE] = 1;
}
