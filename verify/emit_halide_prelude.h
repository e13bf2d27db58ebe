// The Python every program `teval emit --to halide` writes: the helpers its
// pipeline calls (clamped coordinates, wrapping arithmetic, NaN-propagating
// max and min, a once-rounded narrowing of float64 to float16), the
// schedule drawn from a seed, and the driver that reads and writes .npy
// files (see emit_halide.h).
#pragma once

namespace teval::verify::detail {

inline constexpr const char* kHalideHelpers = R"PY(import math
import os
import random
import sys
import warnings

import numpy as np
import halide as hl

warnings.filterwarnings("ignore")

# The host without the features Halide 14 cannot compile for, in IEEE mode.
_TARGET = (hl.get_host_target().without_feature(hl.TargetFeature.AVX512_SapphireRapids)
           .with_feature(hl.TargetFeature.StrictFloat))


def _e(x):
    # A Func's value at a point (a FuncRef) as an Expr.
    return x if isinstance(x, hl.Expr) else hl.Expr(x)


def _at(i, n):
    # Index i clamped into a dimension of n: a read or write there is
    # harmless where teval does not make it.
    return hl.cast(hl.Int(32), hl.clamp(hl.cast(hl.Int(64), i), 0, n - 1))


def _in(i, n):
    i = hl.cast(hl.Int(64), i)
    return (i >= 0) & (i < n)


def _unsigned(x):
    return hl.reinterpret(hl.UInt(x.type().bits()), x)


def _wraps(t):
    # Halide assumes that signed integers of 32 and 64 bits do not overflow:
    # they are computed unsigned, which wraps.
    return t.is_int() and t.bits() >= 32


def _add(a, b):
    t = a.type()
    return hl.reinterpret(t, _unsigned(a) + _unsigned(b)) if _wraps(t) else a + b


def _sub(a, b):
    t = a.type()
    return hl.reinterpret(t, _unsigned(a) - _unsigned(b)) if _wraps(t) else a - b


def _mul(a, b):
    t = a.type()
    return hl.reinterpret(t, _unsigned(a) * _unsigned(b)) if _wraps(t) else a * b


def _shl(a, b):
    t = a.type()
    if t.is_int():
        return hl.reinterpret(t, _unsigned(a) << _unsigned(hl.cast(t, b)))
    return a << b


def _div_trunc(a, b):
    # a / b rounded towards zero (b neither 0 nor -1), from Halide's
    # Euclidean / and % (a = q * b + r, 0 <= r < |b|).
    # (Nested selects: `(a < 0) & (r != 0)` makes Halide 14's compiler
    # divide by zero when the read it indexes is vectorized, docs/findings/.)
    q, r = a / b, a % b
    step = hl.select(b > 0, hl.cast(q.type(), 1), hl.cast(q.type(), -1))
    return hl.select(a < 0, hl.select(r != 0, q + step, q), q)


# Float comparisons go through the values' bits: Halide 14 marks its float
# comparisons fast-math (nnan, ninf), strict_float or not, so that LLVM
# compiles them wrongly for NaN (docs/findings/).
_MAGNITUDE = {16: 0x7FFF, 32: 0x7FFFFFFF, 64: 0x7FFFFFFFFFFFFFFF}
_INFINITY = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}


def _bits(a):
    return hl.reinterpret(hl.Int(a.type().bits()), a)


def _magnitude(a):
    n = a.type().bits()
    return _bits(a) & hl.cast(hl.Int(n), hl.i64(_MAGNITUDE[n]))


def _isnan(a):
    n = a.type().bits()
    return _magnitude(a) > hl.cast(hl.Int(n), hl.i64(_INFINITY[n]))


def _finite(a):
    n = a.type().bits()
    return _magnitude(a) < hl.cast(hl.Int(n), hl.i64(_INFINITY[n]))


def _key(a):
    # An integer in the floats' order: -0 and +0 are one key.
    i, m = _bits(a), _magnitude(a)
    return hl.select(i < 0, hl.cast(i.type(), 0) - m, i)


def _ordered(a, b):
    return hl.logical_not(_isnan(a) | _isnan(b))


def _lt(a, b):
    return _ordered(a, b) & (_key(a) < _key(b))


def _le(a, b):
    return _ordered(a, b) & (_key(a) <= _key(b))


def _eq(a, b):
    return _ordered(a, b) & (_key(a) == _key(b))


def _ne(a, b):
    return hl.logical_not(_eq(a, b))


def _true(a):
    # A value as a condition: not zero (NaN is true).
    a = _e(a)
    return _magnitude(a) != 0 if a.type().is_float() else a != 0


def _fmax(a, b):
    # NaN wins, and -0 is below +0 (equal values: the sign bits' and).
    same = hl.reinterpret(a.type(), _unsigned(a) & _unsigned(b))
    return hl.select(_isnan(a), a, hl.select(_isnan(b), b, hl.select(
        _key(a) == _key(b), same, hl.select(_key(b) < _key(a), a, b))))


def _fmin(a, b):
    same = hl.reinterpret(a.type(), _unsigned(a) | _unsigned(b))
    return hl.select(_isnan(a), a, hl.select(_isnan(b), b, hl.select(
        _key(a) == _key(b), same, hl.select(_key(a) < _key(b), a, b))))


def _same(a, b):
    # Identical floats: NaN is NaN's, -0 is not +0.
    return (_isnan(a) & _isnan(b)) | (_bits(a) == _bits(b))


def _f16(x):
    # x rounded to float16: Halide 14 converts NaN to infinity.
    nan = hl.reinterpret(hl.Float(16), hl.u16(0x7E00))
    return hl.select(_isnan(x), nan, hl.cast(hl.Float(16), x))


def _narrow16(d):
    # d (float64) rounded once to float16. Halide rounds float64 through
    # float32, which rounds twice; rounding to float32 to odd first (towards
    # zero, then the odd neighbour when inexact) makes the second rounding
    # the only one.
    f = hl.cast(hl.Float(32), d)
    fd = hl.cast(hl.Float(64), f)
    bits = hl.reinterpret(hl.UInt(32), f)
    inexact = (_bits(fd) != _bits(d)) & _finite(d)
    bits = hl.select(inexact & (_magnitude(fd) > _magnitude(d)), bits - 1, bits)
    bits = hl.select(inexact, bits | 1, bits)
    return _f16(hl.reinterpret(hl.Float(32), bits))


def _to_int(x, t):
    # x (a float) truncated to integer type t, and 0 where it does not fit
    # (where teval reports an error): LLVM's conversion of such a value is
    # poison, which would spoil the branch of a `.when` or `||` taken.
    d = hl.trunc(hl.cast(hl.Float(64), x))
    bits = 8 if t.bits() == 1 else t.bits()
    lo, hi = (-2.0 ** (bits - 1), 2.0 ** (bits - 1)) if t.is_int() else (0.0, 2.0 ** bits)
    fits = _le(hl.f64(lo), d) & _lt(d, hl.f64(hi))
    return hl.cast(t, hl.select(fits, d, _ZERO64))


_ZERO64 = hl.reinterpret(hl.Float(64), hl.u64(0))


def _libm(f, x):
    # A float32 function through float64, which calls the C library:
    # Halide 14's own float32 exp and log are wrong at NaN, infinities and
    # large arguments (docs/findings/); rounding the double is within an ulp.
    return hl.cast(hl.Float(32), f(hl.cast(hl.Float(64), x)))


def _erf(x):
    # Halide's float32 erf (a polynomial) at NaN and beyond |x| = 4, where
    # erf rounds to +-1, is guarded for the same reason.
    one = hl.select(_bits(x) < 0, hl.f32(-1.0), hl.f32(1.0))
    return hl.select(_isnan(x), x, hl.select(_magnitude(x) >= _bits(hl.f32(4.0)), one, hl.erf(x)))


class _Stage:
    # One statement: its target Func (pure variables listed innermost
    # first), its values' Func and variables, the update's RDom, and whether
    # the update's pure variables are the target's.
    def __init__(self, name, target, pure, value=None, value_vars=(), rdom=None, plain=False):
        self.name, self.target, self.pure = name, target, pure
        self.value, self.value_vars, self.rdom, self.plain = value, list(value_vars), rdom, plain


def _schedule(stages, seed):
    # A schedule drawn from seed; returns what it did, one line per step.
    rng = random.Random(seed)
    done = []

    def step(text, action):
        try:
            action()
            done.append(text)
        except RuntimeError as e:  # Halide refused it (rfactor of a fold it cannot reassociate)
            done.append(text + "  # refused: " + str(e).strip().splitlines()[0][:120])

    for s in stages:
        n, t, pure = s.name, s.target, s.pure
        t.compute_root()
        if s.value is not None and s.value_vars and rng.random() < 0.5:
            v = s.value_vars[0]
            step(n + "e.compute_root()", lambda: s.value.compute_root())
            if rng.random() < 0.5:
                w = rng.choice([2, 4, 8])
                step("%se.vectorize(%s, %d)" % (n, v.name(), w),
                     lambda: s.value.vectorize(v, w, hl.TailStrategy.GuardWithIf))
        # The initial values.
        choice = rng.randrange(4)
        if choice == 1:
            w = rng.choice([4, 8, 16])
            step("%st.vectorize(%s, %d)" % (n, pure[0].name(), w),
                 lambda: t.vectorize(pure[0], w, hl.TailStrategy.GuardWithIf))
        elif choice == 2:
            step("%st.parallel(%s)" % (n, pure[-1].name()), lambda: t.parallel(pure[-1]))
        elif choice == 3:
            w = rng.choice([2, 3, 4])
            xo, xi = hl.Var(n + "xo"), hl.Var(n + "xi")
            step("%st.split(%s, xo, xi, %d).unroll(xi)" % (n, pure[0].name(), w),
                 lambda: t.split(pure[0], xo, xi, w, hl.TailStrategy.GuardWithIf).unroll(xi))
        if s.value is None:
            continue
        # The fold.
        u = t.update(0)
        choice = rng.randrange(5)
        if s.plain and choice == 1:
            w = rng.choice([4, 8])
            step("%st.update(0).vectorize(%s, %d)" % (n, pure[0].name(), w),
                 lambda: u.vectorize(pure[0], w, hl.TailStrategy.GuardWithIf))
        elif s.plain and choice == 2:
            step("%st.update(0).parallel(%s)" % (n, pure[-1].name()), lambda: u.parallel(pure[-1]))
        elif s.rdom is not None and choice == 3:
            w = rng.choice([2, 3, 4])
            r = s.rdom[0]
            step("%st.update(0).unroll(%s, %d)" % (n, r.name(), w), lambda: u.unroll(r, w))
        elif s.plain and s.rdom is not None and choice == 4:
            r = s.rdom[s.rdom.dimensions() - 1]
            k = hl.Var(n + "k")

            def rfactor():
                inner = u.rfactor(r, k)
                inner.compute_root()
                inner.vectorize(k, 4, hl.TailStrategy.GuardWithIf)

            step("%st.update(0).rfactor(%s, k), computed at the root, vectorized by 4" % (n, r.name()),
                 rfactor)
    return done

)PY";

inline constexpr const char* kHalideDriver = R"PY(

def _read(directory, name, descr, shape):
    path = os.path.join(directory, name + ".npy")
    try:
        a = np.load(path, allow_pickle=False)
    except Exception as e:
        raise SystemExit("error: input %s cannot be read: %s" % (path, e))
    if a.dtype.str != descr or tuple(a.shape) != shape:
        raise SystemExit("error: input %s is %s %s, not %s %s" % (path, a.dtype.str, a.shape, descr, shape))
    return a


def _buffer(a):
    # The Halide buffer of a, its dimensions last first (innermost first);
    # a scalar is one element; None when there is no element.
    if a.size == 0:
        return None
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    a = np.ascontiguousarray(a.reshape(a.shape or (1,)))
    _KEEP.append(a)
    return hl.Buffer(a.T)


_KEEP = []


def _realize(f, tuple_, descr, shape):
    if 0 in shape:
        return np.zeros(shape, dtype=np.dtype(descr))
    if isinstance(f, hl.Buffer):  # an input that is an output
        a = np.array(np.asarray(f).T, order="C")
    else:
        # Into buffers of our own: Halide 14's realize(sizes) can allocate
        # one whose dimensions overlap (docs/findings/).
        dt = np.dtype(descr)
        t = {"f": hl.Float, "i": hl.Int, "u": hl.UInt, "b": hl.UInt}[dt.kind](8 * dt.itemsize)
        sizes = list(reversed(shape)) or [1]
        dst = [hl.Buffer(t, sizes)] + ([hl.Buffer(hl.UInt(8), sizes)] if tuple_ else [])
        f.realize(dst, _TARGET)
        a = np.array(np.asarray(dst[0]).T, order="C")
    a = a.reshape(shape)
    return a != 0 if descr == "|b1" else a


def main(argv):
    import argparse

    p = argparse.ArgumentParser(description="Runs the pipeline with Halide on INPUT_DIR/NAME.npy, "
                                "writing OUTPUT_DIR/NAME.npy for each output.")
    p.add_argument("input_dir")
    p.add_argument("output_dir")
    p.add_argument("--schedule", type=int, default=_SEED,
                   help="the seed of the schedule (default %d, this program's)" % _SEED)
    o = p.parse_args(argv)
    arrays = [_read(o.input_dir, n, d, s) for n, d, s in _INPUTS] + _constants()
    outputs, stages = build(*[_buffer(a) for a in arrays])
    print("schedule %d:" % o.schedule)
    for line in _schedule(stages, o.schedule):
        print("  " + line)
    results = [_realize(f, t, d, s) for (f, t), (_, d, s) in zip(outputs, _OUTPUTS)]
    os.makedirs(o.output_dir, exist_ok=True)
    for (name, _, _), a in zip(_OUTPUTS, results):
        np.save(os.path.join(o.output_dir, name + ".npy"), a)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
)PY";

} // namespace teval::verify::detail
