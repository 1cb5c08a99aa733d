// Step 4 of parsing (see parse.cpp): the AST from the parse tree, checking
// what the grammar leaves open: omitted semicolons, literal ranges, string
// escapes, `>>` and `>=` spelt as two touching tokens, assignment targets.
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "frontend/escapes.h"
#include "frontend/parser.h"

namespace kite::parsing {
namespace {

// Deeper expressions (long operator or postfix chains, which the parser
// handles with loops) are rejected while building, so every later recursive
// pass over the AST is safe too.
constexpr int kMaxExprDepth = 1000;

class Builder {
 public:
  Builder(const ParseInput &input, antlr4::CommonTokenStream &tokens, Diagnostics &diags)
      : input_(input), tokens_(tokens), diags_(diags) {}

  std::unique_ptr<ast::Program> program(KiteParser::ProgramContext *ctx) {
    auto prog = std::make_unique<ast::Program>();
    for (auto *top : ctx->topDecl()) {
      if (auto *s = dynamic_cast<KiteParser::TopStructContext *>(top)) {
        prog->structs.push_back(struct_decl(s->structDecl()));
      } else if (auto *t = dynamic_cast<KiteParser::TopTaskContext *>(top)) {
        prog->tasks.push_back(task_decl(t->taskDecl()));
      } else if (auto *v = dynamic_cast<KiteParser::TopValueContext *>(top)) {
        auto value = std::make_unique<ast::ValueDecl>();
        value->loc = input_.loc_of(v->ID()->getSymbol());
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

  SourceLoc loc(antlr4::tree::TerminalNode *node) { return input_.loc_of(node->getSymbol()); }
  SourceLoc loc(antlr4::ParserRuleContext *ctx) { return input_.loc_of(ctx->getStart()); }

  // A `;` may be left out only right before or after `}`. `ctx` ends with its
  // optional terminator; `what` names the construct for the message.
  void check_terminator(antlr4::ParserRuleContext *ctx, const char *what) {
    auto *last = dynamic_cast<antlr4::tree::TerminalNode *>(ctx->children.back());
    if (last && last->getSymbol()->getType() == KiteParser::SEMI) return;
    Token *stop = ctx->getStop();
    if (stop->getType() == KiteParser::RBRACE) return;
    Token *next = tokens_.get(stop->getTokenIndex() + 1);
    if (next->getType() == KiteParser::RBRACE) return;
    diags_.error(input_.loc_after(stop), "expected ';' after {}", what);
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
    std::string text = input_.token_text(word);
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
      m.loc = input_.loc_of(word);
      m.message = "unknown word '" + text + "'; did you mean '" + keyword + "'?";
    } else if (!statement_start_mistake(input_, tokens_, word->getTokenIndex(), m)) {
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
      SourceLoc op_loc = input_.loc_of(c->op);
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
        case KiteParser::MINUS:
          e->unop = ast::UnaryOp::Neg;
          break;
        case KiteParser::NOT:
          e->unop = ast::UnaryOp::Not;
          break;
        default:
          e->unop = ast::UnaryOp::BitNot;
          break;
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
    auto e = ast::make_expr(ExprKind::Binary, input_.loc_of(c->op));
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
        diags_.error(input_.loc_of(b), "unexpected {}", input_.describe(b));
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
      case KiteParser::STAR:
        return BinaryOp::Mul;
      case KiteParser::SLASH:
        return BinaryOp::Div;
      case KiteParser::PERCENT:
        return BinaryOp::Mod;
      case KiteParser::PLUS:
        return BinaryOp::Add;
      case KiteParser::MINUS:
        return BinaryOp::Sub;
      case KiteParser::SHL:
        return BinaryOp::Shl;
      case KiteParser::LT:
        return BinaryOp::Lt;
      case KiteParser::LE:
        return BinaryOp::Le;
      case KiteParser::GT:
        return BinaryOp::Gt;
      case KiteParser::EQ:
        return BinaryOp::Eq;
      case KiteParser::NE:
        return BinaryOp::Ne;
      case KiteParser::AMP:
        return BinaryOp::BitAnd;
      case KiteParser::CARET:
        return BinaryOp::BitXor;
      case KiteParser::PIPE:
        return BinaryOp::BitOr;
      case KiteParser::ANDAND:
        return BinaryOp::And;
      case KiteParser::OROR:
        return BinaryOp::Or;
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
    std::string text = input_.token_text(t);
    size_t dot = text.find('.');
    std::string first = text.substr(0, dot);
    std::string second = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (!is_index(first) || (dot != std::string::npos && !is_index(second))) {
      diags_.error(input_.loc_of(t), "invalid tuple index '{}'", text);
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
    std::string text = input_.token_text(t);
    if (!text.empty() && (text.back() == 'l' || text.back() == 'L')) {
      e->is_long = true;
      text.pop_back();
    }
    bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (!hex && text.size() > 1 && text[0] == '0') {
      diags_.error(input_.loc_of(t),
                   "integer literal with a leading zero (octal is not supported)");
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
      diags_.error(input_.loc_of(t), "integer literal is too large for long");
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
    std::string text = input_.token_text(t);
    if (!text.empty() && (text.back() == 'f' || text.back() == 'F')) {
      e->is_float32 = true;
      text.pop_back();
    }
    double value = std::strtod(text.c_str(), nullptr);
    if (std::isinf(value) || (e->is_float32 && value > FLT_MAX)) {
      diags_.error(input_.loc_of(t), "floating-point literal is out of range for {}",
                   e->is_float32 ? "float" : "double");
      return e;
    }
    e->float_value = negated ? -value : value;
    return e;
  }

  // "text" with C's escapes (frontend/escapes.h), each one byte.
  ast::ExprPtr string_literal(KiteParser::StringLitContext *c) {
    Token *t = c->STRING()->getSymbol();
    auto e = ast::make_expr(ast::ExprKind::StringLit, loc(c));
    std::string text = input_.token_text(t);
    std::string_view body(text.data(), text.size() - 1);  // up to the closing quote
    std::string out;
    for (size_t i = 1; i < body.size();) {
      if (body[i] != '\\') {
        out += body[i++];
        continue;
      }
      Escape esc = read_escape(body, i + 1);
      if (esc.value >= 0) {
        out += char(esc.value);
      } else {
        SourceLoc at = input_.loc_of(t);
        at.col += int(i);
        diags_.error(at, esc.error);
      }
      i = esc.end;
    }
    e->text = std::move(out);
    return e;
  }

  const ParseInput &input_;
  antlr4::CommonTokenStream &tokens_;
  Diagnostics &diags_;
  int depth_ = 0;
  bool depth_reported_ = false;
};

}  // namespace

std::unique_ptr<ast::Program> build_ast(const ParseInput &input, antlr4::CommonTokenStream &tokens,
                                        Diagnostics &diags, KiteParser::ProgramContext *tree) {
  return Builder(input, tokens, diags).program(tree);
}

}  // namespace kite::parsing
