#!/usr/bin/env python3
"""Halide 14: a float32 or float64 NaN converted to float16 becomes infinity.

`cast(Float(16), x)` of a NaN computed at run time gives +inf (or -inf for
a NaN with its sign bit set, such as the 0/0 of x86-64): float16 has NaNs,
and numpy, C (`_Float16`) and the F16C instruction `vcvtps2ph` keep them.
A constant NaN is folded right. Found by `teval fuzz --backend halide`
(a float16 `O / O` with O = 0 gave -inf; `asin` of -inf in float16 gave
inf).

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0).
"""
import sys

import numpy as np
import halide as hl

target = hl.get_host_target().without_feature(hl.TargetFeature.AVX512_SapphireRapids)
target = target.with_feature(hl.TargetFeature.StrictFloat)
x = hl.Var("x")
v = np.array([np.nan, -np.nan, 1.5], np.float32)
X = hl.Buffer(v)
f = hl.Func("f")
f[x] = hl.cast(hl.Float(16), X[x])
got = np.asarray(f.realize([3], target))
print(f"float16({v}) = {got}; numpy: {v.astype(np.float16)}")
sys.exit(0 if np.isnan(got[:2]).all() else 1)
