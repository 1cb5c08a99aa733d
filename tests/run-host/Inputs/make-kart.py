#!/usr/bin/env python3
"""Writes a kite artifact (docs/artifact.md) from a hand-written test kernel.

usage: make-kart.py kernel.cl [line...] > prog.kart
       make-kart.py --seal text.kart > prog.kart

Lines of kernel.cl that start with "//! " are the artifact's metadata lines,
copied in order (param, result, string, site, record-words, ...). Each extra
argument replaces one of them: "param NAME TYPE" the param line of NAME, any
other the line with the same first word ("result array<double>"). The OpenCL
source is what kitec would write: the #defines of the counts in the header,
runtime-cl/kite_abi.h, then probe.cl (the residency probe the real scheduler
implements), then kernel.cl. The version on the "kitec" line is the
project's (CMakeLists.txt), and the last line is the checksum.

--seal copies a hand-written artifact, with @VERSION@ replaced by the
project's version, and adds its checksum line.
"""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "..")
abi = os.path.join(root, "runtime-cl", "kite_abi.h")
version = re.search(r"project\(kitec VERSION ([0-9.]+)",
                    open(os.path.join(root, "CMakeLists.txt")).read()).group(1)


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def write_sealed(body):
    sys.stdout.buffer.write(body + b"checksum %016x\n" % fnv1a64(body))


if sys.argv[1] == "--seal":
    write_sealed(open(sys.argv[2], "rb").read().replace(b"@VERSION@", version.encode()))
    sys.exit(0)

kernel_path = sys.argv[1]
kernel = open(kernel_path).read()
meta = [line[4:] for line in kernel.splitlines() if line.startswith("//! ")]


def key(line):
    words = line.split()
    return tuple(words[:2]) if words[0] == "param" else words[0]


for override in sys.argv[2:]:
    matches = [i for i, line in enumerate(meta) if key(line) == key(override)]
    if not matches:
        sys.exit("make-kart.py: no metadata line to replace with '%s'" % override)
    meta[matches[0]] = override


def count(word):
    return sum(1 for line in meta if line.split()[0] == word)


record_words = [line.split()[1] for line in meta if line.split()[0] == "record-words"]
defines = "".join("#define %s %s\n" % pair for pair in [
    ("KITE_RECORD_WORDS", record_words[0] if record_words else "0"),
    ("KITE_STRING_COUNT", count("string")),
    ("KITE_SITE_COUNT", count("site")),
    ("KITE_MAIN_PARAM_COUNT", count("param")),
])
source = defines + open(abi).read() + open(os.path.join(here, "probe.cl")).read() + kernel
if not source.endswith("\n"):
    source += "\n"
data = source.encode()
body = b"kite-artifact 3\n" + ("kitec %s\n" % version).encode()
body += ("source " + os.path.basename(kernel_path).replace(".cl", ".kite") + "\n").encode()
for line in meta:
    body += (line + "\n").encode()
body += b"opencl %d\n" % len(data)
write_sealed(body + data)
