#!/usr/bin/env python3
"""Writes a kite artifact (docs/artifact.md) from a hand-written test kernel.

usage: make-kart.py kernel.cl [line...] > prog.kart

Lines of kernel.cl that start with "//! " are the artifact's metadata lines,
copied in order (param, result, string, site, frame-words, ...). Each extra
argument replaces one of them: "param NAME TYPE" the param line of NAME, any
other the line with the same first word ("result array<double>"). The OpenCL
source is what kitec would paste: runtime-cl/kite_abi.h, then probe.cl (the
residency probe the real scheduler implements), then kernel.cl.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
abi = os.path.join(here, "..", "..", "..", "runtime-cl", "kite_abi.h")
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
source = open(abi).read() + open(os.path.join(here, "probe.cl")).read() + kernel
data = source.encode()
out = sys.stdout.buffer
out.write(b"kite-artifact 1\n")
out.write(("source " + os.path.basename(kernel_path).replace(".cl", ".kite") + "\n").encode())
for line in meta:
    out.write((line + "\n").encode())
out.write(b"opencl %d\n" % len(data))
out.write(data)
