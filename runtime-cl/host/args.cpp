#include "host/args.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string_view>

#include "host/cl.h"
#include "host/values.h"
#include "runtime-cl/kite_abi.h"

namespace kite::host {
namespace {

std::string signature(const std::vector<Param> &params) {
  std::string s;
  for (const Param &p : params) {
    if (!s.empty()) s += ", ";
    s += fmt::format("{}: {}", p.name, p.type);
  }
  return s;
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The C locale's white space, without std::isspace's call per byte.
bool is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The element texts of an array argument written `[a, b, c]`, split at commas.
std::vector<std::string_view> bracket_elements(const std::string &arg, const Param &param) {
  std::vector<std::string_view> elements;
  std::string_view text = trim(arg);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    throw RunError(
        fmt::format("cannot read '{}' as {} for parameter '{}' (write [1, 2, 3] or @file)", arg,
                    param.type, param.name));
  }
  text = text.substr(1, text.size() - 2);
  if (trim(text).empty()) return elements;  // []
  for (;;) {
    size_t comma = text.find(',');
    elements.push_back(trim(text.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return elements;
}

// The bytes of the file an `@path` argument names: mapped into memory when
// it is a regular file (no copy, and no zero-filled buffer first), else read
// whole (a pipe, /dev/stdin).
class FileText {
 public:
  FileText(const std::string &arg, const Param &param) {
    const std::string path = arg.substr(1);
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw RunError(fmt::format("cannot open '{}' for parameter '{}'", arg, param.name));
    struct stat st;
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void *p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p != MAP_FAILED) {
        map_ = static_cast<char *>(p);
        text_ = std::string_view(map_, static_cast<size_t>(st.st_size));
        madvise(p, text_.size(), MADV_SEQUENTIAL);
        return;
      }
    }
    char buffer[1 << 16];
    for (;;) {
      ssize_t n = read(fd_, buffer, sizeof buffer);
      if (n == 0) break;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        close(fd_);
        throw RunError(fmt::format("cannot read '{}' for parameter '{}'", arg, param.name));
      }
      storage_.append(buffer, static_cast<size_t>(n));
    }
    text_ = storage_;
  }
  ~FileText() {
    if (map_) munmap(map_, text_.size());
    close(fd_);
  }
  FileText(const FileText &) = delete;
  FileText &operator=(const FileText &) = delete;

  std::string_view text() const { return text_; }

 private:
  int fd_ = -1;
  char *map_ = nullptr;
  std::string storage_;
  std::string_view text_;
};

// The header of an array of `count` elements of `size` bytes, appended to
// the heap image; returns its ref and where its elements go.
std::pair<int64_t, unsigned char *> append_array(std::vector<int64_t> &heap, size_t count,
                                                 size_t size) {
  const int64_t ref = static_cast<int64_t>(heap.size());
  heap.push_back(static_cast<int64_t>(count));
  heap.resize(heap.size() + (count * size + sizeof(int64_t) - 1) / sizeof(int64_t), 0);
  return {ref, reinterpret_cast<unsigned char *>(heap.data() + ref + 1)};
}

[[noreturn]] void bad_element(Scalar type, std::string_view text, size_t index, const Param &param,
                              bool out_of_range, const std::string &where) {
  throw RunError(fmt::format("cannot read '{}' as {} for element {} of parameter '{}'{}{}", text,
                             scalar_name(type), index, param.name,
                             out_of_range ? " (out of range)" : "", where));
}

// An array argument `@path`: the white-space-separated words of the file.
// The file is mapped and scanned twice, once to count the words and once to
// convert them straight into the heap image, with no list of words in
// between. A whole kite-run of a program given 10^7 random ints this way
// (110 MB of text) takes 1.1 s and 213 MB at its peak (0.17 s and 79 MB with
// one element); read through a stream into a list of words it took 4.5 s and
// 469 MB.
int64_t write_file_array(Scalar type, const std::string &arg, const Param &param,
                         std::vector<int64_t> &heap) {
  const FileText file(arg, param);
  const std::string_view text = file.text();
  const char *const begin = text.data();
  const char *const end = begin + text.size();
  size_t count = 0;
  for (const char *p = begin; p < end;) {
    while (p < end && is_blank(*p)) ++p;
    if (p == end) break;
    ++count;
    while (p < end && !is_blank(*p)) ++p;
  }
  const size_t size = element_bytes(type);
  auto [ref, bytes] = append_array(heap, count, size);
  size_t i = 0;
  for (const char *p = begin; i < count; ++i) {
    while (is_blank(*p)) ++p;
    const char *word = p;
    while (p < end && !is_blank(*p)) ++p;
    std::string_view element(word, p - word);
    bool out_of_range = false;
    auto value = parse_scalar(type, element, &out_of_range);
    if (!value) {
      // Where it is, as line:column (from 1), for a file of many lines.
      size_t line = 1 + std::count(begin, word, '\n');
      const char *line_start = word;
      while (line_start > begin && line_start[-1] != '\n') --line_start;
      bad_element(type, element, i, param, out_of_range,
                  fmt::format(" at {}:{}:{}", arg.substr(1), line, word - line_start + 1));
    }
    store_element(type, *value, bytes + i * size);
  }
  return ref;
}

// Appends one array argument to the heap image; returns its ref.
int64_t write_array(Scalar type, const std::string &arg, const Param &param,
                    std::vector<int64_t> &heap) {
  if (!arg.empty() && arg[0] == '@') return write_file_array(type, arg, param, heap);
  std::vector<std::string_view> texts = bracket_elements(arg, param);
  const size_t size = element_bytes(type);
  auto [ref, bytes] = append_array(heap, texts.size(), size);
  for (size_t i = 0; i < texts.size(); ++i) {
    bool out_of_range = false;
    auto value = parse_scalar(type, texts[i], &out_of_range);
    if (!value) bad_element(type, texts[i], i, param, out_of_range, "");
    store_element(type, *value, bytes + i * size);
  }
  return ref;
}

}  // namespace

MainArgs convert_args(const Artifact &artifact, const std::vector<std::string> &args) {
  const std::vector<Param> &params = artifact.params;
  for (const Param &p : params) {
    if (!scalar_type(p.type) && !array_element_type(p.type)) {
      throw RunError(fmt::format("parameter '{}' of type {} is not supported yet", p.name, p.type));
    }
  }
  if (params.size() > KITE_MAX_MAIN_ARGS) {
    throw RunError(fmt::format("main has {} parameters; kite-run passes at most {}", params.size(),
                               KITE_MAX_MAIN_ARGS));
  }
  if (args.size() != params.size()) {
    if (params.empty()) {
      throw RunError(fmt::format("main takes no arguments, {} given", args.size()));
    }
    throw RunError(fmt::format("main takes {} argument{} ({}), {} given", params.size(),
                               params.size() == 1 ? "" : "s", signature(params), args.size()));
  }
  MainArgs main_args;
  main_args.heap.assign(KITE_HEAP_FIRST, 0);
  for (size_t i = 0; i < params.size(); ++i) {
    if (auto element = array_element_type(params[i].type)) {
      main_args.bits.push_back(write_array(*element, args[i], params[i], main_args.heap));
      continue;
    }
    bool out_of_range = false;
    auto value = parse_scalar(*scalar_type(params[i].type), args[i], &out_of_range);
    if (!value) {
      throw RunError(fmt::format("cannot read '{}' as {} for parameter '{}'{}", args[i],
                                 params[i].type, params[i].name,
                                 out_of_range ? " (out of range)" : ""));
    }
    main_args.bits.push_back(*value);
  }
  return main_args;
}

}  // namespace kite::host
