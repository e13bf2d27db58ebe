"""stablehlo.if, case and while (StableHLO specification, "if", "case",
"while"; docs/SEMANTICS.md, "StableHLO's control flow"): run by the
interpreter's native references, their boundary with the decomposition
stated by the other engines' errors. Expected values are numpy's."""

import json
import subprocess

import numpy as np
import pytest

import teval as tv
from test_stablehlo import assert_bits, lower_reports, teval

# sum of 1..n and n! by a while loop whose body calls into a nested if:
# odd i adds i, even i adds 2i (so the branches are taken alternately).
LOOP = """func.func @main(%n: tensor<i64>, %x: tensor<3xf32>) -> (tensor<i64>, tensor<i64>, tensor<3xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %i, %sum, %y = stablehlo.while(%arg0 = %one, %arg1 = %zero, %arg2 = %x) : tensor<i64>, tensor<i64>, tensor<3xf32>
  cond {
    %c = stablehlo.compare LE, %arg0, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %r = stablehlo.remainder %arg0, %two : tensor<i64>
    %odd = stablehlo.compare EQ, %r, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %add = "stablehlo.if"(%odd) ({
      stablehlo.return %arg0 : tensor<i64>
    }, {
      %d = stablehlo.multiply %arg0, %two : tensor<i64>
      stablehlo.return %d : tensor<i64>
    }) : (tensor<i1>) -> tensor<i64>
    %s = stablehlo.add %arg1, %add : tensor<i64>
    %next = stablehlo.add %arg0, %one : tensor<i64>
    %half = stablehlo.constant dense<0.5> : tensor<3xf32>
    %z = stablehlo.multiply %arg2, %half : tensor<3xf32>
    stablehlo.return %next, %s, %z : tensor<i64>, tensor<i64>, tensor<3xf32>
  }
  return %i, %sum, %y : tensor<i64>, tensor<i64>, tensor<3xf32>
}
"""


def run(tmp_path, text, inputs, engine="interp", extra=()):
    (tmp_path / "cf.mlir").write_text(text)
    command = [teval(), "run", str(tmp_path / "cf.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out"), *extra]
    for k, a in enumerate(inputs):
        np.save(tmp_path / f"in{k}.npy", a)
        command += ["-i", f"arg{k}={tmp_path / f'in{k}.npy'}"]
    return subprocess.run(command, capture_output=True, text=True)


def result(tmp_path, i):
    return np.load(tmp_path / "out" / f"result{i}.npy")


@pytest.mark.parametrize("engine", ["interp", "ireval", "jit"])
@pytest.mark.parametrize("n", [0, 1, 6, 9])
def test_a_while_loop_with_an_if_inside(tmp_path, n, engine):
    x = np.array([1.0, -3.0, 0.75], np.float32)
    done = run(tmp_path, LOOP, [np.array(n, np.int64), x], engine)
    assert done.returncode == 0, done.stderr
    want_sum, y = 0, x.copy()
    for i in range(1, n + 1):
        want_sum += i if i % 2 else 2 * i
        y = (y * np.float32(0.5)).astype(np.float32)
    assert_bits(result(tmp_path, 0), np.array(max(n, 0) + 1, np.int64))
    assert_bits(result(tmp_path, 1), np.array(want_sum, np.int64))
    assert_bits(result(tmp_path, 2), y)


def test_the_generic_while_reads_the_same(tmp_path):
    text = """func.func @main(%n: tensor<i32>) -> tensor<i32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r = "stablehlo.while"(%one) ({
  ^bb0(%a: tensor<i32>):
    %c = "stablehlo.compare"(%a, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%a: tensor<i32>):
    %d = "stablehlo.add"(%a, %a) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%d) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
"""
    done = run(tmp_path, text, [np.array(100, np.int32)])
    assert done.returncode == 0, done.stderr
    assert_bits(result(tmp_path, 0), np.array(128, np.int32))


CASE = """func.func @main(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = "stablehlo.case"(%i) ({
    %a = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }, {
    %b = stablehlo.exponential %x : tensor<2xf32>
    stablehlo.return %b : tensor<2xf32>
  }, {
    stablehlo.return %x : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
"""


@pytest.mark.parametrize("index, branch", [(0, 0), (1, 1), (2, 2), (-1, 2), (3, 2), (-7, 2)])
def test_case_takes_its_branch_and_the_last_out_of_range(tmp_path, index, branch):
    x = np.array([0.5, -2.0], np.float32)
    done = run(tmp_path, CASE, [np.array(index, np.int32), x])
    assert done.returncode == 0, done.stderr
    want = [-x, np.exp(x.astype(np.float64)).astype(np.float32), x][branch]
    if branch == 1:  # exp is the libm's: within its documented error
        np.testing.assert_allclose(result(tmp_path, 0), want, rtol=2e-7)
    else:
        assert_bits(result(tmp_path, 0), want)


@pytest.mark.parametrize("engine", ["interp", "jit"])
def test_values_of_regions_are_dumped_and_checked(tmp_path, engine):
    # On the JIT too: the loop natively, its values the same files.
    x = np.array([1.0, -3.0, 0.75], np.float32)
    done = run(tmp_path, LOOP, [np.array(3, np.int64), x], engine,
               extra=["--dump-values", str(tmp_path / "d")])
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in json.loads((tmp_path / "d" / "values.json").read_text())
            ["values"]}
    # The loop's last iteration (i = 3, odd: the then branch).
    assert rows["%i/@1/%arg0"]["op"] == "block argument"
    assert_bits(np.load(tmp_path / "d" / rows["%i/@1/%next"]["file"]), np.array(4, np.int64))
    # The else branch's last run was at i = 2.
    assert_bits(np.load(tmp_path / "d" / rows["%i/@1/%add/@1/%d"]["file"]),
                np.array(4, np.int64))
    assert_bits(np.load(tmp_path / "d" / "i.npy"), np.array(4, np.int64))
    # With n = 1 the else branch never runs: its value has no file.
    done = run(tmp_path, LOOP, [np.array(1, np.int64), x], engine,
               extra=["--dump-values", str(tmp_path / "d1")])
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in json.loads((tmp_path / "d1" / "values.json").read_text())
            ["values"]}
    assert rows["%i/@1/%add/@1/%d"]["file"] is None
    assert not (tmp_path / "d1" / "i" / "@1" / "add" / "@1" / "d.npy").exists()


def test_the_boundary_and_the_errors(tmp_path):
    x = np.array([1.0, 2.0, 3.0], np.float32)
    n = np.array(2, np.int64)
    for engine in ["ireval", "jit"]:  # the loop natively, between the segments
        done = run(tmp_path, LOOP, [n, x], engine)
        assert done.returncode == 0, done.stderr
        assert result(tmp_path, 1) == 1 + 4
        assert_bits(result(tmp_path, 2), x * np.float32(0.25))
        out = tv.Program(LOOP).run({"arg0": n, "arg1": x}, engine=engine)
        assert out["result1"] == 1 + 4
    assert lower_reports(tmp_path / "cf.mlir",
                         "while (control flow) has no einstein_v2 decomposition")
    with pytest.raises(tv.Error, match="no einstein_v2 decomposition"):
        tv.Program(LOOP).lower()
    bad = CASE.replace("%r = \"stablehlo.case\"(%i)", "%r = \"stablehlo.case\"(%x)").replace(
        "(tensor<i32>) -> tensor<2xf32>", "(tensor<2xf32>) -> tensor<2xf32>")
    done = run(tmp_path, bad, [np.array(0, np.int32), x[:2]])
    assert done.returncode == 1
    assert "case's index is tensor<2xf32>; it must be tensor<i32>" in done.stderr, done.stderr
    wrong = LOOP.replace("stablehlo.return %next, %s, %z", "stablehlo.return %next, %z, %s")
    done = run(tmp_path, wrong, [n, x])
    assert done.returncode == 1
    assert "while's body returns tensor<3xf32> where tensor<i64> is needed" in done.stderr, \
        done.stderr


MAP = """func.func @main(%a: tensor<2x3xi32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<i32>, %y: tensor<f32>):
    %c = stablehlo.convert %x : (tensor<i32>) -> tensor<f32>
    %m = stablehlo.multiply %c, %y : tensor<f32>
    %s = stablehlo.add %m, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
"""


def test_map_applies_its_computation_at_each_index(tmp_path):
    """stablehlo.map (spec "map"; docs/SEMANTICS.md, "StableHLO's sort and
    map"): the region at each index, against numpy."""
    a = np.array([[1, -2, 3], [0, 7, -5]], np.int32)
    b = np.array([[0.5, 1.5, -2.0], [3.0, 0.25, 8.0]], np.float32)
    done = run(tmp_path, MAP, [a, b])
    assert done.returncode == 0, done.stderr
    assert_bits(result(tmp_path, 0), (a.astype(np.float32) * b + b).astype(np.float32))
    done = run(tmp_path, MAP.replace("array<i64: 0, 1>", "array<i64: 1, 0>"), [a, b])
    assert done.returncode == 1
    assert "map's dimensions must be every dimension in order, [0, ..., 1] (C3)" in done.stderr
    for engine in ["ireval", "jit"]:  # the region natively
        done = run(tmp_path, MAP, [a, b], engine)
        assert done.returncode == 0, done.stderr
        assert_bits(result(tmp_path, 0), (a.astype(np.float32) * b + b).astype(np.float32))
    assert lower_reports(tmp_path / "cf.mlir",
                         "map (its computation is a region) has no einstein_v2 decomposition")
