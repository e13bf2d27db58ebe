#!/usr/bin/python3
"""How long `teval check` of a real layer takes, against the layer itself.

For each layer (the ResNet-sized padded convolution and a 512³ matmul, and
smaller ones), on seeded float32 inputs with torch's result as the
candidate, times whole processes as a CI step calls them, each the median
of several runs:

  check      `teval check` (the fast check: exact values and bounds from
             the contraction's terms, on every core)
  walk       `teval check --walk` (the definition, point by point; with
             --walk only: it takes a minute a layer)
  jit        `teval run --engine jit` with its kernel cached, and cold
             (`--no-cache`: compiling included), and the difference, the
             compile time
  torch      torch's own layer, in process (best of the runs)
  interp     `teval run` (the interpreter), and its rate against numpy's
             einsum(optimize=True) on the same inputs

and the verdicts (both must agree). Prints a Markdown table;
docs/PERFORMANCE.md keeps one.

usage: bench/check_speed.py [--teval build/bin/teval] [--runs N] [--walk]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import torch
except ImportError:  # the table then has no torch column
    torch = None


def conv(n, c, h, w, f):
    ih, iw = "HO + KH - 1", "WO + KW - 1"
    text = ('- einstein_v2("output0[N, F, HO, WO] +=! input0[N, C, {ih}, {iw}].when([{ih} >= 0, '
            '{ih} < {h}, {iw} >= 0, {iw} < {w}], 0.0) * input1[F, C, KH, KW] where HO in {h}, '
            'WO in {w}", {{"input0": {{"dtype": "float32", "shape": [{n}, {c}, {h}, {w}]}}, '
            '"input1": {{"dtype": "float32", "shape": [{f}, {c}, 3, 3]}}}})').format(
                ih=ih, iw=iw, n=n, c=c, h=h, w=w, f=f)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((n, c, h, w), dtype=np.float32)
    wt = rng.standard_normal((f, c, 3, 3), dtype=np.float32)

    def einsum():
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))
        return np.einsum("nchwij,fcij->nfhw", windows, wt, optimize=True)

    layer = None
    if torch is not None:
        tx, tw = torch.from_numpy(x), torch.from_numpy(wt)
        layer = lambda: torch.nn.functional.conv2d(tx, tw, padding=1).numpy()
    return {"name": "conv %d×%d×%d×%d ⊛ %d×%d×3×3" % (n, c, h, w, f, c), "text": text,
            "inputs": {"input0": x, "input1": wt}, "macs": n * f * h * w * c * 9,
            "layer": layer, "einsum": einsum}


def matmul(n):
    text = ('- einstein_v2("output0[N, M] +=! input0[N, K] * input1[K, M]", {{"input0": '
            '{{"dtype": "float32", "shape": [{n}, {n}]}}, "input1": {{"dtype": "float32", '
            '"shape": [{n}, {n}]}}}})').format(n=n)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    layer = None
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        layer = lambda: torch.matmul(ta, tb).numpy()
    return {"name": "matmul %d³" % n, "text": text, "inputs": {"input0": a, "input1": b},
            "macs": n ** 3, "layer": layer,
            "einsum": lambda: np.einsum("nk,km->nm", a, b, optimize=True)}


def timed(args, env, runs):
    """The median wall time of `runs` runs of a process, and its last output."""
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        times.append(time.perf_counter() - start)
        out = done
    return statistics.median(times), out


def best(runs, fn):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def verdict(done):
    """The first word after `output0:` in teval check's text, with its exit status."""
    line = done.stdout.strip().splitlines()[0] if done.stdout.strip() else done.stderr.strip()
    word = line.split(":")[1].strip().split(" ")[0] if ":" in line else line
    return "%s (exit %d)" % (word, done.returncode)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teval", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "teval"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--walk", action="store_true",
                        help="also time teval check --walk (about a minute a layer)")
    parser.add_argument("--quick", action="store_true", help="small layers only")
    args = parser.parse_args()
    teval = os.path.abspath(args.teval)
    layers = ([matmul(128), conv(1, 16, 16, 16, 16)] if args.quick else
              [matmul(256), matmul(512), conv(1, 64, 32, 32, 64), conv(1, 64, 56, 56, 64)])
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TEVAL_CACHE_DIR=os.path.join(tmp, "cache"))
        rows = []
        for layer in layers:
            files = []
            for name, value in layer["inputs"].items():
                path = os.path.join(tmp, name + ".npy")
                np.save(path, value)
                files += ["-i", "%s=%s" % (name, path)]
            program = os.path.join(tmp, "layer.antares")
            with open(program, "w") as f:
                f.write(layer["text"] + "\n")
            candidate = os.path.join(tmp, "candidate.npy")
            reference = layer["layer"] or layer["einsum"]
            np.save(candidate, reference())
            check = [teval, "check", program] + files + ["--candidate", "output0=" + candidate]
            check_s, check_out = timed(check, env, args.runs)
            walk_s, walk_out = (timed(check + ["--walk"], env, 1) if args.walk else (None, None))
            run = [teval, "run", program] + files + ["-o", os.path.join(tmp, "out")]
            subprocess.run(run + ["--engine", "jit"], env=env, check=True,
                           stdout=subprocess.DEVNULL)  # fills the cache
            cached_s, _ = timed(run + ["--engine", "jit"], env, args.runs)
            cold_s, _ = timed(run + ["--engine", "jit", "--no-cache"], env, args.runs)
            interp_s, _ = timed(run, env, 1)
            einsum_s = best(args.runs, layer["einsum"])
            torch_s = best(args.runs, layer["layer"]) if layer["layer"] else None
            rows.append({
                "name": layer["name"],
                "check": check_s, "verdict": verdict(check_out),
                "walk": walk_s, "walk_verdict": verdict(walk_out) if walk_out else None,
                "cached": cached_s, "cold": cold_s, "torch": torch_s,
                "interp_rate": layer["macs"] / interp_s / 1e9,
                "einsum_rate": layer["macs"] / einsum_s / 1e9,
            })
            print("done: " + layer["name"], file=sys.stderr)
    ms = lambda s: "—" if s is None else "%.0f ms" % (s * 1000) if s < 1 else "%.1f s" % s
    print("| layer | teval check | check --walk | jit run, cached | jit run, cold | compile "
          "(cold − cached) | check ÷ jit run (cached, cold) | torch | interpreter | ÷ numpy "
          "einsum(optimize) | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        same = ""
        if r["walk_verdict"] is not None:
            same = "; --walk: " + r["walk_verdict"]
        print("| %s | %s | %s | %s | %s | %s | %.1f×, %.1f× | %s | %.3f G MAC/s | 1/%.0f | %s%s |" % (
            r["name"], ms(r["check"]), ms(r["walk"]), ms(r["cached"]), ms(r["cold"]),
            ms(r["cold"] - r["cached"]), r["check"] / r["cached"], r["check"] / r["cold"],
            ms(r["torch"]), r["interp_rate"], r["einsum_rate"] / r["interp_rate"],
            r["verdict"], same))


if __name__ == "__main__":
    main()
