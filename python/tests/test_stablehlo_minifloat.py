"""StableHLO's floats narrower than 16 bits (f8E4M3FN ... f4E2M1FN;
docs/SEMANTICS.md, "Values and dtypes"): every bit pattern's value, the
rounding of float32 values to each format and arithmetic rounded once, on
the interpreter. The expected values come from a decoder and a rounding
written here from the formats' definitions (exponent and mantissa bits,
bias, and what the largest encodings mean), with Python fractions; .npy
files hold the values as float32."""

from fractions import Fraction
import functools
import math

import numpy as np
import pytest

from test_stablehlo import assert_bits, lower_reports, rng, run

# MLIR name: (exponent bits, mantissa bits, bias, special)
# special: "ieee" (inf and NaN), "fn" (the all-ones encoding is NaN, no
# inf), "fnuz" (0x80 is NaN; no inf, no -0), "none" (neither).
FORMATS = {
    "f8E4M3FN": (4, 3, 7, "fn"), "f8E5M2": (5, 2, 15, "ieee"), "f8E4M3": (4, 3, 7, "ieee"),
    "f8E3M4": (3, 4, 3, "ieee"), "f8E4M3FNUZ": (4, 3, 8, "fnuz"),
    "f8E5M2FNUZ": (5, 2, 16, "fnuz"), "f8E4M3B11FNUZ": (4, 3, 11, "fnuz"),
    "f6E2M3FN": (2, 3, 1, "none"), "f6E3M2FN": (3, 2, 3, "none"), "f4E2M1FN": (2, 1, 1, "none"),
}


def decode(name, bits):
    e, m, bias, special = FORMATS[name]
    sign = -1 if bits >> (e + m) & 1 else 1
    exponent, mantissa = bits >> m & ((1 << e) - 1), bits & ((1 << m) - 1)
    top = (1 << e) - 1
    if special == "fnuz" and bits == 1 << 7:
        return math.nan
    if special == "ieee" and exponent == top:  # a NaN keeps its sign in float32
        return math.copysign(math.nan, sign) if mantissa else sign * math.inf
    if special == "fn" and exponent == top and mantissa == (1 << m) - 1:
        return math.copysign(math.nan, sign)
    if exponent == 0:
        return math.copysign(mantissa * 2.0 ** (1 - bias - m), sign)
    return sign * (1 + mantissa / 2 ** m) * 2.0 ** (exponent - bias)


@functools.lru_cache(maxsize=None)
def finite_values(name):
    e, m, _, _ = FORMATS[name]
    values = {}
    for bits in range(1 << (e + m + 1)):
        v = decode(name, bits)
        if math.isfinite(v):
            values.setdefault(v, bits)
    return values


def round_to(name, x):
    """x rounded to the nearest value of the format, ties to the even
    mantissa; past the largest finite value: inf, NaN or the largest."""
    e, m, bias, special = FORMATS[name]
    if math.isnan(x):
        return 0.0 if special == "none" else math.nan if special == "fnuz" else x
    values = finite_values(name)
    largest = max(values)
    if math.isinf(x):
        r = math.inf
    else:
        exact = Fraction(abs(x))
        below = max((v for v in values if v >= 0 and Fraction(v) <= exact), default=0.0)
        above = min((v for v in values if Fraction(v) >= exact), default=None)
        if above is None:  # beyond the largest: rounded as if the exponent went on,
            # the tie half an ulp above going to the even mantissa (the largest
            # value's when it is even, as E4M3FN's 1.110 x 2^8 is)
            ulp = Fraction(largest) - Fraction(max(v for v in values if v < largest))
            tie = Fraction(largest) + ulp / 2
            even = values[largest] % 2 == 0
            r = largest if exact < tie or (exact == tie and even) else math.inf
        elif Fraction(above) - exact < exact - Fraction(below):
            r = above
        elif Fraction(above) - exact > exact - Fraction(below):
            r = below
        else:
            r = below if values[below] % 2 == 0 else above
    if r > largest:
        r = math.inf if special == "ieee" else largest if special == "none" else math.nan
    if special == "fnuz" and (r == 0 or math.isnan(r)):  # one zero, one NaN
        return 0.0 if r == 0 else math.nan
    return math.copysign(r, x)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_bit_pattern(tmp_path, name):
    e, m, _, _ = FORMATS[name]
    n = 1 << (e + m + 1)
    t = f"tensor<{n}x{name}>"
    literal = ", ".join(f"0x{b:02X}" for b in range(n))
    body = f"  %0 = stablehlo.constant dense<[{literal}]> : {t}\n  return %0 : {t}"
    status, got, err = run(tmp_path, body, [], t, "interp")
    assert status == 0, err
    assert_bits(got, np.array([decode(name, b) for b in range(n)], np.float32))


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_conversions_round_to_nearest_even(tmp_path, name):
    values = sorted(finite_values(name))
    r = rng(len(name))
    # Every value, every midpoint (ties), points near them, beyond the
    # largest, and the specials.
    mids = [(a + b) / 2 for a, b in zip(values, values[1:])]
    x = np.array(values + mids + [v * (1 + 2.0 ** -20) for v in mids] +
                 [v * (1 - 2.0 ** -20) for v in mids] + list(r.standard_normal(200) * max(values)) +
                 [max(values) * 1.03, max(values) * 4, -max(values) * 4, math.inf, -math.inf,
                  math.nan, 1e-30, -1e-30], np.float32)
    n = x.size
    body = (f"  %0 = stablehlo.convert %arg0 : (tensor<{n}xf32>) -> tensor<{n}x{name}>\n"
            f"  return %0 : tensor<{n}x{name}>")
    status, got, err = run(tmp_path, body, [x], f"tensor<{n}x{name}>", "interp")
    assert status == 0, err
    assert_bits(got, np.array([round_to(name, float(v)) for v in x], np.float32))


@pytest.mark.parametrize("name", ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f4E2M1FN"])
def test_arithmetic_rounds_once(tmp_path, name):
    values = sorted(finite_values(name))
    pairs = [(a, b) for a in values for b in values][::7]
    a = np.array([p[0] for p in pairs], np.float32)
    b = np.array([p[1] for p in pairs], np.float32)
    t = f"tensor<{a.size}x{name}>"
    body = (f"  %0 = stablehlo.add %arg0, %arg1 : {t}\n  %1 = stablehlo.multiply %arg0, %arg1 : "
            f"{t}\n  %2 = stablehlo.add %0, %1 : {t}\n  return %2 : {t}")
    status, got, err = run(tmp_path, body, [a, b], t, "interp", [t, t])
    assert status == 0, err
    # The sum and the product of two values of 4 significant bits are exact
    # in float64: one rounding each, as the ops do.
    want = [round_to(name, round_to(name, float(x) + float(y)) + round_to(name, float(x) * float(y)))
            for x, y in zip(a, b)]
    assert_bits(got, np.array(want, np.float32))


def test_inputs_must_hold_values_of_the_type(tmp_path):
    t = "tensor<3xf8E4M3FN>"
    body = f"  return %arg0 : {t}"
    status, got, err = run(tmp_path, body, [np.array([1.0, 448.0, 0.1015625], np.float32)], t,
                           "interp", [t])
    assert status == 0, err
    assert_bits(got, np.array([1.0, 448.0, 0.1015625], np.float32))
    status, _, err = run(tmp_path, body, [np.array([1.0, 0.1, 2.0], np.float32)], t, "interp", [t])
    assert status == 1 and "holds 0.1 at element 1, which is not a value of f8E4M3FN" in err, err


@pytest.mark.parametrize("engine", ["ireval", "jit"])
def test_kernel_engines_run_them_natively(tmp_path, engine):
    t = "tensor<3xf8E5M2>"
    status, got, err = run(tmp_path, f"  %0 = stablehlo.add %arg0, %arg0 : {t}\n  return %0 : {t}",
                           [np.array([1.0, 2.0, 40960.0], np.float32)], t, engine, [t])
    assert status == 0, err
    assert_bits(got, np.array([2.0, 4.0, np.inf], np.float32))  # E5M2 overflows to inf
    assert lower_reports(tmp_path, "values of f8E5M2 have no einstein_v2 decomposition")


# The MX scale type f8E8M0FNU: no sign, no mantissa, no zero, no infinity;
# its byte b is 2^(b - 127) but 0xFF, the NaN.
E8M0 = "f8E8M0FNU"


def decode_e8m0(bits):
    return math.nan if bits == 0xFF else 2.0 ** (bits - 127)


def round_e8m0(x):
    """The nearest power of two from 2^-127 to 2^127, a tie (1.5 x 2^k)
    going up; zero and values below 2^-127 are 2^-127; negative values,
    infinities and values whose power is beyond 2^127 are NaN."""
    if math.isnan(x) or math.isinf(x) or x < 0:
        return math.nan
    exact = Fraction(x)
    k = -127
    while k < 128 and Fraction(2) ** k * Fraction(3, 2) <= exact:  # the tie goes up
        k += 1
    return math.nan if k > 127 else 2.0 ** k


def test_e8m0_every_bit_pattern(tmp_path):
    t = f"tensor<256x{E8M0}>"
    literal = ", ".join(f"0x{b:02X}" for b in range(256))
    body = f"  %0 = stablehlo.constant dense<[{literal}]> : {t}\n  return %0 : {t}"
    status, got, err = run(tmp_path, body, [], t, "interp")
    assert status == 0, err
    assert_bits(got, np.array([decode_e8m0(b) for b in range(256)], np.float32))


def test_e8m0_literals(tmp_path):
    # A literal is rounded as a conversion is: 0.0 has no encoding (2^-127),
    # 0.1 is nearer 2^-3 than 2^-4, 3.1415 nearer 4 than 2, and a hex
    # literal is the bits.
    t = f"tensor<8x{E8M0}>"
    body = (f"  %0 = stablehlo.constant dense<[0.0, 1.0, 0.125, 0.1, 3.1415, 0x00, 0x80, 0xFF]> "
            f": {t}\n  return %0 : {t}")
    status, got, err = run(tmp_path, body, [], t, "interp")
    assert status == 0, err
    assert_bits(got, np.array([2.0 ** -127, 1, 0.125, 0.125, 4, 2.0 ** -127, 2, np.nan],
                              np.float32))


@pytest.mark.parametrize("engine", ["interp", "ireval", "jit"])
def test_e8m0_conversions(tmp_path, engine):
    powers = [2.0 ** k for k in range(-127, 128)]
    r = rng(8)
    x = np.array(powers + [p * 1.5 for p in powers] + [p * 1.5 * (1 + 2.0 ** -20) for p in powers] +
                 [p * 1.5 * (1 - 2.0 ** -20) for p in powers[1:]] +
                 list(np.exp(r.uniform(-80, 80, 200))) +
                 [0.0, -0.0, -1.0, -2.0 ** -127, 1e-45, 2.0 ** -128, 2.0 ** -128 * 1.5, math.inf,
                  -math.inf, math.nan, 3.3e38], np.float32)
    n = x.size
    body = (f"  %0 = stablehlo.convert %arg0 : (tensor<{n}xf32>) -> tensor<{n}x{E8M0}>\n"
            f"  return %0 : tensor<{n}x{E8M0}>")
    status, got, err = run(tmp_path, body, [x], f"tensor<{n}x{E8M0}>", engine)
    assert status == 0, err
    assert_bits(got, np.array([round_e8m0(float(v)) for v in x], np.float32))


def test_e8m0_arithmetic_rounds_once(tmp_path):
    r = rng(9)
    a = np.array([2.0 ** k for k in r.integers(-127, 128, 300)] + [np.nan, 1.0], np.float32)
    b = np.array([2.0 ** k for k in r.integers(-127, 128, 300)] + [1.0, np.nan], np.float32)
    t = f"tensor<{a.size}x{E8M0}>"
    # Sums, products, differences and quotients of powers of two are exact
    # in float64 but where a product or a quotient leaves its range: one
    # rounding each, as the ops make.
    pairs = [(float(x), float(y)) for x, y in zip(a, b)]
    cases = {
        "%0 = stablehlo.add %arg0, %arg1": [round_e8m0(x + y) for x, y in pairs],
        "%0 = stablehlo.multiply %arg0, %arg1": [round_e8m0(x * y) for x, y in pairs],
        "%0 = stablehlo.divide %arg0, %arg1": [round_e8m0(x / y) for x, y in pairs],
        "%0 = stablehlo.subtract %arg0, %arg1": [round_e8m0(x - y) for x, y in pairs],
        "%0 = stablehlo.maximum %arg0, %arg1": [math.nan if math.isnan(x) or math.isnan(y) else
                                                max(x, y) for x, y in pairs],
    }
    for op, want in cases.items():
        status, got, err = run(tmp_path, f"  {op} : {t}\n  return %0 : {t}", [a, b], t, "interp",
                               [t, t])
        assert status == 0, err
        assert_bits(got, np.array(want, np.float32))


def test_e8m0_inputs_must_hold_values_of_the_type(tmp_path):
    t = f"tensor<3x{E8M0}>"
    body = f"  return %arg0 : {t}"
    ok = np.array([1.0, 2.0 ** -127, np.nan], np.float32)
    status, got, err = run(tmp_path, body, [ok], t, "interp", [t])
    assert status == 0, err
    assert_bits(got, ok)
    for bad, shown in [(0.0, "0.0"), (3.0, "3.0"), (-2.0, "-2.0")]:
        status, _, err = run(tmp_path, body, [np.array([1.0, bad, 2.0], np.float32)], t, "interp",
                             [t])
        assert status == 1 and f"holds {shown} at element 1, which is not a value of {E8M0}" in err, err
