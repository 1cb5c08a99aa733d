//! result unit
//! string 0 "only string"
//! record-words 8
/* A good record, then one naming a string that does not exist, then a header
 * that claims more items than the buffer holds. `which` picks the bad one. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  kite_test_print_string(ctl, params, printbuf, 0);
  int at = kite_test_reserve(ctl, params, 1);
  printbuf[at] = 1;
  printbuf[at + 1] = KITE_PRINT_STRING;
  printbuf[at + 2] = 3;
  ctl[KITE_CTL_DONE] = 1;
}
