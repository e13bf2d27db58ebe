"""tuple and get_tuple_element (StableHLO specification, the sections of the
same names): a tuple aggregates values (and tuples) while the function is
read; get_tuple_element is the element it names. Expected values are the
elements themselves, computed here."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, run

TUPLES = """  %t0 = stablehlo.tuple %arg1 : tuple<tensor<i64>>
  %t = stablehlo.tuple %arg0, %t0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %a = "stablehlo.get_tuple_element"(%t) {index = 0 : i32} : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
  %inner = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %b = mhlo.get_tuple_element %inner[0] : (tuple<tensor<i64>>) -> tensor<i64>
  %c = stablehlo.convert %b : (tensor<i64>) -> tensor<f64>
  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f64>) -> tensor<2xf64>
  %0 = stablehlo.multiply %a, %cb : tensor<2xf64>
  return %0 : tensor<2xf64>"""


@pytest.mark.parametrize("engine", ENGINES)
def test_elements_of_nested_tuples_in_both_forms(tmp_path, engine):
    x = np.array([1.5, -2.0])
    status, got, err = run(tmp_path, TUPLES, [x, np.array(3, np.int64)], "tensor<2xf64>", engine)
    assert status == 0, err
    assert_bits(got, x * 3.0)


@pytest.mark.parametrize("old, new, message", [
    ("%t[1] :", "%t[2] :", "get_tuple_element needs an index below the tuple's 2 elements"),
    ("%0 = stablehlo.multiply %a, %cb", "%0 = stablehlo.multiply %a, %t",
     "%t is a tuple; teval reads tuples in tuple and get_tuple_element only"),
    ("-> tensor<2xf64>\n  %inner", "-> tensor<3xf64>\n  %inner",
     "element 0 is tensor<2xf64>, but get_tuple_element's type says tensor<3xf64>"),
    ("%b = mhlo.get_tuple_element %inner[0]", "%b = mhlo.get_tuple_element %c[0]",
     "get_tuple_element takes one tuple"),
])
def test_errors_are_located(tmp_path, old, new, message):
    body = TUPLES.replace(old, new)
    assert body != TUPLES
    status, got, err = run(tmp_path, body, [np.zeros(2), np.array(3, np.int64)],
                           "tensor<2xf64>", "interp")
    assert status == 1 and got is None, err
    assert "f.mlir:" in err and "^" in err and message in err, err
