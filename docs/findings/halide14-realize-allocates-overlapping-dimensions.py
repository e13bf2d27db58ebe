#!/usr/bin/env python3
"""Halide 14: Func.realize(sizes) can allocate a buffer whose dimensions overlap.

A Func of a Tuple, with an update at a constant point that reads an input
buffer along an RDom, realized with `realize([3, 4])`: the buffers Halide
allocates have strides 1 and 1 (3 and 1 x 3 expected), so that elements of
different rows share memory and the result read back is wrong: the value
written at [0, 2] appears at [2, 0], [1, 1] and [0, 2] too. Realizing into
buffers the caller allocates is right. Found by `teval fuzz --backend
halide` on a Tile contraction that scatters into its output.

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0).
"""
import sys

import numpy as np
import halide as hl

x, y = hl.Var("x"), hl.Var("y")
A = hl.Buffer(np.arange(4, dtype=np.float32))
r = hl.RDom([hl.Range(0, 4)])
f = hl.Func("f")
f[x, y] = hl.Tuple([hl.f32(0), hl.u8(0)])
f[0, 2] = hl.Tuple([hl.Expr(f[0, 2][0]) + A[r], hl.u8(1)])
b = f.realize([3, 4])[0]
strides = [b.dim(i).stride() for i in range(2)]
values = np.asarray(b)
print(f"strides {strides} (expected [1, 3]); element [0, 2] = {values[0, 2]} (expected 6), "
      f"[2, 0] = {values[2, 0]} and [1, 1] = {values[1, 1]} (expected 0)")
sys.exit(0 if strides == [1, 3] else 1)
