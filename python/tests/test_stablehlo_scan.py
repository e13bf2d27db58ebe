"""chlo.scan (docs/SEMANTICS.md, "CHLO's ops"): its body run along a
dimension over the inputs' slices and the carries, against numpy's
cumulative functions and plain loops, in the pretty and the generic form,
on every engine (natively: the body is a region)."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, tensor_type


def scan_program(x, init, dimension, body, reverse=False, generic=False):
    tx, ti = tensor_type(x), tensor_type(init)
    slice_shape = list(x.shape)
    del slice_shape[dimension]
    ts = tensor_type(np.zeros(slice_shape, x.dtype))
    region = (f"  ^bb0(%in: {ts}, %carry: {ti}):\n    %s = {body} %carry, %in : {ts}\n"
              f"    stablehlo.return %s, %s : {ts}, {ti}\n  }}")
    if generic:
        head = (f'  %0:2 = "chlo.scan"(%arg0, %arg1) <{{dimension = {dimension} : i64, '
                f"is_reverse = {str(reverse).lower()}, operandSegmentSizes = array<i32: 1, 1>, "
                f"resultSegmentSizes = array<i32: 1, 1>}}> ({{\n")
        tail = f") : ({tx}, {ti}) -> ({tx}, {ti})\n"
    else:
        attrs = " attributes {is_reverse = true}" if reverse else ""
        head = f"  %0:2 = chlo.scan(%arg0) inits(%arg1) dimension={dimension}{attrs} {{\n"
        tail = f" : ({tx}, {ti}) -> ({tx}, {ti})\n"
    return head + region + tail + f"  return %0#0, %0#1 : {tx}, {ti}"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("generic", [False, True])
def test_cumulative_sums_along_each_dimension(tmp_path, engine, generic):
    x = rng(1).integers(-50, 50, (3, 4, 5)).astype(np.int32)
    for dimension in range(3):
        shape = list(x.shape)
        del shape[dimension]
        init = np.zeros(shape, np.int32)
        program = scan_program(x, init, dimension, "stablehlo.add", generic=generic)
        status, got, err = run(tmp_path, program, [x, init],
                               f"({tensor_type(x)}, {tensor_type(init)})", engine)
        assert status == 0, err
        assert_bits(got, np.cumsum(x, axis=dimension, dtype=np.int32))


@pytest.mark.parametrize("generic", [False, True])
def test_reverse_scans_from_the_last_index(tmp_path, generic):
    x = rng(2).integers(-50, 50, (6,)).astype(np.int32)
    init = np.array(0, np.int32)
    program = scan_program(x, init, 0, "stablehlo.add", reverse=True, generic=generic)
    status, got, err = run(tmp_path, program, [x, init], f"({tensor_type(x)}, tensor<i32>)",
                           "interp")
    assert status == 0, err
    assert_bits(got, np.cumsum(x[::-1], dtype=np.int32)[::-1].copy())


def test_the_running_maximum_with_its_index_and_the_final_carries(tmp_path):
    # Two inputs (values, their positions), two carries; on ties the later
    # index wins, as the body says.
    x = np.array([3, 1, 4, 1, 5, 5, 2], np.int32)
    position = np.arange(7, dtype=np.int32)
    t, s = tensor_type(x), "tensor<i32>"
    body = (f"  %0:4 = chlo.scan(%arg0, %arg1) inits(%arg2, %arg3) dimension=0 {{\n"
            f"  ^bb0(%v: {s}, %i: {s}, %rv: {s}, %ri: {s}):\n"
            f"    %gt = stablehlo.compare GT, %rv, %v : ({s}, {s}) -> tensor<i1>\n"
            f"    %nv = stablehlo.select %gt, %rv, %v : tensor<i1>, {s}\n"
            f"    %ni = stablehlo.select %gt, %ri, %i : tensor<i1>, {s}\n"
            f"    stablehlo.return %nv, %ni, %nv, %ni : {s}, {s}, {s}, {s}\n"
            f"  }} : ({t}, {t}, {s}, {s}) -> ({t}, {t}, {s}, {s})\n"
            f"  return %0#1 : {t}")
    low = np.array(np.iinfo(np.int32).min, np.int32)
    status, got, err = run(tmp_path, body, [x, position, low, np.array(0, np.int32)], t, "interp")
    assert status == 0, err
    want, best, at = [], None, 0
    for i, v in enumerate(x):
        if best is None or not best > v:
            best, at = v, i
        want.append(at)
    assert_bits(got, np.array(want, np.int32))
    assert lower_reports(tmp_path, "chlo.scan (its body is a region) has no einstein_v2")


@pytest.mark.parametrize("body, message, line", [
    ("  %0:2 = chlo.scan(%arg0) inits(%arg1) dimension=1 {\n"
     "  ^bb0(%in: tensor<f32>, %c: tensor<f32>):\n"
     "    stablehlo.return %in, %c : tensor<f32>, tensor<f32>\n"
     "  } : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)",
     "chlo.scan's dimension 1 is not one of its input tensor<4xf32>", 2),
    ("  %0:2 = chlo.scan(%arg0) inits(%arg1) dimension=0 {\n"
     "  ^bb0(%in: tensor<f32>, %c: tensor<f32>):\n"
     "    stablehlo.return %in : tensor<f32>\n"
     "  } : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)",
     "chlo.scan's body returns 1 values; 2 are needed", 4),
    ("  %0:2 = chlo.scan(%arg0) inits(%arg1) dimension=0 {\n"
     "  ^bb0(%in: tensor<f32>, %c: tensor<f32>):\n"
     "    stablehlo.return %in, %c : tensor<f32>, tensor<f32>\n"
     "  } : (tensor<4xf32>, tensor<f32>) -> (tensor<5xf32>, tensor<f32>)",
     "has 5 elements along dimension 0; the scan has 4", 2),
])
def test_errors_are_located(tmp_path, body, message, line):
    x, init = np.zeros(4, np.float32), np.array(0, np.float32)
    status, _, err = run(tmp_path, body + "\n  return %0#1 : tensor<f32>", [x, init],
                         "tensor<f32>", "interp")
    assert status == 1 and message in err, err
    assert f"f.mlir:{line}:" in err, err
