"""func.call and arith.constant in MLIR modules (docs/BYTEIR.md, docs/SEMANTICS.md
"Calls"), run as users run them: `teval run FILE.mlir` on every engine, the
expected values numpy's."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, teval

MODULE = """module {
  func.func private @scale(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %0 = stablehlo.multiply %x, %b : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  func.func private @both(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %c = arith.constant dense<3.0> : tensor<f32>
    %0 = call @scale(%x, %c) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.negate %0 : tensor<3xf32>
    return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
  func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %c = stablehlo.constant dense<2.0> : tensor<f32>
    %0 = func.call @scale(%arg0, %c) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %1 = "func.call"(%0, %c) <{callee = @scale}> : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %2:2 = func.call @both(%1) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    %k = "arith.constant"() <{value = dense<[1.0, 2.0, 4.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %3 = stablehlo.add %2#1, %k : tensor<3xf32>
    return %0, %2#0, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
"""


def run_module(tmp_path, text, inputs, engine):
    src = tmp_path / "m.mlir"
    src.write_text(text)
    command = [teval(), "run", str(src), "--engine", engine, "-o", str(tmp_path / "out")]
    for i, a in enumerate(inputs):
        np.save(tmp_path / f"arg{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'arg{i}.npy'}"]
    return subprocess.run(command, capture_output=True, text=True)


@pytest.mark.parametrize("engine", ENGINES)
def test_calls_are_inlined(tmp_path, engine):
    x = np.array([1.5, -0.25, 3.0], np.float32)
    done = run_module(tmp_path, MODULE, [x], engine)
    assert done.returncode == 0, done.stderr
    two = x * np.float32(2)
    four = two * np.float32(2)
    twelve = four * np.float32(3)
    for i, want in enumerate([two, twelve, -twelve + np.array([1, 2, 4], np.float32)]):
        assert_bits(np.load(tmp_path / "out" / f"result{i}.npy"), want)


CALLEE = """  func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {{
    {body}
  }}
"""


@pytest.mark.parametrize("callee, call, message", [
    ("return %x : tensor<3xf32>", "func.call @g(%arg0) : (tensor<3xf32>) -> tensor<3xf32>",
     "func.call of @g, which the module does not define"),
    ("%0 = func.call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>\n    return %0 : tensor<3xf32>",
     "func.call @f(%arg0) : (tensor<3xf32>) -> tensor<3xf32>", "inside itself"),
    ("return %x : tensor<3xf32>", "func.call @f(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) "
     "-> tensor<3xf32>", "passes 2 operands to @f, which takes 1"),
    ("return %x : tensor<3xf32>", "func.call @main(%arg0) : (tensor<3xf32>) -> tensor<3xf32>",
     "inside itself"),
    ("return %x, %x : tensor<3xf32>, tensor<3xf32>",
     "func.call @f(%arg0) : (tensor<3xf32>) -> tensor<3xf32>", "returns 2 values but declares 1"),
    # the call's own result type, checked against what @f gives
    ("return %x : tensor<3xf32>", "func.call @f(%arg0) : (tensor<3xf32>) -> tensor<3xi32>",
     "result 0 of the call of @f is tensor<3xf32>, but the call's type says tensor<3xi32>"),
    ("return %x : tensor<3xf32>", "func.call @f(%arg0) : (tensor<3xf32>) -> (tensor<4xf32>)",
     "result 0 of the call of @f is tensor<3xf32>, but the call's type says tensor<4xf32>"),
])
def test_call_errors_are_located(tmp_path, callee, call, message):
    text = ("module {\n" + CALLEE.format(body=callee) +
            "  func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n"
            f"    %0 = {call}\n    return %0 : tensor<3xf32>\n  }}\n}}\n")
    done = run_module(tmp_path, text, [np.zeros(3, np.float32)], "interp")
    assert done.returncode == 1, done.stderr
    assert "m.mlir:" in done.stderr and "error:" in done.stderr and "^" in done.stderr
    assert message in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_call_of_the_wrong_type(tmp_path):
    text = ("module {\n" + CALLEE.format(body="return %x : tensor<3xf32>") +
            "  func.func @main(%arg0: tensor<4xf32>) -> tensor<3xf32> {\n"
            "    %0 = func.call @f(%arg0) : (tensor<4xf32>) -> tensor<3xf32>\n"
            "    return %0 : tensor<3xf32>\n  }\n}\n")
    done = run_module(tmp_path, text, [np.zeros(4, np.float32)], "interp")
    assert done.returncode == 1
    assert "m.mlir:6:23: error: operand %arg0 is tensor<4xf32>, but @f takes tensor<3xf32>" in \
        done.stderr, done.stderr


COMPOSITE = """module {
  func.func private @add_n.impl(%x: tensor<3xi64>, %y: tensor<3xi64>) -> tensor<3xi64> {
    %c = stablehlo.constant dense<2> : tensor<i64>
    %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3xi64>
    %0 = stablehlo.add %x, %b : tensor<3xi64>
    %1 = stablehlo.multiply %0, %y : tensor<3xi64>
    return %1 : tensor<3xi64>
  }
  func.func @main(%arg0: tensor<3xi64>, %arg1: tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>) {
    %0 = stablehlo.composite "my.add_n" %arg0, %arg1 {
      composite_attributes = { n = 2 : i64 },
      decomposition = @add_n.impl
    } : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
    %1 = "stablehlo.composite"(%0, %arg1) {name = "my.add_n", composite_attributes = {n = 2 : i64},
      decomposition = @add_n.impl, version = 1 : i32} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
    return %0, %1 : tensor<3xi64>, tensor<3xi64>
  }
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_composites_run_their_decomposition(tmp_path, engine):
    """Spec "composite": the decomposition function is what it computes."""
    x = np.array([1, -7, 2**40], np.int64)
    y = np.array([3, 5, -2], np.int64)
    done = run_module(tmp_path, COMPOSITE, [x, y], engine)
    assert done.returncode == 0, done.stderr
    first = (x + 2) * y
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), first)
    assert_bits(np.load(tmp_path / "out" / "result1.npy"), (first + 2) * y)


def test_a_composite_without_its_decomposition(tmp_path):
    text = ("module {\n  func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n"
            '    %0 = stablehlo.composite "my.op" %arg0 {composite_attributes = {}} : '
            "(tensor<3xf32>) -> tensor<3xf32>\n    return %0 : tensor<3xf32>\n  }\n}\n")
    done = run_module(tmp_path, text, [np.zeros(3, np.float32)], "interp")
    assert done.returncode == 1
    assert "m.mlir:3:10: error: composite needs its decomposition, @name" in done.stderr, \
        done.stderr
    text = text.replace("{composite_attributes = {}}", "{decomposition = @nowhere}")
    done = run_module(tmp_path, text, [np.zeros(3, np.float32)], "interp")
    assert done.returncode == 1
    assert "composite of @nowhere, which the module does not define" in done.stderr, done.stderr


DYNAMIC_CALLEE = """module {{
  func.func private @bias(%x: tensor<2x?xf32>, %b: tensor<?xf32>) -> tensor<2x?xf32> {{
    %0 = stablehlo.broadcast_in_dim %b, dims = [{dims}] : (tensor<?xf32>) -> {result}
    %1 = stablehlo.add %x, %0 : tensor<2x?xf32>
    return %1 : tensor<2x?xf32>
  }}
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> tensor<2x3xf32> {{
    %0 = call @bias(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }}
}}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_callee_of_dynamic_types_takes_the_calls_extents(tmp_path, engine):
    # A `?` of broadcast_in_dim's result is the extent of the operand
    # dimension mapped to it, as shape refinement infers it.
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([0.5, -1.0, 2.0], np.float32)
    text = DYNAMIC_CALLEE.format(dims="1", result="tensor<2x?xf32>")
    done = run_module(tmp_path, text, [x, b], engine)
    assert done.returncode == 0, done.stderr
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), x + b)


def test_a_dynamic_extent_nothing_gives_is_an_error(tmp_path):
    text = DYNAMIC_CALLEE.format(dims="0", result="tensor<?x?xf32>").replace(
        "%1 = stablehlo.add %x, %0 : tensor<2x?xf32>", "%1 = stablehlo.add %x, %x : tensor<2x?xf32>")
    done = run_module(tmp_path, text, [np.zeros((2, 3), np.float32), np.zeros(3, np.float32)],
                      "interp")
    assert done.returncode == 1, done.stderr
    assert "m.mlir:3:10: error: broadcast_in_dim's result dimension 1 is `?`" in done.stderr, \
        done.stderr
