//! param n int
//! result int
//! string 0 "answer:"
//! string 1 "tab\there \"quoted\" \\ done"
//! record-words 16
/* Worker 0 prints a few records of every item type and returns 2 * n. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  int me = get_global_id(0);
  stats[me * KITE_STATS_WORDS + KITE_STAT_LAUNCHES] += 1;
  stats[me * KITE_STATS_WORDS + KITE_STAT_TASKS] += me + 1;
  if (me != 0) return;
  int n = (int)ctl64[KITE_CTL64_ARGS];
  int at = kite_test_reserve(ctl, params, 2);
  printbuf[at] = 2;
  printbuf[at + 1] = KITE_PRINT_STRING; printbuf[at + 2] = 0;
  printbuf[at + 3] = KITE_PRINT_INT; printbuf[at + 4] = 2 * n;
  at = kite_test_reserve(ctl, params, 5);
  printbuf[at] = 5;
  printbuf[at + 1] = KITE_PRINT_LONG; printbuf[at + 2] = 123456789012L * n;
  printbuf[at + 3] = KITE_PRINT_BOOL; printbuf[at + 4] = 1;
  printbuf[at + 5] = KITE_PRINT_BOOL; printbuf[at + 6] = 0;
  printbuf[at + 7] = KITE_PRINT_DOUBLE; printbuf[at + 8] = as_long(1.5 * n);
  printbuf[at + 9] = KITE_PRINT_FLOAT; printbuf[at + 10] = as_uint(2.0f);
  at = kite_test_reserve(ctl, params, 3);
  printbuf[at] = 3;
  printbuf[at + 1] = KITE_PRINT_DOUBLE; printbuf[at + 2] = as_long(0.1);
  printbuf[at + 3] = KITE_PRINT_FLOAT; printbuf[at + 4] = as_uint(0.1f);
  printbuf[at + 5] = KITE_PRINT_DOUBLE; printbuf[at + 6] = as_long(1e20);
  at = kite_test_reserve(ctl, params, 1);
  printbuf[at] = 1;
  printbuf[at + 1] = KITE_PRINT_STRING; printbuf[at + 2] = 1;
  at = kite_test_reserve(ctl, params, 0);
  printbuf[at] = 0;
  ctl[KITE_CTL_BUMP] = 3;
  ctl64[KITE_CTL64_RESULT] = 2 * n;
  ctl[KITE_CTL_DONE] = 1;
}
