#!/usr/bin/env python3
"""Halide 14: float comparisons are compiled as if no operand were NaN.

Every float comparison Halide 14 emits carries LLVM's fast-math flags
(`fcmp reassoc nnan ninf nsz contract afn`), with the target's strict_float
or without it, so LLVM may assume that no operand is NaN or infinite. On
x86-64 scalar code then tests the flags of `ucomiss` without the parity bit:
`a == b`, `a != b`, `a <= b` and `a >= b` are wrong whenever an operand is
NaN (`NaN == 1` is true, `NaN != 1` is false). A loop Halide vectorizes
itself happens to give the IEEE answers. Found by `teval fuzz --backend
halide` (`output1[] = 1.0 <= output0[]` with output0 NaN gave 1).

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0).
"""
import sys

import numpy as np
import halide as hl

target = hl.get_host_target().without_feature(hl.TargetFeature.AVX512_SapphireRapids)
target = target.with_feature(hl.TargetFeature.StrictFloat)
x = hl.Var("x")
a = np.array([np.nan, 1.0, np.nan], np.float32)
b = np.array([1.0, np.nan, np.nan], np.float32)
A, B = hl.Buffer(a), hl.Buffer(b)
wrong = 0
for name, cond, expected in [("==", A[x] == B[x], a == b), ("!=", A[x] != B[x], a != b),
                             ("<=", A[x] <= B[x], a <= b), (">=", A[x] >= B[x], a >= b)]:
    f = hl.Func("f")
    f[x] = hl.select(cond, hl.u8(1), hl.u8(0))
    got = np.asarray(f.realize([3], target)).astype(bool)
    print(f"a {name} b for a = {a}, b = {b}: {got}, IEEE: {expected}")
    wrong += not np.array_equal(got, expected)
sys.exit(1 if wrong else 0)
