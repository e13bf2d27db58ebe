"""StableHLO's data movement, selection and comparison ops (docs/BYTEIR.md),
run as users run them: `teval run FILE.mlir` on every engine, the inputs
and the expected results numpy's (the StableHLO specification's meaning
written in numpy, never teval)."""

import os
import subprocess

import numpy as np
import pytest

ENGINES = ["interp", "ireval", "jit"]


def teval():
    path = os.environ.get("TEVAL")
    if not path:
        pytest.skip("TEVAL is not set")
    return path


MLIR_TYPES = {np.float32: "f32", np.float16: "f16", np.float64: "f64", np.int32: "i32",
              np.int16: "i16", np.int64: "i64", np.int8: "i8", np.uint8: "ui8", np.bool_: "i1",
              np.uint16: "ui16", np.uint32: "ui32", np.uint64: "ui64",
              np.complex64: "complex<f32>", np.complex128: "complex<f64>"}


def tensor_type(a):
    dims = "".join(f"{d}x" for d in a.shape)
    return f"tensor<{dims}{MLIR_TYPES[a.dtype.type]}>"


def run(tmp_path, body, inputs, result, engine, types=None):
    """Runs `func.func @main(args) -> result { body }` on `inputs` (the
    arguments of `types`, or of the arrays' own types); returns (exit
    status, result0 or None, stderr)."""
    types = types or [tensor_type(a) for a in inputs]
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(types))
    text = f"func.func @main({args}) -> {result} {{\n{body}\n}}\n"
    src = tmp_path / "f.mlir"
    src.write_text(text)
    command = [teval(), "run", str(src), "--engine", engine, "-o", str(tmp_path / "out")]
    for i, a in enumerate(inputs):
        np.save(tmp_path / f"arg{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'arg{i}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    out = tmp_path / "out" / "result0.npy"
    value = np.load(out) if done.returncode == 0 and out.exists() else None
    if out.exists():
        out.unlink()
    return done.returncode, value, done.stderr


def lower_reports(path, message):
    """Whether `teval lower` of the function in `path` (a directory: the
    f.mlir run() writes there) reports `message`: the op without an
    einstein_v2 decomposition, which ireval and the JIT run with its native
    reference between the segments they compile (docs/SEMANTICS.md,
    "Engines on graphs")."""
    if path.is_dir():
        path = path / "f.mlir"
    done = subprocess.run([teval(), "lower", str(path)], capture_output=True, text=True)
    return done.returncode == 1 and message in done.stderr and "--engine interp" in done.stderr


def assert_bits(got, want):
    assert got is not None
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if want.dtype.kind == "c":  # each part's bits
        assert_bits(np.ascontiguousarray(got.real), np.ascontiguousarray(want.real))
        assert_bits(np.ascontiguousarray(got.imag), np.ascontiguousarray(want.imag))
        return
    assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), (got, want)
    if want.dtype.kind == "f":  # signs of zeros and of NaNs too
        assert np.array_equal(np.signbit(got), np.signbit(want))


def rng(seed):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_transpose(tmp_path, engine, form):
    x = rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    want = np.transpose(x, (2, 0, 1))
    op = ('"stablehlo.transpose"(%arg0) {permutation = array<i64: 2, 0, 1>}' if form == "generic"
          else "stablehlo.transpose %arg0, dims = [2, 0, 1]")
    body = (f"  %0 = {op} : ({tensor_type(x)}) -> {tensor_type(want)}\n"
            f"  return %0 : {tensor_type(want)}")
    status, got, err = run(tmp_path, body, [x], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_slice(tmp_path, engine, form):
    x = rng(2).integers(-100, 100, (5, 7)).astype(np.int32)
    want = x[1:5:2, 0:7:3]
    op = ('"stablehlo.slice"(%arg0) {start_indices = array<i64: 1, 0>, '
          'limit_indices = array<i64: 5, 7>, strides = array<i64: 2, 3>}' if form == "generic"
          else "stablehlo.slice %arg0 [1:5:2, 0:7:3]")
    body = (f"  %0 = {op} : ({tensor_type(x)}) -> {tensor_type(want)}\n"
            f"  return %0 : {tensor_type(want)}")
    status, got, err = run(tmp_path, body, [x], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_slice_without_strides_and_empty(tmp_path, engine):
    x = rng(3).standard_normal((4, 3)).astype(np.float64)
    want = x[2:4, 1:1]
    body = (f"  %0 = stablehlo.slice %arg0 [2:4, 1:1] : ({tensor_type(x)}) -> tensor<2x0xf64>\n"
            f"  return %0 : tensor<2x0xf64>")
    status, got, err = run(tmp_path, body, [x], "tensor<2x0xf64>", engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_concatenate(tmp_path, engine, form):
    r = rng(4)
    xs = [r.integers(-9, 9, (2, n, 3)).astype(np.int64) for n in (1, 3, 2)]
    want = np.concatenate(xs, axis=1)
    types = ", ".join(tensor_type(x) for x in xs)
    op = ('"stablehlo.concatenate"(%arg0, %arg1, %arg2) {dimension = 1 : i64}' if form == "generic"
          else "stablehlo.concatenate %arg0, %arg1, %arg2, dim = 1")
    body = (f"  %0 = {op} : ({types}) -> {tensor_type(want)}\n"
            f"  return %0 : {tensor_type(want)}")
    status, got, err = run(tmp_path, body, xs, tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.uint8])
def test_iota(tmp_path, engine, dtype):
    want = np.broadcast_to(np.arange(4, dtype=dtype), (3, 4)).copy()
    body = (f"  %0 = stablehlo.iota dim = 1 : {tensor_type(want)}\n"
            f"  return %0 : {tensor_type(want)}")
    status, got, err = run(tmp_path, body, [], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)
    want0 = np.broadcast_to(np.arange(3, dtype=dtype)[:, None], (3, 4)).copy()
    body = (f'  %0 = "stablehlo.iota"() {{iota_dimension = 0 : i64}} : () -> '
            f"{tensor_type(want0)}\n  return %0 : {tensor_type(want0)}")
    status, got, err = run(tmp_path, body, [], tensor_type(want0), engine)
    assert status == 0, err
    assert_bits(got, want0)


@pytest.mark.parametrize("engine", ENGINES)
def test_reverse(tmp_path, engine):
    x = rng(5).standard_normal((2, 3, 4)).astype(np.float32)
    want = np.flip(x, (0, 2)).copy()
    for op in ['"stablehlo.reverse"(%arg0) {dimensions = array<i64: 2, 0>}',
               "stablehlo.reverse %arg0, dims = [0, 2]"]:
        body = (f"  %0 = {op} : ({tensor_type(x)}) -> {tensor_type(x)}\n"
                f"  return %0 : {tensor_type(x)}")
        status, got, err = run(tmp_path, body, [x], tensor_type(x), engine)
        assert status == 0, err
        assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_select(tmp_path, engine):
    r = rng(6)
    a = r.standard_normal((3, 5)).astype(np.float32)
    b = r.standard_normal((3, 5)).astype(np.float32)
    pred = r.integers(0, 2, (3, 5)).astype(np.bool_)
    t = tensor_type(a)
    body = (f"  %0 = stablehlo.select %arg0, %arg1, %arg2 : ({tensor_type(pred)}, {t}, {t}) -> {t}\n"
            f"  return %0 : {t}")
    status, got, err = run(tmp_path, body, [pred, a, b], t, engine)
    assert status == 0, err
    assert_bits(got, np.where(pred, a, b))
    # As StableHLO prints it: the predicate's type, then the others'.
    body = (f"  %0 = stablehlo.select %arg0, %arg1, %arg2 : {tensor_type(pred)}, {t}\n"
            f"  return %0 : {t}")
    status, got, err = run(tmp_path, body, [pred, a, b], t, engine)
    assert status == 0, err
    assert_bits(got, np.where(pred, a, b))
    for p in (True, False):
        scalar = np.array(p)
        body = (f'  %0 = "stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<i1>, {t}, {t}) -> {t}\n'
                f"  return %0 : {t}")
        status, got, err = run(tmp_path, body, [scalar, a, b], t, engine)
        assert status == 0, err
        assert_bits(got, a if p else b)


COMPARISONS = {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal, "GT": np.greater,
               "LE": np.less_equal, "LT": np.less}


def compare_body(direction, a, kind, generic):
    t = tensor_type(a)
    out = tensor_type(np.zeros(a.shape, np.bool_))
    if generic:
        op = (f'"stablehlo.compare"(%arg0, %arg1) {{comparison_direction = '
              f"#stablehlo<comparison_direction {direction}>"
              + (f", compare_type = #stablehlo<comparison_type {kind}>" if kind else "") + "}")
    else:
        op = f"stablehlo.compare {direction}, %arg0, %arg1" + (f", {kind}" if kind else "")
    return f"  %0 = {op} : ({t}, {t}) -> {out}\n  return %0 : {out}", out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", sorted(COMPARISONS))
def test_compare(tmp_path, engine, direction):
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5], np.float32)
    a = np.repeat(specials, len(specials))
    b = np.tile(specials, len(specials))
    r = rng(7)
    cases = [(a, b, "FLOAT"),
             (r.integers(-3, 3, 40).astype(np.int64), r.integers(-3, 3, 40).astype(np.int64),
              "SIGNED"),
             (r.integers(0, 256, 40).astype(np.uint8), r.integers(0, 256, 40).astype(np.uint8),
              "UNSIGNED"),
             (r.integers(0, 2, 8).astype(np.bool_), r.integers(0, 2, 8).astype(np.bool_),
              "UNSIGNED")]
    for x, y, kind in cases:
        for generic, written in ((True, kind), (False, kind), (False, None)):
            body, out = compare_body(direction, x, written, generic)
            status, got, err = run(tmp_path, body, [x, y], out, engine)
            assert status == 0, err
            assert_bits(got, COMPARISONS[direction](x, y))


def total_order_key(v):
    """IEEE totalOrder, NaN payloads aside: -NaN < -inf < ... < -0 < +0 <
    ... < +inf < +NaN."""
    if np.isnan(v):
        return (0 if np.signbit(v) else 3, 0.0)
    return (1 if np.signbit(v) else 2, float(v))


def test_compare_total_order_on_the_interpreter(tmp_path):
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5], np.float64)
    a = np.repeat(specials, len(specials))
    b = np.tile(specials, len(specials))
    ops = {"EQ": lambda p, q: p == q, "NE": lambda p, q: p != q, "GE": lambda p, q: p >= q,
           "GT": lambda p, q: p > q, "LE": lambda p, q: p <= q, "LT": lambda p, q: p < q}
    for direction, op in ops.items():
        want = np.array([op(total_order_key(p), total_order_key(q)) for p, q in zip(a, b)])
        body, out = compare_body(direction, a, "TOTALORDER", False)
        status, got, err = run(tmp_path, body, [a, b], out, "interp")
        assert status == 0, err
        assert_bits(got, want)
    # No einstein_v2 decomposition: the other engines run the op natively.
    for engine in ["ireval", "jit"]:
        status, got, err = run(tmp_path, body, [a, b], out, engine)
        assert status == 0, err
        assert_bits(got, want)
    assert lower_reports(tmp_path, "TOTALORDER has no einstein_v2 decomposition")


@pytest.mark.parametrize("engine", ENGINES)
def test_clamp(tmp_path, engine):
    r = rng(8)
    x = (r.standard_normal(12) * 3).astype(np.float32)
    x[3] = np.nan
    lo = np.array(-1.0, np.float32)
    hi = np.array(2.0, np.float32)
    t = tensor_type(x)
    body = (f"  %0 = stablehlo.clamp %arg0, %arg1, %arg2 : (tensor<f32>, {t}, tensor<f32>) -> {t}\n"
            f"  return %0 : {t}")
    status, got, err = run(tmp_path, body, [lo, x, hi], t, engine)
    assert status == 0, err
    assert_bits(got, np.minimum(np.maximum(x, lo), hi))
    los = (r.standard_normal(12) - 1).astype(np.float32)
    his = (r.standard_normal(12) + 1).astype(np.float32)
    body = f'  %0 = "stablehlo.clamp"(%arg0, %arg1, %arg2) : ({t}, {t}, {t}) -> {t}\n  return %0 : {t}'
    status, got, err = run(tmp_path, body, [los, x, his], t, engine)
    assert status == 0, err
    assert_bits(got, np.minimum(np.maximum(x, los), his))
    # Of i1 (false < true), every combination of bounds and operand.
    p = np.array([[a, b, c] for a in (False, True) for b in (False, True) for c in (False, True)])
    lo, x, hi = p[:, 0].copy(), p[:, 1].copy(), p[:, 2].copy()
    t = tensor_type(x)
    body = f"  %0 = stablehlo.clamp %arg0, %arg1, %arg2 : {t}\n  return %0 : {t}"
    status, got, err = run(tmp_path, body, [lo, x, hi], t, engine)
    assert status == 0, err
    assert_bits(got, np.minimum(np.maximum(x, lo), hi))


@pytest.mark.parametrize("op, message", [
    ("stablehlo.slice %arg0 [0:5, 0:3] : (tensor<4x3xf32>) -> tensor<5x3xf32>",
     "0 <= start <= limit <= extent"),
    ('"stablehlo.transpose"(%arg0) {permutation = array<i64: 0, 0>} : (tensor<4x3xf32>) -> '
     "tensor<4x4xf32>", "permutation must hold each dimension"),
    ("stablehlo.compare GT, %arg0, %arg0, SIGNED : (tensor<4x3xf32>, tensor<4x3xf32>) -> "
     "tensor<4x3xi1>", "compare_type SIGNED does not fit"),
    ("stablehlo.compare XX, %arg0, %arg0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>",
     "comparison_direction XX"),
    ("stablehlo.select %arg0, %arg0, %arg0 : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) "
     "-> tensor<4x3xf32>", "not of i1"),
    ("stablehlo.concatenate %arg0, %arg0, dim = 2 : (tensor<4x3xf32>, tensor<4x3xf32>) -> "
     "tensor<8x3xf32>", "concatenate's `dim` is 2, outside [0, 2)"),
    ("stablehlo.iota dim = 3 : tensor<4x3xf32>", "iota's `dim` is 3, outside [0, 2)"),
    ("stablehlo.reverse %arg0, dims = [1, 1] : tensor<4x3xf32>", "distinct dimensions"),
])
def test_errors_are_located(tmp_path, op, message):
    x = np.zeros((4, 3), np.float32)
    status, got, err = run(tmp_path, f"  %0 = {op}\n  return %0 : tensor<4x3xf32>", [x],
                           "tensor<4x3xf32>", "interp")
    assert status == 1 and got is None
    assert "f.mlir:2:" in err and "error:" in err and "^" in err, err
    assert message in err, err


def unary_body(op, x, out=None, generic=False):
    t = tensor_type(x)
    o = out or t
    text = (f'"stablehlo.{op}"(%arg0) : ({t}) -> {o}' if generic
            else f"stablehlo.{op} %arg0 : ({t}) -> {o}")
    return f"  %0 = {text}\n  return %0 : {o}", o


def float_specials(dtype, seed):
    r = rng(seed)
    x = np.concatenate([
        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997,
                  -0.49999997, 3.0, -7.0, 1e6 + 0.5, 2.0**23 + 1, -(2.0**23) - 1]),
        r.standard_normal(30) * 10])
    return x.astype(dtype)


def rounded_away(x):
    """round_nearest_afz in float64, exact for float16 and float32 inputs;
    zeros keep the input's sign."""
    w = x.astype(np.float64)
    r = np.trunc(w + np.copysign(0.5, w))
    r = np.where(np.isfinite(w), np.copysign(r, w), w)
    return r.astype(x.dtype)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_rounding_ops(tmp_path, engine, dtype):
    x = float_specials(dtype, 9)
    if dtype == np.float16:
        x = x[np.isfinite(x) | np.isnan(x) | np.isinf(x)]
    with np.errstate(invalid="ignore"):
        sign = np.where(x > 0, dtype(1), np.where(x < 0, dtype(-1), x))
    for op, want in [("floor", np.floor(x)), ("ceil", np.ceil(x)),
                     ("round_nearest_even", np.rint(x)), ("round_nearest_afz", rounded_away(x)),
                     ("sign", sign)]:
        for generic in (False, True):
            body, out = unary_body(op, x, generic=generic)
            status, got, err = run(tmp_path, body, [x], out, engine)
            assert status == 0, (op, err)
            assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_is_finite_sign_of_integers_and_logic(tmp_path, engine):
    x = float_specials(np.float32, 10)
    body, out = unary_body("is_finite", x, tensor_type(np.zeros(x.shape, np.bool_)))
    status, got, err = run(tmp_path, body, [x], out, engine)
    assert status == 0, err
    assert_bits(got, np.isfinite(x))
    for v in (np.array([-128, -1, 0, 1, 127, 5], np.int8), np.array([0, 1, 255, 7], np.uint8),
              np.array([-(2**63), -5, 0, 9, 2**63 - 1], np.int64)):
        body, out = unary_body("sign", v)
        status, got, err = run(tmp_path, body, [v], out, engine)
        assert status == 0, err
        assert_bits(got, np.sign(v).astype(v.dtype))
        body, out = unary_body("not", v)
        status, got, err = run(tmp_path, body, [v], out, engine)
        assert status == 0, err
        assert_bits(got, np.invert(v))
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    body, out = unary_body("not", a)
    status, got, err = run(tmp_path, body, [a], out, engine)
    assert status == 0, err
    assert_bits(got, ~a)
    t = tensor_type(a)
    # add and multiply of i1 are or and and (spec "add", "multiply"), as
    # maximum and minimum are.
    for op, want in [("and", a & b), ("or", a | b), ("xor", a ^ b), ("add", a | b),
                     ("multiply", a & b), ("maximum", a | b), ("minimum", a & b)]:
        body = f"  %0 = stablehlo.{op} %arg0, %arg1 : {t}\n  return %0 : {t}"
        status, got, err = run(tmp_path, body, [a, b], t, engine)
        assert status == 0, err
        assert_bits(got, want)
    for op in ["subtract", "divide", "remainder", "power"]:
        body = f"  %0 = stablehlo.{op} %arg0, %arg1 : {t}\n  return %0 : {t}"
        status, got, err = run(tmp_path, body, [a, b], t, engine)
        assert status == 1 and got is None
        assert "f.mlir:2:" in err and f"{op} of i1 values is not defined" in err, err


@pytest.mark.parametrize("engine", ENGINES)
def test_trigonometry_and_logistic(tmp_path, engine):
    """Within an ulp of the functions computed in float64 and rounded once."""
    x = (rng(11).standard_normal(40) * 4).astype(np.float32)
    w = x.astype(np.float64)
    for op, want in [("sine", np.sin(w)), ("cosine", np.cos(w)), ("tan", np.tan(w)),
                     ("logistic", 1 / (1 + np.exp(-w)))]:
        body, out = unary_body(op, x)
        status, got, err = run(tmp_path, body, [x], out, engine)
        assert status == 0, (op, err)
        np.testing.assert_array_max_ulp(got, want.astype(np.float32), 1)


def pad_reference(x, value, low, high, interior):
    """The specification's rule, position by position: result[low + j *
    (interior + 1)] = x[j], the padding value elsewhere."""
    shape = [n + lo + hi + max(n - 1, 0) * it for n, lo, hi, it in zip(x.shape, low, high, interior)]
    out = np.full(shape, value, x.dtype)
    for j in np.ndindex(*x.shape):
        at = tuple(lo + i * (it + 1) for i, lo, it in zip(j, low, interior))
        if all(0 <= a < e for a, e in zip(at, shape)):
            out[at] = x[j]
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_pad(tmp_path, engine, form):
    r = rng(9)
    x = r.integers(-50, 50, (3, 4)).astype(np.int32)
    value = np.array(-7, np.int32)
    for low, high, interior in [([0, 1], [2, 1], [1, 0]), ([-1, 0], [0, -2], [0, 2]),
                                ([2, -3], [-1, 1], [2, 1]), ([0, 0], [0, 0], [0, 0])]:
        want = pad_reference(x, value, low, high, interior)
        out = tensor_type(want)
        types = f"({tensor_type(x)}, tensor<i32>) -> {out}"
        op = (f'"stablehlo.pad"(%arg0, %arg1) {{edge_padding_low = array<i64: {low[0]}, {low[1]}>, '
              f"edge_padding_high = array<i64: {high[0]}, {high[1]}>, interior_padding = "
              f"array<i64: {interior[0]}, {interior[1]}>}} : {types}" if form == "generic" else
              f"stablehlo.pad %arg0, %arg1, low = {low}, high = {high}, interior = {interior} : "
              f"{types}")
        status, got, err = run(tmp_path, f"  %0 = {op}\n  return %0 : {out}", [x, value], out,
                               engine)
        assert status == 0, err
        assert_bits(got, want)
    # An empty operand is all padding; floats keep -0 and NaN.
    e = np.zeros((0, 2), np.float32)
    nan = np.array(np.nan, np.float32)
    want = pad_reference(e, nan, [1, 0], [1, 1], [1, 0])
    out = tensor_type(want)
    op = (f"stablehlo.pad %arg0, %arg1, low = [1, 0], high = [1, 1], interior = [1, 0] : "
          f"({tensor_type(e)}, tensor<f32>) -> {out}")
    status, got, err = run(tmp_path, f"  %0 = {op}\n  return %0 : {out}", [e, nan], out, engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("op, message", [
    ("stablehlo.pad %arg0, %arg1, low = [0, 0], high = [0, 0], interior = [-1, 0] : "
     "(tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>", "it must be in [0, 2^31)"),
    ("stablehlo.pad %arg0, %arg1, low = [-3, 0], high = [-2, 0], interior = [0, 0] : "
     "(tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>", "removes more elements than it has"),
    ("stablehlo.pad %arg0, %arg1, low = [0], high = [0], interior = [0] : "
     "(tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>", "for each of the operand's 2"),
    ("stablehlo.pad %arg0, %arg0, low = [0, 0], high = [0, 0], interior = [0, 0] : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>", "pad's padding value is"),
])
def test_pad_errors_are_located(tmp_path, op, message):
    x = np.zeros((4, 3), np.float32)
    status, got, err = run(tmp_path, f"  %0 = {op}\n  return %0 : tensor<4x3xf32>",
                           [x, np.array(0.0, np.float32)], "tensor<4x3xf32>", "interp")
    assert status == 1 and got is None
    assert "f.mlir:2:" in err and "error:" in err and "^" in err, err
    assert message in err, err


@pytest.mark.parametrize("engine", ENGINES)
def test_power_remainder_and_barrier(tmp_path, engine):
    # power of floats: IEEE 754's pow (C Annex F at the special values,
    # within an ulp of the float64 value rounded once elsewhere).
    x = np.array([2.0, -8.0, 0.5, np.nan, -0.0, -0.0, 1.0, -2.0, np.inf, 3.7, 0.2], np.float32)
    y = np.array([10.0, 1 / 3, -2.0, 0.0, -3.0, 2.0, np.nan, 3.0, -1.0, 2.5, 7.1], np.float32)
    t = tensor_type(x)
    body = f"  %0 = stablehlo.power %arg0, %arg1 : {t}\n  return %0 : {t}"
    status, got, err = run(tmp_path, body, [x, y], t, engine)
    assert status == 0, err
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    # (the sign of a NaN is no part of pow's result: teval's is positive)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert_bits(np.where(np.isnan(got), 0, got)[:9], np.where(np.isnan(want), 0, want)[:9])
    assert np.all(np.abs(got[9:].view(np.int32) - want[9:].view(np.int32)) <= 1), (got, want)
    # remainder of integers: the sign of the dividend (C's %, numpy's fmod).
    a = np.array([7, -7, 7, -7, 5, 0, -128, 127], np.int8)
    b = np.array([3, 3, -3, -3, 5, 4, 3, -2], np.int8)
    t = tensor_type(a)
    body = f'  %0 = "stablehlo.remainder"(%arg0, %arg1) : ({t}, {t}) -> {t}\n  return %0 : {t}'
    status, got, err = run(tmp_path, body, [a, b], t, engine)
    assert status == 0, err
    assert_bits(got, np.fmod(a, b))
    b[2] = 0
    status, got, err = run(tmp_path, body, [a, b], t, engine)
    # (the interpreter names the op; IREval and the JIT the decomposition's
    # statement, docs/BYTEIR.md "Errors")
    assert status == 1 and got is None and "f.mlir" in err and "division by zero" in err, err
    assert engine != "interp" or "in remainder at element [2]" in err, err
    # optimization_barrier: its operands, unchanged.
    t = tensor_type(x)
    body = (f"  %0:2 = stablehlo.optimization_barrier %arg0, %arg1 : {t}, {t}\n"
            f"  %1 = stablehlo.subtract %0#1, %0#0 : {t}\n  return %1 : {t}")
    status, got, err = run(tmp_path, body, [x, y], t, engine)
    assert status == 0, err
    assert_bits(got, y - x)


def wrapped_power(base, exponent, dtype):
    """The spec's integer power (its reference interpreter's rule): a
    negative exponent gives 0 but for a base of 1 or -1; wrapping."""
    if exponent < 0:
        if base not in (1, -1):
            return 0
        exponent = -exponent
    bits = np.dtype(dtype).itemsize * 8
    value = pow(int(base), int(exponent), 1 << bits)
    if np.issubdtype(dtype, np.signedinteger) and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


@pytest.mark.parametrize("engine", ENGINES)
def test_power_of_integers_and_remainder_of_floats(tmp_path, engine):
    """Neither has a decomposition (docs/SEMANTICS.md): the native reference
    on every engine."""
    rng = np.random.default_rng(12)
    for dtype in [np.int8, np.int32, np.int64, np.uint8, np.uint16]:
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -5), min(info.max, 6), 40).astype(dtype)
        y = rng.integers(max(info.min, -3), 40, 40).astype(dtype)
        x[:6] = [1, 1, 0, 2, 3, 0] if info.min == 0 else [-1, -1, 1, 0, -3, 2]
        y[:6] = [5, 0, 3, 7, 30, 0] if info.min == 0 else [3, -4, -7, -1, 3, 63]
        t = tensor_type(x)
        status, got, err = run(tmp_path, f"  %0 = stablehlo.power %arg0, %arg1 : {t}\n"
                               f"  return %0 : {t}", [x, y], t, engine)
        assert status == 0, err
        assert_bits(got, np.array([wrapped_power(a, b, dtype) for a, b in zip(x, y)], dtype))
    for dtype in [np.float16, np.float32, np.float64]:
        x = (rng.standard_normal(40) * 100).astype(dtype)
        y = (rng.standard_normal(40) * 7).astype(dtype)
        x[:5] = [5.5, -5.5, np.inf, 3.0, -0.0]
        y[:5] = [2.0, 2.0, 1.0, 0.0, 1.0]
        t = tensor_type(x)
        status, got, err = run(tmp_path, f"  %0 = stablehlo.remainder %arg0, %arg1 : {t}\n"
                               f"  return %0 : {t}", [x, y], t, engine)
        assert status == 0, err
        with np.errstate(invalid="ignore"):
            assert_bits(got, np.fmod(x, y))  # C's fmod, exact in every format
    for dtype, op, message in [(np.int32, "power", "power of integers has no einstein_v2"),
                               (np.float32, "remainder", "remainder of floats (fmod) has no")]:
        x = np.ones(4, dtype)
        t = tensor_type(x)
        run(tmp_path, f"  %0 = stablehlo.{op} %arg0, %arg0 : {t}\n  return %0 : {t}", [x], t,
            engine)
        assert lower_reports(tmp_path, message)
