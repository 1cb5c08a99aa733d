//! param n long
//! result unit
//! record-words 8
/* Every worker prints numbers 0 .. n-1 taken from a shared counter, one per
 * line; when the print buffer passes its limit the workers leave (YIELD) and
 * kite-run drains it and relaunches. ctl64[6] counts numbers taken, ctl64[7]
 * numbers printed; whoever prints the last one sets DONE. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  int me = get_global_id(0);
  stats[me * KITE_STATS_WORDS + KITE_STAT_LAUNCHES] += 1;
  long n = ctl64[KITE_CTL64_ARGS];
  if (n <= 0) {
    ctl[KITE_CTL_DONE] = 1;
    return;
  }
  volatile __global int *yield = &ctl[KITE_CTL_YIELD];
  volatile __global int *done = &ctl[KITE_CTL_DONE];
  while (!*yield && !*done) {
    long i = atom_inc(&ctl64[6]);
    if (i >= n) break;
    int at = kite_test_reserve(ctl, params, 1);
    if (at < 0) break;
    printbuf[at] = 1;
    printbuf[at + 1] = KITE_PRINT_LONG;
    printbuf[at + 2] = i;
    stats[me * KITE_STATS_WORDS + KITE_STAT_TASKS] += 1;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    if (atom_inc(&ctl64[7]) == n - 1) ctl[KITE_CTL_DONE] = 1;
  }
}
