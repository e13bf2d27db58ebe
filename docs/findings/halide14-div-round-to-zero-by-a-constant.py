#!/usr/bin/env python3
"""Halide 14: div_round_to_zero by a constant that is not a power of two is wrong.

`div_round_to_zero(x, 3)` for x = 0..5 gives [0, -1, -1, -1, -1, -1]
instead of [0, 0, 0, 1, 1, 1]; `div_round_to_zero(5 * x - 12, 7)` gives
[2, 1, 1, -1, -1, -2] instead of [-1, -1, 0, 0, 1, 1]. Powers of two and
divisors read at run time are right, and so are Halide's Euclidean `/` and
`%` by the same constants. Found while writing teval's Halide emitter
(`teval emit --to halide` computes truncating division from `/` and `%`).

Run: /usr/bin/python3 THIS (Debian 12's python3-halide 14.0.0).
"""
import sys

import numpy as np
import halide as hl

x = hl.Var("x")
wrong = 0
for dividend, divisor, expected in [(x, 3, [0, 0, 0, 1, 1, 1]),
                                    (5 * x - 12, 7, [-1, -1, 0, 0, 1, 1])]:
    f = hl.Func("f")
    f[x] = hl.div_round_to_zero(dividend, hl.i32(divisor))
    got = np.asarray(f.realize([6])).tolist()
    print(f"div_round_to_zero(..., {divisor}) = {got}; rounded towards zero: {expected}")
    wrong += got != expected
sys.exit(1 if wrong else 0)
