#!/usr/bin/env python3
"""Checks that the editor files know every keyword and operator of the grammar.

The lexer rules of grammar/Kite.g4 are the source of truth: every rule that
is one quoted literal (`TASK : 'task' ;`, `ARROW : '<-' ;`) is a token an
editor must highlight. A literal made of letters is a keyword, anything else
an operator or punctuation. This script checks that

  - editors/kite.tmLanguage.json has a keyword pattern (a `match` regex of a
    pattern whose scope starts with keyword., storage. or constant.language)
    that matches each keyword as a whole, and an operator or punctuation
    pattern (scope keyword.operator. or punctuation.) matching each other
    token as a whole;
  - editors/vim/syntax/kite.vim names each keyword in a `syn keyword` line
    and each other token in the very-nomagic (\\V) alternation of a
    `syn match` line;

and that both highlight every built-in function of frontend/builtins.def
(the TextMate grammar with a support.function pattern matching `name(`),
and names every missing token. Editors may know more (a keyword that the
grammar is about to gain) but never less.

usage: check-editors.py [REPO_ROOT]
"""
import json
import os
import re
import sys


def grammar_tokens(path):
    """The single-literal lexer rules of Kite.g4: (keywords, operators)."""
    text = open(path, encoding="utf-8").read()
    keywords, operators = set(), set()
    # A lexer rule: an upper-case name, ':', exactly one quoted literal, ';'.
    for name, literal in re.findall(r"^([A-Z][A-Z_]*)\s*:\s*'((?:[^'\\]|\\.)*)'\s*;", text, re.M):
        literal = literal.encode().decode("unicode_escape")
        (keywords if re.fullmatch(r"[A-Za-z_]+", literal) else operators).add(literal)
    if not keywords or not operators:
        sys.exit(f"{path}: found no keyword or no operator rules; has the grammar's format changed?")
    return keywords, operators


def builtin_names(path):
    """The built-in functions of frontend/builtins.def: KITE_BUILTIN(name, pure, allocates, prints, writes, atomic, length)."""
    names = set(re.findall(r"^KITE_BUILTIN\((\w+),", open(path, encoding="utf-8").read(), re.M))
    if not names:
        sys.exit(f"{path}: found no KITE_BUILTIN lines; has its format changed?")
    return names


def textmate_patterns(node, out):
    """Every (scope name, match regex) in a TextMate grammar, recursively."""
    if isinstance(node, dict):
        if "match" in node:
            out.append((node.get("name", ""), node["match"]))
        for value in node.values():
            textmate_patterns(value, out)
    elif isinstance(node, list):
        for value in node:
            textmate_patterns(value, out)
    return out


def check_textmate(path, keywords, operators, builtins):
    patterns = textmate_patterns(json.load(open(path, encoding="utf-8")), [])
    fn_res = [re.compile(m) for n, m in patterns if n.startswith("support.function")]
    kw_res = [re.compile(m) for n, m in patterns
              if n.startswith(("keyword.", "storage.", "constant.language"))
              and not n.startswith("keyword.operator")]
    op_res = [re.compile(m) for n, m in patterns if n.startswith(("keyword.operator.", "punctuation."))]
    missing = [k for k in sorted(keywords) if not any(r.fullmatch(k) for r in kw_res)]
    missing += [o for o in sorted(operators) if not any(r.fullmatch(o) for r in op_res)]
    # A built-in is highlighted where it is called: the pattern may look ahead for `(`.
    missing += [b for b in sorted(builtins) if not any(r.match(b + "(") for r in fn_res)]
    return missing


def check_vim(path, keywords, operators, builtins):
    words, ops = set(), set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\s*syn(?:tax)?\s+keyword\s+\w+\s+(.*)", line)
        if m:
            words.update(w for w in m.group(1).split() if "=" not in w and w != "contained")
        m = re.match(r'\s*syn(?:tax)?\s+match\s+\w+\s+"\\V(.*)"\s*$', line)
        if m:
            ops.update(m.group(1).split("\\|"))
    return [k for k in sorted(keywords | builtins) if k not in words] + \
           [o for o in sorted(operators) if o not in ops]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    keywords, operators = grammar_tokens(os.path.join(root, "grammar", "Kite.g4"))
    builtins = builtin_names(os.path.join(root, "frontend", "builtins.def"))
    failed = False
    for rel, check in (("editors/kite.tmLanguage.json", check_textmate),
                       ("editors/vim/syntax/kite.vim", check_vim)):
        missing = check(os.path.join(root, rel), keywords, operators, builtins)
        if missing:
            failed = True
            print(f"{rel}: lacks these tokens of grammar/Kite.g4 or built-ins of "
                  f"frontend/builtins.def: {' '.join(missing)}")
        else:
            print(f"{rel}: all {len(keywords)} keywords, {len(operators)} operators "
                  f"and {len(builtins)} built-ins")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
