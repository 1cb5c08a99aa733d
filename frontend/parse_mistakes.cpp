// The mistakes people bring from other languages (`break`, `fn`,
// `int x = 5`, `+=`, `[1, 2]`, misspelt keywords, an unclosed `{`), each
// recognised from the tokens around the place where parsing failed.
#include <algorithm>

#include "frontend/parser.h"

namespace kite::parsing {
namespace {

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
bool unclosed_brace(const ParseInput &input, antlr4::TokenStream &tokens, Token *eof, Mistake &m) {
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
          int(t->getCharPositionInLine()) < indentation(input.file, o->getLine()))
        first_bad = o;
    }
    prev = t;
  }
  if (open.empty()) return false;
  Token *culprit = first_bad ? first_bad : open.back();
  m.loc = input.loc_of(culprit);
  m.message = "this '{' is never closed";
  m.note = "the file ends here, inside it";
  m.note_loc = eof->getTokenIndex() > 0 ? input.loc_after(tokens.get(eof->getTokenIndex() - 1))
                                        : input.loc_of(eof);
  return true;
}

}  // namespace

std::string misspelt_keyword(const std::string &word) {
  static const char *const keywords[] = {"task",  "return",  "if",   "else", "for",
                                         "map",   "while",   "case", "then", "struct",
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

bool statement_start_mistake(const ParseInput &input, antlr4::TokenStream &tokens, size_t i,
                             Mistake &m) {
  Token *t = tokens.get(i);
  if (t->getType() != KiteLexer::ID) return false;
  std::string word = input.token_text(t);
  Token *next = tokens.get(i + 1);
  m.loc = input.loc_of(t);
  if (in(word, {"break", "continue"})) {
    m.message = word == "break"
                    ? "Kite has no 'break': a while loop ends when its condition is false"
                    : "Kite has no 'continue': put the rest of the loop's body in an 'if'";
    return true;
  }
  if (next->getType() == KiteLexer::ID) {
    std::string name = input.token_text(next);
    if (in(word, {"fn", "func", "function", "def", "fun", "proc", "sub", "void", "method"})) {
      m.message =
          "tasks are declared with 'task', not '" + word + "': task " + name + "(...) { ... }";
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
      std::string type = type_first ? (word == "boolean"   ? "bool"
                                       : word == "integer" ? "int"
                                                           : word)
                                    : "";
      Token *after = tokens.get(i + 2);
      std::string init;
      if (after->getType() == KiteLexer::ASSIGN) {
        init = tokens_text(input.file, tokens, i + 3, semicolon_after(tokens, i + 3));
        if (init.empty()) init = "...";
        if (type.empty()) {
          Token *value = tokens.get(i + 3);
          bool single = semicolon_after(tokens, i + 3) == i + 4;
          type = !single                                ? "t"
                 : value->getType() == KiteLexer::INT   ? "int"
                 : value->getType() == KiteLexer::FLOAT ? "double"
                 : value->getType() == KiteLexer::TRUE || value->getType() == KiteLexer::FALSE
                     ? "bool"
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
    default:
      return false;
  }
}

bool parse_mistake(const ParseInput &input, antlr4::TokenStream &tokens, Token *t, Mistake &m) {
  size_t i = t->getTokenIndex();
  auto touching = [&](Token *a, Token *b) { return a->getStopIndex() + 1 == b->getStartIndex(); };
  auto name_before = [&](size_t k) {
    return k > 0 && tokens.get(k - 1)->getType() == KiteLexer::ID
               ? input.token_text(tokens.get(k - 1))
               : std::string("x");
  };
  if (t->getType() == Token::EOF) return unclosed_brace(input, tokens, t, m);
  // `.5` where an operand is expected, and `1.` (C's floating-point forms).
  if (t->getType() == KiteLexer::DOT && i + 1 < tokens.size()) {
    Token *n = tokens.get(i + 1);
    if ((n->getType() == KiteLexer::INT || n->getType() == KiteLexer::FLOAT) && touching(t, n)) {
      m.loc = input.loc_of(t);
      m.message = "expected expression; a number needs a digit before its point: write '0." +
                  input.token_text(n) + "'";
      return true;
    }
  }
  std::string digits = i > 1 ? input.token_text(tokens.get(i - 2)) : "";
  if (i > 1 && tokens.get(i - 1)->getType() == KiteLexer::DOT &&
      tokens.get(i - 2)->getType() == KiteLexer::INT &&
      touching(tokens.get(i - 2), tokens.get(i - 1)) &&
      (t->getType() != KiteLexer::ID || !touching(tokens.get(i - 1), t)) &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    m.loc = input.loc_of(tokens.get(i - 2));
    m.message = "a number needs a digit after its point: write '" + digits + ".0'";
    return true;
  }
  if (i > 0) {
    Token *p = tokens.get(i - 1);
    // `s += n`: the operator, then `=`.
    if (t->getType() == KiteLexer::ASSIGN && touching(p, t)) {
      std::string op = input.token_text(p);
      if (in(op, {"+", "-", "*", "/", "%", "&", "|", "^", "<<"})) {
        std::string s = name_before(i - 1);
        std::string rhs = tokens_text(input.file, tokens, i + 1, semicolon_after(tokens, i + 1));
        if (rhs.empty()) rhs = "...";
        m.loc = input.loc_of(p);
        m.message =
            "Kite has no '" + op + "=': write '" + s + " <- " + s + " " + op + " " + rhs + "'";
        return true;
      }
    }
    // `s++` (the second `+` cannot start an operand); `s--;` fails after.
    if (t->getType() == KiteLexer::PLUS && p->getType() == KiteLexer::PLUS && touching(p, t)) {
      std::string s = name_before(i - 1);
      m.loc = input.loc_of(p);
      m.message = "Kite has no '++': write '" + s + " <- " + s + " + 1'";
      return true;
    }
    if (i > 1 && p->getType() == KiteLexer::MINUS &&
        tokens.get(i - 2)->getType() == KiteLexer::MINUS && touching(tokens.get(i - 2), p) &&
        i > 2 && tokens.get(i - 3)->getType() == KiteLexer::ID) {
      std::string s = name_before(i - 2);
      m.loc = input.loc_of(tokens.get(i - 2));
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
        m.loc = input.loc_of(tokens.get(k));
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
    m.loc = input.loc_of(t);
    m.message =
        "Kite has no C-style 'for (init; condition; step)': a loop goes over a range or "
        "an array, as in 'for (i = [0, n - 1]) { ... }', or use 'while'";
    return true;
  }
  if (start + 1 <= i && tokens.get(start)->getType() == KiteLexer::ID &&
      tokens.get(start + 1)->getType() == KiteLexer::ID)
    return statement_start_mistake(input, tokens, start, m);
  return false;
}

void report(Diagnostics &diags, const Mistake &m) {
  diags.error(m.loc, m.message);
  if (!m.note.empty()) diags.note(m.note_loc, m.note);
}

}  // namespace kite::parsing
