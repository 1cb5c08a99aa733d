/* Printing: a print reserves a whole record of the print buffer
 * (kite_abi.h), which the host drains between launches. */

/* Reserves a whole record of `items` items; -1 if the run is stopping. */
KITE_OUT_OF_LINE int kite_print_reserve(kite_ctx *c, int items) {
#if KITE_LOOP_FAULTS
  if (c->fault_site >= 0) return -1;
#endif
  if (c->ctl[KITE_CTL_DONE]) return -1;
  int words = 1 + 2 * items;
  volatile __global int *head = &c->ctl[KITE_CTL_PRINT_HEAD];
  int at;
  /* The head never passes the end, so the host always finds whole records. */
  for (;;) {
    at = *head;
    if (at + words > c->print_cap) {
      kite_error(c, KITE_ERR_PRINT, -1, 0, 0);
      return -1;
    }
    if (atomic_cmpxchg(head, at, at + words) == at) break;
  }
#if KITE_TURNS
  c->turn_stop = 1; /* the buffer's headroom is a few prints per lane */
#endif
  if (at + words > c->ctl[KITE_CTL_PRINT_LIMIT]) atomic_xchg(&c->ctl[KITE_CTL_YIELD], 1);
  c->printbuf[at] = items;
  return at + 1;
}
