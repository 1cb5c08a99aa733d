#!/usr/bin/env python3
"""Writes a synthetic Kite program of N tasks of ordinary size, for the
compile-time benchmark (bench/compile/run).

Each task takes a fuel parameter and has about seven lines: a loop, an
if/else and two calls of other tasks on less fuel. The tasks take turns
among five shapes (a for loop over a range, a map over an array, a struct
whose field is updated, a union taken apart by case, an anonymous task
called through a task value), so the program exercises the constructs a
real one has. every task is called once from main and the results are summed; the
program's output is deterministic, so kite-run and kite-interp can check
one another on it. main reaches the tasks through a tree of driver tasks
that call eight each, so that no task grows with the program.

  bench/compile/gen.py 160 > p160.kite
"""
import argparse, sys

HEADER = """// A synthetic program of {n} tasks (bench/compile/gen.py {n}).
struct acc {{ total: long; count: int; }}
union pick {{ small: int; big: long; }}
"""

def callee(i, k, n):
    # Calls go to tasks declared earlier (and to task 0 from itself),
    # so every chain of calls ends when the fuel does.
    return (i * 7 + k * 13 + 3) % i if i > 0 else 0

def task(i, n):
    a, b = callee(i, 1, n), callee(i, 2, n)
    shape = i % 5
    head = f"task t{i}(fuel: int): long {{\n  if (fuel <= 0) {{ return {i}L; }}\n"
    calls = f"  x = t{a}(fuel - 1);\n  y = t{b}(fuel - 2);\n"
    if shape == 0:
        body = (f"  s = 0L;\n  for (k = [1, {i % 7 + 2}]) {{ s <- s + long(k * fuel); }}\n"
                f"{calls}  if (s > {i * 3}L) {{ return s + x; }} else {{ return s - y; }}\n")
    elif shape == 1:
        body = (f"  v = new<long>({i % 5 + 2});\n  map (e = v[j]) {{ e <- long(j + fuel); }}\n"
                f"{calls}  if (v[0] % 2L == 0L) {{ return v[1] + x; }} else {{ return y - v[0]; }}\n")
    elif shape == 2:
        body = (f"  r = acc{{ total = 0L, count = 0 }};\n"
                f"  for (k = [0, {i % 4 + 1}]) {{ r.total <- r.total + long(k); r.count <- r.count + 1; }}\n"
                f"{calls}  if (r.count > 2) {{ return r.total + x; }} else {{ return x + y; }}\n")
    elif shape == 3:
        body = (f"  u = pick{{ small = fuel }};\n  if (fuel > {i % 9}) {{ u <- pick{{ big = long(fuel) * {i}L }}; }}\n"
                f"{calls}  case (u) {{\n    small s: return long(s) + x;\n    big l: return l - y;\n  }}\n")
    else:
        body = (f"  f = task (z: long): long {{ return z * {i % 3 + 2}L + long(fuel); }};\n"
                f"  w = 0L;\n  while (w < {i % 11 + 5}L) {{ w <- w + 3L; }}\n"
                f"{calls}  if (w > 9L) {{ return f(x); }} else {{ return f(y) + w; }}\n")
    return head + body + "}\n"

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", type=int, help="the number of tasks")
    ap.add_argument("fuel", type=int, nargs="?", default=3, help="the fuel main gives each task")
    a = ap.parse_args()
    n, fuel = a.tasks, a.fuel
    out = [HEADER.format(n=n)]
    out += [task(i, n) for i in range(n)]
    # Driver tasks: each sums the results of up to eight tasks or drivers.
    level, k = [f"t{i}({fuel})" for i in range(n)], 0
    while len(level) > 1:
        nxt = []
        for j in range(0, len(level), 8):
            calls = level[j:j + 8]
            out.append(f"task d{k}(): long {{\n  s = 0L;\n"
                       + "".join(f"  s <- s + {c};\n" for c in calls) + "  return s;\n}\n")
            nxt.append(f"d{k}()")
            k += 1
        level = nxt
    out.append(f"task main(): long {{\n  return {level[0]};\n}}\n")
    sys.stdout.write("".join(out))

main()
