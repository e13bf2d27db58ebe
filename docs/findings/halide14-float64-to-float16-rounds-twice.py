#!/usr/bin/env python3
"""Halide 14: float64 to float16 rounds through float32, twice.

`cast(Float(16), d)` of a float64 d rounds d to float32 first and then to
float16. 1 + 2^-11 + 2^-40 lies just above the midpoint of 1 and 1 + 2^-10,
so it rounds up to 1 + 2^-10 (numpy, and IEEE's one rounding); rounded to
float32 first it becomes the midpoint 1 + 2^-11 exactly, which then rounds
to even: 1.

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0).
"""
import sys

import numpy as np
import halide as hl

target = hl.get_host_target().without_feature(hl.TargetFeature.AVX512_SapphireRapids)
target = target.with_feature(hl.TargetFeature.StrictFloat)
x = hl.Var("x")
d = np.array([1 + 2.0**-11 + 2.0**-40])
X = hl.Buffer(d)
f = hl.Func("f")
f[x] = hl.cast(hl.Float(16), X[x])
got = np.asarray(f.realize([1], target))[0]
print(f"float16({d[0]!r}) = {got!r}; numpy: {d.astype(np.float16)[0]!r}")
sys.exit(0 if got == d.astype(np.float16)[0] else 1)
