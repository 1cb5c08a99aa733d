// Step 3 of parsing (see parse.cpp): the error strategy of the full LL
// parse, which reports the first syntax error in kitec's words and stops
// (no ANTLR recovery, so no cascades of follow-on errors).
#include <algorithm>

#include "frontend/parser.h"

namespace kite::parsing {
namespace {

// Reports the first syntax error in kitec's words and stops the parse.
class ErrorStrategy : public antlr4::DefaultErrorStrategy {
 public:
  ErrorStrategy(const ParseInput &input, Diagnostics &diags) : input_(input), diags_(diags) {}

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
    if (parse_mistake(input_, *parser->getTokenStream(), t, mistake)) {
      parsing::report(diags_, mistake);
      return;
    }
    bool at_eof = t->getType() == Token::EOF;
    // At end of file, point just after the last real token rather than at an
    // empty line past it.
    SourceLoc loc = input_.loc_of(t);
    if (at_eof && t->getTokenIndex() > 0) {
      Token *prev = parser->getTokenStream()->get(t->getTokenIndex() - 1);
      loc = input_.loc_after(prev);
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
      what = "unexpected " + input_.describe(t);
    else if (at_eof)
      what += " at end of file";
    diags_.error(loc, what);
  }

  const ParseInput &input_;
  Diagnostics &diags_;
  bool reported_ = false;
};

}  // namespace

std::shared_ptr<antlr4::ANTLRErrorStrategy> first_error_strategy(const ParseInput &input,
                                                                 Diagnostics &diags) {
  return std::make_shared<ErrorStrategy>(input, diags);
}

}  // namespace kite::parsing
