// Step 1 of parsing (see parse.cpp): the grammar's lexer never fails (bad
// input becomes BAD_CHAR, BAD_NUMBER, UNTERMINATED_* tokens), so every
// lexical message is worded here. The same pass bounds bracket and
// prefix-operator nesting, because ANTLR's recursive-descent parser would
// otherwise overflow the stack on pathological input.
#include "frontend/parser.h"

namespace kite::parsing {

bool check_tokens(const ParseInput &input, const std::vector<Token *> &tokens, Diagnostics &diags) {
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
        unsigned char c = static_cast<unsigned char>(input.token_text(t)[0]);
        // One message for a run of bad bytes (a UTF-8 sequence, say).
        bool continues_run = prev && prev->getType() == KiteLexer::BAD_CHAR &&
                             prev->getStopIndex() + 1 == t->getStartIndex();
        if (!continues_run) {
          if (c >= 0x80)
            diags.error(input.loc_of(t), "unexpected non-ASCII character");
          else if (c >= 0x20 && c < 0x7f)
            diags.error(input.loc_of(t), "unexpected character '{}'", char(c));
          else
            diags.error(input.loc_of(t), "unexpected character '\\x{:02x}'", c);
        }
        ok = false;
        break;
      }
      case KiteLexer::BAD_NUMBER:
        diags.error(input.loc_of(t), "invalid numeric literal '{}'", input.token_text(t));
        ok = false;
        break;
      case KiteLexer::UNTERMINATED_STRING:
        diags.error(input.loc_of(t), "unterminated string literal");
        ok = false;
        break;
      case KiteLexer::UNTERMINATED_COMMENT:
        diags.error(input.loc_of(t), "unterminated comment");
        ok = false;
        break;
      default:
        break;
    }
    switch (t->getType()) {
      case KiteLexer::LPAREN:
      case KiteLexer::LBRACK:
      case KiteLexer::LBRACE:
        ++depth;
        break;
      case KiteLexer::RPAREN:
      case KiteLexer::RBRACK:
      case KiteLexer::RBRACE:
        if (depth > 0) --depth;
        break;
      default:
        break;
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
      case KiteLexer::RPAREN:
        break;
      default:
        in_type = false;
        angles = 0;
    }
    switch (t->getType()) {
      case KiteLexer::MINUS:
      case KiteLexer::NOT:
      case KiteLexer::TILDE:
      case KiteLexer::TASK:
        ++prefix_run;
        break;
      default:
        prefix_run = 0;
    }
    if (depth + angles + prefix_run > kMaxNesting) {
      diags.error(input.loc_of(t), "program is nested too deeply");
      return false;
    }
    prev = t;
  }
  return ok;
}

}  // namespace kite::parsing
