/* KITE_MODE_PROBE as the scheduler implements it: every worker checks in and
 * waits (bounded) until all have; one that gives up marks the probe failed. */
static int kite_test_probe(__global int *ctl, __global int *params) {
  if (params[KITE_PARAM_MODE] != KITE_MODE_PROBE) return 0;
  int want = params[KITE_PARAM_NUM_WORKERS];
  atomic_inc(&ctl[KITE_CTL_PROBE_ARRIVED]);
  volatile __global int *arrived = &ctl[KITE_CTL_PROBE_ARRIVED];
  for (int i = 0; i < params[KITE_PARAM_SPIN_LIMIT]; ++i) {
    if (*arrived >= want) return 1;
  }
  if (*arrived < want) ctl[KITE_CTL_PROBE_FAILED] = 1;
  return 1;
}

#define KITE_TEST_ARGS                                                              \
  __global long *pool, __global long *deques, __global int *deque_ctl,            \
      __global long *printbuf, __global int *ctl, __global long *ctl64,             \
      __global long *stats, __global int *params, __global long *heap, __global long *parked

/* Reserves a print record of n items; returns its first long, or -1 when it
 * does not fit in the buffer (then the run stops with KITE_ERR_PRINT). */
static int kite_test_reserve(__global int *ctl, __global int *params, int n) {
  int at = atomic_add(&ctl[KITE_CTL_PRINT_HEAD], 1 + 2 * n);
  if (at + 1 + 2 * n > params[KITE_PARAM_PRINT_CAP]) {
    atomic_cmpxchg(&ctl[KITE_CTL_ERROR], 0, KITE_ERR_PRINT);
    ctl[KITE_CTL_DONE] = 1;
    return -1;
  }
  if (at + 1 + 2 * n > ctl[KITE_CTL_PRINT_LIMIT]) ctl[KITE_CTL_YIELD] = 1;
  return at;
}

/* Prints one record holding string `id` of the artifact's table. */
static void kite_test_print_string(__global int *ctl, __global int *params,
                                   __global long *printbuf, int id) {
  int at = kite_test_reserve(ctl, params, 1);
  if (at < 0) return;
  printbuf[at] = 1;
  printbuf[at + 1] = KITE_PRINT_STRING;
  printbuf[at + 2] = id;
}
