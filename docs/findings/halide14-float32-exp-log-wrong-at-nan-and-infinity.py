#!/usr/bin/env python3
"""Halide 14: float32 exp and log are wrong at NaN, infinity and large arguments.

Halide computes float32 `exp` and `log` with its own polynomials, documented
to "do the right thing for extremely small or extremely large inputs". They
do not: exp(NaN) = 0, exp(inf) = 0 and exp(1e30) = 0 (NaN, inf, inf), and
log(inf) = 88.72 and log(NaN) = 89.13 (inf, NaN); log of a negative value
read from a Func computed at the root is inf where NaN is right (found so
by `teval fuzz --backend halide`: `E = log(O)` with O = -0.3655). Its
comparisons' fast-math flags (the reproducer beside this one) are a likely
cause. The float64 functions call the C library and are right.

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0).
"""
import sys

import numpy as np
import halide as hl

target = hl.get_host_target().without_feature(hl.TargetFeature.AVX512_SapphireRapids)
target = target.with_feature(hl.TargetFeature.StrictFloat)
x = hl.Var("x")
v = np.array([np.nan, np.inf, 1e30, -1e30, 1.0], np.float32)
X = hl.Buffer(v)
wrong = 0
for name, fn, ref in [("exp", hl.exp, np.exp), ("log", hl.log, np.log)]:
    f = hl.Func("f")
    f[x] = fn(X[x])
    got = np.asarray(f.realize([len(v)], target))
    with np.errstate(all="ignore"):
        expected = ref(v.astype(np.float64)).astype(np.float32)
    print(f"{name}({v}) = {got}; the C library: {expected}")
    same = (got == expected) | (np.isnan(got) & np.isnan(expected)) | \
        (np.abs(got - expected) <= 4 * np.spacing(np.abs(expected)))
    wrong += not same.all()
sys.exit(1 if wrong else 0)
