"""stablehlo.sort (StableHLO specification, "sort"; docs/SEMANTICS.md,
"StableHLO's sort"): the interpreter's stable sort by the comparator region
against numpy's stable argsort; the other engines say it has no
decomposition."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import assert_bits, lower_reports, teval, tensor_type, MLIR_TYPES


def program(inputs, dimension, direction, compare_type, stable=True):
    n = len(inputs)
    scalar = [f"tensor<{MLIR_TYPES[a.dtype.type]}>" for a in inputs]
    params = ", ".join(f"%l{i}: {scalar[i]}, %r{i}: {scalar[i]}" for i in range(n))
    types = ", ".join(tensor_type(a) for a in inputs)
    names = ", ".join(f"%s{i}" for i in range(n))
    args = ", ".join(f"%arg{i}: {tensor_type(a)}" for i, a in enumerate(inputs))
    return (f"func.func @main({args}) -> ({types}) {{\n"
            f'  {names} = "stablehlo.sort"({", ".join(f"%arg{i}" for i in range(n))}) ({{\n'
            f"  ^bb0({params}):\n"
            f"    %p = stablehlo.compare {direction}, %l0, %r0, {compare_type} : "
            f"({scalar[0]}, {scalar[0]}) -> tensor<i1>\n"
            f"    stablehlo.return %p : tensor<i1>\n"
            f"  }}) {{dimension = {dimension} : i64, is_stable = {'true' if stable else 'false'}}}"
            f" : ({types}) -> ({types})\n"
            f"  return {names} : {types}\n}}\n")


def run(tmp_path, text, inputs, engine="interp"):
    (tmp_path / "s.mlir").write_text(text)
    command = [teval(), "run", str(tmp_path / "s.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out")]
    for i, a in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'in{i}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    outs = [np.load(tmp_path / "out" / f"result{i}.npy") for i in range(len(inputs))] \
        if done.returncode == 0 else None
    return done, outs


@pytest.mark.parametrize("dimension", [0, 1, -1, 2])
def test_keys_and_payload_sort_stably(tmp_path, dimension):
    rng = np.random.default_rng(dimension + 10)
    keys = rng.integers(-3, 4, (4, 5, 6)).astype(np.int32)  # many ties
    payload = rng.standard_normal((4, 5, 6)).astype(np.float32)
    for direction in ["LT", "GT"]:
        done, (k, p) = run(tmp_path, program([keys, payload], dimension, direction, "SIGNED"),
                           [keys, payload])
        assert done.returncode == 0, done.stderr
        order = np.argsort(keys if direction == "LT" else -keys, axis=dimension, kind="stable")
        assert_bits(k, np.take_along_axis(keys, order, axis=dimension))
        assert_bits(p, np.take_along_axis(payload, order, axis=dimension))


def test_floats_and_unsigned_orders(tmp_path):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 9)).astype(np.float64)
    x[0, :3] = [0.0, -0.0, 0.0]  # equal to the comparator: kept in order
    done, (s,) = run(tmp_path, program([x], 1, "LT", "FLOAT"), [x])
    assert done.returncode == 0, done.stderr
    assert_bits(s, np.take_along_axis(x, np.argsort(x, axis=1, kind="stable"), axis=1))
    u = rng.integers(0, 65535, (7,)).astype(np.uint16)
    done, (s,) = run(tmp_path, program([u], 0, "GT", "UNSIGNED", stable=False), [u])
    assert done.returncode == 0, done.stderr
    assert_bits(s, np.sort(u)[::-1].copy())


def test_the_boundary_and_the_errors(tmp_path):
    x = np.array([3, 1, 2], np.int64)
    for engine in ["ireval", "jit"]:  # the native reference between the segments
        done, got = run(tmp_path, program([x], 0, "LT", "SIGNED"), [x], engine)
        assert done.returncode == 0, done.stderr
        assert_bits(got[0], np.sort(x))
    assert lower_reports(tmp_path / "s.mlir",
                         "sort (its comparator is a region) has no einstein_v2 decomposition")
    done, _ = run(tmp_path, program([x], 1, "LT", "SIGNED"), [x])
    assert done.returncode == 1 and "sort's dimension 1 is outside [-1, 1) (C4)" in done.stderr
    y = np.zeros(4, np.int64)
    text = program([x, x], 0, "LT", "SIGNED").replace("%arg1: tensor<3xi64>", "%arg1: tensor<4xi64>")
    text = text.replace("(tensor<3xi64>, tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>)",
                        "(tensor<3xi64>, tensor<4xi64>) -> (tensor<3xi64>, tensor<4xi64>)")
    done, _ = run(tmp_path, text, [x, y])
    assert done.returncode == 1 and "sort's inputs have one shape" in done.stderr, done.stderr
    text = program([x], 0, "LT", "SIGNED").replace("stablehlo.return %p : tensor<i1>",
                                                   "stablehlo.return %l0 : tensor<i64>")
    done, _ = run(tmp_path, text, [x])
    assert done.returncode == 1
    assert "sort's comparator returns tensor<i64> where tensor<i1> is needed" in done.stderr
