// The Python every program `teval emit --to torchscript` writes: the
// TorchScript helpers its kernel calls (wrapping integers, NaN-propagating
// max and min, a correctly rounded narrowing of float64) before the kernel,
// and the driver that reads and writes .npy files after it (see
// emit_torchscript.h).
#pragma once

namespace teval::verify::detail {

inline constexpr const char* kTorchScriptHelpers = R"PY(import math
import os
import re
import sys
from typing import List

import numpy as np
import torch


@torch.jit.script
def _check(bad: torch.Tensor, what: str):
    if bool(bad.any()):
        raise RuntimeError("teval-error: " + what)


@torch.jit.script
def _wrap(x: torch.Tensor, bits: int, signed: bool) -> torch.Tensor:
    # x (int64) wrapped to an integer of `bits` bits, two's complement.
    m = (1 << bits) - 1
    if signed:
        h = 1 << (bits - 1)
        return ((x + h) & m) - h
    return x & m


@torch.jit.script
def _fits(x: torch.Tensor, bits: int, signed: bool) -> torch.Tensor:
    if signed:
        return (x >= -(1 << (bits - 1))) & (x <= (1 << (bits - 1)) - 1)
    return (x >= 0) & (x <= (1 << bits) - 1)


@torch.jit.script
def _fmax(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # NaN wins (torch.maximum), and -0 is below +0.
    return torch.where(a == b, torch.where(torch.signbit(a), b, a), torch.maximum(a, b))


@torch.jit.script
def _fmin(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.where(a == b, torch.where(torch.signbit(a), a, b), torch.minimum(a, b))


@torch.jit.script
def _same(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # Identical floats: NaN is NaN's, -0 is not +0.
    return (torch.isnan(a) & torch.isnan(b)) | ((a == b) & (torch.signbit(a) == torch.signbit(b)))


@torch.jit.script
def _floor_mod(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # a - b * floor(a / b) with one rounding: fmod is exact.
    r = torch.fmod(a, b)
    return torch.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


@torch.jit.script
def _narrow(x: torch.Tensor, dtype: int) -> torch.Tensor:
    # x (float64) rounded once to float16 or bfloat16. torch rounds float64
    # through float32, which rounds twice; rounding to float32 to odd (the
    # nearest value, moved one step towards x when inexact and even) first
    # makes the second rounding the only one.
    f = x.to(torch.float32)
    fd = f.to(torch.float64)
    e = torch.frexp(fd)[1].to(torch.int64)
    unit = torch.clamp(e - 24, min=-149).to(torch.float64)
    odd = (torch.fmod(torch.ldexp(fd, -unit), 2.0) != 0) & torch.isfinite(f)
    inexact = (fd != x) & ~torch.isnan(x)
    toward = torch.where(x > fd, math.inf, -math.inf).to(torch.float32)
    return torch.where(inexact & ~odd, torch.nextafter(f, toward), f).to(dtype)

)PY";

inline constexpr const char* kTorchScriptDriver = R"PY(

def _read(directory, name, descr, shape):
    path = os.path.join(directory, name + ".npy")
    try:
        a = np.load(path, allow_pickle=False)
    except Exception as e:
        raise SystemExit("error: input %s cannot be read: %s" % (path, e))
    have = a.dtype.str if descr != "<V2" else a.dtype.str.replace("|", "<")
    if have != descr or tuple(a.shape) != shape:
        raise SystemExit("error: input %s is %s %s, not %s %s" % (path, a.dtype.str, a.shape, descr, shape))
    a = a.copy(order="C")
    if descr == "<V2":
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    if descr[1] in "biu":
        return torch.from_numpy(a.astype(np.int64))
    return torch.from_numpy(a.copy())


def _write(directory, name, descr, t):
    t = t.contiguous()
    if descr == "<V2":
        a = t.view(torch.int16).numpy().view("V2")
    elif descr == "|b1":
        a = t.numpy() != 0
    else:
        a = t.numpy().astype(np.dtype(descr))
    np.save(os.path.join(directory, name + ".npy"), a)


def main(argv):
    import argparse

    p = argparse.ArgumentParser(description="Runs the kernel with TorchScript on INPUT_DIR/NAME.npy, "
                                "writing OUTPUT_DIR/NAME.npy for each output.")
    p.add_argument("input_dir")
    p.add_argument("output_dir")
    p.add_argument("--fuser", choices=["none", "nnc"], default="none",
                   help="nnc: TorchScript's tensor-expression fuser on the CPU (its own evaluator "
                   "when torch has no LLVM); none: no fuser (default)")
    p.add_argument("--runs", type=int, default=3,
                   help="calls of the kernel; the profiling executor optimizes after the first "
                   "(default 3); the last call's outputs are written")
    o = p.parse_args(argv)
    torch._C._jit_set_texpr_fuser_enabled(o.fuser == "nnc")
    torch._C._jit_override_can_fuse_on_cpu(o.fuser == "nnc")
    if o.fuser == "nnc":
        torch._C._jit_set_te_must_use_llvm_cpu(False)
    args = [_read(o.input_dir, n, d, s) for n, d, s in _INPUTS] + _constants()
    outputs = []
    try:
        for _ in range(max(o.runs, 1)):
            outputs = kernel(*args)
    except RuntimeError as e:
        text = str(e)
        if "teval-error: " not in text:
            raise
        print("error: " + text.split("teval-error: ")[-1].splitlines()[0], file=sys.stderr)
        return 1
    if o.fuser == "nnc":
        # What NNC compiled: the fusion groups of the optimized graph.
        graph = str(torch.jit.last_executed_optimized_graph())
        groups = set(re.findall(r"prim::TensorExprGroup_[0-9]+", graph))
        print("nnc: %d fusion groups" % len(groups))
    os.makedirs(o.output_dir, exist_ok=True)
    for (name, descr, shape), t in zip(_OUTPUTS, outputs):
        _write(o.output_dir, name, descr, t.reshape(shape))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
)PY";

} // namespace teval::verify::detail
