// Unit tests of the residency probe's search (host/residency.h): the grid
// it finds, and how many probe launches it takes, against a device where
// exactly `resident` groups run at once. A launch that fails is made twice
// (host/launch.cpp's Prober), as here.
#include "host/residency.h"

#include <doctest/doctest.h>

namespace {

struct Device {
  uint32_t resident;
  int launches = 0;
  bool passes(uint32_t g) {
    launches += g <= resident ? 1 : 2;
    return g <= resident;
  }
};

uint32_t search(Device &d, uint32_t units, uint32_t most, bool cap_first) {
  return kite::host::search_resident(units, most, cap_first,
                                     [&](uint32_t g) { return d.passes(g); });
}

}  // namespace

TEST_CASE("a GPU kernel with more resident than the cap takes one launch") {
  // The 10-task synthetic program on an H100: 132 multiprocessors, more
  // than 10 resident on each, kite-run's cap 10 a multiprocessor.
  Device d{132 * 16};
  CHECK(search(d, 132, 1320, true) == 1320);
  CHECK(d.launches == 1);
}

TEST_CASE("a GPU kernel with fewer resident than the cap is found below it") {
  // fib's kernel on an H100: 8 a multiprocessor. The cap fails, the grid
  // doubles from one a multiprocessor, and 9 a multiprocessor fails.
  Device d{132 * 8};
  CHECK(search(d, 132, 1320, true) == 132 * 8);
  CHECK(d.launches == 2 + 4 + 2);
}

TEST_CASE("a residency of some groups per compute unit in between is found") {
  Device d{132 * 5};
  CHECK(search(d, 132, 1320, true) == 132 * 5);
  Device e{132 * 10 - 1};  // one group short of the cap: 9 a multiprocessor
  CHECK(search(e, 132, 1320, true) == 132 * 9);
}

TEST_CASE("without the cap first, a CPU's probe doubles from its compute units") {
  // PoCL on two cores (kite-run --probe): a work-group per core.
  Device d{2};
  CHECK(search(d, 2, 128, false) == 2);
  CHECK(d.launches == 1 + 2);
  Device e{200};
  CHECK(search(e, 2, 128, false) == 128);
}

TEST_CASE("fewer resident than one group per compute unit") {
  Device d{3};
  CHECK(search(d, 4, 40, true) == 3);
  Device none{0};
  CHECK(search(none, 4, 40, true) == 0);
}
