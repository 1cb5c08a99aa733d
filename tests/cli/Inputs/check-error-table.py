#!/usr/bin/env python3
"""Checks that docs/kite-run.md's table of run-time errors lists exactly the
device's errors of runtime-cl/host/run_errors.h, each with its message
({a}, {b} and {name} written A, B and S).

usage: check-error-table.py REPO_ROOT

Prints each error it checked; exits 1 naming the rows that disagree.
"""
import os
import re
import sys

root = sys.argv[1]
header = open(os.path.join(root, "runtime-cl/host/run_errors.h")).read()
# X(kind, KITE_ERR_CODE, "message" "continued", "note"): the code and the
# message's adjacent string literals, up to the comma before the note.
table = {}
for code, literals in re.findall(r'X\(\w+, (KITE_ERR_\w+),((?:\s*\\?\s*"(?:[^"\\]|\\.)*")+),', header):
    message = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', literals))
    table[code] = message.replace("{a}", "A").replace("{b}", "B").replace("{name}", "S")
if not table:
    sys.exit("check-error-table.py: found no errors in run_errors.h; has its format changed?")

docs = {}
for code, message in re.findall(r"^\| `(KITE_ERR_\w+)` \| (.*) \|$",
                                open(os.path.join(root, "docs/kite-run.md")).read(), re.M):
    docs[code] = message
problems = []
for code, message in table.items():
    print(code)
    if code not in docs:
        problems.append("%s is not in docs/kite-run.md" % code)
    elif not docs[code].startswith(message):
        problems.append("docs/kite-run.md words %s '%s', run_errors.h '%s'" % (code, docs[code], message))
problems += ["docs/kite-run.md lists %s, which run_errors.h does not" % c for c in docs if c not in table]
if problems:
    sys.exit("check-error-table.py: " + "; ".join(problems))
