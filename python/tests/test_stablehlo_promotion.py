"""Bodies wider than their operands (StableHLO specification, reduce (C6),
reduce_window (C13), scatter's update_computation: is_promotable): each
operand the body's parameter types is converted to that type first
(docs/SEMANTICS.md, "StableHLO's reduce"), then the op runs as usual. Expected
values are plain loops in the wider type."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, run, tensor_type


def reduce_body(x, init_type, body_type, result):
    e = f"tensor<{body_type}>"
    return (f"  %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] : "
            f"({tensor_type(x)}, tensor<{init_type}>) -> {result}\n"
            f"  reducer(%a: {e}, %b: {e}) {{\n"
            f"    %s = stablehlo.add %a, %b : {e}\n"
            f"    stablehlo.return %s : {e}\n  }}\n"
            f"  return %0 : {result}")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_float32_reduce_sums_in_float64(tmp_path, engine):
    x = (rng(1).standard_normal((50, 3)) * 1e4).astype(np.float32)
    init = np.array(0.1, np.float32)
    status, got, err = run(tmp_path, reduce_body(x, "f32", "f64", "tensor<3xf64>"), [x, init],
                           "tensor<3xf64>", engine)
    assert status == 0, err
    want = np.full(3, np.float64(init))
    for row in x:  # row-major: the reduced dimension in order
        want = want + row.astype(np.float64)
    assert_bits(got, want)


def test_an_int8_reduce_sums_in_int32_without_wrapping(tmp_path):
    x = np.full((40, 2), 100, np.int8)
    init = np.array(-5, np.int8)
    status, got, err = run(tmp_path, reduce_body(x, "i8", "i32", "tensor<2xi32>"), [x, init],
                           "tensor<2xi32>", "interp")
    assert status == 0, err
    assert_bits(got, np.array([40 * 100 - 5] * 2, np.int32))


def test_quantized_values_are_requantized_to_the_wider_storage(tmp_path):
    """i8 values of scale 2, zero point 15 into i16 storage of the same
    parameters: the stored integers keep their real values, and the sum
    no longer saturates at 127."""
    q8 = "!quant.uniform<i8:f32, 2.0:15>"
    q16 = "!quant.uniform<i16:f32, 2.0:15>"
    x = rng(2).integers(-128, 128, (6, 3)).astype(np.int8)
    init = np.array(15, np.int8)  # the real 0
    body = (f"  %q = stablehlo.bitcast_convert %arg0 : (tensor<6x3xi8>) -> tensor<6x3x{q8}>\n"
            f"  %i = stablehlo.bitcast_convert %arg1 : (tensor<i8>) -> tensor<{q8}>\n"
            f"  %0 = stablehlo.reduce(%q init: %i) across dimensions = [0] : "
            f"(tensor<6x3x{q8}>, tensor<{q8}>) -> tensor<3x{q16}>\n"
            f"  reducer(%a: tensor<{q16}>, %b: tensor<{q16}>) {{\n"
            f"    %s = stablehlo.add %a, %b : tensor<{q16}>\n"
            f"    stablehlo.return %s : tensor<{q16}>\n  }}\n"
            f"  %r = stablehlo.bitcast_convert %0 : (tensor<3x{q16}>) -> tensor<3xi16>\n"
            f"  return %r : tensor<3xi16>")
    status, got, err = run(tmp_path, body, [x, init], "tensor<3xi16>", "interp")
    assert status == 0, err
    want = []
    for column in x.T.astype(np.int64):
        acc = 15
        for v in column:  # dequantize both, add in float32, quantize to i16
            real = np.float32((acc - 15) * 2.0) + np.float32((v - 15) * 2.0)
            acc = int(np.clip(np.rint(real / np.float32(2.0) + 15), -32768, 32767))
        want.append(acc)
    assert_bits(got, np.array(want, np.int16))


def test_reduce_window_of_float16_in_float32(tmp_path):
    x = rng(3).standard_normal((7,)).astype(np.float16)
    init = np.array(0, np.float16)
    e = "tensor<f32>"
    body = (f'  %0 = "stablehlo.reduce_window"(%arg0, %arg1) ({{\n'
            f"  ^bb0(%a: {e}, %b: {e}):\n"
            f"    %s = stablehlo.add %a, %b : {e}\n"
            f"    stablehlo.return %s : {e}\n"
            f"  }}) {{window_dimensions = array<i64: 3>}} : (tensor<7xf16>, tensor<f16>) -> "
            f"tensor<5xf32>\n  return %0 : tensor<5xf32>")
    status, got, err = run(tmp_path, body, [x, init], "tensor<5xf32>", "interp")
    assert status == 0, err
    want = np.zeros(5, np.float32)
    for i in range(5):
        acc = np.float32(0)
        for v in x[i:i + 3]:
            acc = np.float32(acc + np.float32(v))
        want[i] = acc
    assert_bits(got, want)


def test_scatter_of_int8_updates_in_int32(tmp_path):
    x = np.array([120, 0, -100], np.int8)
    updates = np.array([100, 100, -100], np.int8)
    e = "tensor<i32>"
    body = (f"  %i = stablehlo.constant dense<[[0], [0], [2]]> : tensor<3x1xi32>\n"
            f'  %0 = "stablehlo.scatter"(%arg0, %i, %arg1) ({{\n'
            f"  ^bb0(%a: {e}, %b: {e}):\n"
            f"    %s = stablehlo.add %a, %b : {e}\n"
            f"    stablehlo.return %s : {e}\n"
            f"  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
            f"scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}} : "
            f"(tensor<3xi8>, tensor<3x1xi32>, tensor<3xi8>) -> tensor<3xi32>\n"
            f"  return %0 : tensor<3xi32>")
    status, got, err = run(tmp_path, body, [x, updates], "tensor<3xi32>", "interp")
    assert status == 0, err
    assert_bits(got, np.array([320, 0, -200], np.int32))


@pytest.mark.parametrize("init_type,body_type", [("f32", "f16"), ("i32", "f32"), ("f32", "i1")])
def test_a_body_that_is_not_wider_is_an_error(tmp_path, init_type, body_type):
    x = np.zeros((2, 3), {"f32": np.float32, "i32": np.int32}[init_type])
    result = f"tensor<3x{body_type}>"
    status, _, err = run(tmp_path, reduce_body(x, init_type, body_type, result),
                         [x, np.zeros((), x.dtype)], result, "interp")
    assert status == 1 and "f.mlir:" in err, err
