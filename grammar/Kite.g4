// The concrete syntax of Kite: Figure 3 of the paper plus the details that
// docs/reference.md states. The C++ parser is generated from this file at
// build time (grammar/CMakeLists.txt); frontend/build_ast.cpp turns the parse
// tree into the AST of frontend/ast.h, and frontend/parse_lex.cpp and
// parse_mistakes.cpp own the checks that are easier to state in code than in
// the grammar.
//
// Design decisions worth knowing before editing:
//
// * Optional semicolons. A `;` may be omitted right before or after `}`. The
//   grammar makes every statement terminator optional (`SEMI?`) and the AST
//   builder reports a missing one unless the previous token or the next token
//   is `}`. Keeping the rule out of the grammar (no semantic predicates) gives
//   one precise message, "expected ';' after expression", at the right place.
//   The price is that `a - b` at the end of a statement is ambiguous with
//   `a` followed by a statement `-b`; ANTLR resolves such ambiguities towards
//   the longest expression, which is the only reading the builder accepts.
// * `>` is never lexed together with a following `>` or `=`: generic types
//   close with `>` (`array<array<int>>`, `x: array<int>= e`), and the
//   expression rules spell `>>` and `>=` as two tokens. The builder checks
//   that the two tokens touch.
// * `e.0.1` lexes as `e`, `.`, FLOAT `0.1`; the field rule accepts a FLOAT
//   and the builder splits it into two tuple selections (as Rust does).
// * `task (x: int) {...}` is an anonymous task, `task e` is a future; a
//   parenthesised future operand is told apart by its `name :` parameters.
// * `t{ f = e }` is a construction wherever an expression is expected; a block
//   never directly follows an expression, so there is no conflict.
// * `for (x = c[i])`: the collection is parsed as an expression and the
//   builder takes a trailing `[identifier]` as the index variable.
// * `else if` is accepted as sugar for `else { if ... }` (C programmers expect
//   it; Figure 3 does not forbid it). The chain is a loop in the grammar, not
//   a recursion, so a long chain cannot exhaust the parser's stack.
// * A named task declared inside a task body becomes a local declaration of an
//   anonymous task carrying that name.
grammar Kite;

// ---------------------------------------------------------------- top level

program : topDecl* EOF ;

topDecl
  : structDecl SEMI?                                   # topStruct
  | taskDecl SEMI?                                     # topTask
  | ID COLON type ASSIGN expr SEMI?                    # topValue
  | ID ASSIGN expr SEMI?                               # topValue
  ;

structDecl : (STRUCT | UNION) ID LBRACE fieldDecl* RBRACE ;
fieldDecl : param SEMI? ;

taskDecl : TASK ID LPAREN paramList? RPAREN (COLON type)? block ;
paramList : param (COMMA param)* ;
param : ID COLON type ;

// ---------------------------------------------------------------- types

type
  : (ID | TASK) (LT type (COMMA type)* GT)?            # namedType
  | LPAREN type (COMMA type)* RPAREN                   # tupleType
  ;

// ---------------------------------------------------------------- statements

block : LBRACE statement* RBRACE ;

// `s then s then s`, then the statement's own optional terminator.
statement : item (SEMI? THEN item)* SEMI? ;

item
  : taskDecl                                           # localTaskItem
  | structDecl                                         # localStructItem
  | ID (COMMA ID)* COLON type (ASSIGN expr)?           # declItem
  | ID ASSIGN expr                                     # inferredDeclItem
  | RETURN expr?                                       # returnItem
  | IF LPAREN expr RPAREN block
    (ELSE IF LPAREN expr RPAREN block)* (ELSE block)?  # ifItem
  | CASE LPAREN expr RPAREN LBRACE caseBranch* RBRACE  # caseItem
  | (FOR | MAP) LPAREN ID ASSIGN expr RPAREN block     # loopItem
  | WHILE LPAREN expr RPAREN block                     # whileItem
  | block                                              # blockItem
  | expr (ARROW expr)?                                 # exprItem
  ;

// Non-greedy: in `leaf v: x node b: ...` the statement list stops before
// `node b:` rather than reading `node` as a statement and `b: ...` as a
// declaration (a reading that only an omitted `;` would allow).
caseBranch : (ID ID | DEFAULT) COLON statement*? ;

// ---------------------------------------------------------------- expressions

// Alternatives are listed from the tightest-binding to the loosest, which is
// how ANTLR assigns precedence in a left-recursive rule; binary operators are
// left-associative, as in C.
expr
  : primary                                            # primaryExpr
  | expr LPAREN exprList? RPAREN                       # callExpr
  | expr DOT (ID | INT | FLOAT)                        # fieldExpr
  | expr LBRACK expr RBRACK                            # indexExpr
  | op=(MINUS | NOT | TILDE) expr                      # unaryExpr
  | TASK expr                                          # futureExpr
  | expr op=(STAR | SLASH | PERCENT) expr              # binaryExpr
  | expr op=(PLUS | MINUS) expr                        # binaryExpr
  | expr (op=SHL | op=GT GT) expr                      # binaryExpr
  | expr (op=LT | op=LE | op=GT ASSIGN? ) expr         # binaryExpr
  | expr op=(EQ | NE) expr                             # binaryExpr
  | expr op=AMP expr                                   # binaryExpr
  | expr op=CARET expr                                 # binaryExpr
  | expr op=PIPE expr                                  # binaryExpr
  | expr op=ANDAND expr                                # binaryExpr
  | expr op=OROR expr                                  # binaryExpr
  ;

primary
  : INT                                                # intLit
  | FLOAT                                              # floatLit
  | (TRUE | FALSE)                                     # boolLit
  | STRING                                             # stringLit
  | ID LBRACE (fieldInit (COMMA fieldInit)* COMMA?)? RBRACE  # constructExpr
  | ID                                                 # nameExpr
  | NEW LT type GT LPAREN exprList? RPAREN              # newExpr
  | LBRACK expr COMMA expr RBRACK                      # rangeExpr
  | TASK LPAREN paramList? RPAREN (COLON type)? block   # anonTaskExpr
  | LPAREN expr (COMMA expr)* RPAREN                   # parenExpr
  ;

fieldInit : ID ASSIGN expr ;
exprList : expr (COMMA expr)* ;

// ---------------------------------------------------------------- lexer

TASK : 'task' ;
STRUCT : 'struct' ;
UNION : 'union' ;
IF : 'if' ;
ELSE : 'else' ;
CASE : 'case' ;
DEFAULT : 'default' ;
FOR : 'for' ;
MAP : 'map' ;
WHILE : 'while' ;
RETURN : 'return' ;
THEN : 'then' ;
NEW : 'new' ;
TRUE : 'true' ;
FALSE : 'false' ;

ID : [A-Za-z_] [A-Za-z0-9_]* ;

// 42, 0x2A, 42L. Range checks happen in the builder.
INT : ( [0-9]+ | '0' [xX] [0-9a-fA-F]+ ) [lL]? ;
// 1.5, 1e-3, 1.5f. No leading or trailing dot, so `t.0` stays a selection.
FLOAT : ( [0-9]+ '.' [0-9]+ EXPONENT? | [0-9]+ EXPONENT ) [fF]? ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;
// A number run into letters (`12abc`, `1e`) is one bad token, not two good ones.
BAD_NUMBER : [0-9] [0-9A-Za-z_]* ;

STRING : '"' ( ~["\\\r\n] | '\\' ~[\r\n] )* '"' ;
UNTERMINATED_STRING : '"' ( ~["\\\r\n] | '\\' ~[\r\n] )* '\\'? ;

ARROW : '<-' ;
SHL : '<<' ;
LE : '<=' ;
LT : '<' ;
GT : '>' ;
EQ : '==' ;
NE : '!=' ;
ANDAND : '&&' ;
OROR : '||' ;
ASSIGN : '=' ;
PLUS : '+' ;
MINUS : '-' ;
STAR : '*' ;
SLASH : '/' ;
PERCENT : '%' ;
NOT : '!' ;
TILDE : '~' ;
AMP : '&' ;
CARET : '^' ;
PIPE : '|' ;
LPAREN : '(' ;
RPAREN : ')' ;
LBRACE : '{' ;
RBRACE : '}' ;
LBRACK : '[' ;
RBRACK : ']' ;
COMMA : ',' ;
COLON : ':' ;
SEMI : ';' ;
DOT : '.' ;

LINE_COMMENT : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// Matches only when no `*/` follows, so a closed comment is never swallowed.
UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* EOF ;
WS : [ \t\r\n\f]+ -> skip ;

// Anything else is one bad character; the front end reports it. Having the
// lexer never fail keeps every lexical error message in one place.
BAD_CHAR : . ;
