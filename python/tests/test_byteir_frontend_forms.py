"""What ByteIR's frontends emit around the coarse-grained ops: byteir.repeat
and byteir.non_zero (their meaning in ByteIR's own linalg lowering and
bounded shape), TensorFlow attributes inside byteir_attrs (accepted with a
warning), and a softmax whose result dtype is wider than its operand's
(computed in the operand's, then converted, as ByteIR lowers it). Expected
values come from numpy (np.repeat, np.argwhere) and plain loops."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, teval, tensor_type


def repeat_body(x, r, out, repeats="%arg1", attrs="{}"):
    return (f"  %0 = mhlo.custom_call @byteir.repeat(%arg0, {repeats}) {{byteir_attrs = {attrs}, "
            f'device = "host"}} : ({tensor_type(x)}, {tensor_type(r)}) -> {out}\n'
            f"  return %0 : {out}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype,shape", [(np.float32, (4, 3)), (np.int8, (5,)),
                                         (np.float16, (3, 2, 2))])
def test_repeat_interleaves_rows(tmp_path, dtype, shape, engine):
    r = rng(80)
    x = (r.standard_normal(shape) * 10).astype(dtype)
    reps = r.integers(0, 4, size=shape[0]).astype(np.int64)
    want = np.repeat(x, reps, axis=0)
    out = tensor_type(want)
    status, got, err = run(tmp_path, repeat_body(x, reps, out), [x, reps], out, engine)
    assert status == 0, err
    assert_bits(got, want)


def test_repeat_of_constant_repeats_infers_its_rows(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    r = np.array([2, 0, 1], np.int32)
    body = ("  %r = mhlo.constant dense<[2, 0, 1]> : tensor<3xi32>\n" +
            repeat_body(x, r, "tensor<?x2xf32>", repeats="%r"))
    status, got, err = run(tmp_path, body, [x], "tensor<?x2xf32>", "interp")
    assert status == 0, err
    assert_bits(got, np.repeat(x, r, axis=0))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("x", [np.array([[1.0, 0.0, -0.0], [np.nan, 2.0, 0.0]], np.float32),
                               np.array([True, False, True, True]),
                               np.arange(-3, 5, dtype=np.int32).reshape(2, 2, 2)])
def test_non_zero_lists_indices_in_row_major_order(tmp_path, x, engine):
    want = np.argwhere(x != 0).astype(np.int64)  # NaN is nonzero, -0 is zero
    out = tensor_type(want)
    body = (f"  %0 = stablehlo.custom_call @byteir.non_zero(%arg0) {{byteir_attrs = {{}}}} : "
            f"({tensor_type(x)}) -> {out}\n  return %0 : {out}")
    status, got, err = run(tmp_path, body, [x], out, engine)
    assert status == 0, err
    assert_bits(got, want)


def test_value_shaped_ops_have_no_decomposition(tmp_path):
    x = np.ones((2, 2), np.float32)
    reps = np.array([1, 1], np.int64)
    run(tmp_path, repeat_body(x, reps, "tensor<2x2xf32>"), [x, reps], "tensor<2x2xf32>", "interp")
    assert lower_reports(tmp_path, "its result's shape depends on values")


@pytest.mark.parametrize("body_of, inputs, message", [
    (lambda x, r: repeat_body(x, r, "tensor<5x3xf32>"),
     [np.zeros((2, 3), np.float32), np.array([1, 1], np.int64)],
     "f.mlir:2:25: error: byteir.repeat's repeats sum to 2, but its result has 5 rows"),
    (lambda x, r: repeat_body(x, r, "tensor<1x3xf32>"),
     [np.zeros((2, 3), np.float32), np.array([2, -1], np.int64)],
     "error: byteir.repeat's repeat 1 is -1; repeats are non-negative"),
    (lambda x, r: repeat_body(x, r, "tensor<?x3xf32>"),
     [np.zeros((2, 3), np.float32), np.array([1, 1], np.int64)],
     "which are not a constant: declare it"),
    (lambda x, r: repeat_body(x, r, "tensor<2x4xf32>"),
     [np.zeros((2, 3), np.float32), np.array([1, 1], np.int64)],
     "byteir.repeat keeps dimension 1 (3)"),
    (lambda x, r: ("  %0 = stablehlo.custom_call @byteir.non_zero(%arg0) {byteir_attrs = {}} : "
                   "(tensor<2x3xf32>) -> tensor<?x2xi64>\n  return %0 : tensor<?x2xi64>"),
     [np.zeros((2, 3), np.float32), np.zeros(2, np.int64)],
     "ByteIR bounds it by the element count, 6"),
    (lambda x, r: ("  %0 = stablehlo.custom_call @byteir.non_zero(%arg0) {byteir_attrs = {}} : "
                   "(tensor<2x3xf32>) -> tensor<3x2xi64>\n  return %0 : tensor<3x2xi64>"),
     [np.eye(2, 3, dtype=np.float32) * 3, np.zeros(2, np.int64)],
     "error: byteir.non_zero found 2 nonzero elements, but its result has 3 rows"),
])
def test_errors_are_located(tmp_path, body_of, inputs, message):
    body = body_of(*inputs)
    result = body.rsplit(": ", 1)[1]
    status, got, err = run(tmp_path, body, inputs, result, "interp")
    assert status == 1 and got is None, err
    assert "^" in err and message in err, err


def test_tensorflow_attributes_are_ignored_with_a_warning(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    reps = np.array([1, 2], np.int64)
    body = repeat_body(x, reps, "tensor<3x3xf32>",
                       attrs='{Trepeats = i64, _grappler_layout = "NHWC"}')
    status, got, err = run(tmp_path, body, [x, reps], "tensor<3x3xf32>", "interp")
    assert status == 0, err
    assert_bits(got, np.repeat(x, reps, axis=0))
    assert "f.mlir:2:" in err and "warning: `Trepeats` is a TensorFlow attribute that " \
        "byteir.repeat does not take; ignored" in err, err
    assert "warning: `_grappler_layout` is a TensorFlow attribute" in err, err
    # An attribute that is neither the op's nor TensorFlow's is an error.
    body = repeat_body(x, reps, "tensor<3x3xf32>", attrs="{repeats = 2 : i64}")
    status, got, err = run(tmp_path, body, [x, reps], "tensor<3x3xf32>", "interp")
    assert status == 1 and "`repeats` is not an attribute of byteir.repeat" in err, err


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_a_wider_result_is_the_softmax_converted(tmp_path, engine, op):
    x = (rng(81).standard_normal((3, 5)) * 3).astype(np.float16)
    body = (f"  %0 = stablehlo.custom_call @byteir.{op}(%arg0) {{byteir_attrs = {{axis = 1 : i64}}}}"
            f" : (tensor<3x5xf16>) -> tensor<3x5xf32>\n"
            f"  %1 = stablehlo.custom_call @byteir.{op}(%arg0) {{byteir_attrs = {{axis = 1 : i64}}}}"
            f" : (tensor<3x5xf16>) -> tensor<3x5xf16>\n"
            f"  %2 = stablehlo.convert %1 : (tensor<3x5xf16>) -> tensor<3x5xf32>\n"
            f"  %3 = stablehlo.subtract %0, %2 : tensor<3x5xf32>\n"
            f"  return %3 : tensor<3x5xf32>")
    status, got, err = run(tmp_path, body, [x], "tensor<3x5xf32>", engine)
    assert status == 0, err
    assert_bits(got, np.zeros((3, 5), np.float32))
