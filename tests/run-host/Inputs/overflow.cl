//! result unit
//! string 0 "kept"
//! record-words 8
/* Scheduler bug: a reservation runs past the end of the buffer and no error
 * is raised. kite-run prints what is whole and reports the overflow itself. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  kite_test_print_string(ctl, params, printbuf, 0);
  printbuf[3] = params[KITE_PARAM_PRINT_CAP];  /* a reservation never written */
  ctl[KITE_CTL_PRINT_HEAD] = params[KITE_PARAM_PRINT_CAP] + 10;
  ctl[KITE_CTL_DONE] = 1;
}
