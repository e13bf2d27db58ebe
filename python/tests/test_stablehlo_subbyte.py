"""StableHLO's integers narrower than a byte, i2, i4, ui2 and ui4 (int2,
int4, uint2, uint4; docs/SEMANTICS.md, "Values and dtypes"). numpy has no
such dtypes: their values travel in int8 and uint8 arrays (.npy files
included), and an input value out of range is an error. The expected
values are Python integers wrapped modulo 2^width by hand, as the
specification's integer ops wrap. Kernels have none of these types: the
interpreter runs the functions, ireval and the JIT decline them."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import assert_bits, lower_reports, rng, teval

# (MLIR name, bits, signed, carrier)
TYPES = [("i2", 2, True, np.int8), ("i4", 4, True, np.int8),
         ("ui2", 2, False, np.uint8), ("ui4", 4, False, np.uint8)]


def wrap(v, bits, signed):
    v %= 1 << bits
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def every_pair(bits, signed):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    values = list(range(lo, hi + 1))
    x = [a for a in values for _ in values]
    y = [b for _ in values for b in values]
    return x, y


def run_function(tmp_path, text, inputs, outputs, engine="interp"):
    src = tmp_path / "f.mlir"
    src.write_text(text)
    command = [teval(), "run", str(src), "--engine", engine, "-o", str(tmp_path / "out")]
    for i, a in enumerate(inputs):
        np.save(tmp_path / f"arg{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'arg{i}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return done.returncode, None, done.stderr
    return 0, [np.load(tmp_path / "out" / f"result{k}.npy") for k in range(outputs)], done.stderr


BINARY = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "maximum": max,
    "minimum": min,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
}


@pytest.mark.parametrize("name,bits,signed,carrier", TYPES)
def test_every_pair_wraps(tmp_path, name, bits, signed, carrier):
    x, y = every_pair(bits, signed)
    n = len(x)
    t = f"tensor<{n}x{name}>"
    ops = list(BINARY)
    body = "\n".join(f"  %{k} = stablehlo.{op} %arg0, %arg1 : {t}" for k, op in enumerate(ops))
    text = (f"func.func @main(%arg0: {t}, %arg1: {t}) -> ({', '.join([t] * len(ops))}) {{\n"
            f"{body}\n  return {', '.join(f'%{k}' for k in range(len(ops)))} : "
            f"{', '.join([t] * len(ops))}\n}}\n")
    status, got, err = run_function(tmp_path, text, [np.array(x, carrier), np.array(y, carrier)],
                                    len(ops))
    assert status == 0, err
    for k, op in enumerate(ops):
        want = np.array([wrap(BINARY[op](a, b), bits, signed) for a, b in zip(x, y)], carrier)
        assert_bits(got[k], want)


@pytest.mark.parametrize("name,bits,signed,carrier", TYPES)
def test_division_remainder_shifts_and_counts(tmp_path, name, bits, signed, carrier):
    x, y = every_pair(bits, signed)
    keep = [i for i in range(len(x)) if y[i] != 0]
    x, y = [x[i] for i in keep], [y[i] for i in keep]
    n = len(x)
    t = f"tensor<{n}x{name}>"
    text = (f"func.func @main(%arg0: {t}, %arg1: {t}) -> ({t}, {t}, {t}, {t}, {t}, {t}, {t}) {{\n"
            f"  %0 = stablehlo.divide %arg0, %arg1 : {t}\n"
            f"  %1 = stablehlo.remainder %arg0, %arg1 : {t}\n"
            f"  %2 = stablehlo.shift_left %arg0, %arg1 : {t}\n"
            f"  %3 = stablehlo.shift_right_logical %arg0, %arg1 : {t}\n"
            f"  %4 = stablehlo.popcnt %arg0 : {t}\n"
            f"  %5 = stablehlo.negate %arg0 : {t}\n"
            f"  %6 = stablehlo.not %arg0 : {t}\n"
            f"  return %0, %1, %2, %3, %4, %5, %6 : {t}, {t}, {t}, {t}, {t}, {t}, {t}\n}}\n")
    status, got, err = run_function(tmp_path, text, [np.array(x, carrier), np.array(y, carrier)],
                                    7)
    assert status == 0, err
    mask = (1 << bits) - 1

    def trunc_div(a, b):
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q

    def shift(a, s, left):
        u = a & mask  # the bits; an amount outside [0, bits) shifts them all out
        if s < 0 or s >= bits:
            return 0
        return wrap(u << s if left else u >> s, bits, signed)

    wants = [[wrap(trunc_div(a, b), bits, signed) for a, b in zip(x, y)],
             [a - trunc_div(a, b) * b for a, b in zip(x, y)],
             [shift(a, b, True) for a, b in zip(x, y)],
             [shift(a, b, False) for a, b in zip(x, y)],
             [wrap(bin(a & mask).count("1"), bits, signed) for a in x],
             [wrap(-a, bits, signed) for a in x],
             [wrap(~a, bits, signed) for a in x]]
    for k, want in enumerate(wants):
        assert_bits(got[k], np.array(want, carrier))


@pytest.mark.parametrize("name,bits,signed,carrier", TYPES)
def test_conversions_constants_and_iota(tmp_path, name, bits, signed, carrier):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    values = np.arange(lo, hi + 1)
    n = values.size
    t = f"tensor<{n}x{name}>"
    floats = np.array([v + (0.75 if v >= 0 else -0.75) for v in values], np.float32)
    text = (f"func.func @main(%arg0: {t}, %arg1: tensor<{n}xf32>) -> (tensor<{n}xf32>, "
            f"tensor<{n}xi8>, {t}, {t}, tensor<20x{name}>, tensor<{n}xi16>) {{\n"
            f"  %0 = stablehlo.convert %arg0 : ({t}) -> tensor<{n}xf32>\n"
            f"  %1 = stablehlo.convert %arg0 : ({t}) -> tensor<{n}xi8>\n"
            f"  %2 = stablehlo.convert %arg1 : (tensor<{n}xf32>) -> {t}\n"
            f"  %3 = stablehlo.constant dense<{list(map(int, values))}> : {t}\n"
            f"  %4 = stablehlo.iota dim = 0 : tensor<20x{name}>\n"
            f"  %5 = stablehlo.convert %3 : ({t}) -> tensor<{n}xi16>\n"
            f"  return %0, %1, %2, %3, %4, %5 : tensor<{n}xf32>, tensor<{n}xi8>, {t}, {t}, "
            f"tensor<20x{name}>, tensor<{n}xi16>\n}}\n")
    status, got, err = run_function(tmp_path, text, [values.astype(carrier), floats], 6)
    assert status == 0, err
    assert_bits(got[0], values.astype(np.float32))
    assert_bits(got[1], values.astype(np.int8))
    assert_bits(got[2], values.astype(carrier))  # truncated toward zero
    assert_bits(got[3], values.astype(carrier))
    assert_bits(got[4], np.array([wrap(i, bits, signed) for i in range(20)], carrier))
    assert_bits(got[5], values.astype(np.int16))


def test_values_out_of_range_are_errors(tmp_path):
    t = "tensor<3xi4>"
    text = f"func.func @main(%arg0: {t}) -> {t} {{\n  return %arg0 : {t}\n}}\n"
    status, _, err = run_function(tmp_path, text, [np.array([1, 9, -3], np.int8)], 1)
    assert status == 1, err
    assert "input arg0 holds 9 at element 1, which is not a value of i4 (-8 to 7)" in err, err
    assert not (tmp_path / "out").exists()
    text = (f"func.func @main() -> tensor<ui2> {{\n  %0 = stablehlo.constant dense<4> : "
            f"tensor<ui2>\n  return %0 : tensor<ui2>\n}}\n")
    status, _, err = run_function(tmp_path, text, [], 1)
    assert status == 1 and "4 is not a value of uint2 (it would wrap)" in err, err
    # A float out of the narrow range does not convert.
    text = ("func.func @main(%arg0: tensor<1xf32>) -> tensor<1xi2> {\n"
            "  %0 = stablehlo.convert %arg0 : (tensor<1xf32>) -> tensor<1xi2>\n"
            "  return %0 : tensor<1xi2>\n}\n")
    status, _, err = run_function(tmp_path, text, [np.array([2.5], np.float32)], 1)
    assert status == 1 and "does not fit" in err or "out of range" in err, err


@pytest.mark.parametrize("engine", ["ireval", "jit"])
def test_kernel_engines_run_them_natively(tmp_path, engine):
    t = "tensor<3xi4>"
    text = (f"func.func @main(%arg0: {t}) -> {t} {{\n  %0 = stablehlo.add %arg0, %arg0 : {t}\n"
            f"  return %0 : {t}\n}}\n")
    status, got, err = run_function(tmp_path, text, [np.array([1, 2, 5], np.int8)], 1, engine)
    assert status == 0, err
    assert_bits(got[0], np.array([2, 4, -6], np.int8))  # 10 wraps to -6 in i4
    assert lower_reports(tmp_path, "values of i4 have no einstein_v2 decomposition")


def test_python_program_takes_int8_arrays_for_i4(tmp_path):
    import teval as tv
    p = tv.Program("func.func @main(%arg0: tensor<4xi4>) -> tensor<4xi4> {\n"
                   "  %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xi4>\n"
                   "  return %0 : tensor<4xi4>\n}\n")
    out = p.run({"arg0": np.array([3, -4, 7, -8], np.int8)})
    assert_bits(np.asarray(out["result0"]), np.array([wrap(v * v, 4, True) for v in
                                                      [3, -4, 7, -8]], np.int8))


def test_kernels_have_none_of_them(tmp_path):
    for name in ["int2", "int4", "uint2", "uint4"]:
        done = subprocess.run([teval(), "run", "-e", f"o[N] = x[N].cast(`{name}`)", "-i",
                               "x=int32[4]", "-o", str(tmp_path / "o")],
                              capture_output=True, text=True)
        assert done.returncode == 1, done.stderr
        assert f"{name} is an element type of MLIR functions only" in done.stderr, done.stderr
        assert not (tmp_path / "o").exists()
