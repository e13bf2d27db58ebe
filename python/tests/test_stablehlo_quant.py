"""StableHLO's quantized tensors (docs/SEMANTICS.md, "StableHLO's quantized
tensors"): `!quant.uniform` types, uniform_quantize, uniform_dequantize,
bitcast_convert to and from the storage type, and the elementwise ops as
the specification's dequantize_op_quantize. Expected values follow the
specification's quantize and dequantize, written here with numpy's float
arithmetic in the expressed type. Kernels have no quantized values: ireval
and the JIT decline them."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, teval

PER_TENSOR = "!quant.uniform<i8:f32, 0.1:-30>"
OTHER = "!quant.uniform<i8:f32, 0.5:-20>"
PER_AXIS = "!quant.uniform<i8<-100:100>:f32:1, {0.1:-30, 0.25:5, 2.0:0}>"


def quantize(x, scales, zero_points, lo=-128, hi=127, axis=None):
    """The specification's quantize: x / scale + zero_point in float32,
    clamped, rounded to nearest even, stored as int8."""
    x = x.astype(np.float32)
    shape = [1] * x.ndim
    if axis is not None:
        shape[axis] = -1
    s = np.asarray(scales, np.float32).reshape(shape)
    z = np.asarray(zero_points, np.float32).reshape(shape)
    v = x / s + z
    return np.rint(np.clip(v, np.float32(lo), np.float32(hi))).astype(np.int8)


def dequantize(i, scales, zero_points, axis=None):
    shape = [1] * i.ndim
    if axis is not None:
        shape[axis] = -1
    s = np.asarray(scales, np.float32).reshape(shape)
    z = np.asarray(zero_points, np.int64).reshape(shape)
    return (i.astype(np.int64) - z).astype(np.float32) * s


def test_quantize_and_dequantize_per_tensor(tmp_path):
    x = (rng(1).standard_normal(16) * 8).astype(np.float32)
    q = f"tensor<16x{PER_TENSOR}>"
    body = (f'  %q = "stablehlo.uniform_quantize"(%arg0) : (tensor<16xf32>) -> {q}\n'
            f'  %b = "stablehlo.bitcast_convert"(%q) : ({q}) -> tensor<16xi8>\n'
            "  return %b : tensor<16xi8>")
    status, got, err = run(tmp_path, body, [x], "tensor<16xi8>", "interp")
    assert status == 0, err
    want = quantize(x, [0.1], [-30])
    assert_bits(got, want)
    body = (f'  %q = "stablehlo.bitcast_convert"(%arg0) : (tensor<16xi8>) -> {q}\n'
            f'  %f = "stablehlo.uniform_dequantize"(%q) : ({q}) -> tensor<16xf32>\n'
            "  return %f : tensor<16xf32>")
    status, got, err = run(tmp_path, body, [want], "tensor<16xf32>", "interp")
    assert status == 0, err
    assert_bits(got, dequantize(want, [0.1], [-30]))


def test_per_axis_quantization_and_its_storage_range(tmp_path):
    x = (rng(2).standard_normal((4, 3)) * 30).astype(np.float32)
    q = f"tensor<4x3x{PER_AXIS}>"
    body = (f'  %q = stablehlo.uniform_quantize %arg0 : (tensor<4x3xf32>) -> {q}\n'
            f'  %b = stablehlo.bitcast_convert %q : ({q}) -> tensor<4x3xi8>\n'
            "  return %b : tensor<4x3xi8>")
    status, got, err = run(tmp_path, body, [x], "tensor<4x3xi8>", "interp")
    assert status == 0, err
    assert_bits(got, quantize(x, [0.1, 0.25, 2.0], [-30, 5, 0], -100, 100, axis=1))


def test_requantize_goes_through_the_expressed_values(tmp_path):
    i = np.array([10, 10, -128, 127], np.int8)
    a, b = PER_AXIS.replace("<-100:100>", ""), "!quant.uniform<i8:f32:0, {0.1:-20, 0.2:-30, 1.0:0, 3.0:1}>"
    a = "!quant.uniform<i8:f32:0, {0.1:-30, 0.5:-20, 0.5:0, 0.25:3}>"
    body = (f'  %q = stablehlo.bitcast_convert %arg0 : (tensor<4xi8>) -> tensor<4x{a}>\n'
            f'  %r = stablehlo.uniform_quantize %q : (tensor<4x{a}>) -> tensor<4x{b}>\n'
            f'  %b = stablehlo.bitcast_convert %r : (tensor<4x{b}>) -> tensor<4xi8>\n'
            "  return %b : tensor<4xi8>")
    status, got, err = run(tmp_path, body, [i], "tensor<4xi8>", "interp")
    assert status == 0, err
    f = dequantize(i, [0.1, 0.5, 0.5, 0.25], [-30, -20, 0, 3], axis=0)
    assert_bits(got, quantize(f, [0.1, 0.2, 1.0, 3.0], [-20, -30, 0, 1], axis=0))


@pytest.mark.parametrize("op,f", [("add", np.add), ("multiply", np.multiply),
                                  ("maximum", np.maximum), ("tanh", np.tanh),
                                  ("negate", np.negative)])
def test_elementwise_ops_dequantize_compute_and_quantize(tmp_path, op, f):
    a = rng(3).integers(-128, 128, 12).astype(np.int8)
    b = rng(4).integers(-128, 128, 12).astype(np.int8)
    unary = op in ("tanh", "negate")
    ta, tb, tr = f"tensor<12x{PER_TENSOR}>", f"tensor<12x{OTHER}>", f"tensor<12x{OTHER}>"
    operands = "%qa" if unary else "%qa, %qb"
    types = f"({ta})" if unary else f"({ta}, {tb})"
    body = (f"  %qa = stablehlo.bitcast_convert %arg0 : (tensor<12xi8>) -> {ta}\n"
            f"  %qb = stablehlo.bitcast_convert %arg1 : (tensor<12xi8>) -> {tb}\n"
            f'  %r = "stablehlo.{op}"({operands}) : {types} -> {tr}\n'
            f"  %b = stablehlo.bitcast_convert %r : ({tr}) -> tensor<12xi8>\n"
            "  return %b : tensor<12xi8>")
    status, got, err = run(tmp_path, body, [a, b], "tensor<12xi8>", "interp")
    assert status == 0, err
    fa, fb = dequantize(a, [0.1], [-30]), dequantize(b, [0.5], [-20])
    value = f(fa) if unary else f(fa, fb)
    if op == "tanh":  # teval's tanh: the float64 function rounded to float32
        value = np.tanh(fa.astype(np.float64)).astype(np.float32)
    assert_bits(got, quantize(value.astype(np.float32), [0.5], [-20]))


@pytest.mark.parametrize("engine", ["ireval", "jit"])
def test_kernels_run_quantized_values_natively(tmp_path, engine):
    q = f"tensor<3x{PER_TENSOR}>"
    body = (f"  %s = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>\n"
            f"  %q = stablehlo.uniform_quantize %s : (tensor<3xf32>) -> {q}\n"
            f"  %f = stablehlo.uniform_dequantize %q : ({q}) -> tensor<3xf32>\n"
            f"  %r = stablehlo.add %f, %arg0 : tensor<3xf32>\n"
            "  return %r : tensor<3xf32>")
    x = np.array([1.0, -2.0, 0.5], np.float32)
    status, want, err = run(tmp_path, body, [x], "tensor<3xf32>", "interp")
    assert status == 0, err
    status, got, err = run(tmp_path, body, [x], "tensor<3xf32>", engine)
    assert status == 0, err
    assert_bits(got, want)
    assert lower_reports(tmp_path, "have no einstein_v2 decomposition")


@pytest.mark.parametrize("element,message", [
    ("!quant.uniform<i8:f32, -0.1:0>", "a scale must be positive and finite"),
    ("!quant.uniform<i8:f32, 0.1:200>", "zero point 200 is outside the storage range"),
    ("!quant.uniform<i8<5:5>:f32, 0.1>", "storage_min < storage_max"),
    ("!quant.uniform<i8:f32, {0.1, 0.2}>", "a per-tensor type has one scale"),
    ("!quant.uniform<i8:f32:3, {0.1, 0.2}>", "quantization_dimension 3 must be a dimension"),
    ("!quant.uniform<f32:f32, 0.1>", "storage type `f32` is not an integer type"),
    ("!quant.uniform<i8:i32, 0.1>", "expressed type `i32` is not a float type"),
])
def test_malformed_quantized_types(tmp_path, element, message):
    src = tmp_path / "f.mlir"
    src.write_text(f"func.func @main(%a: tensor<2x{element}>) -> tensor<2x{element}> {{\n"
                   f"  return %a : tensor<2x{element}>\n}}\n")
    done = subprocess.run([teval(), "run", str(src), "-i", "arg0=int8[2]"], capture_output=True,
                          text=True)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert "f.mlir:1:" in done.stderr


@pytest.mark.parametrize("op, out, f", [
    ("stablehlo.transpose %q, dims = [1, 0] : ({q}) -> tensor<3x2x{e}>", (3, 2), lambda a: a.T),
    ("stablehlo.reshape %q : ({q}) -> tensor<6x{e}>", (6,), lambda a: a.reshape(6)),
    ("stablehlo.slice %q [0:2, 1:3] : ({q}) -> tensor<2x2x{e}>", (2, 2), lambda a: a[:, 1:3]),
    ("stablehlo.reverse %q, dims = [1] : {q}", (2, 3), lambda a: a[:, ::-1]),
    ("stablehlo.broadcast_in_dim %q, dims = [1, 2] : ({q}) -> tensor<2x2x3x{e}>", (2, 2, 3),
     lambda a: np.broadcast_to(a, (2, 2, 3))),
    ("stablehlo.concatenate %q, %q, dim = 0 : ({q}, {q}) -> tensor<4x3x{e}>", (4, 3),
     lambda a: np.concatenate([a, a])),
    ('"stablehlo.gather"(%q, %c) {{dimension_numbers = #stablehlo.gather<offset_dims = [0], '
     "collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, "
     "slice_sizes = array<i64: 2, 1>}} : ({q}, tensor<4x1xi32>) -> tensor<2x4x{e}>", (2, 4),
     lambda a: a[:, [2, 0, 1, 2]]),
    ('"stablehlo.pad"(%q, %z) {{edge_padding_low = array<i64: 1, 0>, edge_padding_high = '
     "array<i64: 0, 1>, interior_padding = array<i64: 0, 0>}} : ({q}, tensor<{e}>) -> "
     "tensor<3x4x{e}>", (3, 4), lambda a: np.pad(a, ((1, 0), (0, 1)), constant_values=-7)),
])
def test_ops_that_move_elements_keep_the_quantization(tmp_path, op, out, f):
    # The stored integers move; the result's type carries the operand's
    # quantization (and says so: another one is an error).
    i = rng(90).integers(-128, 128, size=(2, 3)).astype(np.int8)
    q, e = f"tensor<2x3x{PER_TENSOR}>", PER_TENSOR
    dims = "x".join(str(d) for d in out)
    body = (f"  %q = stablehlo.bitcast_convert %arg0 : (tensor<2x3xi8>) -> {q}\n"
            "  %c = stablehlo.constant dense<[[2], [0], [1], [2]]> : tensor<4x1xi32>\n"
            f"  %z = stablehlo.constant dense<-7> : tensor<{e}>\n"
            f"  %t = {op.format(q=q, e=e)}\n"
            f"  %b = stablehlo.bitcast_convert %t : (tensor<{dims}x{e}>) -> tensor<{dims}xi8>\n"
            f"  return %b : tensor<{dims}xi8>")
    status, got, err = run(tmp_path, body, [i], f"tensor<{dims}xi8>", "interp")
    assert status == 0, err
    assert_bits(got, np.ascontiguousarray(f(i)))
    line = op.format(q=q, e=e)
    wrong = body.replace(line, line.replace(f"-> tensor<{dims}x{e}>", f"-> tensor<{dims}x{OTHER}>"))
    if wrong != body:
        status, _, err = run(tmp_path, wrong, [i], f"tensor<{dims}xi8>", "interp")
        assert status == 1 and "its quantized values must share one quantization" in err, err


def float32_dot(a, b):
    """a·b of float32 matrices, each product and sum rounded, from 0, in
    ascending order of the contracting index."""
    out = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = np.float32(0)
            for k in range(a.shape[1]):
                acc = np.float32(acc + np.float32(a[i, k] * b[k, j]))
            out[i, j] = acc
    return out


RESULT = "!quant.uniform<i32:f32, 0.005:3>"
WEIGHTS = "!quant.uniform<i8:f32, 0.5>"  # dot_general's rhs: zero point 0 (C15)


def test_dot_general_dequantizes_computes_and_quantizes(tmp_path):
    # i8 operands, an i32 result of another scale (as quantized models and
    # JAX's tests have it): the specification's dequantize_op_quantize.
    a = rng(91).integers(-128, 128, size=(3, 4)).astype(np.int8)
    b = rng(92).integers(-128, 128, size=(4, 2)).astype(np.int8)
    qa, qb, qr = (f"tensor<3x4x{PER_TENSOR}>", f"tensor<4x2x{WEIGHTS}>", f"tensor<3x2x{RESULT}>")
    body = (f"  %a = stablehlo.bitcast_convert %arg0 : (tensor<3x4xi8>) -> {qa}\n"
            f"  %b = stablehlo.bitcast_convert %arg1 : (tensor<4x2xi8>) -> {qb}\n"
            f"  %t = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ({qa}, {qb}) -> {qr}\n"
            f"  %r = stablehlo.bitcast_convert %t : ({qr}) -> tensor<3x2xi32>\n"
            "  return %r : tensor<3x2xi32>")
    status, got, err = run(tmp_path, body, [a, b], "tensor<3x2xi32>", "interp")
    assert status == 0, err
    v = float32_dot(dequantize(a, [0.1], [-30]), dequantize(b, [0.5], [0]))
    scaled = v / np.float32(0.005) + np.float32(3)
    want = np.rint(np.clip(scaled, np.float32(-2**31), np.float32(2**31 - 1))).astype(np.int32)
    assert_bits(got, want)
    # A float lhs (hybrid_dequantize_then_op): the rhs dequantized, a float result.
    x = rng(95).standard_normal((3, 4)).astype(np.float32)
    body = (f"  %b = stablehlo.bitcast_convert %arg1 : (tensor<4x2xi8>) -> {qb}\n"
            f"  %t = stablehlo.dot_general %arg0, %b, contracting_dims = [1] x [0] : "
            f"(tensor<3x4xf32>, {qb}) -> tensor<3x2xf32>\n"
            "  return %t : tensor<3x2xf32>")
    status, got, err = run(tmp_path, body, [x, b], "tensor<3x2xf32>", "interp")
    assert status == 0, err
    assert_bits(got, float32_dot(x, dequantize(b, [0.5], [0])))


@pytest.mark.parametrize("rhs,result,dims,message", [
    ("tensor<4x2x!quant.uniform<i8:f32, 0.5:-20>>", "tensor<3x2x{r}>", "[1] x [0]",
     "the rhs's zero points must be 0 (C15)"),
    ("tensor<4x2x!quant.uniform<i8:f32:0, {{0.5, 0.5, 0.5, 0.5}}>>", "tensor<3x2x{r}>", "[1] x [0]",
     "not quantized along a contracting dimension (C16)"),
    ("tensor<4x2x!quant.uniform<i16:f32, 0.5>>", "tensor<3x2x{r}>", "[1] x [0]",
     "one storage type (C17)"),
    ("tensor<4x2x{w}>", "tensor<3x2xf32>", "[1] x [0]",
     "quantized exactly when the rhs and the result are (C14)"),
])
def test_the_constraints_of_quantized_contractions(tmp_path, rhs, result, dims, message):
    qa = f"tensor<3x4x{PER_TENSOR}>"
    rhs, result = rhs.format(w=WEIGHTS), result.format(r=RESULT)
    body = (f"  %a = stablehlo.bitcast_convert %arg0 : (tensor<3x4xi8>) -> {qa}\n"
            f"  %c = stablehlo.constant dense<1> : {rhs}\n"
            f"  %t = stablehlo.dot_general %a, %c, contracting_dims = {dims} : ({qa}, {rhs}) -> {result}\n"
            f"  return %t : {result}")
    status, _, err = run(tmp_path, body, [np.zeros((3, 4), np.int8)], result, "interp")
    assert status == 1 and message in err, err


def test_convolution_dequantizes_computes_and_quantizes(tmp_path):
    # A 1-D convolution, batch 1, one feature: out[x] = sum_w in[x + w]·k[w].
    a = rng(93).integers(-128, 128, size=(1, 6, 1)).astype(np.int8)
    k = rng(94).integers(-128, 128, size=(3, 1, 1)).astype(np.int8)
    qa, qk, qr = (f"tensor<1x6x1x{PER_TENSOR}>", f"tensor<3x1x1x{OTHER}>",
                  f"tensor<1x4x1x{RESULT}>")
    body = (f"  %a = stablehlo.bitcast_convert %arg0 : (tensor<1x6x1xi8>) -> {qa}\n"
            f"  %k = stablehlo.bitcast_convert %arg1 : (tensor<3x1x1xi8>) -> {qk}\n"
            f"  %t = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
            f"window = {{}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : "
            f"({qa}, {qk}) -> {qr}\n"
            f"  %r = stablehlo.bitcast_convert %t : ({qr}) -> tensor<1x4x1xi32>\n"
            "  return %r : tensor<1x4x1xi32>")
    status, got, err = run(tmp_path, body, [a, k], "tensor<1x4x1xi32>", "interp")
    assert status == 0, err
    x, w = dequantize(a, [0.1], [-30])[0, :, 0], dequantize(k, [0.5], [-20])[:, 0, 0]
    v = np.array([float32_dot(x[None, p:p + 3], w[:, None])[0, 0] for p in range(4)], np.float32)
    want = np.rint(v / np.float32(0.005) + np.float32(3)).astype(np.int32).reshape(1, 4, 1)
    assert_bits(got, want)


def test_nan_quantizes_to_the_stored_integer_0(tmp_path):
    # The specification's convert leaves NaN to integers TBD; teval stores
    # 0, as XLA and the reference interpreter do (JAX's quantized test
    # data expects it), which is not the zero point here.
    x = np.array([np.nan, 1.0], np.float32)
    q = f"tensor<2x{PER_TENSOR}>"
    body = (f'  %q = "stablehlo.uniform_quantize"(%arg0) : (tensor<2xf32>) -> {q}\n'
            f'  %b = "stablehlo.bitcast_convert"(%q) : ({q}) -> tensor<2xi8>\n'
            "  return %b : tensor<2xi8>")
    status, got, err = run(tmp_path, body, [x], "tensor<2xi8>", "interp")
    assert status == 0, err
    assert got.tolist() == [0, -20]  # 1.0 / 0.1 - 30


def test_other_ops_of_quantized_tensors_are_errors(tmp_path):
    q = f"tensor<2x2x{PER_TENSOR}>"
    body = (f"  %q = stablehlo.bitcast_convert %arg0 : (tensor<2x2xi8>) -> {q}\n"
            f"  %t = stablehlo.popcnt %q : {q}\n"
            f"  %b = stablehlo.bitcast_convert %t : ({q}) -> tensor<2x2xi8>\n"
            "  return %b : tensor<2x2xi8>")
    status, _, err = run(tmp_path, body, [np.zeros((2, 2), np.int8)], "tensor<2x2xi8>", "interp")
    assert status == 1
    assert "popcnt of quantized tensors is not read" in err

    per_axis = f"tensor<2x3x{PER_AXIS}>"
    body = (f"  %q = stablehlo.bitcast_convert %arg0 : (tensor<2x3xi8>) -> {per_axis}\n"
            f'  %n = "stablehlo.negate"(%q) : ({per_axis}) -> {per_axis}\n'
            f"  %b = stablehlo.bitcast_convert %n : ({per_axis}) -> tensor<2x3xi8>\n"
            "  return %b : tensor<2x3xi8>")
    status, _, err = run(tmp_path, body, [np.zeros((2, 3), np.int8)], "tensor<2x3xi8>", "interp")
    assert status == 1 and "per-tensor quantized tensors only" in err


def test_a_quantized_argument_holds_integers_of_its_storage_range(tmp_path):
    t = f"tensor<2x3x{PER_AXIS}>"
    body = (f"  %b = stablehlo.bitcast_convert %arg0 : ({t}) -> tensor<2x3xi8>\n"
            "  return %b : tensor<2x3xi8>")
    x = np.array([[0, 100, -100], [1, 2, 3]], np.int8)
    status, got, err = run(tmp_path, body, [x], "tensor<2x3xi8>", "interp", types=[t])
    assert status == 0, err
    assert_bits(got, x)
    x[1, 2] = 101
    status, got, err = run(tmp_path, body, [x], "tensor<2x3xi8>", "interp", types=[t])
    assert status == 1 and got is None
    assert "input arg0 holds 101 at element 5, outside the storage range [-100, 100]" in err


def test_random_and_wrong_inputs_of_a_quantized_argument(tmp_path):
    """Seeded random values of a quantized argument are stored integers in
    its storage range; an array of another type is an error naming both."""
    element = "!quant.uniform<i8<20:100>:f32, 0.5:40>"
    src = tmp_path / "f.mlir"
    src.write_text(f"func.func @main(%a: tensor<50x{element}>) -> tensor<50xi8> {{\n"
                   f"  %b = stablehlo.bitcast_convert %a : (tensor<50x{element}>) -> tensor<50xi8>\n"
                   "  return %b : tensor<50xi8>\n}\n")
    done = subprocess.run([teval(), "run", str(src), "--seed", "3", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out" / "result0.npy")
    assert got.min() >= 20 and got.max() <= 100 and len(set(got.tolist())) > 5
    done = subprocess.run([teval(), "run", str(src), "-i", "arg0=float32[50]"],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert f"is declared tensor<50x{element}>, but the input given is tensor<50xf32>" in done.stderr


def test_a_quantized_constant_holds_stored_integers_in_range(tmp_path):
    element = "!quant.uniform<i8<-100:100>:f32, 0.5:0>"
    t = f"tensor<3x{element}>"
    body = (f"  %c = stablehlo.constant dense<[-100, 0, 100]> : {t}\n"
            f"  %f = stablehlo.uniform_dequantize %c : ({t}) -> tensor<3xf32>\n"
            "  return %f : tensor<3xf32>")
    status, got, err = run(tmp_path, body, [], "tensor<3xf32>", "interp")
    assert status == 0, err
    assert_bits(got, np.array([-50, 0, 50], np.float32))
    status, got, err = run(tmp_path, body.replace("100]", "101]"), [], "tensor<3xf32>", "interp")
    assert status == 1 and "element 2 of the constant, 101, is outside the storage range" in err


def test_compare_select_and_clamp_dequantize_first(tmp_path):
    # compare: the dequantized values compared (two stored integers of
    # different quantizations can be equal values); select: the chosen
    # dequantized value quantized to the result's type; clamp: as the
    # elementwise ops.
    a = np.array([-30, -20, 0, 100, -128], np.int8)  # 0.1 * (a + 30): 0, 1, 3, 13, -9.8
    b = np.array([-20, -18, -14, 6, -128], np.int8)  # 0.5 * (b + 20): 0, 1, 3, 13, -54
    qa, qb = f"tensor<5x{PER_TENSOR}>", f"tensor<5x{OTHER}>"
    body = (f"  %a = stablehlo.bitcast_convert %arg0 : (tensor<5xi8>) -> {qa}\n"
            f"  %b = stablehlo.bitcast_convert %arg1 : (tensor<5xi8>) -> {qb}\n"
            f"  %e = stablehlo.compare EQ, %a, %b, FLOAT : ({qa}, {qb}) -> tensor<5xi1>\n"
            "  return %e : tensor<5xi1>")
    status, got, err = run(tmp_path, body, [a, b], "tensor<5xi1>", "interp")
    assert status == 0, err
    va, vb = dequantize(a, [0.1], [-30]), dequantize(b, [0.5], [-20])
    assert got.tolist() == (va == vb).tolist()
    body = (f"  %a = stablehlo.bitcast_convert %arg0 : (tensor<5xi8>) -> {qa}\n"
            f"  %b = stablehlo.bitcast_convert %arg1 : (tensor<5xi8>) -> {qb}\n"
            f"  %p = stablehlo.compare GT, %a, %b, FLOAT : ({qa}, {qb}) -> tensor<5xi1>\n"
            f"  %s = stablehlo.select %p, %a, %b : (tensor<5xi1>, {qa}, {qb}) -> {qa}\n"
            f"  %c = stablehlo.clamp %b, %s, %a : ({qb}, {qa}, {qa}) -> {qa}\n"
            f"  %r = stablehlo.bitcast_convert %c : ({qa}) -> tensor<5xi8>\n"
            "  return %r : tensor<5xi8>")
    status, got, err = run(tmp_path, body, [a, b], "tensor<5xi8>", "interp")
    assert status == 0, err
    s = quantize(np.where(va > vb, va, vb), [0.1], [-30])
    vs = dequantize(s, [0.1], [-30])
    want = quantize(np.minimum(np.maximum(vs, vb), va), [0.1], [-30])
    assert_bits(got, want)


def test_convolution_with_per_channel_weights(tmp_path):
    # Weights quantized per output feature (C29), as quantized models store
    # them: each kernel output feature dequantized with its own scale.
    a = rng(96).integers(-128, 128, size=(1, 5, 1)).astype(np.int8)
    k = rng(97).integers(-128, 128, size=(3, 1, 2)).astype(np.int8)
    weights = "!quant.uniform<i8:f32:2, {0.5, 0.25:4}>"
    qa, qk, qr = (f"tensor<1x5x1x{PER_TENSOR}>", f"tensor<3x1x2x{weights}>",
                  f"tensor<1x3x2x{RESULT}>")
    conv = (f"stablehlo.convolution(%a, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
            f"window = {{}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : "
            f"({qa}, {qk}) -> {qr}")
    body = (f"  %a = stablehlo.bitcast_convert %arg0 : (tensor<1x5x1xi8>) -> {qa}\n"
            f"  %k = stablehlo.bitcast_convert %arg1 : (tensor<3x1x2xi8>) -> {qk}\n"
            f"  %t = {conv}\n"
            f"  %r = stablehlo.bitcast_convert %t : ({qr}) -> tensor<1x3x2xi32>\n"
            "  return %r : tensor<1x3x2xi32>")
    status, got, err = run(tmp_path, body, [a, k], "tensor<1x3x2xi32>", "interp")
    assert status == 0, err
    x = dequantize(a, [0.1], [-30])[0, :, 0]
    w = dequantize(k, [0.5, 0.25], [0, 4], axis=2)[:, 0, :]
    v = np.array([[float32_dot(x[None, p:p + 3], w[:, o:o + 1])[0, 0] for o in range(2)]
                  for p in range(3)], np.float32)
    want = np.rint(v / np.float32(0.005) + np.float32(3)).astype(np.int32).reshape(1, 3, 2)
    assert_bits(got, want)
    # quantized along another dimension than the kernel's output feature
    wrong = body.replace(weights, "!quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>")
    status, _, err = run(tmp_path, wrong, [a, k], "tensor<1x3x2xi32>", "interp")
    assert status == 1 and "the kernel's output feature dimension (C29)" in err, err


AXIS0 = "!quant.uniform<i8<-100:100>:f32:0, {0.1:-30, 0.25:5, 2.0:0}>"
AXIS2 = "!quant.uniform<i8<-100:100>:f32:2, {0.1:-30, 0.25:5, 2.0:0}>"


@pytest.mark.parametrize("op,out,axis_type,f", [
    ("stablehlo.transpose %q, dims = [1, 0] : ({q}) -> tensor<3x2x{a}>", (3, 2), AXIS0,
     lambda a: a.T),
    ("stablehlo.reverse %q, dims = [0] : ({q}) -> tensor<2x3x{a}>", (2, 3), PER_AXIS,
     lambda a: a[::-1]),
    ("stablehlo.reshape %q : ({q}) -> tensor<1x2x3x{a}>", (1, 2, 3), AXIS2,
     lambda a: a.reshape(1, 2, 3)),
    ("stablehlo.broadcast_in_dim %q, dims = [1, 2] : ({q}) -> tensor<4x2x3x{a}>", (4, 2, 3),
     AXIS2, lambda a: np.broadcast_to(a, (4, 2, 3))),
    ("stablehlo.slice %q [0:1, 0:3] : ({q}) -> tensor<1x3x{a}>", (1, 3), PER_AXIS,
     lambda a: a[0:1]),
])
def test_per_axis_quantization_moves_with_its_dimension(tmp_path, op, out, axis_type, f):
    # The stored integers move; the result is quantized along the dimension
    # the op takes the operand's quantized dimension (1) to.
    i = rng(98).integers(-100, 101, size=(2, 3)).astype(np.int8)
    q = f"tensor<2x3x{PER_AXIS}>"
    dims = "x".join(str(d) for d in out)
    line = op.format(q=q, a=axis_type)
    body = (f"  %q = stablehlo.bitcast_convert %arg0 : (tensor<2x3xi8>) -> {q}\n"
            f"  %t = {line}\n"
            f"  %b = stablehlo.bitcast_convert %t : (tensor<{dims}x{axis_type}>) -> "
            f"tensor<{dims}xi8>\n"
            f"  return %b : tensor<{dims}xi8>")
    status, got, err = run(tmp_path, body, [i], f"tensor<{dims}xi8>", "interp")
    assert status == 0, err
    assert_bits(got, np.ascontiguousarray(f(i)))


def test_a_result_quantized_along_another_dimension_is_an_error(tmp_path):
    # broadcast_in_dim takes dimension 1 to 2; dimension 0 has extent 3 too.
    q = f"tensor<2x3x{PER_AXIS}>"
    body = (f"  %q = stablehlo.bitcast_convert %arg0 : (tensor<2x3xi8>) -> {q}\n"
            f"  %t = stablehlo.broadcast_in_dim %q, dims = [1, 2] : ({q}) -> tensor<3x2x3x{AXIS0}>\n"
            f"  %b = stablehlo.bitcast_convert %t : (tensor<3x2x3x{AXIS0}>) -> tensor<3x2x3xi8>\n"
            "  return %b : tensor<3x2x3xi8>")
    status, _, err = run(tmp_path, body, [np.zeros((2, 3), np.int8)], "tensor<3x2x3xi8>", "interp")
    assert status == 1 and "the result is quantized along dimension 2, where" in err, err


def test_a_reshape_that_merges_the_quantized_dimension_is_an_error(tmp_path):
    q = f"tensor<2x3x{PER_AXIS}>"
    flat = "!quant.uniform<i8<-100:100>:f32:0, {0.1:-30, 0.25:5, 2.0:0, 0.1:-30, 0.25:5, 2.0:0}>"
    body = (f"  %q = stablehlo.bitcast_convert %arg0 : (tensor<2x3xi8>) -> {q}\n"
            f"  %t = stablehlo.reshape %q : ({q}) -> tensor<6x{flat}>\n"
            f"  %b = stablehlo.bitcast_convert %t : (tensor<6x{flat}>) -> tensor<6xi8>\n"
            "  return %b : tensor<6xi8>")
    status, _, err = run(tmp_path, body, [np.zeros((2, 3), np.int8)], "tensor<6xi8>", "interp")
    assert status == 1 and "must share one quantization" in err, err


def quantized_program(body, ins, out):
    """A function of int8 arguments bitcast to PER_TENSOR values, `body` on
    them (%q0, %q1, ...), its quantized result %r bitcast back."""
    lines = [f"  %q{i} = stablehlo.bitcast_convert %arg{i} : (tensor<{s}i8>) -> tensor<{s}{PER_TENSOR}>"
             for i, s in enumerate(ins)]
    lines.append(body)
    lines.append(f"  %b = stablehlo.bitcast_convert %r : (tensor<{out}{PER_TENSOR}>) -> "
                 f"tensor<{out}i8>\n  return %b : tensor<{out}i8>")
    return "\n".join(lines)


def test_reduce_sort_and_control_flow_of_quantized_values(tmp_path):
    """The body of reduce, sort's comparator and the regions of while run on
    quantized scalars, each op of them dequantize_op_quantize (spec
    "reduce": the body's types are the inputs'); reduce folds in row-major
    order, as teval's reduce of a region does."""
    scalar = f"tensor<{PER_TENSOR}>"
    x = rng(21).integers(-128, 128, (3, 5)).astype(np.int8)
    init = np.array(-30, np.int8)  # the real 0
    body = (f'  %r = "stablehlo.reduce"(%q0, %q1) ({{\n'
            f"  ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"    %s = stablehlo.add %a, %b : {scalar}\n"
            f"    stablehlo.return %s : {scalar}\n"
            f"  }}) {{dimensions = array<i64: 1>}} : (tensor<3x5x{PER_TENSOR}>, {scalar}) -> "
            f"tensor<3x{PER_TENSOR}>")
    status, got, err = run(tmp_path, quantized_program(body, ["3x5x", ""], "3x"), [x, init],
                           "tensor<3xi8>", "interp")
    assert status == 0, err
    want = []
    for row in x:
        acc = init.reshape(1)
        for v in row:  # each add: dequantize both, add in float32, quantize
            acc = quantize(dequantize(acc, 0.1, -30) + dequantize(np.array([v], np.int8), 0.1, -30),
                           0.1, -30)
        want.append(acc[0])
    reduced = np.array(want, np.int8)
    assert_bits(got, reduced)
    # sort by the comparator's quantized LT: the real values' order.
    v = rng(22).integers(-128, 128, (7,)).astype(np.int8)
    body = (f'  %r = "stablehlo.sort"(%q0) ({{\n'
            f"  ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"    %c = stablehlo.compare GT, %a, %b : ({scalar}, {scalar}) -> tensor<i1>\n"
            f"    stablehlo.return %c : tensor<i1>\n"
            f"  }}) {{dimension = 0 : i64}} : (tensor<7x{PER_TENSOR}>) -> tensor<7x{PER_TENSOR}>")
    status, got, err = run(tmp_path, quantized_program(body, ["7x"], "7x"), [v], "tensor<7xi8>",
                           "interp")
    assert status == 0, err
    assert_bits(got, np.sort(v)[::-1].copy())
    # while: doubles a quantized vector three times.
    body = (f"  %n = stablehlo.constant dense<0> : tensor<i32>\n"
            f"  %w:2 = stablehlo.while(%i = %n, %y = %q0) : tensor<i32>, tensor<4x{PER_TENSOR}>\n"
            f"  cond {{\n    %three = stablehlo.constant dense<3> : tensor<i32>\n"
            f"    %p = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
            f"    stablehlo.return %p : tensor<i1>\n  }} do {{\n"
            f"    %one = stablehlo.constant dense<1> : tensor<i32>\n"
            f"    %j = stablehlo.add %i, %one : tensor<i32>\n"
            f"    %z = stablehlo.add %y, %y : tensor<4x{PER_TENSOR}>\n"
            f"    stablehlo.return %j, %z : tensor<i32>, tensor<4x{PER_TENSOR}>\n  }}\n"
            f"  %r = stablehlo.optimization_barrier %w#1 : tensor<4x{PER_TENSOR}>")
    v = np.array([-30, -25, -20, 0], np.int8)
    status, got, err = run(tmp_path, quantized_program(body, ["4x"], "4x"), [v], "tensor<4xi8>",
                           "interp")
    assert status == 0, err
    want = v
    for _ in range(3):
        want = quantize(dequantize(want, 0.1, -30) * np.float32(2), 0.1, -30)
    assert_bits(got, want)
    # map: its computation of quantized scalars, into a quantized result.
    body = (f'  %r = "stablehlo.map"(%q0, %q0) ({{\n'
            f"  ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"    %c = stablehlo.multiply %a, %b : {scalar}\n"
            f"    stablehlo.return %c : {scalar}\n"
            f"  }}) {{dimensions = array<i64: 0>}} : (tensor<4x{PER_TENSOR}>, "
            f"tensor<4x{PER_TENSOR}>) -> tensor<4x{PER_TENSOR}>")
    status, got, err = run(tmp_path, quantized_program(body, ["4x"], "4x"), [v], "tensor<4xi8>",
                           "interp")
    assert status == 0, err
    real = dequantize(v, 0.1, -30)
    assert_bits(got, quantize(real * real, 0.1, -30))
    # `applies` (as MLIR prints a body of one op): the same region.
    body = (f"  %r = stablehlo.reduce(%q0 init: %q1) applies stablehlo.add across dimensions = "
            f"[1] : (tensor<3x5x{PER_TENSOR}>, {scalar}) -> tensor<3x{PER_TENSOR}>")
    status, got, err = run(tmp_path, quantized_program(body, ["3x5x", ""], "3x"), [x, init],
                           "tensor<3xi8>", "interp")
    assert status == 0, err
    assert_bits(got, reduced)
    # Quantized values have no bitwise and, or.
    body = body.replace("stablehlo.add", "stablehlo.and")
    status, _, err = run(tmp_path, quantized_program(body, ["3x5x", ""], "3x"), [x, init],
                         "tensor<3xi8>", "interp")
    assert status == 1 and "of quantized values applies `and`" in err, err


@pytest.mark.parametrize("op,f", [("add", np.add), ("maximum", np.maximum)])
def test_reduce_window_of_quantized_values(tmp_path, op, f):
    """reduce_window's body on quantized scalars, each application
    dequantize_op_quantize; padding holds the initial value's stored
    integer; each window folds from the initial value in row-major order."""
    scalar = f"tensor<{PER_TENSOR}>"
    x = rng(23).integers(-128, 128, (4, 5)).astype(np.int8)
    init = np.array(-40, np.int8)  # the real -1.0
    body = (f'  %r = "stablehlo.reduce_window"(%q0, %q1) ({{\n'
            f"  ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"    %s = stablehlo.{op} %a, %b : {scalar}\n"
            f"    stablehlo.return %s : {scalar}\n"
            f"  }}) {{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 1>, "
            f"padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>}} : "
            f"(tensor<4x5x{PER_TENSOR}>, {scalar}) -> tensor<2x4x{PER_TENSOR}>")
    status, got, err = run(tmp_path, quantized_program(body, ["4x5x", ""], "2x4x"), [x, init],
                           "tensor<2x4xi8>", "interp")
    assert status == 0, err
    padded = np.full((5, 6), init, np.int8)
    padded[1:, :5] = x
    want = np.zeros((2, 4), np.int8)
    for i in range(2):
        for j in range(4):
            acc = init.reshape(1)
            for v in padded[2 * i:2 * i + 2, j:j + 3].reshape(-1):
                acc = quantize(f(dequantize(acc, 0.1, -30), dequantize(np.array([v], np.int8), 0.1,
                                                                      -30)), 0.1, -30)
            want[i, j] = acc[0]
    assert_bits(got, want)
    for engine in ENGINES[1:]:  # the kernel engines run it natively
        status, again, err = run(tmp_path, quantized_program(body, ["4x5x", ""], "2x4x"),
                                 [x, init], "tensor<2x4xi8>", engine)
        assert status == 0, err
        assert_bits(again, want)
    # An initial value of another quantization is an error.
    other = body.replace(f"(tensor<4x5x{PER_TENSOR}>, {scalar})",
                         f"(tensor<4x5x{PER_TENSOR}>, tensor<{OTHER}>)")
    other = other.replace('(%q0, %q1)', '(%q0, %o)')
    other = (f"  %o = stablehlo.bitcast_convert %q1 : ({scalar}) -> tensor<i8>\n"
             f"  %o2 = stablehlo.bitcast_convert %o : (tensor<i8>) -> tensor<{OTHER}>\n" +
             other.replace("(%q0, %o)", "(%q0, %o2)"))
    status, _, err = run(tmp_path, quantized_program(other, ["4x5x", ""], "2x4x"), [x, init],
                         "tensor<2x4xi8>", "interp")
    assert status == 1 and "reduce_window's initial value 0 is" in err, err


def test_scatter_and_select_and_scatter_of_quantized_values(tmp_path):
    """scatter's update computation and select_and_scatter's select and
    scatter functions run on quantized scalars (spec: per-tensor quantized
    inputs, updates, source and initial value of one type); scatter applies
    its updates in their row-major order, as teval's scatter does."""
    scalar = f"tensor<{PER_TENSOR}>"
    x = rng(24).integers(-128, 128, (6,)).astype(np.int8)
    updates = rng(25).integers(-128, 128, (3,)).astype(np.int8)
    indices = np.array([[1], [4], [1]], np.int32)
    body = (f"  %i = stablehlo.constant dense<[[1], [4], [1]]> : tensor<3x1xi32>\n"
            f'  %r = "stablehlo.scatter"(%q0, %i, %q1) ({{\n'
            f"  ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"    %s = stablehlo.add %a, %b : {scalar}\n"
            f"    stablehlo.return %s : {scalar}\n"
            f"  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
            f"scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}} : "
            f"(tensor<6x{PER_TENSOR}>, tensor<3x1xi32>, tensor<3x{PER_TENSOR}>) -> "
            f"tensor<6x{PER_TENSOR}>")
    status, got, err = run(tmp_path, quantized_program(body, ["6x", "3x"], "6x"), [x, updates],
                           "tensor<6xi8>", "interp")
    assert status == 0, err
    want = x.copy()
    for k, (i,) in enumerate(indices):
        want[i] = quantize(dequantize(want[i:i + 1], 0.1, -30) +
                           dequantize(updates[k:k + 1], 0.1, -30), 0.1, -30)[0]
    assert_bits(got, want)
    # select_and_scatter: each window's largest real value gets the source
    # added to the initial value (the real 0), the others the initial value.
    v = np.array([5, -7, 40, 41, -100, 90], np.int8)
    source = np.array([10, -60, 127], np.int8)
    body = (f'  %r = "stablehlo.select_and_scatter"(%q0, %q1, %q2) ({{\n'
            f"  ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"    %p = stablehlo.compare GE, %a, %b : ({scalar}, {scalar}) -> tensor<i1>\n"
            f"    stablehlo.return %p : tensor<i1>\n"
            f"  }}, {{\n"
            f"  ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"    %s = stablehlo.add %a, %b : {scalar}\n"
            f"    stablehlo.return %s : {scalar}\n"
            f"  }}) {{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}} : "
            f"(tensor<6x{PER_TENSOR}>, tensor<3x{PER_TENSOR}>, {scalar}) -> tensor<6x{PER_TENSOR}>")
    init = np.array(-30, np.int8)
    status, got, err = run(tmp_path, quantized_program(body, ["6x", "3x", ""], "6x"),
                           [v, source, init], "tensor<6xi8>", "interp")
    assert status == 0, err
    want = np.full(6, init, np.int8)
    for w in range(3):
        at = 2 * w + int(np.argmax(dequantize(v[2 * w:2 * w + 2], 0.1, -30)))
        want[at] = quantize(dequantize(init.reshape(1), 0.1, -30) +
                            dequantize(source[w:w + 1], 0.1, -30), 0.1, -30)[0]
    assert_bits(got, want)
    # A source of another quantization is an error (C1).
    other = body.replace(f"tensor<3x{PER_TENSOR}>, {scalar})", f"tensor<3x{OTHER}>, {scalar})")
    other = other.replace("(%q0, %q1, %q2)", "(%q0, %o, %q2)")
    other = (f"  %o = stablehlo.bitcast_convert %arg1 : (tensor<3xi8>) -> tensor<3x{OTHER}>\n" +
             other)
    status, _, err = run(tmp_path, quantized_program(other, ["6x", "3x", ""], "6x"),
                         [v, source, init], "tensor<6xi8>", "interp")
    assert status == 1 and "select_and_scatter: the source is" in err and "(C1)" in err, err


def test_cholesky_and_triangular_solve_of_quantized_values(tmp_path):
    """The specification's dequantize_op_quantize: the factorization (the
    solve) of the dequantized operands, quantized to the result's type."""
    a_type = "!quant.uniform<i8:f32, 0.5>"
    l_type = "!quant.uniform<i8:f32, 0.25>"
    body = (f"func.func @main(%arg0: tensor<2x2xi8>, %arg1: tensor<2x1xi8>) -> "
            f"(tensor<2x2xi8>, tensor<2x1xi8>) {{\n"
            f"  %a = stablehlo.bitcast_convert %arg0 : (tensor<2x2xi8>) -> tensor<2x2x{a_type}>\n"
            f"  %b = stablehlo.bitcast_convert %arg1 : (tensor<2x1xi8>) -> tensor<2x1x{a_type}>\n"
            f"  %l = stablehlo.cholesky %a, lower = true : (tensor<2x2x{a_type}>) -> "
            f"tensor<2x2x{l_type}>\n"
            f'  %x = "stablehlo.triangular_solve"(%l, %b) {{left_side = true, lower = true, '
            f"unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}} : "
            f"(tensor<2x2x{l_type}>, tensor<2x1x{a_type}>) -> tensor<2x1x{l_type}>\n"
            f"  %lb = stablehlo.bitcast_convert %l : (tensor<2x2x{l_type}>) -> tensor<2x2xi8>\n"
            f"  %xb = stablehlo.bitcast_convert %x : (tensor<2x1x{l_type}>) -> tensor<2x1xi8>\n"
            f"  return %lb, %xb : tensor<2x2xi8>, tensor<2x1xi8>\n}}\n")
    (tmp_path / "c.mlir").write_text(body)
    # The real [[4, 2], [2, 10]] = L·Lᵀ, L = [[2, 0], [1, 3]].
    a = np.array([[8, 4], [4, 20]], np.int8)
    b = np.array([[4], [16]], np.int8)  # the real [2, 8]: L x = b at x = [1, 7/3]
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    done = subprocess.run([teval(), "run", str(tmp_path / "c.mlir"),
                           "-i", f"arg0={tmp_path / 'a.npy'}", "-i", f"arg1={tmp_path / 'b.npy'}",
                           "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), np.array([[8, 0], [4, 12]], np.int8))
    # x = [1, 7/3] in steps of 0.25: [4, round(9.333...)] = [4, 9]; the
    # solve reads the quantized factor's real values [[2, 0], [1, 3]].
    assert_bits(np.load(tmp_path / "out" / "result1.npy"), np.array([[4], [9]], np.int8))
    # A per-axis operand is an error.
    per_axis = "tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>"
    (tmp_path / "c.mlir").write_text(body.replace(f"tensor<2x2x{a_type}>", per_axis))
    done = subprocess.run([teval(), "run", str(tmp_path / "c.mlir")], capture_output=True,
                          text=True)
    assert done.returncode == 1, done.stderr
    assert "cholesky of quantized tensors takes and gives per-tensor" in done.stderr, done.stderr
