// The Fibonacci function of examples/fib.kite, sequentially: the sequential
// peer, and the calls below the hand-tuned cutoff of the cutoff peers.
#pragma once
#include "common.h"

inline int fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

// The cutoff peers (bench/run's tbbc and ompc, built with -DWITH_CUTOFF):
// fib(n) below this runs sequentially (fib(20) is 22 000 calls, about
// 30 us; tuned on a 2-core EPYC, docs in bench/README.md).
constexpr int kFibCutoff = 20;
