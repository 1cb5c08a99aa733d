// C's escape sequences, read one way wherever a quoted string is read: the
// front end's string literals (build_ast.cpp) and an artifact's `string`
// lines (runtime-cl/host/artifact.cpp), which ast::quote writes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kite {

// One escape sequence: the byte it stands for, or why it stands for none.
struct Escape {
  size_t end = 0;     // the index in the text just after the sequence
  int value = -1;     // the byte, 0 to 255; -1 when `error` says why there is none
  std::string error;  // "unknown escape sequence '\q'", ...
};

// Reads the escape sequence whose backslash is at text[at - 1]: the simple
// ones (\' \" \? \\ \a \b \f \n \r \t \v), octal (\0, \101: one to three
// octal digits) and hexadecimal (\x41: as many hex digits as follow), each
// one byte; a value above 255 is an error, as in C. `text` ends where the
// string does (before its closing quote), and has a character at `at`.
Escape read_escape(std::string_view text, size_t at);

}  // namespace kite
