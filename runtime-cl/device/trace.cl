/* Traces (kite-run --trace): the spans of blocks that each worker ran. */

/* A clock for traces: NVIDIA's global timer, in ns. OpenCL C 1.2 has no
 * clock elsewhere, so there a logical one counts the blocks all workers have
 * run, advanced by each span's blocks when it ends: a busy stretch is as long
 * as the work done meanwhile. Either is read only where a span starts or
 * ends, never per block. */
void kite_span_begin(kite_ctx *c, int stolen) {
#if defined(KITE_NVIDIA)
  ulong t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  c->span_start = (long)t;
#else
  c->span_start = atom_add(&c->ctl64[KITE_CTL64_TRACE_CLOCK], 0L);
#endif
  c->span_blocks = 0;
  c->span_stolen = stolen;
}

void kite_span_end(kite_ctx *c, __global long *st) {
#if defined(KITE_NVIDIA)
  ulong t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  long end = (long)t;
#else
  long end = atom_add(&c->ctl64[KITE_CTL64_TRACE_CLOCK], c->span_blocks) + c->span_blocks;
#endif
  long k = st[KITE_STAT_TRACE_SPANS];
  if (k >= c->trace_cap) {
    st[KITE_STAT_TRACE_LOST] += 1;
    return;
  }
  __global long *span = c->trace + k * KITE_TRACE_SPAN_WORDS;
  span[0] = c->span_start;
  span[1] = end;
  span[2] = (c->span_blocks << 1) | c->span_stolen;
  st[KITE_STAT_TRACE_SPANS] = k + 1;
}
