#include "host/artifact.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "frontend/ast.h"
#include "frontend/escapes.h"
#include "host/cl.h"

namespace kite::host {
namespace {

// Records of more than this many longs are surely a corrupt file, not a real program.
constexpr int kMaxRecordWords = 1 << 16;

class Parser {
 public:
  // `first_line`: the line number of text's first line (2 after a "#!" line).
  Parser(std::string_view text, const std::string &path, int first_line)
      : text_(text), path_(path), line_no_(first_line - 1) {}

  // Parses the body of an artifact whose checksum has been verified.
  Artifact parse() {
    Artifact a;
    a.path = path_;
    next_line();  // "kite-artifact 3", checked by check_format
    std::string_view second = next_line();
    if (second.substr(0, 6) != "kitec ")
      fail("expected 'kitec <version>' after the 'kite-artifact' line");
    if (second.substr(6) != KITE_VERSION) {
      throw RunError(fmt::format(
          "'{}' was compiled by kitec {}, and this kite-run runs only artifacts of kitec {}: "
          "compile it again with kitec {}",
          path_, second.substr(6), KITE_VERSION, KITE_VERSION));
    }
    bool have_result = false, have_source = false;
    for (;;) {
      if (pos_ >= text_.size()) fail("the file ends before its 'opencl' line");
      std::string_view line = next_line();
      if (line.empty()) continue;
      std::string_view key = word(line);
      if (key == "source") {
        if (have_source) fail("a second 'source' line");
        if (line.empty()) fail("'source' without a file name");
        a.source = std::string(line);
        have_source = true;
      } else if (key == "param") {
        Param p;
        p.name = std::string(word(line));
        p.type = std::string(line);
        if (!is_identifier(p.name) || p.type.empty()) fail("expected 'param <name> <type>'");
        a.params.push_back(std::move(p));
      } else if (key == "result") {
        if (have_result) fail("a second 'result' line");
        if (line.empty()) fail("'result' without a type");
        a.result = std::string(line);
        have_result = true;
      } else if (key == "string") {
        expect_index(word(line), a.strings.size(), "string");
        a.strings.push_back(unescape(line));
      } else if (key == "site") {
        expect_index(word(line), a.sites.size(), "site");
        Site s;
        s.line = number(word(line), "site line", 0, 1 << 30);
        s.column = number(word(line), "site column", 0, 1 << 30);
        if (!line.empty()) s.file = std::string(word(line));
        if (!line.empty()) fail("expected 'site <index> <line> <column> [file]'");
        a.sites.push_back(s);
      } else if (key == "record-words") {
        if (a.record_words != 0) fail("a second 'record-words' line");
        a.record_words = number(word(line), "record-words", 1, kMaxRecordWords);
        if (!line.empty()) fail("expected 'record-words <count>'");
      } else if (key == "kept-words") {
        if (a.kept_words != 0) fail("a second 'kept-words' line");
        a.kept_words = number(word(line), "kept-words", 1, kMaxRecordWords);
        if (!line.empty()) fail("expected 'kept-words <count>'");
      } else if (key == "opencl") {
        long bytes = number(word(line), "opencl byte count", 0, 1 << 30);
        if (!line.empty()) fail("expected 'opencl <byte count>'");
        if (text_.size() - pos_ < static_cast<size_t>(bytes)) {
          fail(fmt::format("the OpenCL source is cut short: {} bytes announced, {} present", bytes,
                           text_.size() - pos_));
        }
        a.opencl = std::string(text_.substr(pos_, bytes));
        for (size_t i = pos_ + bytes; i < text_.size(); ++i) {
          if (!std::isspace(static_cast<unsigned char>(text_[i]))) {
            fail(fmt::format("{} bytes follow the OpenCL source it announced", text_.size() - i));
          }
        }
        break;
      } else {
        fail(fmt::format("unknown line '{}' (is kite-run older than kitec?)", key));
      }
    }
    if (!have_result) fail("no 'result' line");
    if (a.record_words == 0) fail("no 'record-words' line");
    if (!have_source) a.source = path_;
    return a;
  }

 private:
  [[noreturn]] void fail(const std::string &message) const {
    throw RunError(fmt::format("{}:{}: malformed artifact: {}", path_, line_no_, message));
  }

  std::string_view next_line() {
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end < text_.size() ? end + 1 : end;
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  }

  // Takes the first space-separated word off `line`; `line` keeps the rest.
  static std::string_view word(std::string_view &line) {
    size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) {
      line = {};
      return {};
    }
    line.remove_prefix(start);
    size_t end = line.find(' ');
    std::string_view w = line.substr(0, end);
    line.remove_prefix(end == std::string_view::npos ? line.size() : end);
    size_t rest = line.find_first_not_of(' ');
    line.remove_prefix(rest == std::string_view::npos ? line.size() : rest);
    return w;
  }

  int number(std::string_view text, const char *what, long min, long max) const {
    long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min ||
        value > max) {
      fail(fmt::format("bad {} '{}'", what, text));
    }
    return static_cast<int>(value);
  }

  void expect_index(std::string_view text, size_t expected, const char *what) const {
    if (number(text, what, 0, 1 << 30) != static_cast<long>(expected)) {
      fail(fmt::format("{} {} out of order (expected {})", what, text, expected));
    }
  }

  static bool is_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
    return true;
  }

  // A C-escaped string literal in double quotes, and nothing after it.
  std::string unescape(std::string_view s) const {
    if (s.size() < 2 || s.front() != '"') fail("expected 'string <index> \"text\"'");
    std::string out;
    size_t i = 1;
    for (;;) {
      if (i >= s.size()) fail("unterminated string literal");
      char c = s[i++];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i >= s.size()) fail("unterminated string literal");
      Escape e = read_escape(s, i);  // as Kite reads its string literals
      if (e.value < 0) fail(e.error + " in string literal");
      out += char(e.value);
      i = e.end;
    }
    if (i != s.size()) fail("text after the string literal");
    return out;
  }

  std::string_view text_;
  const std::string &path_;
  size_t pos_ = 0;
  int line_no_;
};

constexpr std::string_view kMagic = "kite-artifact ";
constexpr std::string_view kFormat = "kite-artifact 3";
constexpr std::string_view kChecksum = "checksum ";
constexpr std::string_view kShebang = "#!";

std::string_view line_at(std::string_view text, size_t pos) {
  std::string_view line = text.substr(std::min(pos, text.size()));
  line = line.substr(0, line.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// The first line: is this an artifact at all, and of the format this
// kite-run reads? Nothing else is read before the checksum is verified,
// except the second line's kitec version, to name it when the format is not
// this kite-run's.
void check_format(std::string_view text, const std::string &path) {
  std::string_view first = line_at(text, 0);
  if (first.substr(0, kMagic.size()) != kMagic) {
    throw RunError(fmt::format(
        "'{}' is not a kite artifact (compile it with kitec {}, whose artifacts this version "
        "runs)",
        path, KITE_VERSION));
  }
  if (first != kFormat) {
    std::string_view second = line_at(text, text.find('\n') + 1);
    std::string writer = second.substr(0, 6) == "kitec " && second.size() < 40
                             ? fmt::format(" (written by kitec {})", second.substr(6))
                             : std::string();
    throw RunError(fmt::format(
        "'{}' is in artifact format '{}'{}, and this version of Kite ({}) reads format '{}': "
        "compile it again with kitec {}",
        path, first.substr(kMagic.size()), writer, KITE_VERSION, kFormat.substr(kMagic.size()),
        KITE_VERSION));
  }
}

// 64-bit FNV-1a over the bytes.
uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// The text before the last line, "checksum <16 hex digits>", once the
// checksum matches it: an edited or truncated file goes no further.
std::string_view checked_body(std::string_view text, const std::string &path) {
  auto refuse = [&](const char *why) {
    return RunError(fmt::format(
        "'{}' was modified or truncated after kitec wrote it ({}); compile it again", path, why));
  };
  std::string_view rest = text;
  if (rest.empty() || rest.back() != '\n') throw refuse("it does not end with its checksum line");
  rest.remove_suffix(1);
  size_t start = rest.rfind('\n');
  start = start == std::string_view::npos ? 0 : start + 1;
  std::string_view line = rest.substr(start);
  uint64_t expected = 0;
  std::string_view digits = line.substr(std::min(line.size(), kChecksum.size()));
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), expected, 16);
  if (line.substr(0, kChecksum.size()) != kChecksum || digits.size() != 16 || ec != std::errc() ||
      end != digits.data() + digits.size()) {
    throw refuse("it does not end with its checksum line");
  }
  std::string_view body = text.substr(0, start);
  if (fnv1a64(body) != expected) throw refuse("its checksum does not match its contents");
  return body;
}

// The value of `#define name <integer>` on a line of the OpenCL source.
std::optional<long> defined_value(std::string_view source, std::string_view name) {
  const std::string directive = fmt::format("#define {} ", name);
  for (size_t at = source.find(directive); at != std::string_view::npos;
       at = source.find(directive, at + 1)) {
    if (at != 0 && source[at - 1] != '\n') continue;
    std::string_view value = source.substr(at + directive.size());
    value = value.substr(0, value.find('\n'));
    long n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
    return n;
  }
  return std::nullopt;
}

// The header's counts against the ones the kernel was compiled with: a
// record pool sized by one record size and indexed by another is memory
// corruption, not an error message.
void check_against_kernel(const Artifact &a) {
  // `header` says what the header has: "record-words 9", "2 string lines".
  auto agree = [&](size_t value, const std::string &header, const char *macro) {
    std::optional<long> kernel = defined_value(a.opencl, macro);
    if (!kernel) {
      throw RunError(fmt::format(
          "{}: inconsistent artifact: its OpenCL source does not define {} (compile it again)",
          a.path, macro));
    }
    if (*kernel < 0 || static_cast<size_t>(*kernel) != value) {
      throw RunError(fmt::format(
          "{}: inconsistent artifact: its header has {} but its OpenCL source defines {} {} "
          "(compile it again)",
          a.path, header, macro, *kernel));
    }
  };
  agree(a.record_words, fmt::format("record-words {}", a.record_words), "KITE_RECORD_WORDS");
  if (a.kept_words != 0)
    agree(a.kept_words, fmt::format("kept-words {}", a.kept_words), "KITE_KEPT_WORDS");
  agree(a.strings.size(), fmt::format("{} string lines", a.strings.size()), "KITE_STRING_COUNT");
  agree(a.sites.size(), fmt::format("{} site lines", a.sites.size()), "KITE_SITE_COUNT");
  agree(a.params.size(), fmt::format("{} param lines", a.params.size()), "KITE_MAIN_PARAM_COUNT");
}

}  // namespace

std::optional<long> header_value(const std::string &opencl, const char *macro) {
  return defined_value(opencl, macro);
}

Artifact parse_artifact(std::string_view text, const std::string &path) {
  // A "#!" line lets the file run as a program; the checksum leaves it out,
  // so it may be edited to name another kite-run.
  int first_line = 1;
  if (text.substr(0, kShebang.size()) == kShebang) {
    size_t end = text.find('\n');
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    first_line = 2;
  }
  check_format(text, path);
  Artifact a = Parser(checked_body(text, path), path, first_line).parse();
  check_against_kernel(a);
  return a;
}

bool looks_like_artifact(std::string_view text) {
  return text.substr(0, kMagic.size()) == kMagic || text.substr(0, kShebang.size()) == kShebang;
}

Artifact load_artifact(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw RunError(fmt::format("cannot read '{}'", path));
  return parse_artifact(text.str(), path);
}

void write_artifact(const Artifact &a, std::ostream &file, const std::string &interpreter) {
  // The whole text is built first: its last line is a checksum of the rest.
  std::ostringstream out;
  out << kFormat << "\n";
  out << "kitec " << KITE_VERSION << "\n";
  out << "source " << a.source << "\n";
  for (const Param &p : a.params) out << "param " << p.name << " " << p.type << "\n";
  out << "result " << a.result << "\n";
  out << "record-words " << a.record_words << "\n";
  if (a.kept_words != 0) out << "kept-words " << a.kept_words << "\n";
  // Quoted with C escapes, as Kite spells string literals (Parser::unescape
  // reads them back).
  for (size_t i = 0; i < a.strings.size(); ++i)
    out << "string " << i << " " << ast::quote(a.strings[i]) << "\n";
  // A site in another file (the prelude) names it; the others are in `source`.
  for (size_t i = 0; i < a.sites.size(); ++i)
    out << "site " << i << " " << a.sites[i].line << " " << a.sites[i].column
        << (a.sites[i].file.empty() ? "" : " " + a.sites[i].file) << "\n";
  out << "opencl " << a.opencl.size() << "\n" << a.opencl;
  if (!a.opencl.empty() && a.opencl.back() != '\n') out << "\n";
  std::string body = out.str();
  if (!interpreter.empty()) file << "#!" << interpreter << "\n";
  file << body << kChecksum << fmt::format("{:016x}\n", fnv1a64(body));
}

}  // namespace kite::host
