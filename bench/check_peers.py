#!/usr/bin/env python3
"""teval check against today's tolerance rules, on real implementations' outputs.

For each program (matmul, conv2d with padding, softmax, layer_norm; float16
and bfloat16 matmuls with K up to 4096, softmax, layer_norm, long sums;
GELU in both forms) this makes candidate outputs with real implementations on this
machine -- torch (oneDNN conv2d, BLAS matmul, softmax, layer_norm), numpy
einsum with and without `optimize`, teval's own JIT -- and the same with
injected bugs, then judges every candidate with

  * `teval check` (the rigorous bound; with --fma, which allows the
    fused multiply-adds BLAS and oneDNN use; and with --excess-precision,
    which lets float16 and bfloat16 be computed in float32 as torch does),
  * allclose with NNSmith's tolerances (rtol 1e-2, atol 1e-3),
  * XLA's ErrorSpec{abs 1e-5, rel 1e-5} (an element passes when either holds),
  * numpy's allclose defaults (rtol 1e-5, atol 1e-8),

each tolerance rule against teval's sequential result, as a test suite
would compare with a reference implementation. A bug whose effect is
smaller than what a legal evaluation may differ by is marked "below the
bound": no rigorous rule can reject it, and it is not counted against one.
A candidate correct only when float16 and bfloat16 may be kept in float32
is marked "with excess precision". It prints a Markdown table
(docs/ORACLE.md keeps one) and exits 1 when teval check accepts a buggy
candidate or rejects a correct one. bfloat16 arrays are numpy's 2-byte
void (teval's encoding); the tolerance rules read them as float32.

usage: bench/check_peers.py [--teval build/bin/teval] [--seed N] [--keep DIR]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

torch.set_num_threads(2)

RULES = [
    ("NNSmith", lambda c, r: allclose(c, r, 1e-2, 1e-3)),
    ("XLA 1e-5", lambda c, r: xla_error_spec(c, r, 1e-5, 1e-5)),
    ("numpy", lambda c, r: allclose(c, r, 1e-5, 1e-8)),
]


def values(a):
    """An array as float64; bfloat16 (2-byte void) through its bits."""
    if a.dtype == np.dtype("V2"):
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def bits(t):
    """A torch bfloat16 tensor as teval's bfloat16 array (2-byte void)."""
    return t.contiguous().view(torch.int16).numpy().view("V2")


def allclose(c, r, rtol, atol):
    if c.shape != r.shape:
        return False
    return bool(np.allclose(values(c), values(r), rtol=rtol, atol=atol, equal_nan=True))


def xla_error_spec(c, r, abs_err, rel_err):
    if c.shape != r.shape:
        return False
    c = values(c)
    r = values(r)
    err = np.abs(c - r)
    ok = (err <= abs_err) | (err <= rel_err * np.abs(r)) | (np.isnan(c) & np.isnan(r))
    return bool(ok.all())


def perturb(x, index, amount):
    y = np.array(x, copy=True)
    y[index] += amount
    return y


class Runner:
    def __init__(self, teval, work):
        self.teval = teval
        self.work = work

    def run(self, name, program, inputs, engine="interp"):
        """teval run on the saved inputs; returns output0."""
        out = os.path.join(self.work, name + "-" + engine)
        args = [self.teval, "run", "-e", program, "-o", out, "--engine", engine]
        args += self.input_args(name, inputs)
        subprocess.run(args, check=True)
        return np.load(os.path.join(out, "output0.npy"))

    def input_args(self, name, inputs):
        args = []
        for key, value in inputs.items():
            path = os.path.join(self.work, "%s-%s.npy" % (name, key))
            np.save(path, value)
            args += ["-i", "%s=%s" % (key, path)]
        return args

    def check(self, name, program, inputs, candidate, options):
        path = os.path.join(self.work, name + "-candidate.npy")
        np.save(path, candidate)
        args = [self.teval, "check", "-e", program, "--candidate", "output0=" + path, "--json"]
        args += self.input_args(name, inputs) + options
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode not in (0, 1, 3):  # 3: inconclusive
            sys.exit("teval check failed:\n" + done.stderr)
        verdict = json.loads(done.stdout)
        if verdict["verdict"] == "error":
            sys.exit("teval check: " + verdict["diagnostic"])
        return verdict["outputs"][0]["status"]


def window_view(padded, kh, kw):
    n, c, h, w = padded.shape
    s = padded.strides
    return np.lib.stride_tricks.as_strided(
        padded, (n, c, h - kh + 1, w - kw + 1, kh, kw), s + s[2:])


def cases(rng, runner):
    """(case name, program, inputs, [(candidate, correct, array)])"""
    out = []

    # Matmul, float32.
    a = rng.uniform(-1, 1, (128, 128)).astype(np.float32)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float32)
    p = "output0[N, M] +=! input0[N, K] * input1[K, M]"
    ins = {"input0": a, "input1": b}
    ref = torch.from_numpy(a) @ torch.from_numpy(b)
    out.append(("matmul 128³ f32", p, ins, [
        ("torch matmul (BLAS)", True, ref.numpy()),
        ("numpy einsum", True, np.einsum("nk,km->nm", a, b, optimize=False)),
        ("numpy einsum optimize", True, np.einsum("nk,km->nm", a, b, optimize=True)),
        ("float64 then rounded", True, (a.astype(np.float64) @ b).astype(np.float32)),
        ("teval JIT", True, runner.run("matmul", p, ins, "jit")),
        ("bug: one element +0.01", False, perturb(ref.numpy(), (5, 7), 0.01)),
        ("bug: transposed weight", False, a @ b.T),
        ("bug: drops the last term", False, a[:, :-1] @ b[:-1, :]),
        ("bug: float16 accumulation", False,
         (a.astype(np.float16) @ b.astype(np.float16)).astype(np.float32)),
    ]))

    # Conv2d with padding 1, float32 (the seed's ConvolutionWithPad).
    x = rng.uniform(-1, 1, (1, 16, 18, 18)).astype(np.float32)
    w = rng.uniform(-1, 1, (16, 16, 3, 3)).astype(np.float32)
    p = ("output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1].when("
         "[HO + KH - 1 >= 0, HO + KH - 1 < 18, WO + KW - 1 >= 0, WO + KW - 1 < 18], 0.0)"
         " * input1[F, C, KH, KW] where HO in 18, WO in 18")
    ins = {"input0": x, "input1": w}
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)
    conv = torch.nn.functional.conv2d(tx, tw, padding=1).numpy()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ones = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=1.0)
    shifted = np.pad(x, ((0, 0), (0, 0), (0, 2), (1, 1)))
    out.append(("conv2d 16→16 3×3 pad 1", p, ins, [
        ("torch conv2d (oneDNN)", True, conv),
        ("numpy einsum", True,
         np.einsum("nchwij,fcij->nfhw", window_view(padded, 3, 3), w, optimize=False)),
        ("numpy einsum optimize", True,
         np.einsum("nchwij,fcij->nfhw", window_view(padded, 3, 3), w, optimize=True)),
        ("teval JIT", True, runner.run("conv", p, ins, "jit")),
        ("bug: window off by one", False,
         np.einsum("nchwij,fcij->nfhw", window_view(shifted, 3, 3), w)),
        ("bug: transposed weight", False,
         torch.nn.functional.conv2d(tx, tw.transpose(0, 1), padding=1).numpy()),
        ("bug: padding value 1", False,
         np.einsum("nchwij,fcij->nfhw", window_view(ones, 3, 3), w)),
        ("bug: one element +0.01", False, perturb(conv, (0, 3, 4, 5), 0.01)),
    ]))

    # Softmax over the last axis (the seed's Softmax).
    s = rng.uniform(-4, 4, (32, 256)).astype(np.float32)
    p = ("temp0[N] >=! input0[N, C]; temp1[N] +=! (input0[N, C] - temp0[N]).call(`exp`); "
         "output0[N, C] = (input0[N, C] - temp0[N]).call(`exp`) / temp1[N]")
    ins = {"input0": s}
    e = np.exp(s - s.max(axis=1, keepdims=True))
    soft = torch.softmax(torch.from_numpy(s), dim=1).numpy()
    out.append(("softmax 32×256", p, ins, [
        ("torch softmax", True, soft),
        ("numpy", True, e / e.sum(axis=1, keepdims=True)),
        ("teval JIT", True, runner.run("softmax", p, ins, "jit")),
        ("bug: sum drops the last term", False, e / e[:, :-1].sum(axis=1, keepdims=True)),
        ("bug: wrong axis", False, torch.softmax(torch.from_numpy(s), dim=0).numpy()),
        ("bug: one element ×1.001", False, perturb(soft, (3, 9), soft[3, 9] * 1e-3)),
    ]))

    # Layer norm over the last axis, no affine part, eps 1e-5.
    v = rng.uniform(-2, 2, (16, 256)).astype(np.float32)
    p = ("temp0[N] +=! input0[N, C] / 256.0; temp1[N, C] = input0[N, C] - temp0[N]; "
         "temp2[N] +=! temp1[N, C] * temp1[N, C] / 256.0; "
         "output0[N, C] = temp1[N, C] / (temp2[N] + 1e-5).call(`sqrt`)")
    ins = {"input0": v}
    ln = torch.nn.functional.layer_norm(torch.from_numpy(v), (256,)).numpy()
    mean = v.mean(axis=1, keepdims=True)
    var = ((v - mean) ** 2).mean(axis=1, keepdims=True)
    out.append(("layer_norm 16×256", p, ins, [
        ("torch layer_norm", True, ln),
        ("numpy two-pass", True, (v - mean) / np.sqrt(var + np.float32(1e-5))),
        ("teval JIT", True, runner.run("layer_norm", p, ins, "jit")),
        ("bug: unbiased variance", False,
         (v - mean) / np.sqrt(var * np.float32(256 / 255) + np.float32(1e-5))),
        ("bug: one element ×1.001", False, perturb(ln, (2, 2), ln[2, 2] * 1e-3)),
    ]))

    # Matmul, float16 (torch 1.13 has no CPU float16 matmul; its f32 matmul
    # of the float16 values rounded once is what GPU libraries compute).
    ha = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    hb = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    p = "output0[N, M] +=! input0[N, K] * input1[K, M]"
    ins = {"input0": ha, "input1": hb}
    wide = (torch.from_numpy(ha).float() @ torch.from_numpy(hb).float()).half().numpy()
    bf16 = lambda t: torch.from_numpy(t).float().bfloat16().float()
    out.append(("matmul 64³ f16", p, ins, [
        ("numpy float16 matmul", True, ha @ hb),
        ("torch f32 accumulation, rounded", True, wide),
        ("teval JIT", True, runner.run("matmul16", p, ins, "jit")),
        ("bug: transposed weight", False, ha @ hb.T),
        # Within what float16 accumulation of 64 terms may legally lose: no
        # rigorous rule can tell it from a correct result.
        ("bug: inputs rounded to bfloat16", "limit", (bf16(ha) @ bf16(hb)).half().numpy()),
        ("bug: one element +1", False, perturb(wide, (1, 2), 1.0)),
    ]))
    out += low_precision_cases(rng, runner)
    return out


def typed(dtype, value):
    """A constant of dtype in an Antares expression."""
    return "const(%s).cast(`%s`)" % (value, dtype)


def with_nan(a, index):
    """\p a with a NaN at \p index (bfloat16: the bits of a quiet NaN)."""
    y = np.array(a, copy=True)
    if y.dtype == np.dtype("V2"):
        y.view(np.uint16)[index] = 0x7FC0
    else:
        y[index] = np.nan
    return y


def low_precision_cases(rng, runner):
    """float16 and bfloat16 programs at the sizes ML kernels have, float32
    matmuls with K = 4096 and GELU, with the bugs that only show there."""
    out = []
    f32 = lambda t: torch.from_numpy(t).float()

    # Long float16 sums, past where gamma(n) had no finite value.
    x = rng.uniform(0, 1, (8, 4096)).astype(np.float16)
    p = "output0[N] +=! input0[N, K]"
    ins = {"input0": x}
    wide = f32(x).sum(dim=1).half().numpy()
    out.append(("sum 8×4096 f16", p, ins, [
        ("torch f32 accumulation, rounded", True, wide),
        ("numpy float16 sum (pairwise)", True, x.sum(axis=1, dtype=np.float16)),
        ("teval JIT", True, runner.run("sum16", p, ins, "jit")),
        ("bug: a NaN", False, with_nan(wide, 3)),
        # A float16 sum of 4096 terms may legally be off by (n - 1)·u·Σ|x|,
        # about twice the sum: these are inside that proven bound.
        ("bug: drops a block of 256 terms", "limit",
         f32(x[:, 256:]).sum(dim=1).half().numpy()),
        ("bug: the sum doubled", "limit", (wide.astype(np.float32) * 2).astype(np.float16)),
    ]))

    # float16 matmul with K = 4096.
    a = rng.uniform(-1, 1, (16, 4096)).astype(np.float16)
    b = rng.uniform(-1, 1, (4096, 16)).astype(np.float16)
    p = "output0[N, M] +=! input0[N, K] * input1[K, M]"
    ins = {"input0": a, "input1": b}
    wide = (f32(a) @ f32(b)).half().numpy()
    out.append(("matmul 16×4096×16 f16", p, ins, [
        ("torch f32 accumulation, rounded", True, wide),
        ("teval JIT", True, runner.run("matmul4096h", p, ins, "jit")),
        ("bug: a NaN", False, with_nan(wide, (2, 3))),
        ("bug: weight rows reversed", "limit", (f32(a) @ f32(b[::-1].copy())).half().numpy()),
        ("bug: drops a block of 256 terms", "limit",
         (f32(a[:, 256:]) @ f32(b[256:])).half().numpy()),
    ]))

    # float32 matmul with K = 4096, and the float16 accumulation bug.
    a32 = rng.uniform(-1, 1, (16, 4096)).astype(np.float32)
    b32 = rng.uniform(-1, 1, (4096, 16)).astype(np.float32)
    ins = {"input0": a32, "input1": b32}
    ref = (f32(a32) @ f32(b32)).numpy()
    out.append(("matmul 16×4096×16 f32", p, ins, [
        ("torch matmul (BLAS)", True, ref),
        ("float64 then rounded", True, (a32.astype(np.float64) @ b32).astype(np.float32)),
        # numpy's float16 matmul accumulates in float32: the error is the
        # inputs' rounding, far inside what reordering 4096 terms may give.
        ("bug: float16 inputs", "limit",
         (a32.astype(np.float16) @ b32.astype(np.float16)).astype(np.float32)),
        ("bug: drops a block of 256 terms", False, (f32(a32[:, 256:]) @ f32(b32[256:])).numpy()),
    ]))

    # bfloat16 matmul with K = 256 (the candidates that had passed).
    ta = f32(rng.uniform(-1, 1, (32, 256)).astype(np.float32)).bfloat16()
    tb = f32(rng.uniform(-1, 1, (256, 32)).astype(np.float32)).bfloat16()
    ins = {"input0": bits(ta), "input1": bits(tb)}
    prod = ta @ tb
    out.append(("matmul 32×256×32 bf16", p, ins, [
        ("torch bfloat16 matmul", True, bits(prod)),
        ("torch f32, rounded", True, bits((ta.float() @ tb.float()).bfloat16())),
        ("teval JIT", True, runner.run("matmulbf", p, ins, "jit")),
        ("bug: all NaN", False, with_nan(bits(prod), (slice(None), slice(None)))),
        ("bug: all zero", "limit", bits(torch.zeros_like(prod))),
        ("bug: weight rows reversed", "limit", bits(ta @ tb.flip(0))),
    ]))

    # bfloat16 softmax over 512 elements, and the wrong axis.
    s = f32(rng.uniform(-4, 4, (8, 512)).astype(np.float32)).bfloat16()
    p = ("temp0[N] >=! input0[N, C]; temp1[N] +=! (input0[N, C] - temp0[N]).call(`exp`); "
         "output0[N, C] = (input0[N, C] - temp0[N]).call(`exp`) / temp1[N]")
    ins = {"input0": bits(s)}
    out.append(("softmax 8×512 bf16", p, ins, [
        ("torch softmax", True, bits(torch.softmax(s, dim=1))),
        ("torch f32, rounded", True, bits(torch.softmax(s.float(), dim=1).bfloat16())),
        ("teval JIT", True, runner.run("softmaxbf", p, ins, "jit")),
        ("bug: wrong axis (rows of 8)", False,
         bits(torch.softmax(s.reshape(512, 8), dim=1).reshape(8, 512))),
        ("bug: a NaN", False, with_nan(bits(torch.softmax(s, dim=1)), (1, 1))),
    ]))

    # bfloat16 layer norm (torch computes in float32 and rounds once).
    v = f32(rng.uniform(-2, 2, (16, 256)).astype(np.float32)).bfloat16()
    c = lambda value: typed("bfloat16", value)
    p = ("temp0[N] +=! input0[N, C] / %s; temp1[N, C] = input0[N, C] - temp0[N]; "
         "temp2[N] +=! temp1[N, C] * temp1[N, C] / %s; "
         "output0[N, C] = temp1[N, C] / (temp2[N] + %s).call(`sqrt`)") % (c(256.0), c(256.0),
                                                                        c("1e-5"))
    ins = {"input0": bits(v)}
    ln = torch.nn.functional.layer_norm(v, (256,))
    vf = v.float()
    unbiased = ((vf - vf.mean(1, keepdim=True)) /
                torch.sqrt(vf.var(1, keepdim=True, unbiased=True) + 1e-5)).bfloat16()
    out.append(("layer_norm 16×256 bf16", p, ins, [
        ("torch layer_norm", True, bits(ln)),
        ("teval JIT", True, runner.run("layernormbf", p, ins, "jit")),
        ("bug: unbiased variance", "limit", bits(unbiased)),
        ("bug: a NaN", False, with_nan(bits(ln), (4, 4))),
        # 15% off: inside the bound a bfloat16 mean of 256 terms leaves.
        ("bug: not normalized", "limit", bits(v - v.float().mean(1, keepdim=True).bfloat16())),
    ]))

    # GELU, float32, on [-6, 6]: the erf form and the tanh form.
    g = np.linspace(-6, 6, 20000).astype(np.float32)
    ins = {"input0": g}
    erf_form = ("output0[N] = input0[N] * 0.5 * (1.0 + (input0[N] * 0.70710677).call(`erf`))")
    tanh_form = ("output0[N] = input0[N] * 0.5 * (1.0 + (0.7978846 * (input0[N] + 0.044715 * "
                 "input0[N] * input0[N] * input0[N])).call(`tanh`))")
    tg = torch.from_numpy(g)
    exact = torch.nn.functional.gelu(tg).numpy()
    approx = torch.nn.functional.gelu(tg, approximate="tanh").numpy()
    out.append(("GELU (erf) 20000 f32", erf_form, ins, [
        ("torch gelu", True, exact),
        ("oneDNN gelu", True, torch.nn.functional.gelu(tg.to_mkldnn()).to_dense().numpy()),
        ("teval JIT", True, runner.run("gelu", erf_form, ins, "jit")),
        ("bug: the tanh form", False, approx),
        ("bug: x·sigmoid(1.702x)", False, (tg * torch.sigmoid(1.702 * tg)).numpy()),
    ]))
    out.append(("GELU (tanh) 20000 f32", tanh_form, ins, [
        ("torch gelu tanh", True, approx),
        ("teval JIT", True, runner.run("gelutanh", tanh_form, ins, "jit")),
        ("bug: the erf form", False, exact),
    ]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teval", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "teval"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="keep the generated files in this directory")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="teval-check-peers-")
    os.makedirs(work, exist_ok=True)
    runner = Runner(args.teval, work)
    rng = np.random.default_rng(args.seed)

    checks = [("teval check", []), ("teval check --fma", ["--fma"]),
              ("--excess-precision", ["--fma", "--excess-precision"])]
    header = ["program", "candidate", "correct"] + [name for name, _ in checks]
    header += [name for name, _ in RULES]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    wrong = {name: 0 for name in [n for n, _ in checks] + [n for n, _ in RULES]}
    # No verdict either way: counted apart, neither right nor wrong.
    inconclusive = {name: 0 for name, _ in checks}
    below = {name: 0 for name, _ in checks}  # bugs accepted inside the proven bound
    for case, program, ins, candidates in cases(rng, runner):
        short = case.split()[0] + "-" + case.split()[-1]
        ref = runner.run(short, program, ins)
        for label, correct, cand in candidates:
            limit = correct == "limit"
            excess = correct == "excess"
            correct = correct is True
            row = [case, label, "yes" if correct else "no (below the bound)" if limit else
                   "with excess precision" if excess else "no"]
            for name, options in checks:
                status = runner.check(short, program, ins, cand, options)
                if status == "inconclusive":
                    inconclusive[name] += 1
                    row.append(status)
                    continue
                ok = status != "mismatch"
                below[name] += limit and ok
                right = correct or (excess and "--excess-precision" in options)
                wrong[name] += ok != right and not limit
                row.append(status + ("" if ok == right or limit else " ✗"))
            for name, rule in RULES:
                ok = rule(cand, ref)
                wrong[name] += ok != (correct or excess)
                row.append(("pass" if ok else "fail") + ("" if ok == (correct or excess) else " ✗"))
            print("| " + " | ".join(row) + " |")
    print()
    print("wrong verdicts (✗): " + ", ".join("%s %d" % kv for kv in wrong.items()))
    print("inconclusive (no verdict): " + ", ".join("%s %d" % kv for kv in inconclusive.items()))
    print("bugs accepted inside the proven bound: " +
          ", ".join("%s %d" % kv for kv in below.items()))
    if not args.keep:
        shutil.rmtree(work)
    return 1 if wrong["teval check --fma"] or wrong["--excess-precision"] else 0


if __name__ == "__main__":
    sys.exit(main())
