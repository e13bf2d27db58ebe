#!/usr/bin/env python3
"""Halide 14: a vectorized min over bytes aborts in LLVM's instruction
selection on AVX-512 hosts.

`e[i, j, k, l]` is 1 where the bits of input[i] other than the sign are not
all zero (a float tested for "not zero" through its bits) and 0 elsewhere,
computed at the root; `t[x, y] = min(t[x, y], e[r.x, r.y, x, y])` folds it
over a 2 x 2 RDom from 1, vectorized by 4 along x. For the input [0.5, 0]
the result is [[0, 0]]; instead, compiling the pipeline for an AVX-512
host (x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-...)
aborts: "LLVM ERROR: Cannot select: v64i8 = X86ISD::VBROADCAST" of a v8i1
KSHIFTR. Comparing the float itself (`input[i] != 0`) instead of its
masked bits, folding along one dimension less, or a 3-D `e` compile and
give [[0, 0]]. Found by `teval fuzz --backend halide --lang all --seed 7`
(case 1252 of 3,000: a min-fold of a float converted to bool, shrunk to
`output0[N, M] <=! (1.0 * input1[L]).cast(`bool`) where N in 1, M in 2,
K in 2`, whose emitted pipeline tests floats through their bits because
Halide 14's float comparisons assume no NaN).

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0, on a host
with AVX-512); LLVM's fatal error ends it with status 1 (in the campaign's
process, SIGABRT).
"""
import numpy as np
import halide as hl

i, j, k, l, x, y = (hl.Var(n) for n in "ijklxy")
inp = hl.Buffer(np.array([0.5, 0.0], dtype=np.float32))
e = hl.Func("e")
e[i, j, k, l] = hl.cast(hl.UInt(8), (hl.reinterpret(hl.Int(32), inp[i]) & 0x7FFFFFFF) != 0)
r = hl.RDom([hl.Range(0, 2), hl.Range(0, 2)])
t = hl.Func("t")
t[x, y] = hl.u8(1)
t[x, y] = hl.min(t[x, y], e[r[0], r[1], x, y])
e.compute_root()
t.compute_root().vectorize(x, 4, hl.TailStrategy.GuardWithIf)
t.update(0).unscheduled()
print(np.asarray(t.realize([2, 1])).T, "(expected [[0 0]])")
