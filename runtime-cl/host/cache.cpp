#include "host/cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kite::host {

namespace fs = std::filesystem;

uint64_t fnv1a(const std::vector<std::string_view> &parts) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&h](unsigned char c) {
    h ^= c;
    h *= 0x100000001b3ull;
  };
  for (std::string_view part : parts) {
    for (char c : part) add(static_cast<unsigned char>(c));
    add(0xff);  // never inside the UTF-8 or ASCII text we hash
  }
  return h;
}

Cache::Cache(bool enabled) {
  if (!enabled) return;
  fs::path dir;
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  const char *home = std::getenv("HOME");
  if (xdg && *xdg && fs::path(xdg).is_absolute()) {
    dir = fs::path(xdg) / "kite";
  } else if (home && *home) {
    dir = fs::path(home) / ".cache" / "kite";
  } else {
    return;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && fs::is_directory(dir, ec)) dir_ = dir;
}

fs::path Cache::file(uint64_t key, std::string_view suffix) const {
  return *dir_ / fmt::format("{:016x}{}", key, suffix);
}

std::optional<std::string> Cache::load(uint64_t key, std::string_view suffix) const {
  if (!dir_) return std::nullopt;
  std::ifstream in(file(key, suffix), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return bytes.str();
}

void Cache::store(uint64_t key, std::string_view suffix, std::string_view bytes) const {
  if (!dir_) return;
  fs::path final_path = file(key, suffix);
  fs::path temp = final_path;
  temp += fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(temp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(temp, final_path, ec);
  if (ec) fs::remove(temp, ec);
}

}  // namespace kite::host
