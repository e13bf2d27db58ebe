"""StableHLO's bit operations of integers (docs/SEMANTICS.md, "StableHLO's
bit operations"): and, or, xor, the three shifts, popcnt and
count_leading_zeros, run as users run them (`teval run FILE.mlir`) on
every engine. The expected values are computed here, element by element,
on the two's complement bit patterns as Python integers: the
specification's meaning, never teval's."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, run, tensor_type

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8]


def width(dtype):
    return np.dtype(dtype).itemsize * 8


def bits_of(v, dtype):
    """The value's bit pattern as a non-negative Python integer."""
    return int(v) % (1 << width(dtype))


def value_of(pattern, dtype):
    """The element of dtype whose bit pattern is `pattern` (below 2^width)."""
    w = width(dtype)
    if np.dtype(dtype).kind == "i" and pattern >> (w - 1):
        pattern -= 1 << w
    return pattern


def shifted(op, x, n, dtype):
    w = width(dtype)
    u = bits_of(x, dtype)
    top = u >> (w - 1)
    if op == "shift_left":
        return value_of((u << n) % (1 << w) if 0 <= n < w else 0, dtype)
    if op == "shift_right_logical":
        return value_of(u >> n if 0 <= n < w else 0, dtype)
    # arithmetic: the top bit copied into every vacated position
    if not 0 <= n < w:
        return value_of((1 << w) - 1 if top else 0, dtype)
    fill = ((1 << n) - 1) << (w - n) if top else 0
    return value_of((u >> n) | fill, dtype)


def extremes(dtype, count, seed):
    """Values across the whole range, its ends and small ones."""
    info = np.iinfo(dtype)
    edge = [info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max]
    edge = [v for v in edge if info.min <= v <= info.max]
    wide = rng(seed).integers(info.min, info.max, count, dtype=dtype, endpoint=True)
    return np.concatenate([np.array(edge, dtype=dtype), wide])


def amounts(dtype, count, seed):
    """Shift amounts below 0, in [0, width) and beyond it."""
    info = np.iinfo(dtype)
    w = width(dtype)
    lo = max(info.min, -3)
    values = rng(seed).integers(lo, min(info.max, w + 3), count, endpoint=True)
    return values.astype(dtype)


def unary(op, x, engine, tmp_path, form):
    t = tensor_type(x)
    text = (f'"stablehlo.{op}"(%arg0) : ({t}) -> {t}' if form == "generic"
            else f"stablehlo.{op} %arg0 : {t}")
    return run(tmp_path, f"  %0 = {text}\n  return %0 : {t}", [x], t, engine)


def binary(op, x, y, engine, tmp_path, form):
    t = tensor_type(x)
    text = (f'"stablehlo.{op}"(%arg0, %arg1) : ({t}, {t}) -> {t}' if form == "generic"
            else f"stablehlo.{op} %arg0, %arg1 : {t}")
    return run(tmp_path, f"  %0 = {text}\n  return %0 : {t}", [x, y], t, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_bitwise(tmp_path, engine, dtype, op):
    x = extremes(dtype, 25, 1)
    y = extremes(dtype, 25, 2)[::-1].copy()
    f = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}[op]
    want = np.array([value_of(f(bits_of(a, dtype), bits_of(b, dtype)), dtype)
                     for a, b in zip(x, y)], dtype=dtype)
    status, got, err = binary(op, x, y, engine, tmp_path, "pretty" if dtype == np.int8 else
                              "generic")
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["shift_left", "shift_right_arithmetic", "shift_right_logical"])
def test_shifts(tmp_path, engine, dtype, op):
    x = extremes(dtype, 33, 3)
    n = amounts(dtype, len(x), 4)
    want = np.array([shifted(op, a, int(b), dtype) for a, b in zip(x, n)], dtype=dtype)
    status, got, err = binary(op, x, n, engine, tmp_path, "generic" if dtype == np.int8 else
                              "pretty")
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["popcnt", "count_leading_zeros"])
def test_counts(tmp_path, engine, dtype, op):
    x = extremes(dtype, 25, 5)
    w = width(dtype)
    if op == "popcnt":
        want = [bin(bits_of(a, dtype)).count("1") for a in x]
    else:
        want = [w - bits_of(a, dtype).bit_length() for a in x]
    status, got, err = unary(op, x, engine, tmp_path, "pretty")
    assert status == 0, err
    assert_bits(got, np.array(want, dtype=dtype))


@pytest.mark.parametrize("op", ["shift_left", "popcnt", "and"])
def test_errors(tmp_path, op):
    """Floats (and, for the shifts and counts, i1) are errors at the op."""
    x = np.array([1.5], dtype=np.float32)
    if op == "popcnt":
        status, _, err = unary(op, x, "interp", tmp_path, "pretty")
        assert status == 1 and "popcnt takes integer values, not tensor<1xf32>" in err, err
        b = np.array([True])
        status, _, err = unary(op, b, "interp", tmp_path, "pretty")
        assert status == 1 and "popcnt takes integer values, not tensor<1xi1>" in err, err
    else:
        status, _, err = binary(op, x, x, "interp", tmp_path, "pretty")
        assert status == 1, err
        assert (f"{op} takes integer values" in err if op == "shift_left"
                else "and takes i1 or integer values, not tensor<1xf32>" in err), err
        assert "f.mlir:2:" in err, err
