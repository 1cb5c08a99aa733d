// Parsing in four steps, each able to stop compilation with clean diagnostics:
//
//  1. Lex everything, reporting every lexical error and bounding the nesting
//     (parse_lex.cpp).
//  2. Parse with SLL prediction and bail out at the first error; almost every
//     program parses this way, fast.
//  3. Only if that failed, parse again with full LL prediction and an error
//     strategy that reports the first syntax error in our words and stops
//     (parse_errors.cpp; the mistakes people bring from other languages get
//     messages of their own, parse_mistakes.cpp).
//  4. Build the AST from the parse tree, checking what the grammar leaves
//     open (build_ast.cpp).
//
// The input is fed to ANTLR one byte per character, so ANTLR's columns are
// byte columns, as Diagnostics expects, and invalid UTF-8 cannot make the
// runtime throw; token text is always taken from the original bytes.
#include "frontend/parse.h"

#include "frontend/parser.h"

namespace kite {
namespace parsing {

SourceLoc ParseInput::loc_of(const Token *t) const {
  return SourceLoc{int(t->getLine()), int(t->getCharPositionInLine()) + 1, file_id};
}

std::string ParseInput::token_text(const Token *t) const {
  if (t->getType() == Token::EOF) return "";
  size_t start = t->getStartIndex(), stop = t->getStopIndex();
  if (start >= file.text().size() || stop < start) return "";
  return file.text().substr(start, stop - start + 1);
}

std::string ParseInput::describe(const Token *t) const {
  if (t->getType() == Token::EOF) return "end of file";
  std::string text = token_text(t);
  if (text.size() > 24) text = text.substr(0, 21) + "...";
  return "'" + text + "'";
}

SourceLoc ParseInput::loc_after(const Token *t) const {
  SourceLoc loc = loc_of(t);
  loc.col += int(token_text(t).size());
  return loc;
}

ByteStream::ByteStream(const std::string &text) {
  _data.reserve(text.size());
  for (unsigned char c : text) _data.push_back(c);
  p = 0;
}

Parser::Parser(const SourceFile &file, Diagnostics &diags, FileId file_id)
    : input_{file, file_id},
      diags_(diags),
      chars_(file.text()),
      lexer_(&chars_),
      tokens_(&lexer_),
      parser_(&tokens_) {
  lexer_.removeErrorListeners();
  parser_.removeErrorListeners();
}

bool Parser::lex() {
  tokens_.fill();
  return check_tokens(input_, tokens_.getTokens(), diags_);
}

KiteParser::ProgramContext *Parser::parse_tree() {
  int errors_before = diags_.error_count();
  KiteParser::ProgramContext *tree = nullptr;
  try {
    // Stage one: SLL prediction, which resolves every ambiguity of the
    // grammar towards the longest expression and is exact for valid programs
    // unless they need full context.
    parser_.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    parser_.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    tree = parser_.program();
  } catch (const antlr4::ParseCancellationException &) {
    // Stage two: full LL, reporting the first error.
    tokens_.seek(0);
    parser_.reset();
    parser_.setErrorHandler(first_error_strategy(input_, diags_));
    parser_.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    try {
      tree = parser_.program();
    } catch (const antlr4::ParseCancellationException &) {
      tree = nullptr;
    }
  }
  if (!tree || diags_.error_count() > errors_before) {
    if (diags_.error_count() == errors_before) internal_error("parse: failed without an error");
    return nullptr;
  }
  return tree;
}

std::unique_ptr<ast::Program> Parser::build(KiteParser::ProgramContext *tree) {
  int errors_before = diags_.error_count();
  auto program = build_ast(input_, tokens_, diags_, tree);
  if (diags_.error_count() > errors_before) return nullptr;
  return program;
}

std::unique_ptr<ast::Program> Parser::run() {
  if (!lex()) return nullptr;
  KiteParser::ProgramContext *tree = parse_tree();
  if (!tree) return nullptr;
  return build(tree);
}

}  // namespace parsing

std::unique_ptr<ast::Program> parse(const SourceFile &file, Diagnostics &diags, FileId file_id) {
  return parsing::Parser(file, diags, file_id).run();
}

}  // namespace kite
