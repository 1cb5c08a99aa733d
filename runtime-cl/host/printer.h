// Decodes the print records the kernel leaves in printbuf (see kite_abi.h):
// a header long n, then n (tag, value) pairs. One record is one line of
// output: its items separated by one space, then a newline. A LIST or TUPLE
// pair with value m opens a container whose elements are the next m items
// (each possibly a container itself): [a, b] and (a, b); n counts every pair,
// the containers' own included.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "host/artifact.h"

namespace kite::host {

class Printer {
 public:
  Printer(const Artifact &artifact, std::FILE *out) : artifact_(artifact), out_(out) {}

  // Writes the records in records[0 .. count) and flushes. Throws RunError on
  // a malformed record (a scheduler or compiler bug, not the user's). With
  // `overflowed` (the kernel reserved past the end of the buffer, so the last
  // reservation was never written) it stops quietly at the first record that
  // does not fit.
  void drain(const int64_t *records, size_t count, bool overflowed = false);

  // The text of one printed item that is not a container (a scalar, string
  // or range).
  std::string format_item(int64_t tag, int64_t value) const;

  // The text of one record's n (tag, value) pairs, without the newline.
  // Throws RunError on a malformed one.
  std::string format_record(const int64_t *pairs, int64_t n) const;

  size_t lines_printed() const { return lines_; }

 private:
  const Artifact &artifact_;
  std::FILE *out_;
  size_t lines_ = 0;
};

}  // namespace kite::host
