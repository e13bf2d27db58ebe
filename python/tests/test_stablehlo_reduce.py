"""StableHLO's reduce (docs/SEMANTICS.md, "StableHLO's reduce"), run as
users run it: `teval run FILE.mlir` on every engine. The expected values
are the fold the specification describes, written as a plain loop over
numpy scalars: from the initial value, the body applied to the running
value and each element in row-major order of the reduced dimensions —
never teval."""

import itertools

import numpy as np
import pytest

from test_stablehlo import ENGINES, MLIR_TYPES, assert_bits, lower_reports, rng, run, tensor_type

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
     "tensor<f32>) -> tensor<4xf32>", "reduce gives 2 results; 1 are named"),
    ('"stablehlo.reduce"(%arg0, %arg0, %arg1) ({\n  ^bb0(%a: tensor<f32>, %b: '
     'tensor<f32>, %c: tensor<f32>):\n    "stablehlo.return"(%a) : (tensor<f32>) -> ()\n'
     "  }) {dimensions = array<i64: 1>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> "
     "tensor<4xf32>", "reduce takes N inputs and N initial values, not 3 operands"),

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


# A reduce of several inputs, or whose body is more than one op, keeps its
# body as a region that the interpreter runs (no decomposition): the fold
# of the specification's reference interpreter, in row-major order.
ARGMAX_GENERIC = """  %idx = stablehlo.iota dim = 1 : tensor<{n}x{k}xi64>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = "stablehlo.reduce"(%arg0, %idx, %ninf, %zero) ({{
  ^bb0(%av: tensor<f32>, %ai: tensor<i64>, %bv: tensor<f32>, %bi: tensor<i64>):
{body}
  }}) {{dimensions = array<i64: 1>}} : (tensor<{n}x{k}xf32>, tensor<{n}x{k}xi64>, tensor<f32>, tensor<i64>) -> (tensor<{n}xf32>, tensor<{n}xi64>)
  return %r#1 : tensor<{n}xi64>"""

ARGMAX_PRETTY = """  %idx = stablehlo.iota dim = 1 : tensor<{n}x{k}xi64>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.reduce(%arg0 init: %ninf), (%idx init: %zero) across dimensions = [1] : (tensor<{n}x{k}xf32>, tensor<{n}x{k}xi64>, tensor<f32>, tensor<i64>) -> (tensor<{n}xf32>, tensor<{n}xi64>)
   reducer(%av: tensor<f32>, %bv: tensor<f32>) (%ai: tensor<i64>, %bi: tensor<i64>) {{
{body}
  }}
  return %r#1 : tensor<{n}xi64>"""

# torch.argmax's body as frontends lower it: the larger value, the first
# index among equal ones.
ARGMAX_BODY = """    %gt = stablehlo.compare GT, %av, %bv, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %av, %bv, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %ai, %bi, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %keep = stablehlo.or %gt, %tie : tensor<i1>
    %v = stablehlo.select %keep, %av, %bv : tensor<i1>, tensor<f32>
    %i = stablehlo.select %keep, %ai, %bi : tensor<i1>, tensor<i64>
    stablehlo.return %v, %i : tensor<f32>, tensor<i64>"""


@pytest.mark.parametrize("form", [ARGMAX_GENERIC, ARGMAX_PRETTY])
def test_a_reduce_of_two_inputs_is_an_argmax(tmp_path, form):
    r = rng(60)
    x = r.integers(-3, 4, size=(6, 9)).astype(np.float32)  # ties in every row
    body = form.format(n=6, k=9, body=ARGMAX_BODY)
    status, got, err = run(tmp_path, body, [x], "tensor<6xi64>", "interp")
    assert status == 0, err
    assert_bits(got, np.argmax(x, axis=1).astype(np.int64))  # numpy: the first maximum


def test_a_body_of_several_ops_folds_in_row_major_order(tmp_path):
    # acc·0.5 + x³: not associative, so the order shows.
    x = rng(61).standard_normal((3, 4, 5)).astype(np.float32)
    init = np.array(1.0, np.float32)
    text = ('  %0 = "stablehlo.reduce"(%arg0, %arg1) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n'
            "    %h = stablehlo.constant dense<0.5> : tensor<f32>\n"
            "    %s = stablehlo.multiply %a, %h : tensor<f32>\n"
            "    %q = stablehlo.multiply %b, %b : tensor<f32>\n"
            "    %c = stablehlo.multiply %q, %b : tensor<f32>\n"
            "    %r = stablehlo.add %s, %c : tensor<f32>\n"
            '    "stablehlo.return"(%r) : (tensor<f32>) -> ()\n'
            "  }) {dimensions = array<i64: 2, 0>} : (tensor<3x4x5xf32>, tensor<f32>) -> "
            "tensor<4xf32>\n  return %0 : tensor<4xf32>")
    status, got, err = run(tmp_path, text, [x, init], "tensor<4xf32>", "interp")
    assert status == 0, err
    want = np.zeros(4, np.float32)
    for j in range(4):
        acc = np.float32(1.0)
        for i in range(3):  # row-major over the reduced dimensions 0 and 2
            for k in range(5):
                b = x[i, j, k]
                acc = np.float32(acc * np.float32(0.5)) + np.float32(np.float32(b * b) * b)
        want[j] = acc
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ["ireval", "jit"])
def test_a_reduce_with_a_region_runs_natively_on_every_engine(tmp_path, engine):
    x = np.array([[0.5, 2.0, 2.0], [-1.0, -3.0, -0.5]], np.float32)
    status, got, err = run(tmp_path, ARGMAX_GENERIC.format(n=2, k=3, body=ARGMAX_BODY), [x],
                           "tensor<2xi64>", engine)
    assert status == 0, err
    assert_bits(got, np.argmax(x, axis=1).astype(np.int64))
    assert lower_reports(tmp_path, "reduce of several inputs or of a body other than one op")


def test_a_body_returning_the_wrong_count_is_located_at_its_return(tmp_path):
    x = np.zeros((4, 3), np.float32)
    text = ('  %0 = "stablehlo.reduce"(%arg0, %arg1) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n'
            '    %r = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
            '    %s = "stablehlo.add"(%r, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
            '    "stablehlo.return"(%r, %s) : (tensor<f32>, tensor<f32>) -> ()\n'
            "  }) {dimensions = array<i64: 1>} : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>\n"
            "  return %0 : tensor<4xf32>")
    status, got, err = run(tmp_path, text, [x, np.array(0.0, np.float32)], "tensor<4xf32>",
                           "interp")
    assert status == 1 and got is None
    assert "f.mlir:6:5: error: reduce's body returns 2 values; 1 are needed" in err, err


@pytest.mark.parametrize("engine", ENGINES)
def test_the_least_int64_is_an_initial_value_on_every_engine(tmp_path, engine):
    # The decomposition spells -2^63 as a const() literal the kernels read.
    x = np.array([[-5, 2, -9223372036854775807], [-9223372036854775808, -7, -3]], np.int64)
    body = ("  %init = stablehlo.constant dense<-9223372036854775808> : tensor<i64>\n"
            "  %0 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.maximum across "
            "dimensions = [1] : (tensor<2x3xi64>, tensor<i64>) -> tensor<2xi64>\n"
            "  return %0 : tensor<2xi64>")
    status, got, err = run(tmp_path, body, [x], "tensor<2xi64>", engine)
    assert status == 0, err
    assert_bits(got, x.max(axis=1))
