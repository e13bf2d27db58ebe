"""StableHLO's tokens (docs/SEMANTICS.md, "Tokens"): `!stablehlo.token`
values made by after_all, passed through control flow, calls and
optimization_barrier, as arguments (none needs an input) and as results
(an i1 array of no element), on every engine; any other op given one is
an error at the operand."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, teval

PROGRAM = """func.func @main(%t: !stablehlo.token, %x: tensor<3xf32>, %n: tensor<i64>)
    -> (!stablehlo.token, tensor<3xf32>, tensor<i64>) {
  %a = stablehlo.after_all : !stablehlo.token
  %b = stablehlo.after_all %t, %a : !stablehlo.token
  %c = "stablehlo.after_all"(%b) : (!stablehlo.token) -> !stablehlo.token
  %d = "stablehlo.create_token"() : () -> !stablehlo.token
  %y:2 = stablehlo.optimization_barrier %c, %x : !stablehlo.token, tensor<3xf32>
  %w:2 = stablehlo.while(%tok = %y#0, %i = %n) : !stablehlo.token, tensor<i64>
  cond {
    %ten = stablehlo.constant dense<10> : tensor<i64>
    %p = stablehlo.compare LT, %i, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %j = stablehlo.add %i, %one : tensor<i64>
    %next = stablehlo.after_all %tok, %d : !stablehlo.token
    stablehlo.return %next, %j : !stablehlo.token, tensor<i64>
  }
  %r = func.call @pass(%w#0) : (!stablehlo.token) -> !stablehlo.token
  %z = stablehlo.add %y#1, %y#1 : tensor<3xf32>
  return %r, %z, %w#1 : !stablehlo.token, tensor<3xf32>, tensor<i64>
}
func.func @pass(%t: !stablehlo.token) -> !stablehlo.token {
  return %t : !stablehlo.token
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_tokens_pass_through_and_hold_nothing(tmp_path, engine):
    (tmp_path / "t.mlir").write_text(PROGRAM)
    x = np.array([1.5, -2.0, 4.0], np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "n.npy", np.array(3, np.int64))
    # The token argument needs no input.
    done = subprocess.run([teval(), "run", str(tmp_path / "t.mlir"), "--engine", engine,
                           "-i", f"arg1={tmp_path / 'x.npy'}", "-i", f"arg2={tmp_path / 'n.npy'}",
                           "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    token = np.load(tmp_path / "out" / "result0.npy")
    assert token.dtype == np.bool_ and token.shape == (0,)
    assert_bits(np.load(tmp_path / "out" / "result1.npy"), x + x)
    assert_bits(np.load(tmp_path / "out" / "result2.npy"), np.array(10, np.int64))


@pytest.mark.parametrize("body, message", [
    ("  %0 = stablehlo.add %arg0, %arg0 : !stablehlo.token\n  return %0 : !stablehlo.token",
     "`stablehlo.add` takes no token; its operand %arg0 is one"),
    ("  %0 = stablehlo.after_all %arg1 : tensor<2xf32>\n  return %arg0 : !stablehlo.token",
     "after_all takes tokens; operand 0 is tensor<2xf32>"),
    ("  return %arg1 : !stablehlo.token",
     "returned value %arg1 is tensor<2xf32>, declared !stablehlo.token"),
])
def test_errors_are_located(tmp_path, body, message):
    (tmp_path / "t.mlir").write_text(
        "func.func @main(%arg0: !stablehlo.token, %arg1: tensor<2xf32>) -> !stablehlo.token {\n"
        + body + "\n}\n")
    done = subprocess.run([teval(), "run", str(tmp_path / "t.mlir")], capture_output=True,
                          text=True)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert "t.mlir:2:" in done.stderr, done.stderr
