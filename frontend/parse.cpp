// Parsing in four steps, each able to stop compilation with clean diagnostics:
//
//  1. Lex everything. The grammar's lexer never fails (bad input becomes
//     BAD_CHAR, BAD_NUMBER, UNTERMINATED_* tokens), so every lexical message
//     is worded here. The same pass bounds bracket and prefix-operator nesting,
//     because ANTLR's recursive-descent parser would otherwise overflow the
//     stack on pathological input.
//  2. Parse with SLL prediction and bail out at the first error; almost every
//     program parses this way, fast.
//  3. Only if that failed, parse again with full LL prediction and an error
//     strategy that reports the first syntax error in our words and stops
//     (no ANTLR recovery, so no cascades of follow-on errors).
//  4. Build the AST from the parse tree, checking what the grammar leaves
//     open: omitted semicolons, literal ranges, string escapes, `>>` and `>=`
//     spelt as two touching tokens, assignment targets.
//
// The input is fed to ANTLR one byte per character, so ANTLR's columns are
// byte columns, as Diagnostics expects, and invalid UTF-8 cannot make the
// runtime throw; token text is always taken from the original bytes.
#include "frontend/parse.h"

#include <KiteLexer.h>
#include <KiteParser.h>
#include <antlr4-runtime.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace kite {
namespace {

using antlr4::Token;
using kite_parser::KiteLexer;
using kite_parser::KiteParser;

// Deeper bracket, type-argument or prefix-operator nesting is rejected
// before parsing; the parser uses a few stack frames per level.
constexpr int kMaxNesting = 256;
// Deeper expressions (long operator or postfix chains, which the parser
// handles with loops) are rejected while building, so every later recursive
// pass over the AST is safe too.
constexpr int kMaxExprDepth = 1000;

// ANTLR's character stream, loaded with one character per byte.
class ByteStream : public antlr4::ANTLRInputStream {
 public:
  explicit ByteStream(const std::string &text) {
    _data.reserve(text.size());
    for (unsigned char c : text) _data.push_back(c);
    p = 0;
  }
};

// The file every location made by this parse names (SourceLoc::file).
int current_file_id = 0;

SourceLoc loc_of(const Token *t) {
  return SourceLoc{int(t->getLine()), int(t->getCharPositionInLine()) + 1, current_file_id};
}

// The source text of a token, from the original bytes.
std::string token_text(const SourceFile &file, const Token *t) {
  if (t->getType() == Token::EOF) return "";
  size_t start = t->getStartIndex(), stop = t->getStopIndex();
  if (start >= file.text().size() || stop < start) return "";
  return file.text().substr(start, stop - start + 1);
}

// How a token is named in a message: 'foo', or end of file.
std::string describe(const SourceFile &file, const Token *t) {
  if (t->getType() == Token::EOF) return "end of file";
  std::string text = token_text(file, t);
  if (text.size() > 24) text = text.substr(0, 21) + "...";
  return "'" + text + "'";
}

// The position just after a token: where a missing `;` belongs.
SourceLoc loc_after(const SourceFile &file, const Token *t) {
  SourceLoc loc = loc_of(t);
  loc.col += int(token_text(file, t).size());
  return loc;
}

// ------------------------------------------------------------------ lexing

// Reports bad tokens and excessive nesting; returns false if there were any.
bool check_tokens(const SourceFile &file, const std::vector<Token *> &tokens, Diagnostics &diags) {
  bool ok = true;
  int depth = 0, prefix_run = 0;
  // Type arguments nest with `<` `>`, which are also comparisons: they are
  // counted only inside a type, which starts after `:` or `new` and goes on
  // while its tokens can belong to a type.
  bool in_type = false;
  int angles = 0;
  const Token *prev = nullptr;
  for (const Token *t : tokens) {
    switch (t->getType()) {
      case KiteLexer::BAD_CHAR: {
        unsigned char c = static_cast<unsigned char>(token_text(file, t)[0]);
        // One message for a run of bad bytes (a UTF-8 sequence, say).
        bool continues_run = prev && prev->getType() == KiteLexer::BAD_CHAR &&
                             prev->getStopIndex() + 1 == t->getStartIndex();
        if (!continues_run) {
          if (c >= 0x80)
            diags.error(loc_of(t), "unexpected non-ASCII character");
          else if (c >= 0x20 && c < 0x7f)
            diags.error(loc_of(t), "unexpected character '{}'", char(c));
          else
            diags.error(loc_of(t), "unexpected character '\\x{:02x}'", c);
        }
        ok = false;
        break;
      }
      case KiteLexer::BAD_NUMBER:
        diags.error(loc_of(t), "invalid numeric literal '{}'", token_text(file, t));
        ok = false;
        break;
      case KiteLexer::UNTERMINATED_STRING:
        diags.error(loc_of(t), "unterminated string literal");
        ok = false;
        break;
      case KiteLexer::UNTERMINATED_COMMENT:
        diags.error(loc_of(t), "unterminated comment");
        ok = false;
        break;
      default: break;
    }
    switch (t->getType()) {
      case KiteLexer::LPAREN:
      case KiteLexer::LBRACK:
      case KiteLexer::LBRACE: ++depth; break;
      case KiteLexer::RPAREN:
      case KiteLexer::RBRACK:
      case KiteLexer::RBRACE:
        if (depth > 0) --depth;
        break;
      default: break;
    }
    switch (t->getType()) {
      case KiteLexer::COLON:
      case KiteLexer::NEW:
        in_type = true;
        angles = 0;
        break;
      case KiteLexer::LT:
        if (in_type) ++angles;
        break;
      case KiteLexer::GT:
        if (in_type && angles > 0) --angles;
        break;
      case KiteLexer::ID:
      case KiteLexer::TASK:
      case KiteLexer::COMMA:
      case KiteLexer::LPAREN:
      case KiteLexer::RPAREN: break;
      default:
        in_type = false;
        angles = 0;
    }
    switch (t->getType()) {
      case KiteLexer::MINUS:
      case KiteLexer::NOT:
      case KiteLexer::TILDE:
      case KiteLexer::TASK: ++prefix_run; break;
      default: prefix_run = 0;
    }
    if (depth + angles + prefix_run > kMaxNesting) {
      diags.error(loc_of(t), "program is nested too deeply");
      return false;
    }
    prev = t;
  }
  return ok;
}

// ------------------------------------------------------------------ common mistakes

// Mistakes that programmers used to other languages make, recognised from
// the tokens where the parse (or the AST builder) fails, so that the message
// names the real problem at the word that causes it. Each function returns
// false if its pattern is not there.

struct Mistake {
  SourceLoc loc;
  std::string message;
  SourceLoc note_loc;
  std::string note;  // empty: none
};

// The optimal string alignment distance: edits, a swap of two neighbours
// counting as one (`retrun`, `tsak`, `fi` are one edit away).
int edit_distance(const std::string &a, const std::string &b) {
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = int(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = int(j);
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The keyword that `word` is probably a misspelling of, or "".
std::string misspelt_keyword(const std::string &word) {
  static const char *const keywords[] = {"task", "return", "if",    "else",   "for",
                                         "map",  "while",  "case",  "then",   "struct",
                                         "union", "default", "new"};
  std::string best;
  int best_distance = 3;
  if (word.size() < 2) return best;  // `f`, `x`: a name, not a keyword
  for (const char *k : keywords) {
    std::string kw = k;
    int limit = kw.size() <= 4 ? 1 : 2;
    int dist = edit_distance(word, kw);
    if (dist > 0 && dist <= limit && dist < best_distance) {
      best = kw;
      best_distance = dist;
    }
  }
  return best;
}

bool in(const std::string &word, std::initializer_list<const char *> words) {
  for (const char *w : words)
    if (word == w) return true;
  return false;
}

// The source text of tokens [from, to), joined with single spaces where the
// source had space, or "" if it is long or crosses a line.
std::string tokens_text(const SourceFile &file, antlr4::TokenStream &tokens, size_t from,
                        size_t to) {
  if (from >= to || to > tokens.size()) return "";
  Token *a = tokens.get(from), *b = tokens.get(to - 1);
  if (a->getType() == Token::EOF || b->getType() == Token::EOF || a->getLine() != b->getLine())
    return "";
  size_t start = a->getStartIndex(), stop = b->getStopIndex();
  if (stop < start || stop - start > 30) return "";
  return file.text().substr(start, stop - start + 1);
}

// The index of the first `;` after `from` on its line, or `from` if none.
size_t semicolon_after(antlr4::TokenStream &tokens, size_t from) {
  for (size_t i = from; i < tokens.size(); ++i) {
    Token *t = tokens.get(i);
    if (t->getType() == Token::EOF || t->getType() == KiteLexer::LBRACE ||
        t->getType() == KiteLexer::RBRACE)
      break;
    if (t->getType() == KiteLexer::SEMI) return i;
  }
  return from;
}

// An identifier `word` (token i) starting a statement or declaration, with
// what follows it: `break;`, `fn main`, `import x;`, `const x = 1;`,
// `int x = 5;`, `retrun n;`, `eles {`.
bool statement_start_mistake(const SourceFile &file, antlr4::TokenStream &tokens, size_t i,
                             Mistake &m) {
  Token *t = tokens.get(i);
  if (t->getType() != KiteLexer::ID) return false;
  std::string word = token_text(file, t);
  Token *next = tokens.get(i + 1);
  m.loc = loc_of(t);
  if (in(word, {"break", "continue"})) {
    m.message = word == "break"
                    ? "Kite has no 'break': a while loop ends when its condition is false"
                    : "Kite has no 'continue': put the rest of the loop's body in an 'if'";
    return true;
  }
  if (next->getType() == KiteLexer::ID) {
    std::string name = token_text(file, next);
    if (in(word, {"fn", "func", "function", "def", "fun", "proc", "sub", "void", "method"})) {
      m.message = "tasks are declared with 'task', not '" + word + "': task " + name + "(...) { ... }";
      return true;
    }
    if (in(word, {"import", "include", "use", "using", "require", "package", "module", "from"})) {
      m.message = "Kite has no '" + word +
                  "': a program is one file, and the prelude's tasks are always available";
      return true;
    }
    bool type_first = in(word, {"int", "long", "float", "double", "bool", "boolean", "string",
                                "char", "short", "unsigned", "integer"});
    if (type_first || in(word, {"const", "let", "var", "val", "auto", "static", "final", "mut"})) {
      std::string type = type_first ? (word == "boolean" ? "bool"
                                       : word == "integer" ? "int"
                                                           : word)
                                    : "";
      Token *after = tokens.get(i + 2);
      std::string init;
      if (after->getType() == KiteLexer::ASSIGN) {
        init = tokens_text(file, tokens, i + 3, semicolon_after(tokens, i + 3));
        if (init.empty()) init = "...";
        if (type.empty()) {
          Token *value = tokens.get(i + 3);
          bool single = semicolon_after(tokens, i + 3) == i + 4;
          type = !single                                      ? "t"
                 : value->getType() == KiteLexer::INT         ? "int"
                 : value->getType() == KiteLexer::FLOAT       ? "double"
                 : value->getType() == KiteLexer::TRUE ||
                         value->getType() == KiteLexer::FALSE ? "bool"
                                                              : "t";
        }
      }
      std::string how = init.empty() ? "'" + name + ": " + (type.empty() ? "t" : type) + ";'"
                                     : "'" + name + " = " + init + ";' or '" + name + ": " + type +
                                           " = " + init + ";'";
      m.message = type_first ? "Kite writes the type after the name: declare with " + how
                             : "Kite has no '" + word + "': declare with " + how;
      return true;
    }
  }
  // A misspelt keyword: the word is followed by what would follow the
  // keyword, and the statement cannot be read otherwise.
  switch (next->getType()) {
    case KiteLexer::ID:
    case KiteLexer::INT:
    case KiteLexer::FLOAT:
    case KiteLexer::STRING:
    case KiteLexer::LBRACE:
    case KiteLexer::LPAREN:
    case KiteLexer::TRUE:
    case KiteLexer::FALSE: {
      std::string keyword = misspelt_keyword(word);
      if (keyword.empty()) return false;
      m.message = "unknown word '" + word + "'; did you mean '" + keyword + "'?";
      return true;
    }
    default: return false;
  }
}

// The first token of the statement or declaration token i is in.
size_t statement_start(antlr4::TokenStream &tokens, size_t i) {
  int parens = 0;
  while (i > 0) {
    Token *prev = tokens.get(i - 1);
    int type = int(prev->getType());
    if (type == KiteLexer::SEMI || type == KiteLexer::LBRACE || type == KiteLexer::RBRACE) break;
    if (type == KiteLexer::RPAREN) ++parens;
    if (type == KiteLexer::LPAREN && parens > 0) --parens;
    --i;
  }
  return i;
}

// The leading blanks of a source line.
int indentation(const SourceFile &file, size_t line) {
  const std::string &text = file.text();
  size_t pos = 0;
  for (size_t l = 1; l < line && pos != std::string::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos) return 0;
  int n = 0;
  while (pos + n < text.size() && (text[pos + n] == ' ' || text[pos + n] == '\t')) ++n;
  return n;
}

// At end of file with a `{` open: the `{` that was never closed. Braces
// pair up innermost first, so the missing `}` makes a later `}` close the
// wrong `{`; that shows in the indentation, where a `}` at the start of a
// line is less indented than the line of the `{` it closes. Without such a
// sign, the innermost open `{`.
bool unclosed_brace(const SourceFile &file, antlr4::TokenStream &tokens, Token *eof, Mistake &m) {
  std::vector<Token *> open;
  Token *first_bad = nullptr;
  Token *prev = nullptr;
  for (size_t i = 0; i < tokens.size(); ++i) {
    Token *t = tokens.get(i);
    if (t->getType() == KiteLexer::LBRACE) open.push_back(t);
    if (t->getType() == KiteLexer::RBRACE && !open.empty()) {
      Token *o = open.back();
      open.pop_back();
      bool starts_line = !prev || prev->getLine() != t->getLine();
      if (!first_bad && starts_line &&
          int(t->getCharPositionInLine()) < indentation(file, o->getLine()))
        first_bad = o;
    }
    prev = t;
  }
  if (open.empty()) return false;
  Token *culprit = first_bad ? first_bad : open.back();
  m.loc = loc_of(culprit);
  m.message = "this '{' is never closed";
  m.note = "the file ends here, inside it";
  m.note_loc = eof->getTokenIndex() > 0 ? loc_after(file, tokens.get(eof->getTokenIndex() - 1))
                                        : loc_of(eof);
  return true;
}

// The mistakes a parse error at token t can be: `s += n`, `s++`, `s--`,
// an array literal, an unclosed `{`, and the statement-start ones.
bool parse_mistake(const SourceFile &file, antlr4::TokenStream &tokens, Token *t, Mistake &m) {
  size_t i = t->getTokenIndex();
  auto touching = [&](Token *a, Token *b) { return a->getStopIndex() + 1 == b->getStartIndex(); };
  auto name_before = [&](size_t k) {
    return k > 0 && tokens.get(k - 1)->getType() == KiteLexer::ID ? token_text(file, tokens.get(k - 1))
                                                                    : std::string("x");
  };
  if (t->getType() == Token::EOF) return unclosed_brace(file, tokens, t, m);
  // `.5` where an operand is expected, and `1.` (C's floating-point forms).
  if (t->getType() == KiteLexer::DOT && i + 1 < tokens.size()) {
    Token *n = tokens.get(i + 1);
    if ((n->getType() == KiteLexer::INT || n->getType() == KiteLexer::FLOAT) && touching(t, n)) {
      m.loc = loc_of(t);
      m.message = "expected expression; a number needs a digit before its point: write '0." +
                  token_text(file, n) + "'";
      return true;
    }
  }
  std::string digits = i > 1 ? token_text(file, tokens.get(i - 2)) : "";
  if (i > 1 && tokens.get(i - 1)->getType() == KiteLexer::DOT &&
      tokens.get(i - 2)->getType() == KiteLexer::INT && touching(tokens.get(i - 2), tokens.get(i - 1)) &&
      (t->getType() != KiteLexer::ID || !touching(tokens.get(i - 1), t)) &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    m.loc = loc_of(tokens.get(i - 2));
    m.message = "a number needs a digit after its point: write '" + digits + ".0'";
    return true;
  }
  if (i > 0) {
    Token *p = tokens.get(i - 1);
    // `s += n`: the operator, then `=`.
    if (t->getType() == KiteLexer::ASSIGN && touching(p, t)) {
      std::string op = token_text(file, p);
      if (in(op, {"+", "-", "*", "/", "%", "&", "|", "^", "<<"})) {
        std::string s = name_before(i - 1);
        std::string rhs = tokens_text(file, tokens, i + 1, semicolon_after(tokens, i + 1));
        if (rhs.empty()) rhs = "...";
        m.loc = loc_of(p);
        m.message = "Kite has no '" + op + "=': write '" + s + " <- " + s + " " + op + " " + rhs +
                    "'";
        return true;
      }
    }
    // `s++` (the second `+` cannot start an operand); `s--;` fails after.
    if (t->getType() == KiteLexer::PLUS && p->getType() == KiteLexer::PLUS && touching(p, t)) {
      std::string s = name_before(i - 1);
      m.loc = loc_of(p);
      m.message = "Kite has no '++': write '" + s + " <- " + s + " + 1'";
      return true;
    }
    if (i > 1 && p->getType() == KiteLexer::MINUS && tokens.get(i - 2)->getType() == KiteLexer::MINUS &&
        touching(tokens.get(i - 2), p) && i > 2 && tokens.get(i - 3)->getType() == KiteLexer::ID) {
      std::string s = name_before(i - 2);
      m.loc = loc_of(tokens.get(i - 2));
      m.message = "Kite has no '--': write '" + s + " <- " + s + " - 1'";
      return true;
    }
  }
  // An array literal: `[1, 2, 3]`, `[]`, `[7]` fail at a `,` or `]`.
  if (t->getType() == KiteLexer::COMMA || t->getType() == KiteLexer::RBRACK) {
    int depth = 0;
    for (size_t k = i; k-- > 0;) {
      int type = int(tokens.get(k)->getType());
      if (type == KiteLexer::RBRACK || type == KiteLexer::RPAREN) ++depth;
      if (type == KiteLexer::LPAREN) {
        if (depth == 0) break;
        --depth;
      }
      if (type == KiteLexer::LBRACK) {
        if (depth > 0) {
          --depth;
          continue;
        }
        // `[` that starts an operand (not `a[i]`, an index).
        int before = k > 0 ? int(tokens.get(k - 1)->getType()) : -1;
        if (before == KiteLexer::ID || before == KiteLexer::RPAREN || before == KiteLexer::RBRACK)
          break;
        m.loc = loc_of(tokens.get(k));
        m.message =
            "Kite has no array literals ('[a, b]' is the range from a to b): make an array with "
            "'new<int>(n)' and assign its elements, 'a[0] <- 1;'";
        return true;
      }
      if (type == KiteLexer::SEMI || type == KiteLexer::LBRACE || type == KiteLexer::RBRACE) break;
    }
  }
  size_t start = statement_start(tokens, i);
  // `for (i = 0; i < n; i++)`: the first `;` inside the head.
  if (t->getType() == KiteLexer::SEMI && start < i &&
      (tokens.get(start)->getType() == KiteLexer::FOR ||
       tokens.get(start)->getType() == KiteLexer::MAP)) {
    m.loc = loc_of(t);
    m.message = "Kite has no C-style 'for (init; condition; step)': a loop goes over a range or "
                "an array, as in 'for (i = [0, n - 1]) { ... }', or use 'while'";
    return true;
  }
  if (start + 1 <= i && tokens.get(start)->getType() == KiteLexer::ID &&
      tokens.get(start + 1)->getType() == KiteLexer::ID)
    return statement_start_mistake(file, tokens, start, m);
  return false;
}

void report(Diagnostics &diags, const Mistake &m) {
  diags.error(m.loc, m.message);
  if (!m.note.empty()) diags.note(m.note_loc, m.note);
}

// ------------------------------------------------------------------ syntax errors

// Reports the first syntax error in kitec's words and stops the parse.
class ErrorStrategy : public antlr4::DefaultErrorStrategy {
 public:
  ErrorStrategy(const SourceFile &file, Diagnostics &diags) : file_(file), diags_(diags) {}

  void reportError(antlr4::Parser *parser, const antlr4::RecognitionException &e) override {
    if (reported_) return;
    reported_ = true;
    Token *t = e.getOffendingToken();
    if (!t) t = parser->getCurrentToken();
    // The expected set is only about the offending token when prediction
    // failed on the first token it looked at.
    bool expected_known = true;
    if (auto *nva = dynamic_cast<const antlr4::NoViableAltException *>(&e))
      expected_known = nva->getStartToken() == t;
    if (dynamic_cast<const antlr4::FailedPredicateException *>(&e)) expected_known = false;
    antlr4::misc::IntervalSet expected;
    if (expected_known) expected = e.getExpectedTokens();
    report(parser, t, expected_known ? &expected : nullptr);
  }

  antlr4::Token *recoverInline(antlr4::Parser *parser) override {
    antlr4::InputMismatchException e(parser);
    reportError(parser, e);
    throw antlr4::ParseCancellationException();
  }
  void recover(antlr4::Parser *, std::exception_ptr) override {
    throw antlr4::ParseCancellationException();
  }
  // No resynchronisation: the first error ends the parse.
  void sync(antlr4::Parser *) override {}

 private:
  void report(antlr4::Parser *parser, Token *t, const antlr4::misc::IntervalSet *expected) {
    Mistake mistake;
    if (parse_mistake(file_, *parser->getTokenStream(), t, mistake)) {
      kite::report(diags_, mistake);
      return;
    }
    bool at_eof = t->getType() == Token::EOF;
    // At end of file, point just after the last real token rather than at an
    // empty line past it.
    SourceLoc loc = loc_of(t);
    if (at_eof && t->getTokenIndex() > 0) {
      Token *prev = parser->getTokenStream()->get(t->getTokenIndex() - 1);
      loc = loc_after(file_, prev);
    }
    std::string what;
    if (expected) {
      auto has = [&](size_t type) { return expected->contains(type); };
      // How the grammar names a token type: 'if', identifier; "" for the
      // ones that only a longer message describes well.
      auto name = [&](ssize_t type) -> std::string {
        if (type == KiteParser::ID) return "identifier";
        return parser->getVocabulary().getLiteralName(size_t(type));
      };
      if (expected->size() == 1 && expected->getSingleElement() == ssize_t(Token::EOF)) {
        what = "expected declaration";  // only the top-level loop ends at EOF
      } else if (expected->size() == 1) {
        if (!name(expected->getSingleElement()).empty())
          what = "expected " + name(expected->getSingleElement());
      } else if (has(KiteParser::INT) && has(KiteParser::STRING) && !has(KiteParser::RETURN)) {
        what = "expected expression";
      } else if (expected->size() == 3 && has(KiteParser::ID) && has(KiteParser::TASK) &&
                 has(KiteParser::LPAREN)) {
        what = "expected type";
      } else if (has(KiteParser::STRUCT) && has(Token::EOF)) {
        what = "expected declaration";
      } else if (expected->size() <= 3 && !has(Token::EOF)) {
        // A short list reads well: "expected '{' or 'if'".
        std::vector<std::string> names;
        for (ssize_t type : expected->toList()) names.push_back(name(type));
        if (std::find(names.begin(), names.end(), "") == names.end()) {
          what = "expected " + names[0];
          for (size_t i = 1; i < names.size(); ++i)
            what += (i + 1 == names.size() ? " or " : ", ") + names[i];
        }
      }
    }
    if (what.empty())
      what = "unexpected " + describe(file_, t);
    else if (at_eof)
      what += " at end of file";
    diags_.error(loc, what);
  }

  const SourceFile &file_;
  Diagnostics &diags_;
  bool reported_ = false;
};

// ------------------------------------------------------------------ AST building

class Builder {
 public:
  Builder(const SourceFile &file, antlr4::CommonTokenStream &tokens, Diagnostics &diags)
      : file_(file), tokens_(tokens), diags_(diags) {}

  std::unique_ptr<ast::Program> program(KiteParser::ProgramContext *ctx) {
    auto prog = std::make_unique<ast::Program>();
    for (auto *top : ctx->topDecl()) {
      if (auto *s = dynamic_cast<KiteParser::TopStructContext *>(top)) {
        prog->structs.push_back(struct_decl(s->structDecl()));
      } else if (auto *t = dynamic_cast<KiteParser::TopTaskContext *>(top)) {
        prog->tasks.push_back(task_decl(t->taskDecl()));
      } else if (auto *v = dynamic_cast<KiteParser::TopValueContext *>(top)) {
        auto value = std::make_unique<ast::ValueDecl>();
        value->loc = loc_of(v->ID()->getSymbol());
        value->name = v->ID()->getText();
        if (v->type()) value->type = type(v->type());
        value->init = expr(v->expr());
        check_terminator(v, "declaration");
        prog->values.push_back(std::move(value));
      }
    }
    return prog;
  }

 private:
  // ---- shared pieces

  SourceLoc loc(antlr4::tree::TerminalNode *node) { return loc_of(node->getSymbol()); }
  SourceLoc loc(antlr4::ParserRuleContext *ctx) { return loc_of(ctx->getStart()); }

  // A `;` may be left out only right before or after `}`. `ctx` ends with its
  // optional terminator; `what` names the construct for the message.
  void check_terminator(antlr4::ParserRuleContext *ctx, const char *what) {
    auto *last = dynamic_cast<antlr4::tree::TerminalNode *>(ctx->children.back());
    if (last && last->getSymbol()->getType() == KiteParser::SEMI) return;
    Token *stop = ctx->getStop();
    if (stop->getType() == KiteParser::RBRACE) return;
    Token *next = tokens_.get(stop->getTokenIndex() + 1);
    if (next->getType() == KiteParser::RBRACE) return;
    diags_.error(loc_after(file_, stop), "expected ';' after {}", what);
  }

  std::unique_ptr<ast::StructDecl> struct_decl(KiteParser::StructDeclContext *ctx) {
    auto decl = std::make_unique<ast::StructDecl>();
    decl->loc = loc(ctx->ID());
    decl->name = ctx->ID()->getText();
    decl->is_union = ctx->UNION() != nullptr;
    for (auto *f : ctx->fieldDecl()) {
      decl->fields.push_back(param(f->param()));
      check_terminator(f, "field");
    }
    return decl;
  }

  ast::Param param(KiteParser::ParamContext *ctx) {
    ast::Param p;
    p.loc = loc(ctx->ID());
    p.name = ctx->ID()->getText();
    p.type = type(ctx->type());
    return p;
  }

  std::vector<ast::Param> params(KiteParser::ParamListContext *ctx) {
    std::vector<ast::Param> result;
    if (ctx)
      for (auto *p : ctx->param()) result.push_back(param(p));
    return result;
  }

  std::unique_ptr<ast::TaskDecl> task_decl(KiteParser::TaskDeclContext *ctx) {
    auto task = std::make_unique<ast::TaskDecl>();
    task->loc = loc(ctx->ID());
    task->name = ctx->ID()->getText();
    task->params = params(ctx->paramList());
    if (ctx->type()) task->result = type(ctx->type());
    task->body = block(ctx->block());
    return task;
  }

  ast::TypeExprPtr type(KiteParser::TypeContext *ctx) {
    auto t = std::make_unique<ast::TypeExpr>();
    t->loc = loc(ctx);
    if (auto *named = dynamic_cast<KiteParser::NamedTypeContext *>(ctx)) {
      t->name = named->ID() ? named->ID()->getText() : "task";
      for (auto *arg : named->type()) t->args.push_back(type(arg));
      return t;
    }
    auto *tuple = static_cast<KiteParser::TupleTypeContext *>(ctx);
    // `(t)` is just t; a tuple has at least two members.
    if (tuple->type().size() == 1) return type(tuple->type(0));
    t->name = "(tuple)";
    for (auto *member : tuple->type()) t->args.push_back(type(member));
    return t;
  }

  std::unique_ptr<ast::VarDecl> var(antlr4::tree::TerminalNode *id) {
    auto v = std::make_unique<ast::VarDecl>();
    v->loc = loc(id);
    v->name = id->getText();
    return v;
  }

  // ---- statements

  ast::StmtList block(KiteParser::BlockContext *ctx) { return statements(ctx->statement()); }

  ast::StmtList statements(const std::vector<KiteParser::StatementContext *> &ctxs) {
    ast::StmtList list;
    for (auto *s : ctxs)
      if (auto stmt = statement(s)) list.push_back(std::move(stmt));
    return list;
  }

  // `a then b then c` is ((a then b) then c): each `then` waits for everything
  // to its left, as the operator reads.
  ast::StmtPtr statement(KiteParser::StatementContext *ctx) {
    auto items = ctx->item();
    auto thens = ctx->THEN();
    if (items.size() > size_t(kMaxNesting)) {
      diags_.error(loc(thens[kMaxNesting - 1]), "too many statements chained with 'then'");
      return nullptr;
    }
    ast::StmtPtr result = item(items[0]);
    for (size_t i = 1; i < items.size(); ++i) {
      auto then = ast::make_stmt(ast::StmtKind::Then, loc(thens[i - 1]));
      ast::StmtPtr rhs = item(items[i]);
      if (!result || !rhs) {
        result = nullptr;
        continue;
      }
      then->body.push_back(std::move(result));
      then->else_body.push_back(std::move(rhs));
      result = std::move(then);
    }
    if (items.size() == 1 && statement_mistake(items[0])) return nullptr;
    check_terminator(ctx, terminator_what(items.back()));
    return result;
  }

  // `break;`, and a word left without `;` before what would follow a
  // keyword or a declaration's name: `retrun n;`, `int x = 5;`, `} eles {`,
  // `fi (c) {`. Reports it and returns true.
  bool statement_mistake(KiteParser::ItemContext *ctx) {
    auto *e = dynamic_cast<KiteParser::ExprItemContext *>(ctx);
    if (!e || e->ARROW()) return false;
    KiteParser::ExprContext *x = e->expr(0);
    auto *call = dynamic_cast<KiteParser::CallExprContext *>(x);
    if (call) x = call->expr();
    auto *primary = dynamic_cast<KiteParser::PrimaryExprContext *>(x);
    if (!primary || !dynamic_cast<KiteParser::NameExprContext *>(primary->primary())) return false;
    Token *word = primary->getStart();
    std::string text = token_text(file_, word);
    bool loop_word = text == "break" || text == "continue";
    if (call && loop_word) return false;
    Token *next = tokens_.get(ctx->getStop()->getTokenIndex() + 1);
    bool terminated = next->getType() == KiteParser::SEMI ||
                      next->getType() == KiteParser::RBRACE ||
                      next->getType() == KiteParser::THEN || next->getType() == Token::EOF;
    if (!loop_word && terminated) return false;
    Mistake m;
    if (call) {
      // `fi (c) {`: only a keyword that takes a parenthesised head.
      std::string keyword = misspelt_keyword(text);
      if (next->getType() != KiteParser::LBRACE ||
          !(keyword == "if" || keyword == "while" || keyword == "for" || keyword == "map" ||
            keyword == "case"))
        return false;
      m.loc = loc_of(word);
      m.message = "unknown word '" + text + "'; did you mean '" + keyword + "'?";
    } else if (!statement_start_mistake(file_, tokens_, word->getTokenIndex(), m)) {
      return false;
    }
    report(diags_, m);
    return true;
  }

  static const char *terminator_what(KiteParser::ItemContext *ctx) {
    if (dynamic_cast<KiteParser::DeclItemContext *>(ctx) ||
        dynamic_cast<KiteParser::InferredDeclItemContext *>(ctx))
      return "declaration";
    if (dynamic_cast<KiteParser::ReturnItemContext *>(ctx)) return "return statement";
    if (auto *e = dynamic_cast<KiteParser::ExprItemContext *>(ctx))
      return e->ARROW() ? "assignment" : "expression";
    return "statement";
  }

  ast::StmtPtr item(KiteParser::ItemContext *ctx) {
    using ast::StmtKind;
    if (auto *c = dynamic_cast<KiteParser::ExprItemContext *>(ctx)) {
      if (!c->ARROW()) {
        auto s = ast::make_stmt(StmtKind::ExprStmt, loc(c));
        s->expr = expr(c->expr(0));
        return s;
      }
      auto s = ast::make_stmt(StmtKind::Assign, loc(c));
      s->target = expr(c->expr(0));
      s->expr = expr(c->expr(1));
      auto k = s->target->kind;
      if (k != ast::ExprKind::Name && k != ast::ExprKind::Field && k != ast::ExprKind::Index)
        diags_.error(s->target->loc, "cannot assign to this expression");
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::DeclItemContext *>(ctx)) {
      auto s = ast::make_stmt(StmtKind::Decl, loc(c));
      for (auto *id : c->ID()) s->vars.push_back(var(id));
      s->decl_type = type(c->type());
      if (c->expr()) {
        if (s->vars.size() > 1)
          diags_.error(loc(c->ASSIGN()), "only a single variable can have an initializer");
        s->expr = expr(c->expr());
      }
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::InferredDeclItemContext *>(ctx)) {
      auto s = ast::make_stmt(StmtKind::Decl, loc(c));
      s->vars.push_back(var(c->ID()));
      s->expr = expr(c->expr());
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::ReturnItemContext *>(ctx)) {
      auto s = ast::make_stmt(StmtKind::Return, loc(c));
      if (c->expr()) s->expr = expr(c->expr());
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::IfItemContext *>(ctx)) return if_chain(c);
    if (auto *c = dynamic_cast<KiteParser::CaseItemContext *>(ctx)) {
      auto s = ast::make_stmt(StmtKind::Case, loc(c));
      s->expr = expr(c->expr());
      for (auto *b : c->caseBranch()) {
        ast::CaseBranch branch;
        branch.loc = loc(b);
        if (!b->DEFAULT()) {
          branch.field = b->ID(0)->getText();
          branch.binder = b->ID(1)->getText();
        }
        branch.body = statements(b->statement());
        s->branches.push_back(std::move(branch));
      }
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::LoopItemContext *>(ctx)) {
      auto s = ast::make_stmt(c->FOR() ? StmtKind::For : StmtKind::Map, loc(c));
      s->elem_var = var(c->ID());
      s->expr = expr(c->expr());
      // `c[i]`: a trailing index by a plain name binds the index variable.
      if (s->expr->kind == ast::ExprKind::Index &&
          s->expr->children[1]->kind == ast::ExprKind::Name) {
        auto index = std::make_unique<ast::VarDecl>();
        index->loc = s->expr->children[1]->loc;
        index->name = s->expr->children[1]->text;
        s->index_var = std::move(index);
        ast::ExprPtr collection = std::move(s->expr->children[0]);
        s->expr = std::move(collection);
      }
      s->body = block(c->block());
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::WhileItemContext *>(ctx)) {
      auto s = ast::make_stmt(StmtKind::While, loc(c));
      s->expr = expr(c->expr());
      s->body = block(c->block());
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::BlockItemContext *>(ctx)) {
      auto s = ast::make_stmt(StmtKind::Block, loc(c));
      s->body = block(c->block());
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::LocalTaskItemContext *>(ctx)) {
      // A local named task is a declaration whose value is an anonymous task
      // that keeps the name.
      auto *t = c->taskDecl();
      auto s = ast::make_stmt(StmtKind::Decl, loc(t->ID()));
      s->vars.push_back(var(t->ID()));
      s->expr = ast::make_expr(ast::ExprKind::AnonTask, loc(t));
      s->expr->anon = task_decl(t);
      return s;
    }
    if (auto *c = dynamic_cast<KiteParser::LocalStructItemContext *>(ctx)) {
      diags_.error(loc(c), "{} declarations are only allowed at top level",
                   c->structDecl()->UNION() ? "union" : "struct");
      return nullptr;
    }
    internal_error("parse: unhandled statement form");
  }

  // if / else if / else: the chain is flat in the parse tree and nested in
  // the AST, built from the last condition backwards.
  ast::StmtPtr if_chain(KiteParser::IfItemContext *ctx) {
    auto conds = ctx->expr();
    auto blocks = ctx->block();
    auto ifs = ctx->IF();
    if (conds.size() > size_t(kMaxNesting)) {
      diags_.error(loc(ifs[kMaxNesting]), "too many 'else if' branches");
      return nullptr;
    }
    ast::StmtPtr result;
    for (size_t i = conds.size(); i-- > 0;) {
      auto s = ast::make_stmt(ast::StmtKind::If, loc(ifs[i]));
      s->expr = expr(conds[i]);
      s->body = block(blocks[i]);
      if (result) {
        s->has_else = true;
        s->else_body.push_back(std::move(result));
      } else if (blocks.size() > conds.size()) {
        s->has_else = true;
        s->else_body = block(blocks.back());
      }
      result = std::move(s);
    }
    return result;
  }

  // ---- expressions

  ast::ExprPtr expr(KiteParser::ExprContext *ctx) {
    using ast::ExprKind;
    if (++depth_ > kMaxExprDepth) {
      if (!depth_reported_) diags_.error(loc(ctx), "expression is nested too deeply");
      depth_reported_ = true;
      --depth_;
      return ast::make_expr(ExprKind::IntLit, loc(ctx));
    }
    ast::ExprPtr e = expr_inner(ctx);
    --depth_;
    return e;
  }

  ast::ExprPtr expr_inner(KiteParser::ExprContext *ctx) {
    using ast::ExprKind;
    if (auto *c = dynamic_cast<KiteParser::PrimaryExprContext *>(ctx)) return primary(c->primary());
    if (auto *c = dynamic_cast<KiteParser::CallExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::Call, loc(c));
      e->children.push_back(expr(c->expr()));
      if (c->exprList())
        for (auto *arg : c->exprList()->expr()) e->children.push_back(expr(arg));
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::FieldExprContext *>(ctx)) return field(c);
    if (auto *c = dynamic_cast<KiteParser::IndexExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::Index, loc(c));
      e->children.push_back(expr(c->expr(0)));
      e->children.push_back(expr(c->expr(1)));
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::UnaryExprContext *>(ctx)) {
      SourceLoc op_loc = loc_of(c->op);
      // `-5` is one literal, so that -2147483648 fits in an int.
      if (c->op->getType() == KiteParser::MINUS) {
        if (auto *p = dynamic_cast<KiteParser::PrimaryExprContext *>(c->expr())) {
          if (auto *lit = dynamic_cast<KiteParser::IntLitContext *>(p->primary()))
            return int_literal(lit->INT()->getSymbol(), op_loc, true);
          if (auto *lit = dynamic_cast<KiteParser::FloatLitContext *>(p->primary()))
            return float_literal(lit->FLOAT()->getSymbol(), op_loc, true);
        }
      }
      auto e = ast::make_expr(ExprKind::Unary, op_loc);
      switch (c->op->getType()) {
        case KiteParser::MINUS: e->unop = ast::UnaryOp::Neg; break;
        case KiteParser::NOT: e->unop = ast::UnaryOp::Not; break;
        default: e->unop = ast::UnaryOp::BitNot; break;
      }
      e->children.push_back(expr(c->expr()));
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::FutureExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::Future, loc(c));
      e->children.push_back(expr(c->expr()));
      return e;
    }
    auto *c = static_cast<KiteParser::BinaryExprContext *>(ctx);
    auto e = ast::make_expr(ExprKind::Binary, loc_of(c->op));
    e->binop = binary_op(c);
    e->children.push_back(expr(c->expr(0)));
    e->children.push_back(expr(c->expr(1)));
    return e;
  }

  ast::BinaryOp binary_op(KiteParser::BinaryExprContext *c) {
    using ast::BinaryOp;
    // `>>` and `>=` arrive as two tokens (see Kite.g4); they must touch.
    auto touching = [&](Token *a, Token *b) {
      if (a->getStopIndex() + 1 != b->getStartIndex())
        diags_.error(loc_of(b), "unexpected {}", describe(file_, b));
    };
    if (c->GT().size() == 2) {
      touching(c->GT(0)->getSymbol(), c->GT(1)->getSymbol());
      return BinaryOp::Shr;
    }
    if (c->ASSIGN()) {
      touching(c->GT(0)->getSymbol(), c->ASSIGN()->getSymbol());
      return BinaryOp::Ge;
    }
    switch (c->op->getType()) {
      case KiteParser::STAR: return BinaryOp::Mul;
      case KiteParser::SLASH: return BinaryOp::Div;
      case KiteParser::PERCENT: return BinaryOp::Mod;
      case KiteParser::PLUS: return BinaryOp::Add;
      case KiteParser::MINUS: return BinaryOp::Sub;
      case KiteParser::SHL: return BinaryOp::Shl;
      case KiteParser::LT: return BinaryOp::Lt;
      case KiteParser::LE: return BinaryOp::Le;
      case KiteParser::GT: return BinaryOp::Gt;
      case KiteParser::EQ: return BinaryOp::Eq;
      case KiteParser::NE: return BinaryOp::Ne;
      case KiteParser::AMP: return BinaryOp::BitAnd;
      case KiteParser::CARET: return BinaryOp::BitXor;
      case KiteParser::PIPE: return BinaryOp::BitOr;
      case KiteParser::ANDAND: return BinaryOp::And;
      case KiteParser::OROR: return BinaryOp::Or;
    }
    internal_error("parse: unhandled binary operator");
  }

  // e.x, e.0, and e.0.1 (which lexes as e . FLOAT "0.1").
  ast::ExprPtr field(KiteParser::FieldExprContext *c) {
    SourceLoc start = loc(c);
    auto select = [&](ast::ExprPtr base, std::string name) {
      auto e = ast::make_expr(ast::ExprKind::Field, start);
      e->text = std::move(name);
      e->children.push_back(std::move(base));
      return e;
    };
    auto is_index = [](const std::string &s) {
      if (s.empty()) return false;
      for (char ch : s)
        if (ch < '0' || ch > '9') return false;
      return true;
    };
    ast::ExprPtr base = expr(c->expr());
    if (c->ID()) return select(std::move(base), c->ID()->getText());
    Token *t = c->INT() ? c->INT()->getSymbol() : c->FLOAT()->getSymbol();
    std::string text = token_text(file_, t);
    size_t dot = text.find('.');
    std::string first = text.substr(0, dot);
    std::string second = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (!is_index(first) || (dot != std::string::npos && !is_index(second))) {
      diags_.error(loc_of(t), "invalid tuple index '{}'", text);
      return base;
    }
    base = select(std::move(base), first);
    if (dot != std::string::npos) base = select(std::move(base), second);
    return base;
  }

  ast::ExprPtr primary(KiteParser::PrimaryContext *ctx) {
    using ast::ExprKind;
    if (auto *c = dynamic_cast<KiteParser::IntLitContext *>(ctx))
      return int_literal(c->INT()->getSymbol(), loc(c), false);
    if (auto *c = dynamic_cast<KiteParser::FloatLitContext *>(ctx))
      return float_literal(c->FLOAT()->getSymbol(), loc(c), false);
    if (auto *c = dynamic_cast<KiteParser::BoolLitContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::BoolLit, loc(c));
      e->bool_value = c->TRUE() != nullptr;
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::StringLitContext *>(ctx)) return string_literal(c);
    if (auto *c = dynamic_cast<KiteParser::NameExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::Name, loc(c));
      e->text = c->ID()->getText();
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::ConstructExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::Construct, loc(c));
      e->type_expr = std::make_unique<ast::TypeExpr>();
      e->type_expr->loc = loc(c->ID());
      e->type_expr->name = c->ID()->getText();
      for (auto *f : c->fieldInit()) {
        ast::FieldInit init;
        init.loc = loc(f->ID());
        init.name = f->ID()->getText();
        init.value = expr(f->expr());
        e->fields.push_back(std::move(init));
      }
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::NewExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::New, loc(c));
      e->type_expr = type(c->type());
      if (c->exprList())
        for (auto *arg : c->exprList()->expr()) e->children.push_back(expr(arg));
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::RangeExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::Range, loc(c));
      e->children.push_back(expr(c->expr(0)));
      e->children.push_back(expr(c->expr(1)));
      return e;
    }
    if (auto *c = dynamic_cast<KiteParser::AnonTaskExprContext *>(ctx)) {
      auto e = ast::make_expr(ExprKind::AnonTask, loc(c));
      e->anon = std::make_unique<ast::TaskDecl>();
      e->anon->loc = loc(c);
      e->anon->params = params(c->paramList());
      if (c->type()) e->anon->result = type(c->type());
      e->anon->body = block(c->block());
      return e;
    }
    auto *c = static_cast<KiteParser::ParenExprContext *>(ctx);
    if (c->expr().size() == 1) {
      ast::ExprPtr inner = expr(c->expr(0));
      if (inner) inner->in_parens = true;
      return inner;
    }
    auto e = ast::make_expr(ExprKind::Tuple, loc(c));
    for (auto *member : c->expr()) e->children.push_back(expr(member));
    return e;
  }

  // 42, 0x2A, 42L. The literal's value is kept as a long; whether an
  // unsuffixed one is an int or a long depends on where it is used, so the
  // checker decides (and rejects one too large for int where an int is
  // wanted). A decimal literal must fit the signed type (one more when
  // negated: -2147483648); a hexadecimal one may use every bit of the
  // unsigned type and spells those bits, as in C: 0xFFFFFFFF is the int -1
  // but the long 4294967295.
  ast::ExprPtr int_literal(Token *t, SourceLoc at, bool negated) {
    auto e = ast::make_expr(ast::ExprKind::IntLit, at);
    std::string text = token_text(file_, t);
    if (!text.empty() && (text.back() == 'l' || text.back() == 'L')) {
      e->is_long = true;
      text.pop_back();
    }
    bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (!hex && text.size() > 1 && text[0] == '0') {
      diags_.error(loc_of(t), "integer literal with a leading zero (octal is not supported)");
      return e;
    }
    uint64_t magnitude = 0;
    bool overflow = false;
    for (size_t i = hex ? 2 : 0; i < text.size(); ++i) {
      char ch = text[i];
      unsigned digit = ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
      unsigned base = hex ? 16 : 10;
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / base) overflow = true;
      magnitude = magnitude * base + digit;
    }
    uint64_t long_limit =
        hex ? std::numeric_limits<uint64_t>::max() : (uint64_t(1) << 63) - (negated ? 0 : 1);
    if (overflow || magnitude > long_limit) {
      diags_.error(loc_of(t), "integer literal is too large for long");
      return e;
    }
    uint64_t int_limit = hex ? 0xFFFFFFFFull : (uint64_t(1) << 31) - (negated ? 0 : 1);
    e->fits_int = !e->is_long && magnitude <= int_limit;
    // Negation wraps, so -9223372036854775808L and -0x8000000000000000L are
    // LONG_MIN (and, as an int, -2147483648 and -0x80000000 are INT_MIN).
    e->int_value = int64_t(negated ? 0 - magnitude : magnitude);
    return e;
  }

  // 1.5, 1e-3 (double), 1.5f (float). The value is the double nearest the
  // digits; a float literal must be within float's range.
  ast::ExprPtr float_literal(Token *t, SourceLoc at, bool negated) {
    auto e = ast::make_expr(ast::ExprKind::FloatLit, at);
    std::string text = token_text(file_, t);
    if (!text.empty() && (text.back() == 'f' || text.back() == 'F')) {
      e->is_float32 = true;
      text.pop_back();
    }
    double value = std::strtod(text.c_str(), nullptr);
    if (std::isinf(value) || (e->is_float32 && value > FLT_MAX)) {
      diags_.error(loc_of(t), "floating-point literal is out of range for {}",
                   e->is_float32 ? "float" : "double");
      return e;
    }
    e->float_value = negated ? -value : value;
    return e;
  }

  // "text" with C's escapes: the simple ones (\' \" \? \\ \a \b \f \n \r \t
  // \v), octal (\0, \101: one to three octal digits) and hexadecimal (\x41:
  // as many hex digits as follow), each one byte: a value above 255 is an
  // error, as in C.
  ast::ExprPtr string_literal(KiteParser::StringLitContext *c) {
    Token *t = c->STRING()->getSymbol();
    auto e = ast::make_expr(ast::ExprKind::StringLit, loc(c));
    std::string text = token_text(file_, t);
    std::string out;
    size_t end = text.size() - 1;  // the closing quote
    for (size_t i = 1; i < end; ++i) {
      if (text[i] != '\\') {
        out += text[i];
        continue;
      }
      SourceLoc at = loc_of(t);
      at.col += int(i);
      char esc = text[++i];
      switch (esc) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '\\': out += '\\'; break;
        case '"': out += '"'; break;
        case '\'': out += '\''; break;
        case '?': out += '?'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
          unsigned value = unsigned(esc - '0');
          for (int digits = 1; digits < 3 && i + 1 < end && text[i + 1] >= '0' && text[i + 1] <= '7';
               ++digits)
            value = value * 8 + unsigned(text[++i] - '0');
          if (value > 0xff)
            diags_.error(at, "octal escape sequence out of range (at most \\377)");
          else
            out += char(value);
          break;
        }
        case 'x': {
          unsigned value = 0;
          int digits = 0;
          while (i + 1 < end && std::isxdigit(uint8_t(text[i + 1]))) {
            char h = text[++i];
            value = std::min(value * 16 + unsigned(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10),
                             0x100u);
            ++digits;
          }
          if (digits == 0)
            diags_.error(at, "\\x used with no following hex digits");
          else if (value > 0xff)
            diags_.error(at, "hex escape sequence out of range (at most \\xff)");
          else
            out += char(value);
          break;
        }
        default:
          if (uint8_t(esc) >= 0x20 && uint8_t(esc) < 0x7f)
            diags_.error(at, "unknown escape sequence '\\{}'", esc);
          else
            diags_.error(at, "unknown escape sequence");
      }
    }
    e->text = std::move(out);
    return e;
  }

  const SourceFile &file_;
  antlr4::CommonTokenStream &tokens_;
  Diagnostics &diags_;
  int depth_ = 0;
  bool depth_reported_ = false;
};

}  // namespace

std::unique_ptr<ast::Program> parse(const SourceFile &file, Diagnostics &diags, int file_id) {
  current_file_id = file_id;
  int errors_before = diags.error_count();
  ByteStream input(file.text());
  KiteLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  if (!check_tokens(file, tokens.getTokens(), diags)) return nullptr;

  KiteParser parser(&tokens);
  parser.removeErrorListeners();
  KiteParser::ProgramContext *tree = nullptr;
  try {
    // Stage one: SLL prediction, which resolves every ambiguity of the
    // grammar towards the longest expression and is exact for valid programs
    // unless they need full context.
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    tree = parser.program();
  } catch (const antlr4::ParseCancellationException &) {
    // Stage two: full LL, reporting the first error.
    tokens.seek(0);
    parser.reset();
    parser.setErrorHandler(std::make_shared<ErrorStrategy>(file, diags));
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    try {
      tree = parser.program();
    } catch (const antlr4::ParseCancellationException &) {
      tree = nullptr;
    }
  }
  if (!tree || diags.error_count() > errors_before) {
    if (diags.error_count() == errors_before) internal_error("parse: failed without an error");
    return nullptr;
  }
  auto program = Builder(file, tokens, diags).program(tree);
  if (diags.error_count() > errors_before) return nullptr;
  return program;
}

}  // namespace kite
