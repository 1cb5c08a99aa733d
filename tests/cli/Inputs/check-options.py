#!/usr/bin/env python3
"""Checks that every option a tool's --help lists appears in its man page
and in the bash completion script.

usage: check-options.py TOOL MAN_PAGE COMPLETION_SCRIPT

Prints each option it checked; exits 1 naming those missing from either
file, or if --help lists no options at all.
"""
import re
import subprocess
import sys

tool, man_path, completion_path = sys.argv[1:]
help_text = subprocess.run([tool, "--help"], capture_output=True, text=True, check=True).stdout
options = []
in_options = False
for line in help_text.splitlines():
    if line.strip() == "Options:":
        in_options = True
    elif in_options and line.startswith("  -"):
        # "  -h,--help   text" or "  --dump-ntg TEXT:{text,dot}=text"
        options += line.split()[0].split(",")
if not options:
    sys.exit("check-options.py: %s --help lists no options" % tool)

# In roff a hyphen is written \-; the words of the man page are what it shows.
man_words = set(re.findall(r"-[-\w]+", open(man_path).read().replace("\\-", "-")))
completion_words = set(re.findall(r"-[-\w]+", open(completion_path).read()))
missing = []
for option in options:
    print(option)
    if option not in man_words:
        missing.append("%s is not in %s" % (option, man_path))
    if option not in completion_words:
        missing.append("%s is not in %s" % (option, completion_path))
if missing:
    sys.exit("check-options.py: " + "; ".join(missing))
