#!/usr/bin/env python3
"""Checks that every option a tool's --help lists appears in its man page
and in the bash completion script; with --exact, that the man page's
OPTIONS section, the completion of '-' by FUNCTION, and the options table
of a Markdown page (its first table after the heading '## Options') each
list exactly --help's options.

usage: check-options.py [--exact] [--function FUNCTION] [--markdown PAGE]
                        TOOL MAN_PAGE COMPLETION_SCRIPT

Prints each option it checked; exits 1 naming the options missing from a
file, or listed there and not by --help, or if --help lists no options.
"""
import argparse
import re
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--exact", action="store_true")
parser.add_argument("--function")
parser.add_argument("--markdown")
parser.add_argument("tool")
parser.add_argument("man_path")
parser.add_argument("completion_path")
args = parser.parse_args()

help_text = subprocess.run([args.tool, "--help"], capture_output=True, text=True, check=True).stdout
options = []
in_options = False
for line in help_text.splitlines():
    if line.strip() == "Options:":
        in_options = True
    elif in_options and line.startswith("  -"):
        # "  -h,--help   text" or "  --dump-ntg TEXT:{text,dot}=text"
        options += line.split()[0].split(",")
if not options:
    sys.exit("check-options.py: %s --help lists no options" % args.tool)

# In roff a hyphen is written \-; the words of the man page are what it shows.
man_text = open(args.man_path).read().replace("\\-", "-")
man_words = set(re.findall(r"-[-\w]+", man_text))
completion_words = set(re.findall(r"-[-\w]+", open(args.completion_path).read()))
missing = []
for option in options:
    print(option)
    if option not in man_words:
        missing.append("%s is not in %s" % (option, args.man_path))
    if option not in completion_words:
        missing.append("%s is not in %s" % (option, args.completion_path))


def compare(listed, where):
    """Names the options `listed` in `where` that --help does not list, and
    those --help lists that it does not."""
    for option in sorted(set(listed) - set(options)):
        missing.append("%s lists %s, which --help does not" % (where, option))
    for option in sorted(set(options) - set(listed)):
        missing.append("%s does not list %s" % (where, option))


if args.exact:
    # The first line after each .TP of the OPTIONS section names its options.
    section = man_text.split(".SH OPTIONS", 1)[-1].split("\n.SH", 1)[0]
    headings = re.findall(r"^\.TP\n(.*)$", section, re.M)
    compare([o for h in headings for o in re.findall(r"(?<![\w-])--?[a-z][-\w]*", h)],
            args.man_path + "'s OPTIONS")
if args.function:
    script = 'source "$1"; COMP_WORDS=(tool -); COMP_CWORD=1; %s; printf "%%s\\n" "${COMPREPLY[@]}"'
    completed = subprocess.run(["bash", "-c", script % args.function, "bash", args.completion_path],
                               capture_output=True, text=True, check=True).stdout.split()
    compare(completed, "the completion of '-' by " + args.function)
if args.markdown:
    page = open(args.markdown).read().split("\n## Options\n", 1)[-1]
    table = re.search(r"^\|.*\n\|[-| ]+\|\n((?:\|.*\n)+)", page, re.M).group(1)
    cells = [row.split(" | ")[0] for row in table.splitlines()]
    compare([o for c in cells for o in re.findall(r"`(--?[a-z][-\w]*)", c)], args.markdown)
if missing:
    sys.exit("check-options.py: " + "; ".join(missing))
