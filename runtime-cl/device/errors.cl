/* Run-time errors (kite_error: the first one is kept, and it ends the run),
 * and the arithmetic whose results must agree on every device and with the
 * reference interpreter: division, conversions, abs, hash. */

KITE_COLD_GPU void kite_error(kite_ctx *c, int kind, int site, long a, long b) {
#if KITE_LOOP_FAULTS
  if (c->fault_site >= 0) { /* a bad index came first */
    kind = KITE_ERR_INDEX;
    site = c->fault_site;
    a = c->fault_index;
    b = c->fault_length;
  }
#endif
  if (atomic_cmpxchg(&c->ctl[KITE_CTL_ERROR], 0, kind) == 0) {
    c->ctl[KITE_CTL_ERROR_SITE] = site;
    c->ctl64[KITE_CTL64_ERR_A] = a;
    c->ctl64[KITE_CTL64_ERR_B] = b;
  }
  KITE_FENCE();
  atomic_xchg(&c->ctl[KITE_CTL_DONE], 1);
#if KITE_TURNS
  c->turn_stop = 1;
#endif
}

int kite_div_i(kite_ctx *c, int a, int b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? (int)(0u - (uint)a) : a / b; /* INT_MIN / -1 wraps */
}
int kite_mod_i(kite_ctx *c, int a, int b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? 0 : a % b;
}
long kite_div_l(kite_ctx *c, long a, long b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? (long)(0ul - (ulong)a) : a / b;
}
long kite_mod_l(kite_ctx *c, long a, long b, int site) {
  if (b == 0) { kite_error(c, KITE_ERR_DIV_ZERO, site, 0, 0); return 0; }
  return (b == -1) ? 0 : a % b;
}

/* int(x) and long(x) of a float or double: truncated, saturated, NaN -> 0.
 * OpenCL's saturating conversions say NaN gives 0, but NVIDIA's gives
 * INT_MIN for a double NaN; the test makes every device agree. */
int kite_int_of_float(float x) { return isnan(x) ? 0 : convert_int_sat_rtz(x); }
int kite_int_of_double(double x) { return isnan(x) ? 0 : convert_int_sat_rtz(x); }
long kite_long_of_float(float x) { return isnan(x) ? 0 : convert_long_sat_rtz(x); }
long kite_long_of_double(double x) { return isnan(x) ? 0 : convert_long_sat_rtz(x); }

/* |x|, wrapping: abs(INT_MIN) is INT_MIN. Not OpenCL's abs, whose unsigned
 * result PoCL computes as 0 for LONG_MIN. */
int kite_abs_i(int x) { return x < 0 ? as_int(0u - (uint)x) : x; }
long kite_abs_l(long x) { return x < 0 ? as_long(0ul - (ulong)x) : x; }

/* splitmix64's finaliser: a well-mixed 64-bit hash of a long. */
long kite_hash(long x) {
  ulong z = (ulong)x + 0x9e3779b97f4a7c15ul;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
  return (long)(z ^ (z >> 31));
}
