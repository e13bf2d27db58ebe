#!/usr/bin/env python3
"""Halide 14: the compiler dies of SIGFPE vectorizing a read at a select of `x % 2`.

`g[v] = A[select((2 < 0) & (v % 2 != 0), v % 2 + 2, v % 2)]` (a floored
modulo by a constant, as a compiler front end writes it), vectorized by 4:
compiling the pipeline divides by zero inside Halide's own code (an integer
division in a mutator of a Load under a Shuffle) and kills the process.
Without the vectorize, or with the divisor's sign tested in a select of its
own (`select(2 < 0, select(v % 2 != 0, ...), v % 2)`), it compiles and gives
[7, 9, 7, 9]. Found by `teval fuzz --backend halide`.

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0); it dies of
signal 8.
"""
import numpy as np
import halide as hl

v = hl.Var("v")
A = hl.Buffer(np.array([7, 9], np.int32))
m = v % 2
g = hl.Func("g")
g[v] = A[hl.select((hl.i32(2) < 0) & (m != 0), m + 2, m)]
g.vectorize(v, 4)
print(np.asarray(g.realize([4])))
