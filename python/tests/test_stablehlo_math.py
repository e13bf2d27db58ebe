"""StableHLO's atan2, cbrt, exponential_minus_one and log_plus_one
(docs/SEMANTICS.md, "Values and arithmetic"): teval's math library computes
each in double-double and rounds once; float32, float16 and bfloat16 take
the float64 value rounded to float, then to their type. The expected values
are mpmath's at 300 bits (independent of teval), within the documented
error; the special values (C99 Annex F for atan2) are exact. Kernels have
no such operators: ireval and the JIT decline these functions."""

import mpmath
import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, tensor_type

mpmath.mp.prec = 300

REFERENCE = {
    "exponential_minus_one": mpmath.expm1,
    "log_plus_one": lambda x: (mpmath.log1p(x) if x > -1 else
                               mpmath.mpf("-inf") if x == -1 else mpmath.nan),
    "cbrt": lambda x: mpmath.cbrt(x) if x >= 0 else -mpmath.cbrt(-x),
    "atan2": mpmath.atan2,
}

# The largest error measured against the exact value, in ulps of the
# result (docs/SEMANTICS.md): faithful (below 1) for expm1 and log1p, correctly
# rounded in every case measured for cbrt and atan2.
ALLOWED = {"exponential_minus_one": 1.0, "log_plus_one": 1.0, "cbrt": 0.5, "atan2": 0.5}


def operands(seed, n=600):
    r = rng(seed)
    magnitudes = 10.0 ** r.uniform(-30, 30, n)
    x = np.concatenate([r.standard_normal(n) * magnitudes, r.uniform(-3, 3, n),
                        r.uniform(-0.4, 0.4, n)])
    return x


def ulps_from_exact(got, exact):
    """|got - exact| in ulps of got (float64)."""
    if mpmath.isnan(exact) or mpmath.isinf(exact):
        return 0.0 if float(exact) == got or (np.isnan(got) and mpmath.isnan(exact)) else 1e9
    return float(abs(mpmath.mpf(float(got)) - exact) / np.spacing(abs(got)))


@pytest.mark.parametrize("op", sorted(REFERENCE))
def test_float64_within_the_documented_error(tmp_path, op):
    x = operands(1)
    y = operands(2)[::-1].copy()
    if op == "log_plus_one":
        x = np.where(x > -1, x, -x)
    inputs = [x, y] if op == "atan2" else [x]
    t = tensor_type(x)
    body = f"  %0 = stablehlo.{op} {', '.join(f'%arg{i}' for i in range(len(inputs)))} : {t}\n" \
           f"  return %0 : {t}"
    status, got, err = run(tmp_path, body, inputs, t, "interp")
    assert status == 0, err
    worst = 0.0
    for i in range(x.size):
        args = [mpmath.mpf(float(a[i])) for a in inputs]
        worst = max(worst, ulps_from_exact(got[i], REFERENCE[op](*args)))
    assert worst <= ALLOWED[op], (op, worst)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", sorted(REFERENCE))
def test_narrow_floats_round_the_float64_value(tmp_path, op, dtype):
    """float32: the float64 value rounded to float; float16: then to half
    (two roundings, as for every float16 math function)."""
    x = operands(3, 200).astype(dtype)
    y = operands(4, 200)[::-1].astype(dtype)
    if op == "log_plus_one":
        x = np.where(x > -1, x, -x).astype(dtype)
    if op == "atan2":  # signed zeros (mpmath has none) are test_special_values'
        x = np.where(x == 0, dtype(1), x).astype(dtype)
    inputs = [x, y] if op == "atan2" else [x]
    t = tensor_type(x)
    body = f"  %0 = stablehlo.{op} {', '.join(f'%arg{i}' for i in range(len(inputs)))} : {t}\n" \
           f"  return %0 : {t}"
    status, got, err = run(tmp_path, body, inputs, t, "interp")
    assert status == 0, err
    with np.errstate(all="ignore"):
        want = np.array([float(REFERENCE[op](*[mpmath.mpf(float(a[i])) for a in inputs]))
                         for i in range(x.size)]).astype(np.float32).astype(dtype)
    # The float64 value is within an ulp of float64 of the exact one: its
    # rounding to float32 can differ from the exact value's only at a tie.
    mismatch = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert mismatch.sum() == 0, (x[mismatch], inputs[-1][mismatch], got[mismatch], want[mismatch])


def test_special_values(tmp_path):
    inf, nan = np.inf, np.nan
    pi = np.float64(np.pi)
    cases = {
        "exponential_minus_one": [(0.0, 0.0), (-0.0, -0.0), (inf, inf), (-inf, -1.0), (nan, nan),
                                  (710.0, inf), (-50.0, -1.0), (1e-300, 1e-300)],
        "log_plus_one": [(0.0, 0.0), (-0.0, -0.0), (-1.0, -inf), (-2.0, nan), (inf, inf),
                         (-inf, nan), (nan, nan), (1e-300, 1e-300)],
        "cbrt": [(0.0, 0.0), (-0.0, -0.0), (-8.0, -2.0), (27.0, 3.0), (inf, inf), (-inf, -inf),
                 (nan, nan), (2.0**-1074, 2.0**-358), (-(2.0**999), -(2.0**333))],
    }
    for op, pairs in cases.items():
        x = np.array([p[0] for p in pairs])
        want = np.array([p[1] for p in pairs])
        t = tensor_type(x)
        status, got, err = run(tmp_path, f"  %0 = stablehlo.{op} %arg0 : {t}\n  return %0 : {t}",
                               [x], t, "interp")
        assert status == 0, err
        assert_bits(got, want)
    # atan2(y, x), C99 Annex F.9.1.4.
    pairs = [((0.0, 1.0), 0.0), ((-0.0, 1.0), -0.0), ((0.0, -0.0), pi), ((-0.0, -0.0), -pi),
             ((0.0, 0.0), 0.0), ((-0.0, -1.0), -pi), ((1.0, 0.0), pi / 2), ((-1.0, -0.0), -pi / 2),
             ((inf, inf), pi / 4), ((-inf, -inf), -3 * pi / 4), ((inf, 5.0), pi / 2),
             ((3.0, -inf), pi), ((-3.0, inf), -0.0), ((nan, 1.0), nan), ((1.0, nan), nan),
             ((1e-300, 1e300), 0.0), ((1.0, 1.0), pi / 4)]
    y = np.array([p[0][0] for p in pairs])
    x = np.array([p[0][1] for p in pairs])
    want = np.array([p[1] for p in pairs])
    t = tensor_type(y)
    status, got, err = run(tmp_path, f"  %0 = stablehlo.atan2 %arg0, %arg1 : {t}\n"
                           f"  return %0 : {t}", [y, x], t, "interp")
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "interp"])
def test_kernel_engines_run_them_natively(tmp_path, engine):
    x = np.array([0.5, 1.5, -0.0, np.inf, -1.0, 1e-30], np.float32)
    t = tensor_type(x)
    for op, inputs in [("cbrt", [x]), ("exponential_minus_one", [x]), ("log_plus_one", [x]),
                       ("atan2", [x, x[::-1].copy()])]:
        operands = ", ".join(f"%arg{i}" for i in range(len(inputs)))
        text = f"  %0 = stablehlo.{op} {operands} : {t}\n  return %0 : {t}"
        status, want, err = run(tmp_path, text, inputs, t, "interp")
        assert status == 0, err
        status, got, err = run(tmp_path, text, inputs, t, engine)
        assert status == 0, err
        assert_bits(got, want)
        assert lower_reports(tmp_path, f"{op} (a math function the Kernel IR has no operator for)")


def test_integer_operands_are_errors(tmp_path):
    x = np.array([1, 2], np.int32)
    t = tensor_type(x)
    for op in ["cbrt", "exponential_minus_one", "log_plus_one"]:
        status, _, err = run(tmp_path, f"  %0 = stablehlo.{op} %arg0 : {t}\n  return %0 : {t}",
                             [x], t, "interp")
        assert status == 1 and f"{op} takes a float or complex tensor" in err, err
    status, _, err = run(tmp_path, f"  %0 = stablehlo.atan2 %arg0, %arg0 : {t}\n"
                         f"  return %0 : {t}", [x], t, "interp")
    assert status == 1 and "atan2 takes a float or complex tensor" in err, err
