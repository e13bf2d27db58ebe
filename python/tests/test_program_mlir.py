"""MLIR functions through teval.Program and teval.run (docs/BYTEIR.md,
"From C++ and Python"), as the command line runs them: the same seeded
inputs, the same results, the same verdicts. Expected values are numpy's."""

import subprocess
from fractions import Fraction

import numpy as np
import pytest

import teval as tv
from test_stablehlo import assert_bits, teval

ENGINES = ["interp", "ireval", "jit", "exact"]

# A layer: a matrix product, a non-splat constant bias (an input of the
# decomposition) and a ReLU, then a reduce with its region.
LAYER = """module {
  func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %b = stablehlo.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.add %0, %bb : tensor<2x3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<2x3xf32>
    %2 = stablehlo.maximum %1, %z : tensor<2x3xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    return %2, %3 : tensor<2x3xf32>, tensor<3xf32>
  }
}
"""


def round32(q):
    """The float32 nearest the fraction q, ties to even (no double rounding)."""
    f = np.float32(float(q))
    near = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    return min(near, key=lambda c: (abs(Fraction(float(c)) - q),
                                    int(c.view(np.uint32)) & 1))


def layer(x, w, exact=False):
    """The sequential result, or with exact=True the exact engine's: each
    sum's float32 terms added exactly and rounded once (docs/ORACLE.md)."""
    y = np.zeros((2, 3), np.float32)
    for i in range(2):
        for j in range(3):
            if exact:
                s = round32(sum(Fraction(float(x[i, k] * w[k, j])) for k in range(4)))
            else:
                s = np.float32(0)
                for k in range(4):
                    s = np.float32(s + x[i, k] * w[k, j])
            y[i, j] = max(np.float32(s + np.float32([0.5, -1.0, 2.0][j])), np.float32(0))
    return y, np.float32(y[0] + y[1])


def test_the_signature_names_inputs_and_outputs():
    p = tv.Program(LAYER)
    assert [(i.name, i.dtype, i.shape) for i in p.inputs] == [
        ("arg0", "float32", (2, 4)), ("arg1", "float32", (4, 3))]
    assert [(o.name, o.dtype, o.shape) for o in p.outputs] == [
        ("result0", "float32", (2, 3)), ("result1", "float32", (3,))]
    assert tv.Program(LAYER, notation="mlir").outputs[1].shape == (3,)


@pytest.mark.parametrize("engine", ENGINES)
def test_programs_run_on_every_engine(engine):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    out = tv.Program(LAYER).run({"arg0": x, "arg1": w}, engine=engine)
    y, s = layer(x, w, exact=engine == "exact")
    assert_bits(out["result0"], y)
    assert_bits(out["result1"], s)
    assert_bits(tv.run(LAYER, {"arg0": x, "arg1": w}, engine=engine)["result1"], s)


def test_seeded_inputs_and_results_are_the_command_lines(tmp_path):
    src = tmp_path / "layer.mlir"
    src.write_text(LAYER)
    done = subprocess.run([teval(), "run", str(src), "--seed", "11", "-o", str(tmp_path / "out"),
                           "--save-inputs", str(tmp_path / "in")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    p = tv.Program(LAYER)
    drawn = p.random_inputs(11)
    for name in ["arg0", "arg1"]:
        assert_bits(drawn[name], np.load(tmp_path / "in" / f"{name}.npy"))
    out = p.run(seed=11)
    for name in ["result0", "result1"]:
        assert_bits(out[name], np.load(tmp_path / "out" / f"{name}.npy"))


def test_the_command_lines_exact_mode_rounds_each_statement_once(tmp_path):
    rng = np.random.default_rng(13)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    src = tmp_path / "layer.mlir"
    src.write_text(LAYER)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    done = subprocess.run([teval(), "run", str(src), "--exact", "-i", f"arg0={tmp_path / 'x.npy'}",
                           "-i", f"arg1={tmp_path / 'w.npy'}", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    y, s = layer(x, w, exact=True)
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), y)
    assert_bits(np.load(tmp_path / "out" / "result1.npy"), s)


def test_candidates_are_judged_as_teval_check_judges_them(tmp_path):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    y, s = layer(x, w)
    # Reassociated in float64 and rounded once: legal, not the sequential bits.
    y64 = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + [0.5, -1.0, 2.0], 0)
    p = tv.Program(LAYER)
    v = p.check({"arg0": x, "arg1": w}, {"result0": y64.astype(np.float32), "result1": s})
    assert v["result0"].passed and v["result1"].passed
    bad = y.copy()
    bad[1, 2] += np.float32(0.25)
    v = p.check({"arg0": x, "arg1": w}, {"result0": bad})
    assert v["result0"].status == "mismatch"
    assert tuple(v["result0"].worst_index) == (1, 2)
    # The command line says the same of the same files.
    src = tmp_path / "layer.mlir"
    src.write_text(LAYER)
    for name, a in [("x", x), ("w", w), ("bad", bad)]:
        np.save(tmp_path / f"{name}.npy", a)
    done = subprocess.run([teval(), "check", str(src), "-i", f"arg0={tmp_path / 'x.npy'}",
                           "-i", f"arg1={tmp_path / 'w.npy'}",
                           "--candidate", f"result0={tmp_path / 'bad.npy'}"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "result0: mismatch" in done.stdout, done.stdout


def test_graphs_without_a_decomposition_run_their_ops_natively():
    text = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xi1> {
  %0 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}"""
    a = np.array([-0.0, np.nan], np.float32)
    b = np.array([0.0, np.inf], np.float32)
    p = tv.Program(text)
    assert p.run({"arg0": a, "arg1": b})["result0"].tolist() == [True, False]
    # The op natively on the other engines too (docs/SEMANTICS.md, "Engines
    # on graphs"); the whole function has no kernel to lower.
    for engine in ["ireval", "jit"]:
        assert p.run({"arg0": a, "arg1": b}, engine=engine)["result0"].tolist() == [True, False]
    with pytest.raises(tv.Error, match="no einstein_v2 decomposition"):
        p.lower()


def test_errors_name_the_text_and_the_notations():
    with pytest.raises(tv.Error, match=r"model\.mlir:2:"):
        tv.Program("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                   "  %0 = stablehlo.frobnicate %a : tensor<2xf32>\n"
                   "  return %0 : tensor<2xf32>\n}\n", name="model.mlir")
    with pytest.raises(ValueError, match="detect, antares, tile, mlir"):
        tv.Program(LAYER, notation="hlo")
