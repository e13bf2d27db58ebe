#!/usr/bin/env python3
"""teval's engines side by side with the peers a user would pick instead.

On the same float32 inputs, in one process: matmuls, convolutions with
padding, an elementwise exp and an elementwise 2x + 1, run by teval's JIT
and interpreter (through the teval Python module) and by numpy.einsum (with
and without optimize), torch (matmul, conv2d, exp), NNC's IREval
(torch._C._te's "ir_eval" codegen, where torch has it) and, for 2x + 1,
numpy and a plain copy (this machine's copy bandwidth). Prints G MAC/s (G elements/s for the
elementwise case) and teval's ratios against each peer, the machine, and the
JIT's compile time per kernel. Each teval output is checked against numpy's
first (allclose): the comparison is of one computation. "teval jit any,fma"
is the JIT free to reorder sums and fuse multiply-adds (--order any --fma),
its outputs checked by teval.check against the rigorous bound; "teval jit
out=" writes into an existing array (run(..., out=)), as numpy.copyto does.

    PYTHONPATH=build/python /usr/bin/python3 bench/peers.py [--quick]

--quick runs small shapes once (the ctest `bench.peers_quick`, so the script
cannot rot); without it the shapes are those of docs/PERFORMANCE.md, each
timed as the best of --repeat runs. NNC's IREval is timed on a smaller
matmul and a smaller padded convolution (it does about 10^5 MAC/s); each
rate is compared with teval's on contractions of its kind.
"""
import argparse
import os
import platform
import time

import numpy as np

import teval

try:
    import torch
except ImportError:  # numpy-only comparisons
    torch = None


def best_of(repeat, fn):
    """The shortest wall time of `repeat` calls of fn, and its last result."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def matmul_case(n):
    text = ('- einstein_v2("output0[N, M] +=! input0[N, K] * input1[K, M]", '
            '{"input0": {"dtype": "float32", "shape": [%d, %d]}, '
            '"input1": {"dtype": "float32", "shape": [%d, %d]}})' % (n, n, n, n))
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    peers = {
        "numpy.einsum": lambda: np.einsum("nk,km->nm", a, b, optimize=False),
        "numpy.einsum(optimize)": lambda: np.einsum("nk,km->nm", a, b, optimize=True),
    }
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        peers["torch.matmul"] = lambda: torch.matmul(ta, tb).numpy()
    return {"name": "matmul %d^3" % n, "text": text, "inputs": {"input0": a, "input1": b},
            "work": n ** 3, "unit": "G MAC/s", "peers": peers}


def conv_case(n, c, h, w, f, k=3, pad=1):
    ho, wo = h + 2 * pad - k + 1, w + 2 * pad - k + 1
    i_h, i_w = "HO + KH - %d" % pad, "WO + KW - %d" % pad
    text = ('- einstein_v2("output0[N, F, HO, WO] +=! input0[N, C, {ih}, {iw}].when([{ih} >= 0, '
            '{ih} < {h}, {iw} >= 0, {iw} < {w}], 0.0) * input1[F, C, KH, KW] where HO in {ho}, '
            'WO in {wo}", {{"input0": {{"dtype": "float32", "shape": [{n}, {c}, {h}, {w}]}}, '
            '"input1": {{"dtype": "float32", "shape": [{f}, {c}, {k}, {k}]}}}})').format(
                ih=i_h, iw=i_w, h=h, w=w, ho=ho, wo=wo, n=n, c=c, f=f, k=k)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((n, c, h, w), dtype=np.float32)
    wt = rng.standard_normal((f, c, k, k), dtype=np.float32)

    def windows():
        padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        return np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(2, 3))

    peers = {
        "numpy.einsum": lambda: np.einsum("nchwij,fcij->nfhw", windows(), wt, optimize=False),
        "numpy.einsum(optimize)": lambda: np.einsum("nchwij,fcij->nfhw", windows(), wt,
                                                    optimize=True),
    }
    if torch is not None:
        tx, tw = torch.from_numpy(x), torch.from_numpy(wt)
        peers["torch.conv2d"] = lambda: torch.nn.functional.conv2d(tx, tw, padding=pad).numpy()
    return {"name": "conv %dx%dx%dx%d * %dx%dx%dx%d pad %d" % (n, c, h, w, f, c, k, k, pad),
            "text": text, "inputs": {"input0": x, "input1": wt},
            "work": n * f * ho * wo * c * k * k, "unit": "G MAC/s", "peers": peers}


def exp_case(n):
    text = ('- einstein_v2("output0[N, M] = (input0[N, M] * 2.0 + 1.0).call(`exp`)", '
            '{"input0": {"dtype": "float32", "shape": [%d, %d]}})' % (n, n))
    x = np.random.default_rng(3).uniform(-4, 4, (n, n)).astype(np.float32)
    peers = {"numpy": lambda: np.exp(x * np.float32(2) + np.float32(1))}
    if torch is not None:
        tx = torch.from_numpy(x)
        peers["torch.exp"] = lambda: torch.exp(tx * 2 + 1).numpy()
    return {"name": "exp(2x+1) %d^2" % n, "text": text, "inputs": {"input0": x},
            "work": n * n, "unit": "G elem/s", "peers": peers}


def affine_case(n):
    """2x + 1 elementwise: bound by memory, so its peers are copies: numpy's
    copyto into an existing array (one read and one write per element, the
    machine's copy bandwidth) and x.copy() (the same into a new array, as
    every operation returning one pays for its fresh pages)."""
    text = ('- einstein_v2("output0[N, M] = input0[N, M] * 2.0 + 1.0", '
            '{"input0": {"dtype": "float32", "shape": [%d, %d]}})' % (n, n))
    x = np.random.default_rng(5).uniform(-4, 4, (n, n)).astype(np.float32)
    copy = np.empty_like(x)
    peers = {"numpy 2x+1": lambda: x * np.float32(2) + np.float32(1),
             "copy (numpy.copyto)": lambda: np.copyto(copy, x) or copy,
             "copy (x.copy())": lambda: x.copy()}
    return {"name": "2x+1 %d^2" % n, "text": text, "inputs": {"input0": x},
            "work": n * n, "unit": "G elem/s", "peers": peers}


def nnc():
    """torch's NNC tensor expressions (torch._C._te), or None."""
    return getattr(torch._C, "_te", None) if torch is not None else None


def nnc_rate(out, buffers, args, reference, work, repeat, what):
    """G MAC/s of NNC's IREval computing `out` (a te.Reduce over `buffers`)
    from the tensors `args` into args' last, checked against `reference`."""
    te = nnc()
    nest = te.LoopNest([out])
    nest.prepare_for_codegen()
    code = te.construct_codegen("ir_eval", te.simplify(nest.root_stmt()), buffers + [out])
    seconds, _ = best_of(repeat, lambda: code.call(args))
    if not np.allclose(args[-1].numpy(), reference.numpy(), rtol=1e-4, atol=1e-3):
        raise SystemExit("NNC's IREval disagrees with torch's " + what)
    return work / seconds / 1e9


def nnc_matmul_rate(n, repeat):
    """G MAC/s of NNC's IREval on an n^3 float32 matmul, or None."""
    te = nnc()
    if te is None:
        return None
    dim = te.ExprHandle.int(n)
    a_buf = te.BufHandle("A", [dim, dim], torch.float32)
    b_buf = te.BufHandle("B", [dim, dim], torch.float32)
    c_buf = te.Reduce("C", [dim, dim], te.Sum(),
                      lambda v: a_buf.load([v[0], v[2]]) * b_buf.load([v[2], v[1]]), [dim])
    rng = np.random.default_rng(4)
    a = torch.from_numpy(rng.standard_normal((n, n), dtype=np.float32))
    b = torch.from_numpy(rng.standard_normal((n, n), dtype=np.float32))
    return nnc_rate(c_buf, [a_buf, b_buf], [a, b, torch.empty(n, n)], a @ b, n ** 3, repeat,
                    "matmul")


def nnc_conv_rate(n, c, hw, f, repeat):
    """G MAC/s of NNC's IREval on a padded 3x3 convolution, n x c x hw x hw
    (f output channels; the window guarded as the conv cases guard it), or
    None."""
    te = nnc()
    if te is None:
        return None
    dim = te.ExprHandle.int
    x_buf = te.BufHandle("X", [dim(n), dim(c), dim(hw), dim(hw)], torch.float32)
    w_buf = te.BufHandle("W", [dim(f), dim(c), dim(3), dim(3)], torch.float32)

    def window(v):
        b, o, ho, wo, ch, kh, kw = v
        h, w = ho + kh - dim(1), wo + kw - dim(1)
        inside = (h >= dim(0)) & (h < dim(hw)) & (w >= dim(0)) & (w < dim(hw))
        x = te.ifThenElse(inside, x_buf.load([b, ch, h, w]), te.ExprHandle.float(0.0))
        return x * w_buf.load([o, ch, kh, kw])

    out = te.Reduce("O", [dim(n), dim(f), dim(hw), dim(hw)], te.Sum(), window,
                    [dim(c), dim(3), dim(3)])
    rng = np.random.default_rng(5)
    x = torch.from_numpy(rng.standard_normal((n, c, hw, hw), dtype=np.float32))
    w = torch.from_numpy(rng.standard_normal((f, c, 3, 3), dtype=np.float32))
    return nnc_rate(out, [x_buf, w_buf], [x, w, torch.empty(n, f, hw, hw)],
                    torch.nn.functional.conv2d(x, w, padding=1), n * f * hw * hw * c * 9, repeat,
                    "conv2d")


def run_case(case, repeat, interp, threads):
    program = teval.Program(case["text"])
    reference = None
    rates = {}
    for name, fn in case["peers"].items():
        seconds, out = best_of(repeat, fn)
        reference = out if reference is None else reference
        rates[name] = case["work"] / seconds / 1e9
    # The JIT: the first run compiles (the program keeps the code).
    start = time.perf_counter()
    def jit():
        return program.run(case["inputs"], engine="jit", threads=threads)["output0"]

    first = jit()
    first_seconds = time.perf_counter() - start
    seconds, out = best_of(repeat, jit)
    compile_ms = max(first_seconds - seconds, 0) * 1e3
    for got in (first, out):
        if not np.allclose(got, reference, rtol=1e-3, atol=1e-3):
            raise SystemExit("%s: teval's JIT and %s disagree" % (case["name"],
                                                                 next(iter(case["peers"]))))
    rates["teval jit"] = case["work"] / seconds / 1e9
    # The same into an existing array (out=), as numpy.copyto writes.
    into = np.empty_like(first)
    seconds, out = best_of(repeat, lambda: program.run(
        case["inputs"], engine="jit", threads=threads, out={"output0": into})["output0"])
    if out is not into or not np.array_equal(into, first):
        raise SystemExit("%s: teval's JIT with out= differs from its own result" % case["name"])
    rates["teval jit out="] = case["work"] / seconds / 1e9
    # The JIT free to reorder sums and fuse multiply-adds (--order any
    # --fma): its results are checked against teval's rigorous bound.
    def relaxed():
        return program.run(case["inputs"], engine="jit", threads=threads, order="any",
                           fma=True)["output0"]

    relaxed()
    seconds, out = best_of(repeat, relaxed)
    verdict = teval.check(case["text"], case["inputs"], {"output0": out}, fma=True)
    if not all(v.passed for v in verdict.values()):
        raise SystemExit("%s: teval's JIT with --order any --fma is outside the bound: %s" %
                         (case["name"], verdict))
    rates["teval jit any,fma"] = case["work"] / seconds / 1e9
    if interp:
        seconds, out = best_of(1, lambda: program.run(case["inputs"], engine="interp")["output0"])
        if not np.allclose(out, reference, rtol=1e-3, atol=1e-3):
            raise SystemExit("%s: teval's interpreter disagrees" % case["name"])
        rates["teval interp"] = case["work"] / seconds / 1e9
    return rates, compile_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small shapes, one run each")
    parser.add_argument("--repeat", type=int, default=5, help="runs timed per engine")
    parser.add_argument("--no-interp", action="store_true", help="skip teval's interpreter")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="threads of teval's JIT and of torch (default: every core)")
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    if torch is not None:
        torch.set_num_threads(args.threads)
    if args.quick:
        cases = [matmul_case(24), conv_case(1, 4, 6, 6, 5), exp_case(16), affine_case(16)]
        nnc_n, nnc_c, nnc_hw = 8, 2, 4
    else:
        cases = [matmul_case(256), matmul_case(512), conv_case(4, 64, 32, 32, 64),
                 conv_case(1, 64, 56, 56, 64), exp_case(2048), affine_case(4096)]
        nnc_n, nnc_c, nnc_hw = 32, 8, 16
    print("machine: %s, %s, %d cores; numpy %s, torch %s; teval JIT and torch on %d threads" % (
        platform.machine(), platform.processor() or platform.platform(), os.cpu_count() or 0,
        np.__version__, torch.__version__ if torch is not None else "absent", args.threads))
    nnc = nnc_matmul_rate(nnc_n, repeat)
    if nnc is not None:
        print("NNC IREval, matmul %d^3: %.6f G MAC/s" % (nnc_n, nnc))
    nnc_conv = nnc_conv_rate(1, nnc_c, nnc_hw, nnc_c, repeat)
    if nnc_conv is not None:
        print("NNC IREval, padded conv 1x%dx%dx%d * %dx%dx3x3: %.6f G MAC/s" % (
            nnc_c, nnc_hw, nnc_hw, nnc_c, nnc_c, nnc_conv))
    for case in cases:
        rates, compile_ms = run_case(case, repeat, interp=not args.no_interp, threads=args.threads)
        print("\n%s (%s; JIT compile %.1f ms)" % (case["name"], case["unit"], compile_ms))
        for name, rate in rates.items():
            print("  %-24s %10.4f" % (name, rate))
        for mine in ("teval jit", "teval jit out=", "teval jit any,fma", "teval interp"):
            if mine not in rates:
                continue
            peers = [p for p in rates if not p.startswith("teval")]
            ratios = ", ".join("%s %.3g" % (p, rates[mine] / rates[p]) for p in peers)
            # NNC's IREval on the same kind of contraction.
            same_kind = nnc_conv if case["name"].startswith("conv") else nnc
            if same_kind is not None and case["unit"] == "G MAC/s":
                ratios += ", NNC IREval %.3g" % (rates[mine] / same_kind)
            print("  %s / peer: %s" % (mine, ratios))


if __name__ == "__main__":
    main()
