// The OpenMP peers' one idiom for a task tree: a team of threads, one of
// which runs the root call; the others take the tasks it spawns.
#pragma once

template <class F>
auto omp_root(F f) {
  decltype(f()) r{};
#pragma omp parallel
#pragma omp single
  r = f();
  return r;
}
