#!/usr/bin/env python3
"""Halide 14: a vectorized Func reading a diagonal of an input segfaults.

`e[i, j] = B[1, i, i]` of a 2 x 2 x 2 input, computed at the root and
vectorized by 2 along i, summed by `f[x] += e[r, 0]` for r in [0, 2): every
read is inside B (elements 4 and 7, sum 11), yet the compiled pipeline
dies of SIGSEGV. Reading B[0, i, i] instead, or consuming e without the
RDom (`f[x] = e[x, 0] + e[x, 1]`), gives the right values. Found by `teval
fuzz --backend halide` (a reduction reading `input2[1, K, K // 1]`, shrunk
to three statements).

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0); it dies of
signal 11.
"""
import numpy as np
import halide as hl

i, j, x = hl.Var("i"), hl.Var("j"), hl.Var("x")
B = hl.Buffer(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
e = hl.Func("e")
e[i, j] = B[1, i, i]
r = hl.RDom([hl.Range(0, 2)])
f = hl.Func("f")
f[x] = hl.f32(0)
f[x] = f[x] + e[r[0], 0]
e.compute_root().vectorize(i, 2)
print(np.asarray(f.realize([1])), "(expected [11.])")
