"""StableHLO's reduce (docs/SEMANTICS.md, "StableHLO's reduce"), run as
users run it: `teval run FILE.mlir` on every engine. The expected values
are the fold the specification describes, written as a plain loop over
numpy scalars: from the initial value, the body applied to the running
value and each element in row-major order of the reduced dimensions —
never teval."""

import itertools

import numpy as np
import pytest

from test_stablehlo import ENGINES, MLIR_TYPES, assert_bits, rng, run, tensor_type

def ieee_extreme(a, b, larger):
    """IEEE 754's maximum or minimum (the specification's): NaN if either is
    NaN, and -0 < +0 (numpy's maximum returns either zero)."""
    if a.dtype.kind == "f":
        if np.isnan(a) or np.isnan(b):
            return np.asarray(np.nan, a.dtype)
        if a == 0 and b == 0:
            negative = (np.signbit(a) and np.signbit(b)) if larger else (np.signbit(a) or
                                                                          np.signbit(b))
            return np.asarray(-0.0 if negative else 0.0, a.dtype)
    return np.maximum(a, b) if larger else np.minimum(a, b)


BODIES = {
    "add": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
    "maximum": lambda a, b: ieee_extreme(a, b, True),
    "minimum": lambda a, b: ieee_extreme(a, b, False),
    "and": lambda a, b: np.logical_and(a, b),
    "or": lambda a, b: np.logical_or(a, b),
}


def reduce_reference(x, init, dims, body):
    dims = sorted(dims)
    kept = [d for d in range(x.ndim) if d not in dims]
    out = np.zeros([x.shape[d] for d in kept], x.dtype)
    for idx in itertools.product(*[range(x.shape[d]) for d in kept]):
        acc = np.asarray(init, x.dtype)
        for k in itertools.product(*[range(x.shape[d]) for d in dims]):
            at = [0] * x.ndim
            for d, i in zip(kept, idx):
                at[d] = i
            for d, i in zip(dims, k):
                at[d] = i
            with np.errstate(over="ignore", invalid="ignore"):
                acc = np.asarray(BODIES[body](acc, np.asarray(x[tuple(at)])), x.dtype)
        out[idx] = acc
    return out


def element(dtype):
    return MLIR_TYPES[np.dtype(dtype).type]


def reduce_body(x, dims, body, out, form, init="%arg1"):
    scalar = f"tensor<{element(x.dtype)}>"
    types = f"({tensor_type(x)}, {scalar}) -> {out}"
    if form == "pretty":
        op = (f"stablehlo.reduce(%arg0 init: {init}) applies stablehlo.{body} across "
              f"dimensions = {list(dims)} : {types}")
    elif form == "reducer":
        op = (f"stablehlo.reduce(%arg0 init: {init}) across dimensions = {list(dims)} : {types}\n"
              f"   reducer(%a: {scalar}, %b: {scalar})  {{\n"
              f"    %r = stablehlo.{body} %b, %a : {scalar}\n"
              f"    stablehlo.return %r : {scalar}\n  }}")
    else:
        d = "mhlo" if form == "mhlo" else "stablehlo"
        op = (f'"{d}.reduce"(%arg0, {init}) ({{\n  ^bb0(%a: {scalar}, %b: {scalar}):\n'
              f'    %r = "{d}.{body}"(%a, %b) : ({scalar}, {scalar}) -> {scalar}\n'
              f'    "{d}.return"(%r) : ({scalar}) -> ()\n'
              f"  }}) {{dimensions = array<i64: {', '.join(map(str, dims))}>}} : {types}")
    return f"  %0 = {op}\n  return %0 : {out}"


def result_type(shape, dtype):
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element(dtype)}>"


def check(tmp_path, x, init, dims, body, form, engine):
    want = reduce_reference(x, init, dims, body)
    out = result_type(want.shape, x.dtype)
    status, got, err = run(tmp_path, reduce_body(x, dims, body, out, form), [x, init], out,
                           engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["pretty", "generic", "mhlo", "reducer"])
@pytest.mark.parametrize("body", ["add", "multiply", "maximum", "minimum"])
def test_float_reductions(tmp_path, engine, form, body):
    r = rng(80)
    x = r.standard_normal((3, 4, 5)).astype(np.float32)
    check(tmp_path, x, np.array(0.5, np.float32), [2, 0], body, form, engine)
    check(tmp_path, x, np.array(1.0, np.float32), [1], body, form, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_fold_starts_from_the_initial_value(tmp_path, engine):
    # 2^24 + 1 + 1 + ...: each 1 is lost in float32, one addition at a time.
    x = np.ones((1, 8), np.float32)
    check(tmp_path, x, np.array(2.0**24, np.float32), [1], "add", "pretty", engine)
    assert reduce_reference(x, np.float32(2.0**24), [1], "add")[0] == 2.0**24


@pytest.mark.parametrize("engine", ENGINES)
def test_signed_zeros_infinities_and_nan(tmp_path, engine):
    nz, inf, big = -0.0, np.inf, np.finfo(np.float32).max
    x = np.array([[nz, nz, nz], [nz, 0.0, nz], [-inf, -inf, -inf], [-inf, -big, -inf],
                  [inf, inf, inf], [inf, big, inf], [1.0, np.nan, 2.0], [nz, nz, 5.0]],
                 np.float32)
    for init in [nz, 0.0, -inf, inf, np.nan]:
        for body in ["add", "maximum", "minimum", "multiply"]:
            check(tmp_path, x, np.array(init, np.float32), [1], body, "generic", engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_integers_and_i1(tmp_path, engine):
    r = rng(81)
    x = r.integers(-128, 128, (4, 6)).astype(np.int8)
    for body in ["add", "multiply", "maximum", "minimum"]:
        check(tmp_path, x, np.array(3, np.int8), [1], body, "pretty", engine)
    u = r.integers(0, 256, (4, 6)).astype(np.uint8)
    check(tmp_path, u, np.array(0, np.uint8), [0, 1], "add", "generic", engine)
    p = r.integers(0, 2, (3, 4)).astype(np.bool_)
    p[0] = True
    p[1] = False
    for body in ["and", "or", "maximum", "minimum", "add", "multiply"]:
        for init in [True, False]:
            want = reduce_reference(p, np.bool_(init), [1], body)
            out = result_type(want.shape, np.bool_)
            status, got, err = run(tmp_path, reduce_body(p, [1], body, out, "reducer"),
                                   [p, np.array(init)], out, engine)
            assert status == 0, err
            assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_and_whole_reductions(tmp_path, engine):
    x = np.zeros((3, 0), np.float32)
    check(tmp_path, x, np.array(-0.0, np.float32), [1], "add", "pretty", engine)
    r = rng(82)
    y = r.standard_normal((2, 3)).astype(np.float64)
    check(tmp_path, y, np.array(0.0), [0, 1], "add", "generic", engine)
    check(tmp_path, y, np.array(-np.inf), [1, 0], "maximum", "mhlo", engine)
    check(tmp_path, y, np.array(1.0), [], "multiply", "pretty", engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_constant_initial_value(tmp_path, engine):
    x = np.array([[-0.0, -0.0], [-np.inf, -np.inf], [1.0, -1.0]], np.float32)
    for value, body in [("-0.0", "add"), ("0.0", "add"), ("0xFF800000", "maximum"),
                        ("0x7F800000", "minimum")]:
        init = np.float32(float.fromhex("-inf") if value == "0xFF800000" else
                          float("inf") if value == "0x7F800000" else float(value))
        want = reduce_reference(x, init, [1], body)
        out = result_type(want.shape, np.float32)
        text = reduce_body(x, [1], body, out, "pretty", init="%c")
        text = f"  %c = stablehlo.constant dense<{value}> : tensor<f32>\n" + text
        status, got, err = run(tmp_path, text, [x], out, engine)
        assert status == 0, err
        assert_bits(got, want)


@pytest.mark.parametrize("op, message", [
    ('"stablehlo.reduce"(%arg0, %arg1) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n'
     '    %r = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
     '    %s = "stablehlo.add"(%r, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
     '    "stablehlo.return"(%s) : (tensor<f32>) -> ()\n'
     "  }) {dimensions = array<i64: 1>} : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>",
     "reduce's body is read when it applies one of"),
    ("stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1, 1] : "
     "(tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>", "distinct dimensions"),
    ("stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [2] : "
     "(tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>", "distinct dimensions"),
    ("stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.subtract across dimensions = [1] : "
     "(tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>", "reduce applies `stablehlo.subtract`"),
    ('"stablehlo.reduce"(%arg0, %arg0, %arg1, %arg1) ({\n  ^bb0(%a: tensor<f32>, %b: '
     'tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):\n'
     '    "stablehlo.return"(%a, %b) : (tensor<f32>, tensor<f32>) -> ()\n'
     "  }) {dimensions = array<i64: 1>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, "
     "tensor<f32>) -> tensor<4xf32>", "reduce of 2 inputs is not read yet"),
    ('"stablehlo.add"(%arg0, %arg0) ({\n  ^bb0(%a: tensor<f32>):\n'
     '    "stablehlo.return"(%a) : (tensor<f32>) -> ()\n'
     "  }) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>",
     "`stablehlo.add` has a region"),
])
def test_errors_are_located(tmp_path, op, message):
    x = np.zeros((4, 3), np.float32)
    init = np.array(0.0, np.float32)
    status, got, err = run(tmp_path, f"  %0 = {op}\n  return %0 : tensor<4xf32>", [x, init],
                           "tensor<4xf32>", "interp")
    assert status == 1 and got is None
    assert "f.mlir:2:" in err and "error:" in err and "^" in err, err
    assert message in err, err


def test_type_errors(tmp_path):
    x = np.zeros((4, 3), np.int32)
    for init, body, message in [(np.array(0.0, np.float32), "add", "initial value"),
                                (np.array(0, np.int32), "and", "logical form, of i1")]:
        out = "tensor<4xi32>"
        text = (f"  %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.{body} across "
                f"dimensions = [1] : ({tensor_type(x)}, {tensor_type(init)}) -> {out}\n"
                f"  return %0 : {out}")
        status, got, err = run(tmp_path, text, [x, init], out, "interp")
        assert status == 1 and got is None
        assert "f.mlir:2:" in err and message in err, err


def test_softmax_example_matches_torch(tmp_path):
    # examples/byteir/reduce.mlir against torch.softmax, in float64.
    import subprocess

    import torch

    from test_stablehlo import teval

    x = (rng(83).standard_normal((4, 16)) * 4).astype(np.float32)
    x[1, :] = -np.inf
    x[1, 3] = 0.0  # a row whose maximum is its only finite value
    np.save(tmp_path / "x.npy", x)
    root = __file__.rsplit("/python/tests/", 1)[0]
    want = torch.softmax(torch.from_numpy(x.astype(np.float64)), dim=1).numpy()
    for engine in ENGINES:
        done = subprocess.run([teval(), "run", "examples/byteir/reduce.mlir", "-i",
                               f"arg0={tmp_path / 'x.npy'}", "-o", str(tmp_path), "--engine",
                               engine], capture_output=True, text=True, cwd=root)
        assert done.returncode == 0, done.stderr
        got = np.load(tmp_path / "result0.npy")
        assert np.allclose(got, want, rtol=1e-5, atol=1e-7), (engine, got, want)
