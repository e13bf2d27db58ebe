"""Every value of an MLIR function (docs/BYTEIR.md, "Every value"):
`teval run FILE.mlir --dump-values DIR` writes them, and `teval check`
judges a compiler's dump of any of them by its name. Expected values are
numpy's, computed here op by op."""

import json
import subprocess

import numpy as np
import pytest

from test_stablehlo import assert_bits, teval

# A block of two layers, the second in a callee called twice: its values
# are named after each call (%1/%0, %2/%0).
BLOCK = """module {
  func.func private @layer(%x: tensor<2x3xf32>, %w: tensor<3x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.tanh %0 : tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
  func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<f32>) {
    %0 = stablehlo.negate %x : tensor<2x3xf32>
    %1 = func.call @layer(%0, %w) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %2 = func.call @layer(%1, %w) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    return %2, %3 : tensor<2x3xf32>, tensor<f32>
  }
}
"""


def matmul(x, w):
    """The sequential float32 product, k in order."""
    y = np.zeros((x.shape[0], w.shape[1]), np.float32)
    for i in range(x.shape[0]):
        for j in range(w.shape[1]):
            s = np.float32(0)
            for k in range(x.shape[1]):
                s = np.float32(s + x[i, k] * w[k, j])
            y[i, j] = s
    return y


@pytest.fixture
def block(tmp_path):
    rng = np.random.default_rng(21)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3)).astype(np.float32)
    (tmp_path / "block.mlir").write_text(BLOCK)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    return tmp_path, x, w


def run(tmp_path, *args):
    return subprocess.run([teval(), *[str(a) for a in args]], capture_output=True, text=True,
                          cwd=tmp_path)


def inputs(tmp_path):
    return ["-i", f"arg0={tmp_path / 'x.npy'}", "-i", f"arg1={tmp_path / 'w.npy'}"]


@pytest.mark.parametrize("engine", ["interp", "ireval", "jit"])
def test_every_value_is_written_with_its_name(block, engine):
    tmp_path, x, w = block
    done = run(tmp_path, "run", "block.mlir", *inputs(tmp_path), "--engine", engine,
               "--dump-values", "dump", "-o", "out")
    assert done.returncode == 0, done.stderr
    neg = -x
    m1 = matmul(neg, w)
    l1 = np.tanh(m1.astype(np.float64)).astype(np.float32)
    m2 = matmul(l1, w)
    # tanh is the libm's (documented error), so the second layer starts
    # from the dumped first one.
    dump = tmp_path / "dump"
    want = {"x.npy": x, "w.npy": w, "0.npy": neg, "1/0.npy": m1, "2/0.npy": matmul(
        np.load(dump / "1.npy"), w)}
    for file, value in want.items():
        assert_bits(np.load(dump / file), value)
    np.testing.assert_allclose(np.load(dump / "1.npy"), l1, rtol=1e-6)
    np.testing.assert_allclose(np.load(dump / "2/0.npy"), m2, rtol=1e-5)
    total = np.float32(0)
    for v in np.load(dump / "2.npy").reshape(-1):
        total = np.float32(total + v)
    assert_bits(np.load(dump / "3.npy"), total)
    # The results are among the values, and -o writes them as ever.
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), np.load(dump / "2.npy"))
    manifest = json.loads((dump / "values.json").read_text())
    assert manifest["schema"] == "teval.values/1"
    rows = {r["name"]: r for r in manifest["values"]}
    assert list(rows) == ["%x", "%w", "%0", "%1/%0", "%1", "%2/%0", "%2", "%z", "%3"]
    assert rows["%x"] == {"name": "%x", "file": "x.npy", "op": "argument", "line": 7,
                          "column": 19, "dtype": "float32", "shape": [2, 3], "input": "arg0"}
    assert rows["%1/%0"]["op"] == "dot_general" and rows["%1/%0"]["line"] == 3
    assert rows["%2"]["outputs"] == ["result0"] and rows["%3"]["outputs"] == ["result1"]
    assert rows["%3"]["shape"] == [] and rows["%2/%0"]["file"] == "2/0.npy"
    assert sorted(str(p.relative_to(dump)) for p in dump.rglob("*.npy")) == sorted(
        r["file"] for r in manifest["values"])


def test_a_compilers_layer_dumps_are_checked_one_by_one(block):
    tmp_path, x, w = block
    # A compiler's dumps: each layer in float64, reassociated, rounded once.
    l1 = np.tanh((-x).astype(np.float64) @ w.astype(np.float64)).astype(np.float32)
    m2 = (l1.astype(np.float64) @ w.astype(np.float64)).astype(np.float32)
    np.save(tmp_path / "l1.npy", l1)
    np.save(tmp_path / "m2.npy", m2)
    wrong = m2.copy()
    wrong[1, 0] = -wrong[1, 0] + np.float32(1)
    np.save(tmp_path / "wrong.npy", wrong)
    done = run(tmp_path, "check", "block.mlir", *inputs(tmp_path), "--candidate", "%1=l1.npy",
               "--candidate", "2/0=m2.npy", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = json.loads(done.stdout)
    assert [o["name"] for o in verdict["outputs"]] == ["%1", "2/0"]
    assert verdict["unchecked"] == ["result0", "result1"]
    done = run(tmp_path, "check", "block.mlir", *inputs(tmp_path), "--candidate",
               "%2/%0=wrong.npy")
    assert done.returncode == 1
    assert done.stdout.startswith("%2/%0: mismatch (value): element [1, 0] is "), done.stdout


def test_names_that_are_no_value_are_errors(block):
    tmp_path, x, w = block
    np.save(tmp_path / "c.npy", x)
    done = run(tmp_path, "check", "block.mlir", *inputs(tmp_path), "--candidate", "%7=c.npy")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("--candidate %7=c.npy: error: the program has no output or value `%7`; "
                           "its outputs are: result0, result1 (and the values teval run "
                           "--dump-values writes, such as %0 or %2/%0)\n")
    # A value of the wrong type is judged before anything is evaluated.
    done = run(tmp_path, "check", "block.mlir", *inputs(tmp_path), "--candidate", "%3=c.npy")
    assert done.returncode == 1 and "%3: mismatch (shape)" in done.stdout, done.stdout


def test_files_stay_inside_the_directory(tmp_path):
    # `%..` is a legal SSA name: its files keep the `%`.
    text = """func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %.. = stablehlo.negate %x : tensor<2xf32>
  return %.. : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %.. = func.call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %.. : tensor<2xf32>
}
"""
    (tmp_path / "dots.mlir").write_text(text)
    (tmp_path / "inside").mkdir()
    done = run(tmp_path / "inside", "run", tmp_path / "dots.mlir", "--dump-values", "d")
    assert done.returncode == 0, done.stderr
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.npy")) == [
        "inside/d/%...npy", "inside/d/a.npy"]


def test_nothing_is_written_when_the_run_fails(tmp_path):
    text = """func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.negate %a : tensor<2xi32>
  %1 = stablehlo.divide %0, %b : tensor<2xi32>
  return %1 : tensor<2xi32>
}
"""
    (tmp_path / "div.mlir").write_text(text)
    np.save(tmp_path / "a.npy", np.array([1, 2], np.int32))
    np.save(tmp_path / "b.npy", np.array([1, 0], np.int32))
    done = run(tmp_path, "run", "div.mlir", "-i", "arg0=a.npy", "-i", "arg1=b.npy",
               "--dump-values", "d")
    assert done.returncode == 1 and "division by zero" in done.stderr, done.stderr
    assert not (tmp_path / "d").exists()


def test_dump_values_is_an_option_of_mlir_runs(block):
    tmp_path, _, _ = block
    (tmp_path / "p.antares").write_text("o[N] = x[N] + 1.0")
    assert run(tmp_path, "run", "p.antares", "-i", "x=float32[2]", "--dump-values",
               "d").returncode == 2
    assert run(tmp_path, "lower", "block.mlir", "--dump-values", "d").returncode == 2
    assert run(tmp_path, "check", "block.mlir", "--dump-values", "d", "--candidate",
               "result0=x.npy").returncode == 2
