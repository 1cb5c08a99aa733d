#!/usr/bin/env python3
"""Writes a changed copy of a kite artifact (docs/artifact.md), for the tests
of kite-run's integrity checks.

usage: edit-kart.py in.kart [--keep-checksum] [--corrupt] [[--add] line...] > out.kart

Each line argument replaces the header line with the same first word
("record-words 4", "kitec 0.0.1"); after --add, it is added before the
"opencl" line instead ("string 2 \"extra\""). The checksum line is then recomputed, so
that only kite-run's other checks can notice the change, unless
--keep-checksum is given. --corrupt flips one bit of a byte in the middle of
the OpenCL source and keeps the old checksum. A leading "#!" line is kept as
it is (the checksum does not cover it).
"""
import sys

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3


def fnv1a64(data):
    h = FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


args = sys.argv[1:]
path = args.pop(0)
keep = "--keep-checksum" in args
corrupt = "--corrupt" in args
additions = [args[i + 1] for i, a in enumerate(args) if a == "--add"]
replacements = [a for i, a in enumerate(args)
                if not a.startswith("--") and (i == 0 or args[i - 1] != "--add")]
data = open(path, "rb").read()
shebang = b""
if data.startswith(b"#!"):
    shebang, data = data[:data.find(b"\n") + 1], data[data.find(b"\n") + 1:]

# The body is everything before the last line, "checksum <16 hex digits>".
cut = data.rstrip(b"\n").rfind(b"\n") + 1
body, trailer = data[:cut], data[cut:]
if not trailer.startswith(b"checksum "):
    sys.exit("edit-kart.py: %s does not end with a checksum line" % path)

header_end = body.find(b"\nopencl ")
header_end = body.find(b"\n", header_end + 1) + 1
lines = body[:header_end].decode().split("\n")
for new in replacements:
    key = new.split()[0]
    matches = [i for i, line in enumerate(lines) if line.split(" ")[0] == key]
    if not matches:
        sys.exit("edit-kart.py: no '%s' line to replace" % key)
    lines[matches[0]] = new
opencl = [i for i, line in enumerate(lines) if line.startswith("opencl ")][0]
lines[opencl:opencl] = additions
body = "\n".join(lines).encode() + body[header_end:]
if corrupt:
    middle = header_end + (len(body) - header_end) // 2
    body = body[:middle] + bytes([body[middle] ^ 1]) + body[middle + 1:]
if not (keep or corrupt):
    trailer = b"checksum %016x\n" % fnv1a64(body)
sys.stdout.buffer.write(shebang + body + trailer)
