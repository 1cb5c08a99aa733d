/* The record pool. Records are recycled through a private free list per
 * worker, most recent first, and one spare chunk; a worker that frees
 * another whole chunk gives the older spare back to a global lock-free
 * stack (tagged against ABA), and a worker with none takes a chunk from it
 * or carves a new one from the pool. Memory therefore stays bounded by the
 * records alive at once, not by the number of tasks run. A lane of a wide
 * worker keeps its free records as a stack of ids in local memory instead,
 * and passes whole chunks (a record that lists the ids of the others) to
 * the other lanes of its worker; lane 0 trades them with the global stacks
 * (see kite_alloc). Between the global stack's two operations: the atomics
 * that fold a reduction's chunk into its task's record (KITE_FOLD). */

/* Pushes the chain of `count` free records starting at `first` (linked
 * through slot 0, ended by -1) onto the global stack of free chunks. */
void kite_give_chunk_to(kite_ctx *c, volatile __global long *head, int first) {
  for (;;) {
    long old = *head;
    KITE_REC(c, first)[1] = (long)((int)(old & 0xffffffffL) - 1);
    KITE_FENCE();
    long tag = (old >> 32) + 1;
    long desired = (tag << 32) | (long)(uint)(first + 1);
    if (atom_cmpxchg(head, old, desired) == old) return;
  }
}

/* A reduction's chunk folds its accumulators into the task's record, one
 * atomic read-modify-write each. The folds are associative and commutative
 * on wrapping integers, so the order in which chunks arrive changes no bit
 * of the result. */
#define KITE_FOLD(name, T, cas, value)                                   \
  void kite_fold_##name(volatile __global T *p, T v) {                   \
    T old = *p;                                                          \
    for (;;) {                                                           \
      T seen = cas(p, old, (value));                                     \
      if (seen == old) return;                                           \
      old = seen;                                                        \
    }                                                                    \
  }
void kite_fold_add_i(volatile __global int *p, int v) { atomic_add(p, v); }
KITE_FOLD(mul_i, int, atomic_cmpxchg, as_int((uint)old * (uint)v))
KITE_FOLD(and_i, int, atomic_cmpxchg, old & v)
KITE_FOLD(or_i, int, atomic_cmpxchg, old | v)
KITE_FOLD(xor_i, int, atomic_cmpxchg, old ^ v)
KITE_FOLD(min_i, int, atomic_cmpxchg, min(old, v))
KITE_FOLD(max_i, int, atomic_cmpxchg, max(old, v))
void kite_fold_add_l(volatile __global long *p, long v) { atom_add(p, v); }
KITE_FOLD(mul_l, long, atom_cmpxchg, as_long((ulong)old * (ulong)v))
KITE_FOLD(and_l, long, atom_cmpxchg, old & v)
KITE_FOLD(or_l, long, atom_cmpxchg, old | v)
KITE_FOLD(xor_l, long, atom_cmpxchg, old ^ v)
KITE_FOLD(min_l, long, atom_cmpxchg, min(old, v))
KITE_FOLD(max_l, long, atom_cmpxchg, max(old, v))

/* Kite's atomic_cas(a[i], expected, new): the element read first, and the
 * exchange made only where it holds `expected`; where it does not, that
 * read is the answer a failed exchange would have given at that moment
 * (BFS's test of a visited vertex, once per edge: a locked instruction only
 * where the vertex looks unvisited). */
int kite_cas_i(volatile __global int *p, int expected, int desired) {
  const int old = *p;
  return old == expected ? atomic_cmpxchg(p, expected, desired) : old;
}
long kite_cas_l(volatile __global long *p, long expected, long desired) {
  const long old = *p;
  return old == expected ? atom_cmpxchg(p, expected, desired) : old;
}

/* Takes a chunk from the global stack; -1 when it is empty. */
int kite_take_chunk_from(kite_ctx *c, volatile __global long *head) {
  for (;;) {
    long old = *head;
    int first = (int)(old & 0xffffffffL) - 1;
    if (first < 0) return -1;
    int after = (int)KITE_REC(c, first)[1];
    long tag = (old >> 32) + 1;
    long desired = (tag << 32) | (long)(uint)(after + 1);
    if (atom_cmpxchg(head, old, desired) == old) return first;
  }
}

/* Narrow workers share one stack; wide ones give to their shard and take
 * from it, else from a few of the others. */
#define KITE_SHARDS_TRIED 4
volatile __global long *kite_shard(kite_ctx *c, int k) {
  return &c->ctl64[KITE_CTL64_FREE_SHARDS + (k & (KITE_FREE_SHARDS - 1)) * KITE_FREE_SHARD_STRIDE];
}

void kite_give_chunk(kite_ctx *c, int first) {
  kite_give_chunk_to(c, KITE_WIDE ? kite_shard(c, c->worker) : &c->ctl64[KITE_CTL64_FREE_CHUNKS],
                     first);
}

int kite_take_chunk(kite_ctx *c) {
#if KITE_WIDE
  /* This worker's shard, then a few others, a different few each round:
   * while every stack is empty (the pool still growing), lane 0 would
   * otherwise wait for all KITE_FREE_SHARDS loads in turn every round. */
  for (int i = 0; i < KITE_SHARDS_TRIED; ++i) {
    int k = i == 0 ? c->worker : c->worker + (int)c->w->round * (KITE_SHARDS_TRIED - 1) + i;
    volatile __global long *head = kite_shard(c, k);
    if ((int)(*head & 0xffffffffL) == 0) continue; /* empty */
    int chunk = kite_take_chunk_from(c, head);
    if (chunk >= 0) return chunk;
  }
  return -1;
#else
  return kite_take_chunk_from(c, &c->ctl64[KITE_CTL64_FREE_CHUNKS]);
#endif
}

#if KITE_WIDE
/* A wide worker's chunk in global memory is its first record, which holds
 * the ids of the others, two to a slot from slot 2 on (-1 pads a short
 * chunk; slot 1 links it on a global stack). */

/* Writes the ids src[stride], src[2 * stride], .. (n - 1 of them) into
 * record f, the chunk's first. */
void kite_pack_chunk(kite_rec f, __local int *src, int stride, int n) {
  for (int i = 1; i < KITE_CHUNK; i += 2) {
    int lo = i < n ? src[i * stride] : -1;
    int hi = i + 1 < n ? src[(i + 1) * stride] : -1;
    f[2 + i / 2] = (long)(((ulong)(uint)hi << 32) | (uint)lo);
  }
}

/* The ids of chunk h (its first record: f) to dst[0], dst[stride], ..;
 * returns how many. All its slots are read before any is used: one trip
 * to memory. */
int kite_unpack_chunk(kite_rec f, __local int *dst, int stride, int h) {
  long v[KITE_CHUNK / 2 + 1]; /* + 1: no empty array where records have 2 slots */
  for (int i = 0; i < KITE_CHUNK / 2; ++i) v[i] = f[2 + i];
  int n = 1;
  dst[0] = h;
  for (int i = 1; i < KITE_CHUNK; ++i) {
    int id = (int)((i & 1) ? (v[i / 2] & 0xffffffffL) : (v[i / 2 - 1] >> 32));
    if (id >= 0) dst[n++ * stride] = id;
  }
  return n;
}

/* The lanes of a worker pass chunks to one another through
 * KITE_LOCAL_CHUNKS slots in local memory (-1: empty), an atomic exchange
 * per chunk. A chunk from another lane; -1: none. */
int kite_take_local_chunk(kite_ctx *c) {
  for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i) {
    int k = (c->lane + i) & (KITE_LOCAL_CHUNKS - 1);
    if (c->w->chunks[k] >= 0) {
      int chunk = atomic_xchg(&c->w->chunks[k], -1);
      if (chunk >= 0) {
        atomic_dec(&c->w->stocked);
        return chunk;
      }
    }
  }
  return -1;
}

/* Gives a chunk to the other lanes of this worker; 0 if every slot is full. */
int kite_give_local_chunk(kite_ctx *c, int chunk) {
  for (int i = 0; i < KITE_LOCAL_CHUNKS; ++i) {
    int k = (c->lane + i) & (KITE_LOCAL_CHUNKS - 1);
    if (c->w->chunks[k] < 0 && atomic_cmpxchg(&c->w->chunks[k], -1, chunk) == -1) {
      atomic_inc(&c->w->stocked);
      return 1;
    }
  }
  return 0;
}

/* kite_alloc's lane has no free record left: a chunk from another lane,
 * else a new one from the pool; 0 when the pool is exhausted (reported). */
KITE_COLD int kite_alloc_refill(kite_ctx *c, int site) {
  __local int *fl = c->w->fl + c->lane;
  /* Lanes never wait on the global stack (in a warp its compare-and-swap
   * loop would run once per lane): lane 0 keeps the worker's chunks
   * stocked from it between rounds. */
  int chunk = kite_take_local_chunk(c);
  if (chunk >= 0) {
    KITE_FENCE(); /* its ids, written by the giver */
    c->free_count = kite_unpack_chunk(KITE_REC(c, chunk), fl, KITE_LANES, chunk);
    return 1;
  }
  int base = atomic_add(&c->ctl[KITE_CTL_BUMP], KITE_CHUNK);
  if (base + KITE_CHUNK > c->num_records) {
    kite_error(c, KITE_ERR_RECORDS, site, c->num_records, 0);
    return 0;
  }
  for (int i = 0; i < KITE_CHUNK; ++i) fl[i * KITE_LANES] = base + KITE_CHUNK - 1 - i;
  c->free_count = KITE_CHUNK;
  return 1;
}

/* Each lane's free records are a stack of ids in local memory: an
 * allocation is a read of local memory, and the allocations of one block
 * do not wait for each other (a list linked through the records would make
 * each wait for the read of the one before). */
KITE_OUT_OF_LINE_GPU int kite_alloc(kite_ctx *c, int site) {
  __local int *fl = c->w->fl + c->lane;
  if (c->free_count == 0 && !kite_alloc_refill(c, site)) return -1;
  c->free_count -= 1;
  return fl[c->free_count * KITE_LANES];
}

/* The n ids fl[0], fl[KITE_LANES], .. as a chunk; returns it. */
int kite_chunk_of(kite_ctx *c, __local int *fl, int n) {
  int h = fl[0];
  kite_pack_chunk(KITE_REC(c, h), fl, KITE_LANES, n);
  return h;
}

/* kite_free's lane holds KITE_FREE_CAP free records: the older half goes. */
KITE_COLD void kite_free_spill(kite_ctx *c) {
  __local int *fl = c->w->fl + c->lane;
  int h = kite_chunk_of(c, fl, KITE_CHUNK);
  for (int i = 0; i < KITE_CHUNK; ++i) fl[i * KITE_LANES] = fl[(KITE_CHUNK + i) * KITE_LANES];
  c->free_count = KITE_CHUNK;
  mem_fence(CLK_GLOBAL_MEM_FENCE); /* its ids, before another lane takes it */
  if (!kite_give_local_chunk(c, h)) {
    kite_give_chunk(c, h);
    c->n_chunk_ops += 1;
  }
}

/* A freed record goes on the lane's stack; when that is full, its older
 * half, the colder records, goes to the other lanes of the worker or, if
 * their slots are full, to the global stack. */
KITE_OUT_OF_LINE_GPU void kite_free(kite_ctx *c, int r) {
  __local int *fl = c->w->fl + c->lane;
  fl[c->free_count * KITE_LANES] = r;
  c->free_count += 1;
  if (c->free_count == KITE_FREE_CAP) kite_free_spill(c);
}

/* When the launch ends: the lane's free records to the global stack, which
 * outlives it. */
void kite_give_free(kite_ctx *c) {
  __local int *fl = c->w->fl + c->lane;
  for (int i = 0; i < c->free_count; i += KITE_CHUNK)
    kite_give_chunk(c, kite_chunk_of(c, fl + i * KITE_LANES, min(KITE_CHUNK, c->free_count - i)));
  c->free_count = 0;
}
#else
/* kite_alloc's worker has no free record left: its spare chunk, one from
 * the global stack, else a new one from the pool; 0 when the pool is
 * exhausted (reported). */
KITE_COLD int kite_alloc_refill(kite_ctx *c, int site) {
  int chunk = c->spare;
  c->spare = -1;
  if (chunk < 0) chunk = kite_take_chunk(c);
  if (chunk >= 0) {
    KITE_FENCE();
    c->free_head = chunk;
    c->free_next = (int)KITE_REC(c, chunk)[0];
    c->free_count = KITE_CHUNK;
    return 1;
  }
  int base = atomic_add(&c->ctl[KITE_CTL_BUMP], KITE_CHUNK);
  if (base + KITE_CHUNK > c->num_records) {
    kite_error(c, KITE_ERR_RECORDS, site, c->num_records, 0);
    return 0;
  }
  for (int i = 0; i < KITE_CHUNK; ++i)
    KITE_REC(c, base + i)[0] = (i + 1 < KITE_CHUNK) ? (long)(base + i + 1) : -1L;
  c->free_head = base;
  c->free_next = KITE_CHUNK > 1 ? base + 1 : -1;
  c->free_count = KITE_CHUNK;
  return 1;
}

KITE_OUT_OF_LINE_GPU int kite_alloc(kite_ctx *c, int site) {
  if (c->free_head < 0 && !kite_alloc_refill(c, site)) return -1;
  /* The next record's link is read now and needed only at the next
   * allocation: a GPU lane does not wait for a load until it uses the
   * value, so two calls in a row do not wait for each other's read. */
  int r = c->free_head;
  int h = c->free_next;
  c->free_head = h;
  c->free_next = h >= 0 ? (int)KITE_REC(c, h)[0] : -1;
  c->free_count -= 1;
  if (h < 0) c->free_count = 0;
  return r;
}

/* A freed record goes on the private list, whose most recent records are
 * the ones still in this worker's cache: when the list makes a whole chunk
 * it becomes the spare, and the spare before it, older and colder, goes to
 * the global stack. */
KITE_OUT_OF_LINE_GPU void kite_free(kite_ctx *c, int r) {
  KITE_REC(c, r)[0] = (long)c->free_head;
  c->free_next = c->free_head;
  c->free_head = r;
  c->free_count += 1;
  if (c->free_count >= KITE_CHUNK) {
    if (c->spare >= 0) kite_give_chunk(c, c->spare);
    c->spare = c->free_head;
    c->free_head = -1;
    c->free_count = 0;
  }
}
#endif
