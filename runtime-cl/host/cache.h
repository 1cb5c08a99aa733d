// kite-run's on-disk cache: OpenCL program binaries and probed grid sizes,
// under $XDG_CACHE_HOME/kite (else $HOME/.cache/kite; else nothing is cached).
// Entries are keyed by a 64-bit FNV-1a hash of everything that affects them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kite::host {

// 64-bit FNV-1a over the parts, with a separator so ("ab","c") != ("a","bc").
uint64_t fnv1a(const std::vector<std::string_view> &parts);

class Cache {
 public:
  // The default directory from the environment; `enabled` false disables it.
  explicit Cache(bool enabled);

  bool enabled() const { return dir_.has_value(); }
  // The file for a key and suffix, e.g. ".../kite/0123456789abcdef.bin".
  std::filesystem::path file(uint64_t key, std::string_view suffix) const;

  // The bytes stored under key, or nothing (no cache, no entry, unreadable).
  std::optional<std::string> load(uint64_t key, std::string_view suffix) const;
  // Stores atomically (temporary file, then rename). Failures are silent: the
  // cache only saves time.
  void store(uint64_t key, std::string_view suffix, std::string_view bytes) const;

 private:
  std::optional<std::filesystem::path> dir_;
};

}  // namespace kite::host
