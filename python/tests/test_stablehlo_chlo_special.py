"""CHLO's zeta, polygamma, bessel_i1e and mulhi (docs/SEMANTICS.md, "CHLO's
ops"): the special functions against mpmath (1000 bits: its zeta at 300
bits is wrong for large q and x), their special values as XLA's expansion
gives them, and mulhi against Python's integers."""

import mpmath
import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, tensor_type
from test_stablehlo_math import ulps_from_exact

mpmath.mp.prec = 1000


def binary(op, t):
    return f"  %0 = chlo.{op} %arg0, %arg1 : {t}, {t} -> {t}\n  return %0 : {t}"


def unary(op, t):
    return f"  %0 = chlo.{op} %arg0 : {t} -> {t}\n  return %0 : {t}"


def error_of(got, exact):
    """|got - exact| in ulps of the exact value, or of 2^-52 absolute where
    the exact value is smaller (terms of both signs cancel)."""
    if mpmath.isnan(exact) or mpmath.isinf(exact):
        return ulps_from_exact(got, exact)
    return float(abs(mpmath.mpf(float(got)) - exact) /
                 max(float(np.spacing(abs(float(exact)))), 2.0 ** -52))


@pytest.mark.parametrize("engine", ENGINES)
def test_zeta_is_within_the_documented_error(tmp_path, engine):
    """Within 2 ulps of the exact value for q > 0 (x near 1, where zeta
    is near 1 / (x - 1), included); for q < 0 (integer x) within 4 ulps of
    the largest term |q + k|^-x (an odd x's terms have both signs)."""
    r = rng(41)
    x = np.concatenate([r.uniform(1, 3, 150), r.uniform(1, 60, 150), 1 + 10.0 ** r.uniform(-12, -1, 40),
                        r.integers(2, 12, 100).astype(np.float64)])
    q = np.concatenate([r.uniform(0, 3, 150), 10.0 ** r.uniform(-3, 3, 150), r.uniform(0.1, 5, 40),
                        -r.uniform(0, 20, 100)])
    t = tensor_type(x)
    status, got, err = run(tmp_path, binary("zeta", t), [x, q], t, engine, [t, t])
    assert status == 0, err
    exact = [mpmath.zeta(mpmath.mpf(float(a)), mpmath.mpf(float(b))) for a, b in zip(x, q)]
    positive = max(error_of(g, e) for g, e, b in zip(got, exact, q) if b > 0)
    negative = 0.0
    for g, e, a, b in zip(got, exact, x, q):
        if b < 0:
            largest = max(abs(b + k) ** -a for k in range(int(-b) + 2))
            negative = max(negative, float(abs(mpmath.mpf(float(g)) - e)) / np.spacing(largest))
    assert positive <= 2 and negative <= 4, (positive, negative)


def test_zeta_special_values(tmp_path):
    # x = 1 diverges whatever q; below it NaN; q <= 0 needs an integer x,
    # and its integers are poles: +inf for even x, NaN for odd; q = inf is
    # 0; x = inf is 0, 1 or inf as q is above, at or below 1.
    cases = [(1, 2), (1, np.nan), (0.5, 2), (-3, 2), (2.5, -1.5), (2, -3), (3, -3), (4, 0),
             (np.nan, 2), (2, np.nan), (2, np.inf), (np.inf, 2), (np.inf, 1), (np.inf, 0.5),
             (2, -1.5), (2, -2.0 ** 23 - 0.5), (2, 1e300)]
    x = np.array([c[0] for c in cases], np.float64)
    q = np.array([c[1] for c in cases], np.float64)
    t = tensor_type(x)
    status, got, err = run(tmp_path, binary("zeta", t), [x, q], t, "interp", [t, t])
    assert status == 0, err
    want = np.array([np.inf, np.inf, np.nan, np.nan, np.nan, np.inf, np.nan, np.inf, np.nan, np.nan,
                     0.0, 0.0, 1.0, np.inf, float(mpmath.zeta(2, -1.5)), np.nan])
    assert_bits(got[:-1], want)
    # 1/q + 1/(2 q^2) + ...: the terms past the first underflow, the first
    # does not (within an ulp).
    assert abs(got[-1] - 1e-300) <= np.spacing(1e-300), got[-1]
    assert lower_reports(tmp_path, "chlo.zeta (a math function the Kernel IR has no operator")


@pytest.mark.parametrize("engine", ENGINES)
def test_polygamma_is_within_the_documented_error(tmp_path, engine):
    """Within an ulp for x > 0 (orders past 170 too, whose zeta sum
    underflows where the result does not); below 0 within 4 ulps of the
    largest term n! |x + k|^-(n + 1) (an even n's terms have both signs)."""
    r = rng(43)
    n = np.concatenate([r.integers(1, 12, 300), r.integers(171, 260, 60)]).astype(np.float64)
    x = np.concatenate([r.uniform(0.01, 30, 200), -r.uniform(0, 10, 100), r.uniform(5, 300, 60)])
    t = tensor_type(n)
    status, got, err = run(tmp_path, binary("polygamma", t), [n, x], t, engine, [t, t])
    assert status == 0, err
    exact = [mpmath.polygamma(int(a), mpmath.mpf(float(b))) for a, b in zip(n, x)]
    positive = max(error_of(g, e) for g, e, b in zip(got, exact, x) if b > 0)
    negative = 0.0
    for g, e, a, b in zip(got, exact, n, x):
        if b < 0:
            largest = max(mpmath.factorial(int(a)) * abs(mpmath.mpf(float(b)) + k) ** -(a + 1)
                          for k in range(int(-b) + 2))
            negative = max(negative, float(abs(mpmath.mpf(float(g)) - e)) /
                           np.spacing(float(largest)))
    assert positive <= 1 and negative <= 4, (positive, negative)


def test_polygamma_special_values(tmp_path):
    # n must be a natural number; 0 is digamma; at the poles an odd n is
    # +inf and an even one NaN (limits of both signs).
    cases = [(0, 2.5), (-1, 2), (1.5, 2), (np.nan, 2), (np.inf, 2), (1, 0), (2, 0), (1, -3),
             (3, np.inf), (1, np.nan)]
    n = np.array([c[0] for c in cases], np.float64)
    x = np.array([c[1] for c in cases], np.float64)
    t = tensor_type(n)
    status, got, err = run(tmp_path, binary("polygamma", t), [n, x], t, "interp", [t, t])
    assert status == 0, err
    want = np.array([float(mpmath.digamma(2.5)), np.nan, np.nan, np.nan, np.nan, np.inf, np.nan,
                     np.inf, -0.0, np.nan])
    assert np.array_equal(got, want, equal_nan=True), got


@pytest.mark.parametrize("engine", ENGINES)
def test_bessel_i1e_is_within_an_ulp(tmp_path, engine):
    r = rng(47)
    x = np.concatenate([r.uniform(-40, 40, 300), 10.0 ** r.uniform(-300, 300, 100),
                        -(10.0 ** r.uniform(-5, 5, 100)), [31.999, 32.0, 32.001, 5e-324]])
    t = tensor_type(x)
    status, got, err = run(tmp_path, unary("bessel_i1e", t), [x], t, engine)
    assert status == 0, err
    worst = max(ulps_from_exact(g, mpmath.besseli(1, mpmath.mpf(float(a))) *
                                mpmath.exp(-abs(mpmath.mpf(float(a))))) for g, a in zip(got, x))
    assert worst <= 1, worst


def test_bessel_i1e_special_values_and_float32(tmp_path):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float64)
    t = tensor_type(x)
    status, got, err = run(tmp_path, unary("bessel_i1e", t), [x], t, "interp")
    assert status == 0, err
    assert_bits(got, np.array([0.0, -0.0, 0.0, -0.0, np.nan]))
    # float32: the float64 function rounded.
    x32 = rng(48).uniform(-50, 50, 200).astype(np.float32)
    t = tensor_type(x32)
    status, got, err = run(tmp_path, unary("bessel_i1e", t), [x32], t, "interp")
    assert status == 0, err
    want = [np.float32(float(mpmath.besseli(1, mpmath.mpf(float(v))) *
                             mpmath.exp(-abs(mpmath.mpf(float(v)))))) for v in x32]
    assert_bits(got, np.array(want, np.float32))


INTEGERS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("engine", ENGINES)
def test_mulhi_is_the_high_half_of_the_product(tmp_path, dtype, engine):
    info = np.iinfo(dtype)
    bits = info.bits
    r = rng(bits)
    a = r.integers(info.min, info.max, 200, dtype=dtype, endpoint=True)
    b = r.integers(info.min, info.max, 200, dtype=dtype, endpoint=True)
    edges = np.array([info.min, info.max, 0, 1, info.max // 2 + 1], dtype=dtype)
    a = np.concatenate([a, np.repeat(edges, edges.size)])
    b = np.concatenate([b, np.tile(edges, edges.size)])
    t = tensor_type(a)
    status, got, err = run(tmp_path, f"  %0 = chlo.mulhi %arg0, %arg1 : {t}, {t} -> {t}\n"
                                     f"  return %0 : {t}", [a, b], t, engine, [t, t])
    assert status == 0, err
    want = np.array([(int(x) * int(y)) >> bits for x, y in zip(a, b)], dtype=dtype)
    assert_bits(got, want)


def test_the_specifications_mulhi_examples_and_errors(tmp_path):
    # CHLO's own examples: 64 * 4 = 256, high byte 1; 240 * 16 = 3840, 15.
    a, b = np.array([64, -64, -64], np.int8), np.array([4, 4, -4], np.int8)
    t = tensor_type(a)
    status, got, err = run(tmp_path, f'  %0 = "chlo.mulhi"(%arg0, %arg1) : ({t}, {t}) -> {t}\n'
                                     f"  return %0 : {t}", [a, b], t, "interp")
    assert status == 0, err
    assert_bits(got, np.array([1, -1, 1], np.int8))
    assert lower_reports(tmp_path, "chlo.mulhi (the high half of a product twice the type's width)")
    x = np.array([1.0, 2.0], np.float32)
    t = tensor_type(x)
    status, _, err = run(tmp_path, f"  %0 = chlo.mulhi %arg0, %arg0 : {t}, {t} -> {t}\n"
                                   f"  return %0 : {t}", [x], t, "interp")
    assert status == 1 and "chlo.mulhi takes integer values" in err, err
    status, _, err = run(tmp_path, binary("zeta", "tensor<2xi32>"),
                         [np.array([1, 2], np.int32)] * 2, "tensor<2xi32>", "interp")
    assert status == 1 and "chlo.zeta takes a float tensor" in err, err
