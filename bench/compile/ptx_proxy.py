#!/usr/bin/python3
"""A stand-in for NVIDIA's OpenCL build, for use where no NVIDIA GPU is.

NVIDIA's driver builds a kite program's OpenCL C in two steps: its front
end makes PTX (inlining what it may), then its assembler (ptxas) compiles
that PTX, most of a large build (bench/compile/phases.cpp splits them on a
GPU). This makes PTX of the same OpenCL C with clang 14 (Debian's
clang-14), told to inline as readily as NVIDIA's front end does, with the
OpenCL built-ins mapped onto clang's so that the PTX is a whole program,
and times ptxas from the CUDA toolkit on it. clang's inliner is not
NVIDIA's: compare two versions of a program with it (a change of the
runtime's shape before and after), never its seconds with a GPU's.
docs/design.md ("Rare paths called, on GPUs") says what it chose.

  bench/compile/ptx_proxy.py prog                 # a kitec artifact
  bench/compile/ptx_proxy.py a.cl b.cl --ptxas /usr/local/cuda/bin/ptxas

Prints, for each input, the PTX's lines, its largest functions and ptxas's
time (ptxas only assembles: it needs no GPU).
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time

# The options kite-run gives an H200's build (runtime-cl/host/device.cpp),
# but -cl-nv-verbose, which only NVIDIA's compiler knows.
OPTIONS = ("-cl-std=CL1.2 -w -DKITE_GPU=1 -DKITE_NVIDIA=1 -DKITE_RECORD_STRIDE=16 "
           "-DKITE_OFFLOAD_MIN=1024 -DKITE_LANES=32 -DKITE_LOCAL_QUEUE=1024 "
           "-DKITE_HAND_BLOCKS=16").split()

BUILTINS = """
#define atomic_add(p, v) __sync_fetch_and_add((p), (v))
#define atom_add(p, v) __sync_fetch_and_add((p), (v))
#define atomic_sub(p, v) __sync_fetch_and_sub((p), (v))
#define atomic_inc(p) __sync_fetch_and_add((p), 1)
#define atomic_dec(p) __sync_fetch_and_sub((p), 1)
#define atomic_xchg(p, v) __sync_lock_test_and_set((p), (v))
#define atom_xchg(p, v) __sync_lock_test_and_set((p), (v))
#define atomic_cmpxchg(p, o, n) __sync_val_compare_and_swap((p), (o), (n))
#define atom_cmpxchg(p, o, n) __sync_val_compare_and_swap((p), (o), (n))
#define atomic_or(p, v) __sync_fetch_and_or((p), (v))
#define atomic_and(p, v) __sync_fetch_and_and((p), (v))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define popcount(x) __builtin_popcount(x)
#define barrier(f) __nvvm_bar_sync(0)
#define mem_fence(f) __nvvm_membar_gl()
#define get_local_id(d) __nvvm_read_ptx_sreg_tid_x()
#define get_group_id(d) __nvvm_read_ptx_sreg_ctaid_x()
#define get_local_size(d) __nvvm_read_ptx_sreg_ntid_x()
#define get_global_id(d) (__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + \\
                          __nvvm_read_ptx_sreg_tid_x())
#define isnan(x) __builtin_isnan(x)
#define convert_long_sat_rtz(x) ((long)(x))
#define convert_int_sat_rtz(x) ((int)(x))
"""


def opencl_of(path):
    """The OpenCL C of a kitec artifact (the text after its `opencl N` line), or of a .cl file."""
    data = open(path, "rb").read()
    if path.endswith(".cl"):
        return data.decode()
    i = data.index(b"\nopencl ") + 1
    end = data.index(b"\n", i)
    n = int(data[i + 7:end])
    return data[end + 1:end + 1 + n].decode()


def functions(ptx):
    """(lines, name) of each function defined in the PTX, largest first."""
    sizes, name, start, header = [], None, 0, False
    for n, line in enumerate(ptx.split("\n")):
        m = re.match(r"^\.(?:visible |weak )?(?:entry|func)\s*(?:\([^)]*\)\s*)?(\w+)", line)
        if m:
            name, start, header = m.group(1), n, True
        elif header and line.startswith(";"):
            name, header = None, False
        elif header and line.startswith("{"):
            header = False
        elif name and not header and line == "}":
            sizes.append((n - start, name))
            name = None
    return sorted(sizes, reverse=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="kitec artifacts or .cl files")
    ap.add_argument("--clang", default="clang-14")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--arch", default="sm_90", help="ptxas -arch (default sm_90: H100, H200)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        header = os.path.join(tmp, "builtins.h")
        open(header, "w").write(BUILTINS)
        for path in a.inputs:
            cl, ptx = os.path.join(tmp, "p.cl"), os.path.join(tmp, "p.ptx")
            open(cl, "w").write(opencl_of(path))
            subprocess.run([a.clang, "-x", "cl", *OPTIONS, "-Dasm=__asm__", "-Xclang",
                            "-finclude-default-header", "-Xclang",
                            "-cl-ext=+cl_khr_int64_base_atomics,+cl_khr_global_int32_base_atomics,"
                            "+cl_khr_local_int32_base_atomics", "-target", "nvptx64-nvidia-nvcl",
                            "-Xclang", "-target-cpu", "-Xclang", "sm_80", "-Xclang", "-target-feature",
                            "-Xclang", "+ptx72", "-O2", "-mllvm", "-inline-threshold=20000",
                            "-include", header, "-S", cl, "-o", ptx], check=True)
            text = open(ptx).read()
            top = ", ".join(f"{name} {lines}" for lines, name in functions(text)[:3])
            if os.path.exists(a.ptxas):
                start = time.monotonic()
                subprocess.run([a.ptxas, f"-arch={a.arch}", ptx, "-o", os.path.join(tmp, "p.cubin")],
                               check=True)
                took = f"{time.monotonic() - start:.2f} s"
            else:
                took = "no ptxas"
            print(f"{path}: {text.count(chr(10))} lines of PTX ({top}); ptxas {took}")


if __name__ == "__main__":
    sys.exit(main())
