#include "host/args.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <iterator>
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

// The element texts of an array argument: `[a, b, c]` split at commas, or
// the white-space-separated words of the file `@path`. `storage` keeps a
// file's text alive for the views.
std::vector<std::string_view> element_texts(const std::string &arg, const Param &param,
                                            std::string &storage) {
  std::vector<std::string_view> elements;
  if (!arg.empty() && arg[0] == '@') {
    std::ifstream in(arg.substr(1), std::ios::binary);
    if (!in) {
      throw RunError(fmt::format("cannot open '{}' for parameter '{}'", arg, param.name));
    }
    storage.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) {
      throw RunError(fmt::format("cannot read '{}' for parameter '{}'", arg, param.name));
    }
    std::string_view text = storage;
    size_t pos = 0;
    for (;;) {
      while (pos < text.size() && is_space(text[pos])) ++pos;
      if (pos == text.size()) break;
      size_t end = pos;
      while (end < text.size() && !is_space(text[end])) ++end;
      elements.push_back(text.substr(pos, end - pos));
      pos = end;
    }
    return elements;
  }
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

// Appends one array argument to the heap image; returns its ref.
int64_t write_array(Scalar type, const std::string &arg, const Param &param,
                    std::vector<int64_t> &heap) {
  std::string storage;
  std::vector<std::string_view> texts = element_texts(arg, param, storage);
  const int64_t ref = static_cast<int64_t>(heap.size());
  const size_t size = element_bytes(type);
  heap.push_back(static_cast<int64_t>(texts.size()));
  heap.resize(heap.size() + (texts.size() * size + sizeof(int64_t) - 1) / sizeof(int64_t), 0);
  auto *bytes = reinterpret_cast<unsigned char *>(heap.data() + ref + 1);
  for (size_t i = 0; i < texts.size(); ++i) {
    bool out_of_range = false;
    auto value = parse_scalar(type, texts[i], &out_of_range);
    if (!value) {
      throw RunError(fmt::format("cannot read '{}' as {} for element {} of parameter '{}'{}",
                                 texts[i], scalar_name(type), i, param.name,
                                 out_of_range ? " (out of range)" : ""));
    }
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
