"""StableHLO's atan2, cbrt, exponential_minus_one and log_plus_one
(docs/SEMANTICS.md, "Values and arithmetic"): teval's math library computes
each in double-double and rounds once; float32, float16 and bfloat16 take
the float64 value rounded to float, then to their type. The expected values
are mpmath's at 300 bits (independent of teval), within the documented
error; the special values (C99 Annex F for atan2) are exact, on every
engine (they are the Kernel IR's atan2, cbrt, expm1 and log1p). `teval
check` bounds them: numpy's results are legal, one far off is not."""

import subprocess

import mpmath
import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, run, teval, tensor_type

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


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", sorted(REFERENCE))
def test_narrow_floats_round_the_float64_value(tmp_path, op, dtype, engine):
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
    status, got, err = run(tmp_path, body, inputs, t, engine)
    assert status == 0, err
    with np.errstate(all="ignore"):
        want = np.array([float(REFERENCE[op](*[mpmath.mpf(float(a[i])) for a in inputs]))
                         for i in range(x.size)]).astype(np.float32).astype(dtype)
    # The float64 value is within an ulp of float64 of the exact one: its
    # rounding to float32 can differ from the exact value's only at a tie.
    mismatch = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert mismatch.sum() == 0, (x[mismatch], inputs[-1][mismatch], got[mismatch], want[mismatch])


@pytest.mark.parametrize("engine", ENGINES)
def test_special_values(tmp_path, engine):
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
                               [x], t, engine)
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
                           f"  return %0 : {t}", [y, x], t, engine)
    assert status == 0, err
    assert_bits(got, want)


def check(tmp_path, inputs, candidate):
    """`teval check` of the f.mlir run() wrote last: exit status, stdout."""
    command = [teval(), "check", str(tmp_path / "f.mlir")]
    for i, a in enumerate(inputs):
        command += ["-i", f"arg{i}={tmp_path / f'arg{i}.npy'}"]
    np.save(tmp_path / "candidate.npy", candidate)
    done = subprocess.run(command + ["--candidate", f"result0={tmp_path / 'candidate.npy'}"],
                          capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_check_bounds_them_rigorously(tmp_path, dtype):
    """numpy's results (another library: glibc's) are legal results; one
    moved 64 ulps is a mismatch at its index."""
    r = rng(9)
    x = (r.standard_normal(64) * 10.0 ** r.uniform(-8, 2, 64)).astype(dtype)
    y = r.standard_normal(64).astype(dtype)
    with np.errstate(all="ignore"):
        cases = {"cbrt": ([x], np.cbrt(x)), "exponential_minus_one": ([x], np.expm1(x)),
                 "log_plus_one": ([np.abs(x)], np.log1p(np.abs(x))),
                 "atan2": ([x, y], np.arctan2(x, y))}
    for op, (inputs, numpy_result) in cases.items():
        t = tensor_type(inputs[0])
        operands = ", ".join(f"%arg{i}" for i in range(len(inputs)))
        status, _, err = run(tmp_path, f"  %0 = stablehlo.{op} {operands} : {t}\n"
                             f"  return %0 : {t}", inputs, t, "interp")
        assert status == 0, err
        status, out = check(tmp_path, inputs, numpy_result.astype(dtype))
        assert status == 0 and "result0: " in out and "mismatch" not in out, (op, out)
        wrong = numpy_result.astype(dtype)
        wrong[5] = wrong[5] + np.spacing(wrong[5]) * 64
        status, out = check(tmp_path, inputs, wrong)
        assert status == 1 and "mismatch" in out and "[5]" in out, (op, out)


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
