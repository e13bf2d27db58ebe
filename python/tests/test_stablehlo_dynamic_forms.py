"""The dynamic forms with static results and get_dimension_size
(docs/SEMANTICS.md, "Dynamic forms with static results"), run as users run
them (`teval run FILE.mlir`) on every engine, against numpy."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, pad_reference, rng, run, tensor_type


def shape_constant(shape, name="%s"):
    values = ", ".join(map(str, shape))
    return f"  {name} = stablehlo.constant dense<[{values}]> : tensor<{len(shape)}xi64>\n"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_dynamic_iota(tmp_path, engine, form):
    x = np.zeros(1, np.float32)  # an unused argument: main takes one
    want = np.broadcast_to(np.arange(4, dtype=np.int64), (3, 4)).copy()
    op = ('"stablehlo.dynamic_iota"(%s) {iota_dimension = 1 : i64}' if form == "generic"
          else "stablehlo.dynamic_iota %s, dim = 1")
    body = (shape_constant((3, 4)) + f"  %0 = {op} : (tensor<2xi64>) -> tensor<3x4xi64>\n"
            "  return %0 : tensor<3x4xi64>")
    status, got, err = run(tmp_path, body, [x], "tensor<3x4xi64>", engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_dynamic_reshape_and_broadcast(tmp_path, engine):
    x = rng(4).standard_normal((2, 3)).astype(np.float32)
    t = tensor_type(x)
    body = (shape_constant((3, 2)) +
            f"  %0 = stablehlo.dynamic_reshape %arg0, %s : ({t}, tensor<2xi64>) -> "
            "tensor<3x2xf32>\n  return %0 : tensor<3x2xf32>")
    status, got, err = run(tmp_path, body, [x], "tensor<3x2xf32>", engine)
    assert status == 0, err
    assert_bits(got, x.reshape(3, 2))
    want = np.broadcast_to(x[:, None, :], (2, 4, 3)).copy()
    body = (shape_constant((2, 4, 3)) +
            f'  %0 = "stablehlo.dynamic_broadcast_in_dim"(%arg0, %s) {{broadcast_dimensions = '
            "array<i64: 0, 2>, known_expanding_dimensions = array<i64>, "
            "known_nonexpanding_dimensions = array<i64: 0, 1>} : "
            f"({t}, tensor<3xi64>) -> tensor<2x4x3xf32>\n  return %0 : tensor<2x4x3xf32>")
    status, got, err = run(tmp_path, body, [x], "tensor<2x4x3xf32>", engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_get_dimension_size(tmp_path, engine):
    x = np.zeros((2, 5, 0), np.float32)
    t = tensor_type(x)
    for d, op in [(1, f'"stablehlo.get_dimension_size"(%arg0) {{dimension = 1 : i64}} : ({t})'),
                  (2, f"stablehlo.get_dimension_size %arg0, dim = 2 : ({t})"),
                  (0, f"stablehlo.get_dimension_size %arg0, dim = 0 : ({t})")]:
        body = f"  %0 = {op} -> tensor<i32>\n  return %0 : tensor<i32>"
        status, got, err = run(tmp_path, body, [x], "tensor<i32>", engine)
        assert status == 0, err
        assert_bits(got, np.array(x.shape[d], np.int32))


def test_errors(tmp_path):
    x = np.zeros((2, 3), np.float32)
    t = tensor_type(x)
    # the shape a runtime value
    s = np.array([3, 2], np.int64)
    body = (f"  %0 = stablehlo.dynamic_reshape %arg0, %arg1 : ({t}, tensor<2xi64>) -> "
            "tensor<3x2xf32>\n  return %0 : tensor<3x2xf32>")
    status, _, err = run(tmp_path, body, [x, s], "tensor<3x2xf32>", "interp")
    assert status == 1 and "f.mlir:2:" in err and "is not a constant" in err, err
    # a constant that says another shape
    body = (shape_constant((6, 1)) +
            f"  %0 = stablehlo.dynamic_reshape %arg0, %s : ({t}, tensor<2xi64>) -> "
            "tensor<3x2xf32>\n  return %0 : tensor<3x2xf32>")
    status, _, err = run(tmp_path, body, [x], "tensor<3x2xf32>", "interp")
    assert status == 1 and "shape operand holds [6, 1], but the result type is tensor<3x2xf32>" \
        in err, err
    body = f"  %0 = stablehlo.get_dimension_size %arg0, dim = 2 : ({t}) -> tensor<i32>\n" \
           "  return %0 : tensor<i32>"
    status, _, err = run(tmp_path, body, [x], "tensor<i32>", "interp")
    assert status == 1 and "f.mlir:2:" in err, err


@pytest.mark.parametrize("engine", ENGINES)
def test_dynamic_pad(tmp_path, engine):
    x = rng(5).integers(-9, 9, (3, 4)).astype(np.int32)
    value = np.array(-1, np.int32)
    low, high, interior = (1, -1), (0, 2), (0, 1)
    want = pad_reference(x, value, low, high, interior)
    t = tensor_type(x)
    out = tensor_type(want)
    body = (shape_constant(low, "%lo") + shape_constant(high, "%hi") +
            shape_constant(interior, "%in") +
            f"  %0 = stablehlo.dynamic_pad %arg0, %arg1, %lo, %hi, %in : ({t}, tensor<i32>, "
            f"tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> {out}\n  return %0 : {out}")
    status, got, err = run(tmp_path, body, [x, value], out, engine)
    assert status == 0, err
    assert_bits(got, want)
    # amounts that are runtime values are an error at the op
    lo = np.array(low, np.int64)
    body = body.replace("%lo, ", "%arg2, ")
    status, _, err = run(tmp_path, body, [x, value, lo], out, "interp")
    assert status == 1 and "edge_padding_low is not a constant" in err, err
