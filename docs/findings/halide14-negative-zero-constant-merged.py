#!/usr/bin/env python3
"""Halide 14: the constants -0.0 and 0.0 are taken for one expression.

Halide compares float constants by value, and -0.0 == 0.0, so its
simplifier treats `select(c, -0.0f, 0.0f)` as a select of equal values and
replaces it by -0.0 whatever c is; `reinterpret(-0.0f) & reinterpret(0.0f)`
folds to the bits of -0.0 (0x80000000) where 0 is right. A pipeline that
starts a sum at 0.0 and folds a skipped point as -0.0 (or takes the max of
-0.0 and 0.0 by its bits) gets the wrong sign of zero. Found by teval's
Halide emitter's tests (max(-0.0, 0.0) gave -0.0); `teval emit --to
halide` writes zeros as reinterpreted bits, which are kept apart.

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0).
"""
import sys

import numpy as np
import halide as hl

x = hl.Var("x")
X = hl.Buffer(np.array([1, 2], np.int32))
f = hl.Func("f")
f[x] = hl.select(X[x] > 100, hl.f32(-0.0), hl.f32(0.0))  # never true: 0.0
got = np.asarray(f.realize([2]))
g = hl.Func("g")
g[x] = hl.reinterpret(hl.UInt(32), hl.f32(-0.0)) & hl.reinterpret(hl.UInt(32), hl.f32(0.0))
bits = np.asarray(g.realize([1]))[0]
print(f"select(x > 100, -0.0, 0.0) = {got} (expected [0. 0.]); "
      f"bits(-0.0) & bits(0.0) = {bits:#x} (expected 0)")
sys.exit(0 if not np.signbit(got).any() and bits == 0 else 1)
