"""CHLO's ops (docs/SEMANTICS.md, "CHLO's ops"): the math functions, next_after,
is_inf, is_pos_inf, is_neg_inf and top_k, in CHLO's printed form
(`chlo.asinh %x : T -> T`) and the generic one. The expected values are
mpmath's at 300 bits, numpy's nextafter and isinf, and hand-written orders,
never teval's."""

import mpmath
import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, tensor_type
from test_stablehlo_math import ulps_from_exact

mpmath.mp.prec = 300


def acosh(x):
    return mpmath.acosh(x) if x >= 1 else mpmath.nan


def atanh(x):
    if abs(x) > 1:
        return mpmath.nan
    if abs(x) == 1:
        return mpmath.mpf("inf") * x
    return mpmath.atanh(x)


REFERENCE = {
    "asin": lambda x: mpmath.asin(x) if abs(x) <= 1 else mpmath.nan,
    "acos": lambda x: mpmath.acos(x) if abs(x) <= 1 else mpmath.nan,
    "atan": mpmath.atan,
    "sinh": mpmath.sinh,
    "cosh": mpmath.cosh,
    "asinh": mpmath.asinh,
    "acosh": acosh,
    "atanh": atanh,
    "erfc": mpmath.erfc,
}


def operands(op, seed, n=400):
    r = rng(seed)
    if op in ("asin", "acos", "atanh"):
        return np.concatenate([r.uniform(-1, 1, n), 1 - 10.0 ** r.uniform(-16, -1, n // 4),
                               10.0 ** r.uniform(-300, -1, n // 4)])
    if op == "acosh":
        return np.concatenate([1 + 10.0 ** r.uniform(-16, 2, n), 10.0 ** r.uniform(0, 300, n // 4)])
    if op in ("sinh", "cosh"):
        return r.uniform(-700, 700, n) * 10.0 ** r.uniform(-6, 0, n)
    if op == "erfc":
        return r.uniform(-6, 27, n)
    return r.standard_normal(n) * 10.0 ** r.uniform(-30, 30, n)


def chlo(op, t, generic=False):
    if generic:
        return f'  %0 = "chlo.{op}"(%arg0) : ({t}) -> {t}\n  return %0 : {t}'
    return f"  %0 = chlo.{op} %arg0 : {t} -> {t}\n  return %0 : {t}"


@pytest.mark.parametrize("op", sorted(REFERENCE))
def test_float64_within_an_ulp_of_the_exact_value(tmp_path, op):
    x = operands(op, 1)
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo(op, t, generic=op in ("acos", "atanh")), [x], t, "interp")
    assert status == 0, err
    worst = max(ulps_from_exact(got[i], REFERENCE[op](mpmath.mpf(float(x[i]))))
                for i in range(x.size))
    assert worst < 1, (op, worst)


@pytest.mark.parametrize("op", ["asinh", "acosh", "atanh", "erfc"])
def test_float32_is_the_float64_value_rounded(tmp_path, op):
    with np.errstate(over="ignore"):  # acosh's largest become infinities
        x = operands(op, 2, 200).astype(np.float32)
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo(op, t), [x], t, "interp")
    assert status == 0, err
    with np.errstate(all="ignore"):
        want = np.array([float(REFERENCE[op](mpmath.mpf(float(v)))) for v in x]).astype(np.float32)
    # Within an ulp of float64, the rounding to float32 can differ from the
    # exact value's only at a tie: none among these points.
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_special_values(tmp_path, engine):
    inf, nan = np.inf, np.nan
    cases = {
        "asinh": [(0.0, 0.0), (-0.0, -0.0), (inf, inf), (-inf, -inf), (nan, nan), (1e-300, 1e-300),
                  (-1e300, -float(mpmath.asinh(mpmath.mpf(1e300))))],
        "acosh": [(1.0, 0.0), (0.5, nan), (-1.0, nan), (inf, inf), (-inf, nan), (nan, nan)],
        "atanh": [(0.0, 0.0), (-0.0, -0.0), (1.0, inf), (-1.0, -inf), (2.0, nan), (-inf, nan),
                  (nan, nan)],
        "erfc": [(inf, 0.0), (-inf, 2.0), (0.0, 1.0), (nan, nan), (30.0, 0.0)],
    }
    for op, pairs in cases.items():
        x = np.array([p[0] for p in pairs])
        t = tensor_type(x)
        status, got, err = run(tmp_path, chlo(op, t), [x], t, engine)
        assert status == 0, err
        with np.errstate(invalid="ignore"):
            want = np.array([p[1] for p in pairs])
        assert np.array_equal(got, want, equal_nan=True), (op, got, want)
        assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_functions_with_a_kernel_operator_run_on_every_engine(tmp_path, engine):
    # asin, acos, atan, sinh, cosh, asinh, acosh, atanh and erfc are the
    # Kernel IR's: every engine gives the same bits, the library's.
    x = np.array([-0.75, -0.0, 0.25, 0.5, 1.0, 2.0, np.nan], np.float32)
    t = tensor_type(x)
    for op in ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc"]:
        status, got, err = run(tmp_path, chlo(op, t), [x], t, engine)
        assert status == 0, err
        with np.errstate(invalid="ignore"):
            want = np.array([float(REFERENCE[op](mpmath.mpf(float(v)))) if not np.isnan(v)
                             else np.nan for v in x]).astype(np.float32)
        assert np.array_equal(got, want, equal_nan=True), (op, got, want)


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "interp"])
def test_the_others_run_on_every_engine(tmp_path, engine):
    # asinh, acosh, atanh and erfc decompose to the Kernel IR's functions;
    # next_after runs natively (no decomposition).
    x = np.array([0.5, 1.5, -0.0, np.inf, np.nan, 1.0, -1.0, 1e-30], np.float32)
    t = tensor_type(x)
    for op in ["asinh", "acosh", "atanh", "erfc", "next_after"]:
        body = (chlo(op, t) if op != "next_after" else
                f"  %0 = chlo.next_after %arg0, %arg1 : {t}, {t} -> {t}\n  return %0 : {t}")
        inputs = [x] if op != "next_after" else [x, x[::-1].copy()]
        status, want, err = run(tmp_path, body, inputs, t, "interp")
        assert status == 0, err
        status, got, err = run(tmp_path, body, inputs, t, engine)
        assert status == 0, err
        assert_bits(got, want)
    assert lower_reports(tmp_path, "chlo.next_after (a step through the type's bits)")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_next_after_is_numpys_nextafter(tmp_path, dtype):
    r = rng(5)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0,
                         np.finfo(dtype).max, np.finfo(dtype).tiny], dtype)
    x = np.concatenate([specials, np.repeat(specials, 3),
                        r.standard_normal(40).astype(dtype)])
    y = np.concatenate([specials[::-1], np.tile(specials[:3], specials.size),
                        r.standard_normal(40).astype(dtype)])
    t = tensor_type(x)
    status, got, err = run(tmp_path, f"  %0 = chlo.next_after %arg0, %arg1 : {t}, {t} -> {t}\n"
                           f"  return %0 : {t}", [x, y], t, "interp")
    assert status == 0, err
    # C's nextafter gives y when x == y (numpy's float16 one gives x)
    with np.errstate(over="ignore"):
        assert_bits(got, np.where(x == y, y, np.nextafter(x, y)))


def test_next_after_of_bfloat16_steps_its_bits(tmp_path):
    # 1 + 2^-7 is the bfloat16 after 1; 2^-133 its smallest subnormal; the
    # largest finite value 0x7F7F steps to infinity.
    bits = np.array([0x3F80, 0x3F80, 0x0000, 0x8000, 0x7F7F, 0x7F80, 0x3F80], np.uint16)
    toward = np.array([0x4000, 0x0000, 0xBF80, 0x3F80, 0x7F80, 0x0000, 0x3F80], np.uint16)
    want = np.array([0x3F81, 0x3F7F, 0x8001, 0x0001, 0x7F80, 0x7F7F, 0x3F80], np.uint16)
    t = "tensor<7xbf16>"
    status, got, err = run(tmp_path, f"  %0 = chlo.next_after %arg0, %arg1 : {t}, {t} -> {t}\n"
                           f"  return %0 : {t}", [bits.view("V2"), toward.view("V2")], t, "interp",
                           types=[t, t])
    assert status == 0, err
    assert np.array_equal(got.view(np.uint16), want), got.view(np.uint16)


@pytest.mark.parametrize("engine", ENGINES)
def test_is_inf_is_pos_inf_and_is_neg_inf(tmp_path, engine):
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e308, -3.0], np.float64)
    t, b = tensor_type(x), "tensor<7xi1>"
    for op, want in [("is_inf", np.isinf(x)), ("is_pos_inf", np.isposinf(x)),
                     ("is_neg_inf", np.isneginf(x))]:
        status, got, err = run(tmp_path, f"  %0 = chlo.{op} %arg0 : {t} -> {b}\n"
                               f"  return %0 : {b}", [x], b, engine)
        assert status == 0, err
        assert np.array_equal(got, want), (op, got)


def top_k(x, k, engine, tmp_path):
    """The indices of chlo.top_k(x, k)."""
    t = tensor_type(x)
    element = t[t.rindex("x") + 1:-1]
    dims = "".join(f"{d}x" for d in x.shape[:-1] + (k,))
    values, indices = f"tensor<{dims}{element}>", f"tensor<{dims}i32>"
    body = (f"  %v, %i = chlo.top_k(%arg0, k = {k}) : {t} -> ({values}, {indices})\n"
            f"  return %i : {indices}")
    return run(tmp_path, body, [x], indices, engine)


def test_top_k_orders_floats_totally(tmp_path):
    # StableHLO's total order: -NaN < -inf < ... < -0 < 0 < ... < inf < NaN;
    # equal values by index.
    neg_nan = -np.abs(np.float32(np.nan))
    x = np.array([np.inf, np.nan, neg_nan, -np.inf, 3.0, -0.0, 0.0, 3.0], np.float32)
    status, got, err = top_k(x, 8, "interp", tmp_path)
    assert status == 0, err
    assert got.tolist() == [1, 0, 4, 7, 6, 5, 3, 2]
    # no decomposition of it for floats: natively on the other engines
    for engine in ["ireval", "jit"]:
        status, got, err = top_k(x, 8, engine, tmp_path)
        assert status == 0, err
        assert got.tolist() == [1, 0, 4, 7, 6, 5, 3, 2]


@pytest.mark.parametrize("engine", ENGINES)
def test_top_k_of_integers_along_the_last_dimension(tmp_path, engine):
    x = rng(7).integers(-5, 5, (3, 6)).astype(np.int32)
    status, got, err = top_k(x, 4, engine, tmp_path)
    assert status == 0, err
    want = np.argsort(-x.astype(np.int64), axis=-1, kind="stable")[:, :4]
    assert np.array_equal(got, want), (x, got)


@pytest.mark.parametrize("body,message", [
    ("  %0 = chlo.minimum_broadcast_shapes %arg0 : tensor<2xf32> -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>", "`chlo.minimum_broadcast_shapes` is not an op teval reads; "
     "of CHLO it reads"),
    ("  %0 = chlo.asinh %arg0 : tensor<2xi32> -> tensor<2xi32>\n"
     "  return %0 : tensor<2xi32>", "chlo.asinh takes a float or complex tensor"),
    ("  %0 = chlo.next_after %arg0, %arg0 : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>\n"
     "  return %0 : tensor<2xi32>", "chlo.next_after takes f16, bf16, f32 or f64 values"),
    ("  %v, %i = chlo.top_k(%arg0, k = 3) : tensor<2xi32> -> (tensor<3xi32>, tensor<3xi32>)\n"
     "  return %i : tensor<3xi32>", "`k` is 3; it must be in [1, 2]"),
    ("  %0 = chlo.frobnicate %arg0 : tensor<2xi32> -> tensor<2xi32>\n"
     "  return %0 : tensor<2xi32>", "`chlo.frobnicate` is not an op teval reads"),
])
def test_errors_are_located(tmp_path, body, message):
    x = np.array([1, 2], np.float32 if "tensor<2xf32>" in body else np.int32)
    result = body[body.rindex(": ") + 2:]
    status, _, err = run(tmp_path, body, [x], result, "interp")
    assert status == 1 and message in err, err
    assert "f.mlir:2:" in err, err


@pytest.mark.parametrize("op,reference", [("tan", np.tan), ("sinh", np.sinh), ("cosh", np.cosh)])
def test_complex_tan_sinh_and_cosh(tmp_path, op, reference):
    # chlo.tan is StableHLO's tan; sinh(z) = -i sin(iz), cosh(z) = cos(iz)
    r = rng(9)
    z = (r.uniform(-3, 3, 50) + 1j * r.uniform(-3, 3, 50)).astype(np.complex128)
    t = tensor_type(z)
    status, got, err = run(tmp_path, chlo(op, t), [z], t, "interp")
    assert status == 0, err
    want = reference(z)
    assert np.all(np.abs(got - want) <= 8 * np.spacing(np.abs(want))), (got - want)


INVERSE = {"asin": (mpmath.asin, np.arcsin), "acos": (mpmath.acos, np.arccos),
           "atan": (mpmath.atan, np.arctan), "asinh": (mpmath.asinh, np.arcsinh),
           "acosh": (mpmath.acosh, np.arccosh), "atanh": (mpmath.atanh, np.arctanh)}


@pytest.mark.parametrize("op", sorted(INVERSE))
@pytest.mark.parametrize("engine", ENGINES)
def test_complex_inverse_functions(tmp_path, op, engine):
    """Kahan's formulas (docs/SEMANTICS.md, "CHLO's ops"): within 4 ulps
    norm-wise of mpmath off the axes, magnitudes 10^-8 to 10^8 and near the
    branch points ±1 and ±i included; on the axes, where the branch cuts'
    sides follow the zeros' signs, within 4 of numpy's C99 values."""
    exact, reference = INVERSE[op]
    r = rng(len(op))
    near = lambda c: c + 1e-9 * (r.standard_normal(30) + 1j * r.standard_normal(30))
    z = np.concatenate([(r.standard_normal(200) + 1j * r.standard_normal(200)) *
                        10.0 ** r.uniform(-8, 8, 200), near(1), near(-1), near(1j), near(-1j)])
    t = tensor_type(z)
    status, got, err = run(tmp_path, chlo(op, t), [z], t, engine)
    assert status == 0, err
    worst = max(float(abs(mpmath.mpc(complex(g)) - e) / abs(e)) / 2.0 ** -53
                for g, e in ((g, exact(mpmath.mpc(complex(v)))) for g, v in zip(got, z)))
    assert worst <= 4, worst
    axes = np.concatenate([r.uniform(-5, 5, 40) + 0j, np.array(r.uniform(-5, 5, 40) - 0j),
                           1j * r.uniform(-5, 5, 40), -0.0 + 1j * r.uniform(-5, 5, 40)])
    axes.imag[40:80] = -0.0
    axes.real[120:] = -0.0
    t = tensor_type(axes)
    status, got, err = run(tmp_path, chlo(op, t), [axes], t, engine)
    assert status == 0, err
    want = reference(axes)
    assert np.all(np.abs(got - want) <= 4 * np.spacing(np.abs(want))), op


def erf_inv_operands(seed):
    """Across (-1, 1): uniform, tiny magnitudes, and 1 - 2^-k close to ±1."""
    r = rng(seed)
    tails = 1 - 2.0 ** -r.uniform(1, 52, 150)
    x = np.concatenate([r.uniform(-1, 1, 300), 10.0 ** r.uniform(-300, -1, 150) *
                        r.choice([-1, 1], 150), tails * r.choice([-1, 1], 150)])
    return x


@pytest.mark.parametrize("engine", ENGINES)
def test_erf_inv_is_within_an_ulp_of_the_exact_inverse(tmp_path, engine):
    """chlo.erf_inv (docs/SEMANTICS.md, "CHLO's ops"): float64 within an ulp
    of mpmath's erfinv at 300 bits, the narrower types that value rounded
    to float32, then to the type; no decomposition, natively on every
    engine."""
    x = erf_inv_operands(31)
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo("erf_inv", t), [x], t, engine)
    assert status == 0, err
    worst = max(ulps_from_exact(g, mpmath.erfinv(mpmath.mpf(float(v)))) for g, v in zip(got, x))
    assert worst <= 1.0, worst
    for dtype in [np.float32, np.float16]:
        narrow = x.astype(dtype)
        t = tensor_type(narrow)
        status, got, err = run(tmp_path, chlo("erf_inv", t), [narrow], t, engine)
        assert status == 0, err
        with np.errstate(over="ignore"):
            want = np.array([float(mpmath.erfinv(mpmath.mpf(float(v)))) if abs(v) < 1 else
                             np.copysign(np.inf, v) for v in narrow]).astype(np.float32)
        mismatch = got != want.astype(dtype)
        assert mismatch.sum() == 0, (narrow[mismatch], got[mismatch], want[mismatch])


def test_erf_inv_special_values(tmp_path):
    x = np.array([0.0, -0.0, 1.0, -1.0, 1.5, -np.inf, np.nan, 5e-324])
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo("erf_inv", t), [x], t, "interp")
    assert status == 0, err
    want = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, np.nan, np.nan,
                     float(mpmath.erfinv(mpmath.mpf(5e-324)))])
    assert_bits(got, want)
    assert lower_reports(tmp_path, "chlo.erf_inv (a math function the Kernel IR has no operator")


def worst_errors(x, got, reference):
    """The largest error of got against reference(x) (mpmath): in ulps of
    the exact value for x > 0; for x <= 0 in ulps of the result or units
    of 2^-52 absolute, whichever is larger."""
    worst_positive = worst_negative = 0.0
    for g, v in zip(got, x):
        exact = reference(float(v))
        if v > 0:
            worst_positive = max(worst_positive, ulps_from_exact(g, exact))
        else:
            error = float(abs(mpmath.mpf(float(g)) - exact))
            worst_negative = max(worst_negative,
                                 error / max(float(np.spacing(abs(g))), 2.0 ** -52))
    return worst_positive, worst_negative


def lgamma_reference(x):
    if x <= 0 and x == int(x):
        return mpmath.mpf("inf")
    return mpmath.log(abs(mpmath.gamma(mpmath.mpf(x))))


def lgamma_operands(seed):
    """Positive and negative arguments: near the zeros at 1 and 2, small,
    moderate and huge, and negatives between the poles."""
    r = rng(seed)
    return np.concatenate([r.uniform(0.7, 2.3, 200), r.uniform(0, 20, 150),
                           10.0 ** r.uniform(-300, 300, 150), -r.uniform(0, 30, 150),
                           1 + r.uniform(-1e-8, 1e-8, 25), 2 + r.uniform(-1e-8, 1e-8, 25)])


@pytest.mark.parametrize("engine", ENGINES)
def test_lgamma_is_within_the_documented_error(tmp_path, engine):
    """chlo.lgamma (docs/SEMANTICS.md, "CHLO's ops"): float64 within an ulp
    of 300-bit mpmath for positive arguments, zeros at 1 and 2 included;
    below 0 within an ulp of the result's magnitude or 2^-52 absolute (the
    reflection cancels near the zeros between the poles)."""
    x = lgamma_operands(33)
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo("lgamma", t), [x], t, engine)
    assert status == 0, err
    worst_positive, worst_negative = worst_errors(x, got, lgamma_reference)
    assert worst_positive <= 1.0 and worst_negative <= 1.0, (worst_positive, worst_negative)


def test_lgamma_special_values(tmp_path):
    x = np.array([1.0, 2.0, 0.0, -0.0, -1.0, -3.0, np.inf, -np.inf, np.nan, 5e-324, 3e305,
                  -2.0 ** 53])
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo("lgamma", t), [x], t, "interp")
    assert status == 0, err
    want = np.array([0.0, 0.0, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, np.nan,
                     float(lgamma_reference(5e-324)), np.inf, np.inf])
    assert_bits(got, want)
    assert lower_reports(tmp_path, "chlo.lgamma (a math function the Kernel IR has no operator")


@pytest.mark.parametrize("engine", ENGINES)
def test_digamma_is_within_the_documented_error(tmp_path, engine):
    """chlo.digamma (docs/SEMANTICS.md, "CHLO's ops"): float64 within an ulp
    of 300-bit mpmath for positive arguments, its zero near 1.46 included;
    below 0 within 4 ulps of the result or 4 * 2^-52 absolute (the
    reflection's pi / tan(pi x) carries tan's error)."""
    r = rng(35)
    x = np.concatenate([r.uniform(1.2, 1.7, 150), r.uniform(0, 20, 150),
                        10.0 ** r.uniform(-300, 300, 150), -r.uniform(0, 30, 150),
                        1.4616321449683623 + r.uniform(-1e-9, 1e-9, 25)])
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo("digamma", t), [x], t, engine)
    assert status == 0, err
    worst_positive, worst_negative = worst_errors(x, got,
                                                  lambda v: mpmath.digamma(mpmath.mpf(v)))
    assert worst_positive <= 1.0 and worst_negative <= 4.0, (worst_positive, worst_negative)


def test_digamma_special_values(tmp_path):
    x = np.array([0.0, -0.0, -1.0, -7.0, np.inf, -np.inf, np.nan, 1.0, -2.0 ** 53])
    t = tensor_type(x)
    status, got, err = run(tmp_path, chlo("digamma", t), [x], t, "interp")
    assert status == 0, err
    want = np.array([-np.inf, np.inf, np.nan, np.nan, np.inf, np.nan, np.nan,
                     float(mpmath.digamma(1)), np.nan])
    assert_bits(got, want)
