// The parser's parts, private to frontend/ and its unit tests: parse.h's
// parse() is Parser::run(), whose steps parse.cpp describes, each in a file
// of its own. A parse keeps all its state in its Parser (the file id its
// locations name included), so parsers of different files may be used side
// by side.
#pragma once

#include <KiteLexer.h>
#include <KiteParser.h>
#include <antlr4-runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/source.h"

namespace kite::parsing {

using antlr4::Token;
using kite_parser::KiteLexer;
using kite_parser::KiteParser;

// Deeper bracket, type-argument or prefix-operator nesting is rejected
// before parsing; the parser uses a few stack frames per level.
constexpr int kMaxNesting = 256;

// The file being parsed, and the file every location made from its tokens
// names (SourceLoc::file).
struct ParseInput {
  const SourceFile &file;
  FileId file_id;

  SourceLoc loc_of(const Token *t) const;
  // The source text of a token, from the original bytes.
  std::string token_text(const Token *t) const;
  // How a token is named in a message: 'foo', or end of file.
  std::string describe(const Token *t) const;
  // The position just after a token: where a missing `;` belongs.
  SourceLoc loc_after(const Token *t) const;
};

// ---- lexing (parse_lex.cpp)

// Reports bad tokens and excessive nesting; returns false if there were any.
bool check_tokens(const ParseInput &input, const std::vector<Token *> &tokens, Diagnostics &diags);

// ---- common mistakes (parse_mistakes.cpp)

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

// The keyword that `word` is probably a misspelling of, or "".
std::string misspelt_keyword(const std::string &word);

// An identifier `word` (token i) starting a statement or declaration, with
// what follows it: `break;`, `fn main`, `import x;`, `const x = 1;`,
// `int x = 5;`, `retrun n;`, `eles {`.
bool statement_start_mistake(const ParseInput &input, antlr4::TokenStream &tokens, size_t i,
                             Mistake &m);

// The mistakes a parse error at token t can be: `s += n`, `s++`, `s--`,
// an array literal, an unclosed `{`, and the statement-start ones.
bool parse_mistake(const ParseInput &input, antlr4::TokenStream &tokens, Token *t, Mistake &m);

void report(Diagnostics &diags, const Mistake &m);

// ---- syntax errors (parse_errors.cpp)

// The error strategy of the full LL parse: it reports the first syntax error
// in kitec's words and stops the parse.
std::shared_ptr<antlr4::ANTLRErrorStrategy> first_error_strategy(const ParseInput &input,
                                                                 Diagnostics &diags);

// ---- AST building (build_ast.cpp)

// The AST of a parse tree, checking what the grammar leaves open; errors go
// to `diags`.
std::unique_ptr<ast::Program> build_ast(const ParseInput &input, antlr4::CommonTokenStream &tokens,
                                        Diagnostics &diags, KiteParser::ProgramContext *tree);

// ---- the steps (parse.cpp)

// ANTLR's character stream, loaded with one character per byte.
class ByteStream : public antlr4::ANTLRInputStream {
 public:
  explicit ByteStream(const std::string &text);
};

// One parse of one file; the steps may be run one at a time, in order,
// each only if the one before succeeded.
class Parser {
 public:
  Parser(const SourceFile &file, Diagnostics &diags, FileId file_id);

  // Step 1: lexes everything; false if it reported an error.
  bool lex();
  // Steps 2 and 3: the parse tree (owned by the parser), or null if it
  // reported an error.
  KiteParser::ProgramContext *parse_tree();
  // Step 4: the AST of the tree, or null if building it reported an error.
  std::unique_ptr<ast::Program> build(KiteParser::ProgramContext *tree);
  // The steps in order: parse.h's parse().
  std::unique_ptr<ast::Program> run();

 private:
  ParseInput input_;
  Diagnostics &diags_;
  ByteStream chars_;
  KiteLexer lexer_;
  antlr4::CommonTokenStream tokens_;
  KiteParser parser_;
};

}  // namespace kite::parsing
