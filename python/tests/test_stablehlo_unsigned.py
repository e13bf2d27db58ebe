"""Unsigned integers wider than a byte, ui16, ui32 and ui64 (uint16, uint32,
uint64; docs/SEMANTICS.md, "Values and dtypes"), through StableHLO functions
and einstein_v2 expressions on every engine. The expected values are
numpy's unsigned arithmetic, which wraps modulo 2^width as the StableHLO
specification's integer ops do; the operands reach past 2^(width - 1),
where a signed reading would differ. Kernels have no uint64: the ops of
ui64 values run with their native references on every engine."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, teval, tensor_type

UNSIGNED = [np.uint16, np.uint32, np.uint64]


def run_unsigned(tmp_path, body, inputs, result, engine, dtype):
    """run(), which must succeed; a ui64 function has no decomposition
    (`teval lower` says so), its ops run natively on every engine."""
    status, got, err = run(tmp_path, body, inputs, result, engine)
    assert status == 0, err
    if dtype == np.uint64:
        assert lower_reports(tmp_path, "values of ui64 have no einstein_v2 decomposition")
    return got


def operands(dtype, seed, n=48):
    """Values across the whole range, its ends and the signed boundary."""
    top = np.iinfo(dtype).max
    r = rng(seed)
    x = r.integers(0, int(top), n, dtype=np.uint64, endpoint=True).astype(dtype)
    x[:6] = [0, 1, top, top - 1, top // 2, top // 2 + 1]
    return x


def binary_body(op, x, attrs=""):
    t = tensor_type(x)
    return f"  %0 = stablehlo.{op} %arg0, %arg1{attrs} : {t}\n  return %0 : {t}", t


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_arithmetic_wraps(tmp_path, engine, dtype):
    x, y = operands(dtype, 1), operands(dtype, 2)[::-1].copy()
    nonzero = np.where(y == 0, dtype(3), y)
    cases = {"add": (y, x + y), "subtract": (y, x - y), "multiply": (y, x * y),
             "divide": (nonzero, x // nonzero), "remainder": (nonzero, x % nonzero),
             "maximum": (y, np.maximum(x, y)), "minimum": (y, np.minimum(x, y)),
             "and": (y, x & y), "or": (y, x | y), "xor": (y, x ^ y)}
    for op, (other, want) in cases.items():
        body, t = binary_body(op, x)
        got = run_unsigned(tmp_path, body, [x, other], t, engine, dtype)
        assert_bits(got, want.astype(dtype))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_compare_is_unsigned(tmp_path, engine, dtype):
    x, y = operands(dtype, 3), operands(dtype, 4)
    t = tensor_type(x)
    out = tensor_type(np.zeros(x.shape, np.bool_))
    for direction, f in [("LT", np.less), ("GE", np.greater_equal), ("EQ", np.equal)]:
        for kind in ["", ", UNSIGNED"]:
            body = (f"  %0 = stablehlo.compare {direction}, %arg0, %arg1{kind} : ({t}, {t}) -> "
                    f"{out}\n  return %0 : {out}")
            got = run_unsigned(tmp_path, body, [x, y], out, engine, dtype)
            assert_bits(got, f(x, y))
    body = (f"  %0 = stablehlo.compare LT, %arg0, %arg1, SIGNED : ({t}, {t}) -> {out}\n"
            f"  return %0 : {out}")
    status, got, err = run(tmp_path, body, [x, y], out, "interp")
    assert status == 1 and "compare_type SIGNED does not fit" in err, err


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_shifts_and_counts(tmp_path, engine, dtype):
    width = np.iinfo(dtype).bits
    x = operands(dtype, 5)
    amount = (np.arange(x.size) % (width + 2)).astype(dtype)  # width and past it too
    big = amount >= width
    safe = np.where(big, 0, amount).astype(dtype)
    for op, want in [("shift_left", np.where(big, 0, x << safe)),
                     ("shift_right_logical", np.where(big, 0, x >> safe))]:
        body, t = binary_body(op, x)
        got = run_unsigned(tmp_path, body, [x, amount], t, engine, dtype)
        assert_bits(got, want.astype(dtype))
    t = tensor_type(x)
    popcount = np.array([bin(int(v)).count("1") for v in x], dtype)
    leading = np.array([width - int(v).bit_length() for v in x], dtype)
    for op, want in [("popcnt", popcount), ("count_leading_zeros", leading),
                     ("not", ~x)]:
        body = f"  %0 = stablehlo.{op} %arg0 : {t}\n  return %0 : {t}"
        got = run_unsigned(tmp_path, body, [x], t, engine, dtype)
        assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_conversions(tmp_path, engine):
    x = operands(np.uint32, 6)
    t = tensor_type(x)
    # To floats: rounded to nearest from the unsigned value; to narrower and
    # signed integers: wrapped (two's complement of the low bits).
    for to in [np.float32, np.float64, np.int32, np.uint16, np.int64, np.uint8]:
        want = x.astype(to)
        out = tensor_type(want)
        body = f"  %0 = stablehlo.convert %arg0 : ({t}) -> {out}\n  return %0 : {out}"
        status, got, err = run(tmp_path, body, [x], out, engine)
        assert status == 0, (to, err)
        assert_bits(got, want)
    # From floats in range, truncated; from signed integers, wrapped.
    f = np.array([0.0, 0.75, 1.5, 65535.9, 4294967040.0, 3e9], np.float32)
    s = np.array([-1, -2, 0, 7, -65536, 2**31 - 1], np.int32)
    for v, to in [(f, np.uint32), (s, np.uint32), (s, np.uint16)]:
        want = np.trunc(v).astype(np.int64).astype(to) if v.dtype.kind == "f" else v.astype(to)
        out = tensor_type(want)
        body = (f"  %0 = stablehlo.convert %arg0 : ({tensor_type(v)}) -> {out}\n"
                f"  return %0 : {out}")
        status, got, err = run(tmp_path, body, [v], out, engine)
        assert status == 0, (to, err)
        assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_reduce_and_iota(tmp_path, engine):
    x = operands(np.uint32, 7).reshape(4, 12)
    t = tensor_type(x)
    out = "tensor<4xui32>"
    body = (f"  %c = stablehlo.constant dense<4294967295> : tensor<ui32>\n"
            f"  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across "
            f"dimensions = [1] : ({t}, tensor<ui32>) -> {out}\n  return %0 : {out}")
    status, got, err = run(tmp_path, body, [x], out, engine)
    assert status == 0, err
    want = (x.astype(np.uint64).sum(axis=1) + 2**32 - 1) % 2**32
    assert_bits(got, want.astype(np.uint32))
    body = "  %0 = stablehlo.iota dim = 0 : tensor<70000xui16>\n  return %0 : tensor<70000xui16>"
    status, got, err = run(tmp_path, body, [x], "tensor<70000xui16>", engine)
    assert status == 0, err
    assert_bits(got, (np.arange(70000) % 2**16).astype(np.uint16))


@pytest.mark.parametrize("engine", ENGINES)
def test_einstein_v2_promotion_and_wrapping(tmp_path, engine):
    """uint32 * uint32 stays uint32 and wraps; uint32 with int32 is int64;
    uint16 with int16 is int32 (numpy's promotion)."""
    x = operands(np.uint32, 8, 16)
    y = operands(np.uint32, 9, 16)
    s = rng(10).integers(-2**31, 2**31, 16).astype(np.int32)
    h = operands(np.uint16, 11, 16)
    k = rng(12).integers(-2**15, 2**15, 16).astype(np.int16)
    paths = {}
    for name, a in [("x", x), ("y", y), ("s", s), ("h", h), ("k", k)]:
        paths[name] = tmp_path / f"{name}.npy"
        np.save(paths[name], a)
    nonzero = np.where(y == 0, np.uint32(1), y)
    np.save(paths["y"], nonzero)
    wants = {"x[N] * y[N] + x[N] / y[N]": x * nonzero + x // nonzero,
             "x[N] + s[N]": x.astype(np.int64) + s.astype(np.int64),
             "h[N] - k[N]": h.astype(np.int32) - k.astype(np.int32),
             "(x[N] > y[N]).cast(`int8`)": (x > nonzero).astype(np.int8)}
    for expr, want in wants.items():
        names = [n for n in paths if f"{n}[N]" in expr]
        command = [teval(), "run", "-e", f"o[N] = {expr}", "--engine", engine,
                   "-o", str(tmp_path / "out")]
        for n in names:
            command += ["-i", f"{n}={paths[n]}"]
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, (expr, done.stderr)
        assert_bits(np.load(tmp_path / "out" / "o.npy"), want)


def test_uint64_conversions_constants_and_reductions(tmp_path):
    """ui64 past 2^63: conversions rounded once from the unsigned value
    (through x86's 64-bit-significand long double, which holds every uint64
    exactly; float16 through float64, exact below 2^53 and infinity past
    65520 either way) or wrapped (numpy's uint64 casts), constants up
    to 2^64 - 1, a wrapping sum, and a maximum, sign and clamped slice start
    that read the value unsigned."""
    x = operands(np.uint64, 13)
    x[6:10] = [2**63, 2**64 - 2**11, 2**64 - 2**11 + 1, 2**53 + 1]
    t = tensor_type(x)
    for to in [np.float32, np.float64, np.float16, np.int64, np.int32, np.uint32, np.uint8]:
        if to == np.float16:
            want = x.astype(np.float64).astype(to)
        elif np.dtype(to).kind == "f":
            wide = x.astype(np.longdouble)
            assert all(int(w) == int(v) for w, v in zip(wide, x))  # exact
            want = wide.astype(to)
        else:
            want = x.astype(to)
        out = tensor_type(want)
        body = f"  %0 = stablehlo.convert %arg0 : ({t}) -> {out}\n  return %0 : {out}"
        status, got, err = run(tmp_path, body, [x], out, "interp")
        assert status == 0, (to, err)
        assert_bits(got, want.astype(to))
    f = np.array([0.0, 0.75, 2.0**63, 1.8e19, 2.0**64 - 2.0**11, 9.3e18], np.float64)
    out = "tensor<6xui64>"
    body = f"  %0 = stablehlo.convert %arg0 : (tensor<6xf64>) -> {out}\n  return %0 : {out}"
    status, got, err = run(tmp_path, body, [f], out, "interp")
    assert status == 0, err
    assert_bits(got, np.array([int(v) for v in f], np.uint64))
    body = f"  %0 = stablehlo.convert %arg0 : (tensor<6xf64>) -> {out}\n  return %0 : {out}"
    status, got, err = run(tmp_path, body, [np.array([0, 1, 2, 3, 4, 2.0**64], np.float64)],
                           out, "interp")
    assert status == 1 and "cannot convert" in err and "uint64" in err, err

    top = np.uint64(2**64 - 1)
    body = ("  %c = stablehlo.constant dense<18446744073709551615> : tensor<ui64>\n"
            "  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across "
            f"dimensions = [0] : ({t}, tensor<ui64>) -> tensor<ui64>\n"
            "  %1 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.minimum across "
            f"dimensions = [0] : ({t}, tensor<ui64>) -> tensor<ui64>\n"
            "  %2 = stablehlo.sign %arg0 : " + t + "\n"
            "  %3 = stablehlo.reshape %1 : (tensor<ui64>) -> tensor<1xui64>\n"
            "  %4 = stablehlo.concatenate %3, %3, dim = 0 : (tensor<1xui64>, tensor<1xui64>) -> "
            "tensor<2xui64>\n"
            "  %5 = stablehlo.maximum %arg0, %arg0 : " + t + "\n"
            "  return %0, %1, %2, %5 : tensor<ui64>, tensor<ui64>, " + t + ", " + t)
    args = ", ".join([f"%arg0: {t}"])
    src = tmp_path / "r.mlir"
    src.write_text(f"func.func @main({args}) -> (tensor<ui64>, tensor<ui64>, {t}, {t}) {{\n"
                   f"{body}\n}}\n")
    np.save(tmp_path / "x.npy", x)
    done = subprocess.run([teval(), "run", str(src), "-i", f"arg0={tmp_path / 'x.npy'}",
                           "-o", str(tmp_path / "r")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    total = (sum(int(v) for v in x) + 2**64 - 1) % 2**64
    assert_bits(np.load(tmp_path / "r" / "result0.npy"), np.array(total, np.uint64))
    assert_bits(np.load(tmp_path / "r" / "result1.npy"), np.array(min(x.min(), top), np.uint64))
    assert_bits(np.load(tmp_path / "r" / "result2.npy"), (x > 0).astype(np.uint64))
    assert_bits(np.load(tmp_path / "r" / "result3.npy"), x)


def test_uint64_slice_starts_clamp_as_unsigned(tmp_path):
    """A dynamic_slice start of 2^64 - 1 is past the end (clamped to the
    last start), not -1 (clamped to 0)."""
    x = np.arange(8, dtype=np.float32)
    for start, first in [(2**64 - 1, 5.0), (2**63, 5.0), (1, 1.0)]:
        body = (f"  %s = stablehlo.constant dense<{start}> : tensor<ui64>\n"
                "  %0 = stablehlo.dynamic_slice %arg0, %s, sizes = [3] : "
                "(tensor<8xf32>, tensor<ui64>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>")
        status, got, err = run(tmp_path, body, [x], "tensor<3xf32>", "interp")
        assert status == 0, err
        assert_bits(got, np.arange(first, first + 3, dtype=np.float32))


def test_kernels_have_no_uint64(tmp_path):
    """einstein_v2 and Tile programs name no uint64 and take no uint64
    input: an error with its place, exit status 1."""
    np.save(tmp_path / "u.npy", np.arange(4, dtype=np.uint64))
    for args in (["-e", "o[N] = u[N] + u[N]", "-i", f"u={tmp_path / 'u.npy'}"],
                 ["-e", "o[N] = x[N].cast(`uint64`)", "-i", "x=int32[4]"],
                 ["-e", "o[N] = x[N]", "-i", "x=uint64[4]"]):
        done = subprocess.run([teval(), "run", *args, "-o", str(tmp_path / "o")],
                              capture_output=True, text=True)
        assert done.returncode == 1, (args, done.stderr)
        assert "uint64 is an element type of MLIR functions only" in done.stderr, done.stderr
        assert not (tmp_path / "o").exists()

