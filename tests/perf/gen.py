#!/usr/bin/env python3
"""Writes a Kite program of about N KB in one of the shapes that once made
kitec's time or memory grow faster than its input (tests/perf, and
docs/testing.md's "Compile time against input size").

Shapes (each a task `main` whose body repeats one statement, or one deep
expression, until the program is N KB):

  parens    x <- ((((x + 1)))) ...;            parentheses nested 200 deep
  sum       x <- x + x + ... + x;              a chain of 200 operands
  max       x <- max(max(...max(x, 1)...));    calls of a built-in nested 100 deep
  affine    x <- x * 3 + 1;                    one short statement, repeated
  calls     x <- f(f(...f(x)...));             task calls nested 100 deep
  vars      vK = f(K); ... s <- s + vK;        independent calls, then a sum of them
  names     aK = new<int>(2); bK = aK; bK[0] <- K; r <- r + aK[0];
                                               a write through a second name, a read through
                                               the first (one -Wunordered-read warning each)
  arrays    g(a, K % 8); ... a[K % 8] ...      calls given one array that write it
  branches  if (x > K) { x <- f(x); } ...      small ifs with a call in each
  mix       all of the above in turn, statement by statement

  tests/perf/gen.py calls 40 > calls40.kite
  tests/perf/gen.py mix 800 > mix800.kite
"""
import sys

HEADER = """task f(k: int): int { return k + 1; }
task g(a: array<int>, i: int) { a[i] <- a[i] + 1; }
"""


def nest(depth, open_, inner, close):
    return open_ * depth + inner + close * depth


# One statement of each shape; k numbers them, so declared names are unique.
def stmt(shape, k):
    if shape == "parens":
        return "  x <- " + nest(200, "(", "x + 1", ")") + " % 1000;\n"
    if shape == "sum":
        return "  x <- (" + " + ".join(["x"] * 200) + ") % 1000;\n"
    if shape == "max":
        return "  x <- " + nest(100, "max(", "x", f", {k % 7})") + " % 1000;\n"
    if shape == "affine":
        return "  x <- (x * 3 + 1) % 1000;\n"
    if shape == "calls":
        return "  x <- " + nest(100, "f(", "x", ")") + " % 1000;\n"
    if shape == "vars":
        return f"  v{k} = f({k % 100});\n  s <- s + long(v{k});\n"
    if shape == "names":
        return f"  a{k} = new<int>(2);\n  b{k} = a{k};\n  b{k}[0] <- {k % 100};\n  r <- r + a{k}[0];\n"
    if shape == "arrays":
        return f"  g(a, {k % 8});\n  r <- (r + a[{k % 8}]) % 1000;\n"
    if shape == "branches":
        return f"  if (x > {k % 500}) {{ x <- f(x) % 1000; }} else {{ y <- y + 1; }}\n"
    raise SystemExit(f"gen.py: unknown shape '{shape}'")


SHAPES = ["parens", "sum", "max", "affine", "calls", "vars", "names", "arrays", "branches"]


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: gen.py SHAPE KB")
    shape, kb = sys.argv[1], float(sys.argv[2])
    body = []
    size, k = 0, 0
    while size < kb * 1024:
        s = stmt(SHAPES[k % len(SHAPES)] if shape == "mix" else shape, k)
        body.append(s)
        size += len(s)
        k += 1
    out = [HEADER, "task main(): long {\n  x = 0;\n  y = 0;\n  s = 0L;\n  r = 0;\n  a = new<int>(8);\n"]
    out += body
    out.append("  g(a, 0);\n  return long(x + y + r) + s;\n}\n")
    sys.stdout.write("".join(out))


main()
