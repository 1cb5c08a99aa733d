#!/usr/bin/python3
"""What NVIDIA's assembler's time grows with: synthetic PTX, no Kite.

NVIDIA's OpenCL builds a kernel as one whole program: the PTX of a kernel
and of every function it calls is assembled together (ptxas without -c).
This writes synthetic PTX of one kernel that calls F functions, each a chain
of N small blocks of arithmetic, and times ptxas on it, whole-program and
with -c (each function compiled on its own, as a linker would take them),
for blocks that end in a conditional branch, blocks that call a small shared
helper instead, and blocks that only compute with a predicated instruction
(no branch, no call). docs/design.md ("Build time") says what it shows.

  bench/compile/ptxas_law.py                  # the default grid, a few minutes
  bench/compile/ptxas_law.py --ptxas /usr/local/cuda/bin/ptxas --grid 100x50,200x50

Needs ptxas from the CUDA toolkit (any GPU or none; it only assembles).
Prints a Markdown table.
"""
import argparse, os, shutil, subprocess, sys, tempfile, time


def block(kind, f, i):
    """One block of function f: compute, then branch, call or predicate."""
    a, b = f"%a{3 * i + 1}", f"%a{3 * i + 2}"
    text = [f"\tmul.lo.s64 {a}, %a0, {i + 3};", f"\tadd.s64 {b}, {a}, {f * 7 + i};",
            f"\tsetp.gt.s64 %q{i}, {b}, 100;"]
    if kind == "branch":
        text.append(f"\t@%q{i} bra L{f}_{i};")
    elif kind == "predicated":
        text.append(f"\t@%q{i} add.s64 %a0, %a0, 1;")
    elif kind == "call":
        text.append(f"\t{{\n\t.param .b64 hp;\n\t.param .b64 hr;\n\tst.param.b64 [hp], {b};\n"
                    f"\tcall.uni (hr), helper, (hp);\n\tld.param.b64 %a{3 * i + 3}, [hr];\n\t}}")
        b = f"%a{3 * i + 3}"
    text.append(f"\txor.b64 %a0, %a0, {b};")
    if kind == "branch":
        text.append(f"L{f}_{i}:")
    return "\n".join(text)


def program(kind, functions, blocks):
    out = [".version 7.5", ".target sm_80", ".address_size 64"]
    if kind == "call":
        out.append(".func (.param .b64 r) helper(.param .b64 p)\n{\n\t.reg .b64 %h<3>;\n"
                   "\tld.param.u64 %h1, [p];\n\tmul.lo.s64 %h2, %h1, 3;\n\tst.param.b64 [r], %h2;\n\tret;\n}")
    for f in range(functions):
        out.append(f".func (.param .b64 r) fn{f}(.param .b64 p)\n{{\n\t.reg .b64 %a<{3 * blocks + 4}>;\n"
                   f"\t.reg .pred %q<{blocks + 1}>;\n\tld.param.u64 %a0, [p];")
        out.extend(block(kind, f, i) for i in range(blocks))
        out.append("\tst.param.b64 [r], %a0;\n\tret;\n}")
    out.append(".visible .entry k(.param .u64 k_p)\n{\n\t.reg .b64 %e<4>;\n\t.reg .b32 %c;\n"
               "\t.reg .pred %s;\n\tld.param.u64 %e1, [k_p];\n\tcvta.to.global.u64 %e1, %e1;\n"
               "\tld.volatile.global.u32 %c, [%e1];\n\tmov.u64 %e3, 0;")
    for f in range(functions):
        out.append(f"\tsetp.ne.s32 %s, %c, {f};\n\t@%s bra K{f};\n\t{{\n\t.param .b64 cp;\n"
                   f"\t.param .b64 cr;\n\tst.param.b64 [cp], %e1;\n\tcall.uni (cr), fn{f}, (cp);\n"
                   f"\tld.param.b64 %e2, [cr];\n\tadd.s64 %e3, %e3, %e2;\n\t}}\nK{f}:")
    out.append("\tst.global.u64 [%e1+8], %e3;\n\tret;\n}")
    return "\n".join(out) + "\n"


def assemble(ptxas, path, whole):
    cmd = [ptxas, "-arch=sm_90", path, "-o", path + (".cubin" if whole else ".o")]
    if not whole:
        cmd.insert(1, "-c")
    t0 = os.times()
    subprocess.run(cmd, check=True, capture_output=True)
    t1 = os.times()
    return t1.children_user - t0.children_user + t1.children_system - t0.children_system


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--grid", default="100x50,200x50,400x50,1000x10,2000x10",
                    help="FUNCTIONSxBLOCKS,... (default: %(default)s)")
    ap.add_argument("--kinds", default="branch,call,predicated")
    args = ap.parse_args()
    if not os.path.exists(args.ptxas):
        sys.exit(f"ptxas_law.py: no ptxas at {args.ptxas} (--ptxas PATH)")
    grid = [tuple(int(x) for x in g.split("x")) for g in args.grid.split(",")]
    print("| blocks end in | functions x blocks | whole program | -c (each function alone) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            for functions, blocks in grid:
                path = os.path.join(tmp, f"{kind}-{functions}x{blocks}.ptx")
                with open(path, "w") as f:
                    f.write(program(kind, functions, blocks))
                whole, alone = assemble(args.ptxas, path, True), assemble(args.ptxas, path, False)
                print(f"| {kind} | {functions} x {blocks} | {whole:.2f} s | {alone:.2f} s |", flush=True)
    version = subprocess.run([args.ptxas, "--version"], capture_output=True, text=True).stdout
    print(f"\nptxas: {version.strip().splitlines()[-1]}; CPU seconds of ptxas (user + system).")


if __name__ == "__main__":
    main()
