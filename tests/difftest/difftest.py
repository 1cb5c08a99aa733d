#!/usr/bin/env python3
"""Differential testing of kitec with random Kite programs (kitegen.py).

For every seed, the program kitegen generates is compiled with `kitec` and
`kitec -O0`; the first binary is run with `kite-run --device cpu
--fast-calls always` (every call of a task with a sequential form runs that
form) and, with --lanes, on wide workers with kite-run's default, the second
with `kite-run --device cpu`; when one is given or found, the reference
interpreter `kite-interp` runs the source. Their stdout, stderr (tool name
removed) and exit status are compared with each other and with the output
kitegen's model expects (for a program that stops with a run-time error: the
error and the exit status).

Building a kernel on PoCL costs seconds per program, so programs are bundled:
one source file holds --bundle programs (their names are prefixed per seed)
and a `main` that runs them one after another, separated by `then`, each
preceded by a marker line `#P <seed>`. The output is split at the markers.
A program whose part differs, every program of a bundle that fails as a
whole, and every program the model expects to stop with a run-time error, is
compiled and run again on its own; a difference that remains is a
finding, saved with its source and every side's output under --findings.

  difftest.py --seeds 1-200 --bundle 40 --jobs 2
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kitegen  # noqa: E402


def parse_seeds(text):
    seeds = []
    for part in text.split(','):
        m = re.fullmatch(r'\s*(-?\d+)\s*(?:(?:-|\.\.)\s*(-?\d+))?\s*', part)
        if not m:
            raise argparse.ArgumentTypeError(f'bad seed range: {part!r}')
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        seeds += range(a, b + 1)
    return seeds


def normalise_err(text):
    """stderr without the tool name and the file path, for comparison."""
    out = []
    for line in text.splitlines():
        line = re.sub(r'^(kite-run|kite-interp|kitec): ', '', line)
        line = re.sub(r'\S*/([^/\s]+\.kite)', r'\1', line)
        out.append(line)
    return '\n'.join(out)


class Side:
    """One way of running a program: its stdout lines, stderr, exit status."""

    def __init__(self, name, out='', err='', rc=0, note=''):
        self.name, self.out, self.err, self.rc, self.note = name, out, err, rc, note

    def key(self):
        return (self.out, normalise_err(self.err), self.rc)


# LeakSanitizer's own failure at exit (its tracer thread, stopping the
# process's threads to scan them, caught a signal: seen once in a
# sanitized kite-run whose output was right, and not again in 40 runs of
# the same program): no finding about the program, so its run is made
# again, once. A leak it finds is reported otherwise ("detected memory
# leaks") and stays a finding.
LSAN_FAILED = 'LeakSanitizer has encountered a fatal error'


def run(cmd, timeout, env=None):
    try:
        for attempt in range(2):
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                               errors='replace')
            if LSAN_FAILED not in p.stderr:
                break
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors='replace') if isinstance(e.stdout, bytes) else (e.stdout or '')
        return 124, out, f'timed out after {timeout} s\n'


class Runner:
    def __init__(self, args):
        self.a = args
        self.lock = threading.Lock()
        self.counts = dict(generated=0, compiled=0, compared=0, mismatches=0, compile_failures=0,
                           bundles=0, bundle_failures=0, with_forms=0, with_families=0,
                           with_arrays=0, with_builds=0, with_adds=0, with_sums=0, with_writes=0, with_tails=0, with_ranges=0, with_values=0, with_heap_loops=0,
                           errors=0)
        self.findings = []
        self.env = dict(os.environ)
        if args.cache:
            self.env['XDG_CACHE_HOME'] = args.cache
        self.interp = args.kite_interp if args.kite_interp and os.path.exists(
            args.kite_interp) else None

    def log(self, msg):
        if not self.a.quiet:
            with self.lock:
                print(msg, flush=True)

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    # -- building and running one source file
    def compile(self, src_path, exe, opt):
        # -w: random programs leave variables unread; warnings are not compared.
        cmd = [self.a.kitec, '-w'] + ([] if opt else ['-O0']) + [src_path, '-o', exe]
        if opt and self.a.part_blocks:  # the optimised binary in parts (backend-opencl/parts.h)
            cmd[2:2] = ['--part-blocks', str(self.a.part_blocks)]
        return run(cmd, self.a.timeout, self.env)

    def sides(self, src_path, workdir, tag):
        """Every side's run of src_path: a list of Side."""
        out = []
        for opt, name in () if self.a.interp_only else ((True, 'kitec'), (False, 'kitec -O0')):
            exe = os.path.join(workdir, f'{tag}{"" if opt else "-O0"}.bin')
            rc, so, se = self.compile(src_path, exe, opt)
            if rc != 0:
                out.append(Side(name, so, se, rc, 'compile failed'))
                continue
            # the optimised binary: every call that can runs the callee's
            # sequential form (-O0 has none)
            flags = ['--fast-calls', 'always'] if opt else []
            rc, so, se = run([self.a.kite_run, '--device', 'cpu'] + flags + [exe], self.a.timeout,
                             self.env)
            out.append(Side(f'{name}, kite-run {" ".join(flags)}' if flags else name, so, se, rc))
            if opt and self.a.lanes:
                rc, so, se = run([self.a.kite_run, '--device', 'cpu'] + self.wide_flags() + [exe],
                                 self.a.timeout, self.env)
                out.append(Side(f'kitec, kite-run {" ".join(self.wide_flags())}', so, se, rc))
        if self.interp:
            rc, so, se = run([self.interp, src_path], self.a.timeout, self.env)
            out.append(Side('kite-interp', so, se, rc))
        return out

    def wide_flags(self):
        """kite-run's options for the wide side: the GPU's scheduler, every
        form stopping at every fourth call and keeping its frames (kept
        forms), and with --map-kernel-min its loops as kernels of their own."""
        flags = ['--lanes', str(self.a.lanes), '--fast-calls', 'stop']
        if self.a.map_kernel_min:
            flags += ['--map-kernel-min', str(self.a.map_kernel_min)]
        return flags

    # -- one bundle of seeds
    def bundle(self, seeds):
        work = tempfile.mkdtemp(prefix='difftest-', dir=self.a.workdir)
        progs = {}
        for s in seeds:
            src, expected, _, error = kitegen.generate(s, avoid_known=not self.a.known_bugs)
            progs[s] = (src, expected, error)
        self.count('generated', len(seeds))
        self.count('bundles')
        self.count_forms(seeds, progs, work)
        # A run-time error would stop the whole bundle: such programs run alone.
        err_seeds = [s for s in seeds if progs[s][2]]
        self.count('errors', len(err_seeds))
        ok_seeds = [s for s in seeds if not progs[s][2]]
        # A program kitec rejects would sink its bundle: find it by compiling
        # each program alone (compiling is fast; only kernels are slow).
        path = os.path.join(work, 'bundle.kite')
        self.write_bundle(path, ok_seeds, progs)
        rc = 0
        if not self.a.interp_only:
            rc, _, _ = self.compile(path, os.path.join(work, 'check.bin'), True)
        if rc != 0:
            for s in list(ok_seeds):
                p = os.path.join(work, f'p{s}.kite')
                self.write_single(p, s, progs[s])
                rc1, so, se = self.compile(p, os.path.join(work, f'p{s}.bin'), True)
                rc0, so0, se0 = self.compile(p, os.path.join(work, f'p{s}.bin'), False)
                if rc1 != 0 or rc0 != 0:
                    ok_seeds.remove(s)
                    self.count('compile_failures')
                    self.single(s, progs[s], work, reason='kitec rejects it')
        if not self.a.interp_only:
            self.count('compiled', len(ok_seeds))
        for s in err_seeds:
            self.single(s, progs[s], work, reason='stops with a run-time error')
        self.group(ok_seeds, progs, work)
        if not self.a.keep:
            shutil.rmtree(work, ignore_errors=True)

    def count_forms(self, seeds, progs, work):
        """Counts the programs with a task that has a sequential form
        (`kitec --dump-cps`), those with a family of kitegen's recursive
        tasks made for them (p<seed>_g...) that do, those with a task
        with an array of its own (p<seed>_a...) that does, and those with a
        form that makes structs, unions or tuples ("that allocates")."""
        path = os.path.join(work, 'forms.kite')
        self.write_bundle(path, seeds, progs)
        rc, so, _ = run([self.a.kitec, '-w', '--dump-cps', path], self.a.timeout, self.env)
        if rc != 0:
            return
        forms = set()
        families = set()
        arrays = set()
        builds = set()
        ranges = set()
        values = set()
        heap_loops = set()
        # Each task's text in the bundle, for the forms that loop over ranges.
        with open(path) as f:
            text = f.read()
        bodies = {m.group(1): m.group(0) for m in
                  re.finditer(r'^task (p-?\d+_\w+)\(.*?(?=^task |\Z)', text, re.M | re.S)}
        for line in so.splitlines():
            m = re.match(r'task p(-?\d+)_(\w+):.*has a sequential form', line)
            if m:
                forms.add(int(m.group(1)))
                body = bodies.get(f'p{m.group(1)}_{m.group(2)}', '')
                if re.search(r'for \(\w+ = \[', body):
                    ranges.add(int(m.group(1)))
                # A form that calls a task value: a parameter of task type
                # called in the body.
                head = body.split('{', 1)[0]
                if any(re.search(r'\b' + p + r'\(', body[len(head):])
                       for p in re.findall(r'(\w+): task<', head)):
                    values.add(int(m.group(1)))
                # A form's `for` over an array it was given.
                if any(re.search(r'for \(\w+ = ' + p + r'\b', body[len(head):])
                       for p in re.findall(r'(\w+): array<', head)):
                    heap_loops.add(int(m.group(1)))
                if m.group(2).startswith('g'):
                    families.add(int(m.group(1)))
                if m.group(2).startswith('a'):
                    arrays.add(int(m.group(1)))
                if line.endswith('that allocates'):
                    builds.add(int(m.group(1)))
        self.count('with_forms', len(forms))
        self.count('with_families', len(families))
        self.count('with_arrays', len(arrays))
        self.count('with_builds', len(builds))
        self.count('with_ranges', len(ranges))
        self.count('with_values', len(values))
        self.count('with_heap_loops', len(heap_loops))
        # Forms that add and start again (plan::FastAccumulate), that add up
        # their calls (plan::SumForm): `kitec --dump-plan`.
        cmd = [self.a.kitec, '-w', '--dump-plan', path]
        if self.a.part_blocks:  # as the optimised binary is compiled
            cmd[2:2] = ['--part-blocks', str(self.a.part_blocks)]
        rc, so, _ = run(cmd, self.a.timeout, self.env)
        if rc != 0:
            return
        adds, sums, writes, tails, seed = set(), set(), set(), set(), None
        for line in so.splitlines():
            m = re.match(r'task p(-?\d+)_', line)
            if m:
                seed = int(m.group(1))
            elif line.startswith('task '):
                seed = None
            elif 'form adds and starts again' in line and seed is not None:
                adds.add(seed)
            elif "form adds up its calls' results" in line and seed is not None:
                sums.add(seed)
            elif "form's tail call" in line and seed is not None:
                tails.add(seed)
            elif 'writes memory: runs where forms keep' in line and seed is not None:
                writes.add(seed)
        self.count('with_adds', len(adds))
        self.count('with_sums', len(sums))
        self.count('with_writes', len(writes))
        self.count('with_tails', len(tails))

    def group(self, seeds, progs, work):
        """Runs seeds as one bundle; halves a bundle that fails as a whole."""
        if not seeds:
            return
        if len(seeds) == 1:
            self.single(seeds[0], progs[seeds[0]], work, reason='alone')
            return
        sub = tempfile.mkdtemp(prefix='b', dir=work)
        path = os.path.join(sub, 'bundle.kite')
        self.write_bundle(path, seeds, progs)
        results = self.sides(path, sub, 'bundle')
        if any(side.rc != 0 or side.note or side.err.strip() for side in results):
            self.count('bundle_failures')
            self.log(f'bundle of {len(seeds)} ({seeds[0]}..{seeds[-1]}) failed as a whole, '
                     'halving: ' + '; '.join(
                         f'{side.name}: exit {side.rc} {side.err.strip()[-160:]!r}'
                         for side in results if side.rc or side.note or side.err.strip()))
            half = len(seeds) // 2
            self.group(seeds[:half], progs, work)
            self.group(seeds[half:], progs, work)
            return
        parts = [self.split(side) for side in results]
        for s in seeds:
            if all(part.get(s) == progs[s][1] for part in parts):
                self.count('compared')
            else:
                # The program alone decides (and gives the reproducer).
                self.single(s, progs[s], work, reason='differs in its bundle')

    def write_bundle(self, path, seeds, progs):
        with open(path, 'w') as f:
            f.write(f'// kitegen bundle of seeds {", ".join(map(str, seeds))}\n')
            for s in seeds:
                f.write(progs[s][0])
            chain = ' then\n  '.join(f'print("#P {s}") then p{s}_main()' for s in seeds)
            f.write(f'task main() {{\n  {chain or "print()"};\n}}\n')

    def write_single(self, path, seed, prog):
        """Writes the program alone; returns the run-time error expected
        (as normalise_err gives it) or None."""
        src, expected, error = prog
        head = kitegen.header(seed, expected, error)
        with open(path, 'w') as f:
            f.write('\n'.join(head) + '\n')
            f.write(src)
            f.write(f'task main() {{ p{seed}_main(); }}\n')
        if error:
            return kitegen.error_message(error, os.path.basename(path), len(head))
        return None

    def split(self, side):
        """{seed: [lines]} from a bundle's stdout."""
        parts, cur = {}, None
        for line in side.out.splitlines():
            m = re.fullmatch(r'#P (-?\d+)', line)
            if m:
                cur = int(m.group(1))
                parts[cur] = []
            elif cur is not None:
                parts[cur].append(line)
        return parts

    def single(self, seed, prog, work, reason):
        """Runs one program alone; a remaining difference is a finding."""
        sub = os.path.join(work, f'seed-{seed}')
        os.makedirs(sub, exist_ok=True)
        path = os.path.join(sub, 'prog.kite')
        error = self.write_single(path, seed, prog)
        results = self.sides(path, sub, 'prog')
        expected = prog[1]
        if error and not self.a.interp_only and not any(
                side.note == 'compile failed' for side in results):
            self.count('compiled')
        self.count('compared')

        def same(side):
            if side.note:
                return False
            if error:
                # stops there, whatever it printed before
                return side.rc == 1 and normalise_err(side.err).strip() == error
            return side.rc == 0 and side.out.splitlines() == expected and not side.err.strip()
        if all(same(side) for side in results):
            return
        self.count('mismatches')
        dest = os.path.join(self.a.findings, f'seed-{seed}')
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        shutil.copy(path, os.path.join(dest, 'prog.kite'))
        summary = [f'seed {seed}: {reason}', 'expected (model):'] + ['  ' + l for l in expected]
        if error:
            summary.append(f'  stderr: {error} (exit 1)')
        for side in results:
            fname = re.sub(r'\W+', '-', side.name).strip('-')  # kitec-O0, kite-interp, ...
            with open(os.path.join(dest, f'{fname}.out'), 'w') as f:
                f.write(side.out)
            with open(os.path.join(dest, f'{fname}.err'), 'w') as f:
                f.write(side.err)
            status = 'same as expected' if same(side) else 'DIFFERS'
            summary.append(f'{side.name}: exit {side.rc} {side.note} ({status})')
            summary += ['  ' + l for l in side.out.splitlines()[:20]]
            summary += ['  stderr: ' + l for l in side.err.splitlines()[:5]]
        with open(os.path.join(dest, 'summary.txt'), 'w') as f:
            f.write('\n'.join(summary) + '\n')
        with self.lock:
            self.findings.append((seed, reason, summary))
        self.log('MISMATCH ' + '\n  '.join(summary))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n', 2)[2])
    root = os.path.dirname(os.path.dirname(HERE))
    bindir = os.path.join(root, 'build', 'bin')
    ap.add_argument('--seeds', type=parse_seeds, default=parse_seeds('1-100'),
                    help='seeds: 1-100, 5..9, 3,7,11 (default 1-100)')
    ap.add_argument('--bundle', type=int, default=40, help='programs per source file')
    ap.add_argument('--jobs', type=int, default=2, help='bundles run in parallel')
    ap.add_argument('--keep', action='store_true', help='keep the work directories')
    ap.add_argument('--workdir', default=None, help='where work directories go (default: TMPDIR)')
    ap.add_argument('--findings', default='difftest-findings',
                    help='directory for mismatching programs and their outputs')
    ap.add_argument('--kitec', default=os.path.join(bindir, 'kitec'))
    ap.add_argument('--kite-run', default=os.path.join(bindir, 'kite-run'))
    ap.add_argument('--kite-interp', default=os.path.join(bindir, 'kite-interp'),
                    help='reference interpreter (skipped when missing)')
    ap.add_argument('--cache', default=None,
                    help="kite-run's kernel cache directory (XDG_CACHE_HOME); default: the user's")
    ap.add_argument('--timeout', type=int, default=900, help='seconds per compile or run')
    ap.add_argument('--known-bugs', action='store_true',
                    help='also generate constructs that trigger known kitec bugs')
    ap.add_argument('--saturating', action='store_true',
                    help='also convert out-of-range doubles and NaN to int and long')
    ap.add_argument('--interp-only', action='store_true',
                    help='compare only kite-interp with the model (fast: no kernels)')
    ap.add_argument('--part-blocks', type=int, default=0,
                    help='compile the optimised binary with kitec --part-blocks N: a program of '
                         'more blocks runs as kernels of at most N blocks each, in turns')
    ap.add_argument('--lanes', type=int, default=0,
                    help='also run the optimised binary with kite-run --lanes N (wide workers)')
    ap.add_argument('--map-kernel-min', type=int, default=0,
                    help='with --lanes: run maps of at least N iterations as kernels of their own there')
    ap.add_argument('--quiet', action='store_true')
    args = ap.parse_args()
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
    os.makedirs(args.findings, exist_ok=True)
    args.findings = os.path.abspath(args.findings)
    for tool in (args.kitec, args.kite_run):
        if not os.path.exists(tool):
            sys.exit(f'difftest: error: {tool} not found (build first, or pass --kitec/--kite-run)')
    kitegen.SATURATING = args.saturating
    r = Runner(args)
    if args.interp_only and not r.interp:
        sys.exit(f'difftest: error: --interp-only needs kite-interp ({args.kite_interp} not found)')
    start = time.time()
    seeds = args.seeds
    chunks = [seeds[i:i + args.bundle] for i in range(0, len(seeds), args.bundle)]
    r.log(f'{len(seeds)} programs in {len(chunks)} bundles, {args.jobs} jobs; sides: '
          + ('' if args.interp_only else 'kitec with kite-run --fast-calls always, '
             + (f'kitec with kite-run {" ".join(r.wide_flags())}, ' if args.lanes else ''))
          + ('' if args.interp_only else 'kitec -O0, ')
          + ('kite-interp, ' if r.interp else '') + 'model')
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = [ex.submit(r.bundle, c) for c in chunks]
        for f in concurrent.futures.as_completed(futs):
            f.result()
            c = r.counts
            r.log(f'[{time.time() - start:.0f}s] generated {c["generated"]} compiled {c["compiled"]} '
                  f'compared {c["compared"]} mismatches {c["mismatches"]}')
    c = r.counts
    print(f'difftest: {c["generated"]} generated ({c["with_forms"]} with sequential forms, '
          f'{c["with_families"]} with recursive families of them, '
          f'{c["with_arrays"]} with tasks with arrays of their own that have them, '
          f'{c["with_builds"]} with forms that make heap values, '
          f'{c["with_adds"]} with forms that add and start again, '
          f'{c["with_sums"]} with forms that add up their calls, '
          f'{c["with_writes"]} with forms that write memory, '
          f'{c["with_tails"]} with tail calls in a form\'s frame, '
          f'{c["with_ranges"]} with forms that loop over ranges, '
          f'{c["with_values"]} with forms that call task values, '
          f'{c["with_heap_loops"]} with forms that loop over arrays they were given, '
          f'{c["errors"]} stopping with a run-time error), {c["compiled"]} compiled, {c["compared"]} compared, '
          f'{c["mismatches"]} mismatches ({c["compile_failures"]} compile failures, '
          f'{c["bundle_failures"]} of {c["bundles"]} bundles failed as a whole) in '
          f'{time.time() - start:.0f} s')
    for seed, reason, _ in sorted(r.findings):
        print(f'  seed {seed}: {reason} -> {os.path.join(args.findings, f"seed-{seed}")}')
    sys.exit(1 if c['mismatches'] else 0)


if __name__ == '__main__':
    main()
