#!/usr/bin/env python3
"""Reference values for teval's math library (core/tmath/), computed
independently of it with mpmath at 80 significant digits and rounded once
to float64: one NAME.npy per function, float64 rows (x, f(x), x32, f32(x32))
where x32 is x rounded to float32 and f32(x32) is f(x32) rounded once to
float32 (NaN where that is subnormal or beyond float32's range) or, for pow
and fmod, (x, y, f(x, y)). Points: uniform over the function's useful range,
log-uniform magnitudes, random bit patterns within the domain, and the
hard arguments of sin/cos/tan (doubles close to multiples of pi/2).

Run with /usr/bin/python3 (numpy and mpmath from Debian):
    /usr/bin/python3 tests/data/tmath/make_references.py
"""
import math
import os
import random
import struct
from fractions import Fraction

import mpmath as mp
import numpy as np

mp.mp.dps = 80
HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261125)


def bits(lo=None, hi=None):
    while True:
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(x) and (lo is None or lo <= x <= hi):
            return x


def magnitudes(n, lo_exp, hi_exp, signed=True):
    out = []
    for _ in range(n):
        x = 10 ** rng.uniform(lo_exp, hi_exp)
        out.append(-x if signed and rng.random() < 0.5 else x)
    return out


def uniform(n, lo, hi):
    return [rng.uniform(lo, hi) for _ in range(n)]


FUNCTIONS = {
    "exp": (mp.exp, uniform(300, -745.2, 709.7) + uniform(200, -2, 2) + magnitudes(100, -20, 0)),
    "log": (mp.log, magnitudes(300, -320, 308, False) + uniform(200, 0.5, 2) + [bits(0, 1e308) for _ in range(100)]),
    "sin": (mp.sin, uniform(200, -10, 10) + magnitudes(200, -10, 22) + [bits() for _ in range(200)]),
    "cos": (mp.cos, uniform(200, -10, 10) + magnitudes(200, -10, 22) + [bits() for _ in range(200)]),
    "tan": (mp.tan, uniform(200, -10, 10) + magnitudes(200, -10, 22) + [bits() for _ in range(200)]),
    "asin": (mp.asin, uniform(400, -1, 1) + magnitudes(100, -20, 0)),
    "acos": (mp.acos, uniform(400, -1, 1) + magnitudes(100, -20, 0)),
    "atan": (mp.atan, uniform(200, -4, 4) + magnitudes(200, -20, 20) + [bits() for _ in range(100)]),
    "sinh": (mp.sinh, uniform(300, -710, 710) + uniform(200, -3, 3) + magnitudes(100, -20, 0)),
    "cosh": (mp.cosh, uniform(300, -710, 710) + uniform(200, -3, 3) + magnitudes(100, -20, 0)),
    "tanh": (mp.tanh, uniform(400, -25, 25) + magnitudes(200, -20, 1)),
    "erf": (mp.erf, uniform(400, -7, 7) + magnitudes(200, -20, 0)),
    "erfc": (mp.erfc, uniform(200, -7, 7) + uniform(200, 0, 28) + magnitudes(200, -20, 0.5)),
    "sqrt": (mp.sqrt, magnitudes(300, -320, 308, False) + [bits(0, 1.8e308) for _ in range(300)]),
}

# Doubles within 2^-50 relative of a multiple of pi/2: the reductions that
# lose the most bits to cancellation.
hard = []
for k in list(range(1, 200)) + [rng.randrange(1, 2**40) for _ in range(100)]:
    hard.append(float(mp.mpf(k) * mp.pi / 2))
for name in ("sin", "cos", "tan"):
    FUNCTIONS[name][1].extend(hard + [float.fromhex("0x1.6ac5b262ca1ffp+849"), 1e22, 2.0**1023])


def write(name, rows):
    np.save(os.path.join(HERE, name + ".npy"), np.array(rows, dtype=np.float64))


FLT_MAX = float(np.finfo(np.float32).max)


def float32_reference(f, x32):
    v = f(mp.mpf(x32))
    with mp.workprec(24):
        v = +v  # rounded once to 24 significant bits
    v = float(v)
    if v != 0 and (abs(v) < 2.0**-126 or abs(v) > FLT_MAX):
        return math.nan
    return v


def tabulate(functions):
    """NAME.npy of each function: rows (x, f(x), x32, f32(x32))."""
    for name, (f, points) in functions.items():
        rows = []
        for x in points:
            with np.errstate(over="ignore"):
                x32 = float(np.float32(x))
            rows.append((x, float(f(mp.mpf(x))), x32, float32_reference(f, x32)))
        write(name, rows)


tabulate(FUNCTIONS)

pow_rows = []
for _ in range(700):
    x = rng.uniform(0, 3) if rng.random() < 0.5 else 10 ** rng.uniform(-300, 300)
    y = rng.uniform(-60, 60) if rng.random() < 0.6 else float(rng.randint(-300, 300))
    if rng.random() < 0.2 and y == int(y):
        x = -x
    v = mp.mpf(x) ** mp.mpf(y) if x > 0 else (-1) ** int(y) * mp.mpf(-x) ** mp.mpf(y)
    if mp.mpf("1e-300") < abs(v) < mp.mpf("1e300"):
        pow_rows.append((x, y, float(v)))
write("pow", pow_rows)

fmod_rows = []
for _ in range(400):
    x, y = bits(), bits()
    if y == 0:
        continue
    # exact: |x| - n |y| with n = floor(|x| / |y|), in rationals
    r = Fraction(abs(x)) % Fraction(abs(y))
    fmod_rows.append((x, y, math.copysign(float(r), x)))
write("fmod", fmod_rows)

# The functions the Kernel IR gained later (expm1, log1p, cbrt and the
# inverse hyperbolic ones; atan2 as (y, x, atan2(y, x))), drawn after the
# others so that their files stay as they were.
MORE_FUNCTIONS = {
    "expm1": (mp.expm1, uniform(300, -40, 709.7) + uniform(200, -1, 1) + magnitudes(200, -300, 0)),
    "log1p": (mp.log1p, uniform(200, -0.999, 2) + magnitudes(200, -300, 0) +
              magnitudes(200, 0, 300, False)),
    "cbrt": (lambda v: mp.sign(v) * mp.cbrt(abs(v)),  # the real root (mpmath's is complex below 0)
             magnitudes(300, -300, 300) + [bits() for _ in range(200)]),
    "asinh": (mp.asinh, uniform(200, -5, 5) + magnitudes(300, -300, 300)),
    "acosh": (mp.acosh, [1 + d for d in magnitudes(200, -15, 0, False)] +
              magnitudes(300, 0, 300, False)),
    "atanh": (mp.atanh, uniform(300, -0.999, 0.999) + magnitudes(200, -300, -0.01)),
}
tabulate(MORE_FUNCTIONS)

atan2_rows = []
for _ in range(600):
    y, x = magnitudes(2, -30, 30)
    if rng.random() < 0.2:
        y, x = bits(), bits()
    atan2_rows.append((y, x, float(mp.atan2(mp.mpf(y), mp.mpf(x)))))
write("atan2", atan2_rows)
