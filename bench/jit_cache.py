#!/usr/bin/python3
"""What the JIT's kernel cache saves a command-line run, whole processes.

For each kernel (matmuls, the padded convolutions of bench/peers.py, an
elementwise exp), times `teval run --engine jit` as a CI step calls it:
with the cache off (`--no-cache`), on a cold cache (the run compiles and
stores) and on a warm one (the run loads the object), each the median of
several runs, against a tiny interpreted program's process (start-up and
one addition). Inputs come from `--seed` (not timed apart: the same in
every column). Prints a Markdown table (docs/PERFORMANCE.md keeps one).

usage: bench/jit_cache.py [--teval build/bin/teval] [--runs N]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def conv(n, c, h, w, f):
    ih, iw = "HO + KH - 1", "WO + KW - 1"
    return ('- einstein_v2("output0[N, F, HO, WO] +=! input0[N, C, {ih}, {iw}].when([{ih} >= 0, '
            '{ih} < {h}, {iw} >= 0, {iw} < {w}], 0.0) * input1[F, C, KH, KW] where HO in {h}, '
            'WO in {w}", {{"input0": {{"dtype": "float32", "shape": [{n}, {c}, {h}, {w}]}}, '
            '"input1": {{"dtype": "float32", "shape": [{f}, {c}, 3, 3]}}}})').format(
                ih=ih, iw=iw, n=n, c=c, h=h, w=w, f=f)


def matmul(n):
    return ('- einstein_v2("output0[N, M] +=! input0[N, K] * input1[K, M]", {{"input0": '
            '{{"dtype": "float32", "shape": [{n}, {n}]}}, "input1": {{"dtype": "float32", '
            '"shape": [{n}, {n}]}}}})').format(n=n)


KERNELS = [
    ("x + 1, 4 elements", '- einstein_v2("o[N] = x[N] + 1.0", {"x": {"dtype": "float32", '
                          '"shape": [4]}})'),
    ("matmul 256³", matmul(256)),
    ("matmul 512³", matmul(512)),
    ("conv 1×64×32×32 ⊛ 64×64×3×3", conv(1, 64, 32, 32, 64)),
    ("conv 1×64×56×56 ⊛ 64×64×3×3", conv(1, 64, 56, 56, 64)),
    ("exp(2x + 1) 2048²", '- einstein_v2("output0[N, M] = (input0[N, M] * 2.0 + 1.0)'
                          '.call(`exp`)", {"input0": {"dtype": "float32", "shape": [2048, 2048]}})'),
]


def seconds(args, env):
    start = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teval", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "teval"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="teval-jit-cache-")
    env = dict(os.environ)
    env.pop("TEVAL_NO_CACHE", None)
    tiny = [args.teval, "run", "-e", "o[N] = x[N] + 1.0", "-i", "x=float32[4]"]
    base = statistics.median(seconds(tiny, env) for _ in range(args.runs))
    print("| kernel | no cache | cold cache | warm cache | warm / tiny interpreted |")
    print("|---|---|---|---|---|")
    for name, text in KERNELS:
        run = [args.teval, "run", "-e", text, "--engine", "jit", "--seed", "1",
               "-o", os.path.join(work, "out")]
        none, cold, warm = [], [], []
        for i in range(args.runs):
            none.append(seconds(run + ["--no-cache"], env))
            cache = os.path.join(work, "cache%d" % i)
            env["TEVAL_CACHE_DIR"] = cache
            cold.append(seconds(run, env))
            warm.append(seconds(run, env))
            shutil.rmtree(cache)
        ms = lambda v: "%.0f ms" % (1000 * statistics.median(v))
        print("| %s | %s | %s | %s | %.1f× |" % (name, ms(none), ms(cold), ms(warm),
                                                statistics.median(warm) / base))
    print()
    print("tiny interpreted program (o[N] = x[N] + 1.0, 4 elements): %.0f ms" % (1000 * base))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
