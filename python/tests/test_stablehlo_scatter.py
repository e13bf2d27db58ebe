"""stablehlo.scatter (StableHLO specification, "scatter"; docs/SEMANTICS.md,
"StableHLO's scatter"): the interpreter's updates in row-major order
against the specification's formula written out here, and index_put /
scatter_add against torch."""

import subprocess

import numpy as np
import pytest
import torch

from test_stablehlo import assert_bits, lower_reports, teval, tensor_type, MLIR_TYPES


def reference(inputs, indices, updates, dn, combine):
    """exec(schedule, inputs) with the schedule row-major over the update
    indices; out-of-bounds result indices skipped."""
    results = [x.copy() for x in inputs]
    dn = {"input_batching_dims": [], "scatter_indices_batching_dims": [], **dn}
    ivd = dn["index_vector_dim"]
    window = dn["update_window_dims"]
    dropped = dn["inserted_window_dims"] + dn["input_batching_dims"]
    rank = inputs[0].ndim
    scatter_dims = [d for d in range(updates[0].ndim) if d not in window]
    window_input = [d for d in range(rank) if d not in dropped]
    for u in np.ndindex(*updates[0].shape):
        si = [u[d] for d in scatter_dims]
        if ivd < indices.ndim:
            start = [int(indices[tuple(si[:ivd] + [k] + si[ivd:])])
                     for k in range(indices.shape[ivd])]
        else:
            start = [int(indices[tuple(si)])]
        r = [0] * rank
        for k, d in enumerate(dn["scatter_dims_to_operand_dims"]):
            r[d] += start[k]
        for d, s in zip(dn["input_batching_dims"], dn["scatter_indices_batching_dims"]):
            r[d] += si[s - (0 if s < ivd else 1)]
        for w, d in zip(window, window_input):
            r[d] += u[w]
        if not all(0 <= r[d] < inputs[0].shape[d] for d in range(rank)):
            continue
        new = combine(*[x[tuple(r)] for x in results], *[up[u] for up in updates])
        for x, v in zip(results, new):
            x[tuple(r)] = v
    return results


def program(inputs, indices, updates, dn, body):
    n = len(inputs)
    scalar = [f"tensor<{MLIR_TYPES[x.dtype.type]}>" for x in inputs]
    # As StableHLO prints it: empty lists and index_vector_dim = 0 left out.
    fields = ", ".join(f"{k} = {v}" for k, v in dn.items() if v)
    numbers = f"#stablehlo.scatter<{fields}>"
    args = [f"%in{i}: {tensor_type(x)}" for i, x in enumerate(inputs)]
    args.append(f"%idx: {tensor_type(indices)}")
    args += [f"%up{i}: {tensor_type(u)}" for i, u in enumerate(updates)]
    operands = ", ".join([f"%in{i}" for i in range(n)] + ["%idx"] + [f"%up{i}" for i in range(n)])
    types = ", ".join([tensor_type(x) for x in inputs] + [tensor_type(indices)] +
                      [tensor_type(u) for u in updates])
    results = ", ".join(tensor_type(x) for x in inputs)
    params = ", ".join([f"%a{i}: {scalar[i]}" for i in range(n)] +
                       [f"%b{i}: {scalar[i]}" for i in range(n)])
    names = ", ".join(f"%r{i}" for i in range(n))
    return (f"func.func @main({', '.join(args)}) -> ({results}) {{\n"
            f'  {names} = "stablehlo.scatter"({operands}) ({{\n'
            f"  ^bb0({params}):\n{body}\n"
            f"  }}) {{scatter_dimension_numbers = {numbers}, indices_are_sorted = false, "
            f"unique_indices = false}} : ({types}) -> ({results})\n"
            f"  return {names} : {results}\n}}\n")


def run(tmp_path, text, arrays, engine="interp"):
    (tmp_path / "s.mlir").write_text(text)
    command = [teval(), "run", str(tmp_path / "s.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out")]
    for i, a in enumerate(arrays):
        np.save(tmp_path / f"in{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'in{i}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    return done


ADD = ("    %s = stablehlo.add %a0, %b0 : tensor<f32>\n"
       "    stablehlo.return %s : tensor<f32>")


def test_the_specifications_example(tmp_path):
    x = np.arange(1, 49, dtype=np.int64).reshape(2, 3, 4, 2)
    idx = np.array([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                    [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]], np.int64)
    up = np.ones((2, 2, 3, 2, 2), np.int64)
    dn = {"update_window_dims": [3, 4], "inserted_window_dims": [1],
          "input_batching_dims": [0], "scatter_indices_batching_dims": [1],
          "scatter_dims_to_operand_dims": [2, 1], "index_vector_dim": 3}
    body = ("    %s = stablehlo.add %a0, %b0 : tensor<i64>\n"
            "    stablehlo.return %s : tensor<i64>")
    done = run(tmp_path, program([x], idx, [up], dn, body), [x, idx, up])
    assert done.returncode == 0, done.stderr
    want = reference([x], idx, [up], dn, lambda a, b: [a + b])[0]
    # The specification's printed result, its first rows.
    assert want[0, 0].tolist() == [[3, 4], [6, 7], [6, 7], [7, 8]]
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), want)


def test_scatter_add_with_repeated_indices_is_torchs(tmp_path):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    idx = rng.integers(0, 6, (9, 1)).astype(np.int32)  # repeats: added in order
    up = rng.standard_normal((9, 4)).astype(np.float32)
    dn = {"update_window_dims": [1], "inserted_window_dims": [0],
          "scatter_dims_to_operand_dims": [0], "index_vector_dim": 1}
    done = run(tmp_path, program([x], idx, [up], dn, ADD), [x, idx, up])
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out" / "result0.npy")
    want = reference([x], idx, [up], dn, lambda a, b: [np.float32(a + b)])[0]
    assert_bits(got, want)
    torch_want = torch.from_numpy(x).index_add(0, torch.from_numpy(idx[:, 0]).long(),
                                               torch.from_numpy(up)).numpy()
    np.testing.assert_allclose(got, torch_want, rtol=1e-6, atol=1e-6)


def test_index_vector_dim_left_out_is_0(tmp_path):
    # As JAX exports a scatter into one column: `#stablehlo.scatter<
    # update_window_dims = [0], inserted_window_dims = [1],
    # scatter_dims_to_operand_dims = [1]>`, the indices one vector [col].
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([2], np.int32)
    up = np.array([10, 20, 30], np.float32)
    dn = {"update_window_dims": [0], "inserted_window_dims": [1],
          "scatter_dims_to_operand_dims": [1], "index_vector_dim": 0}
    text = program([x], idx, [up], dn, ADD)
    assert "index_vector_dim" not in text
    done = run(tmp_path, text, [x, idx, up])
    assert done.returncode == 0, done.stderr
    want = x.copy()
    want[:, 2] += up
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), want)


def test_two_inputs_and_out_of_bounds_updates(tmp_path):
    # Keeps, for each row, the update with the larger key (an argmax-like
    # pair): two inputs, two updates; index 7 is out of bounds: skipped.
    keys = np.zeros(5, np.float32)
    vals = np.zeros(5, np.int32)
    idx = np.array([[1], [3], [1], [7], [-1]], np.int64)
    ukeys = np.array([2.0, 5.0, 3.0, 9.0, 4.0], np.float32)
    uvals = np.array([10, 20, 30, 40, 50], np.int32)
    dn = {"update_window_dims": [], "inserted_window_dims": [0],
          "scatter_dims_to_operand_dims": [0], "index_vector_dim": 1}
    body = ("    %gt = stablehlo.compare GT, %b0, %a0 : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
            "    %k = stablehlo.select %gt, %b0, %a0 : tensor<i1>, tensor<f32>\n"
            "    %v = stablehlo.select %gt, %b1, %a1 : tensor<i1>, tensor<i32>\n"
            "    stablehlo.return %k, %v : tensor<f32>, tensor<i32>")
    done = run(tmp_path, program([keys, vals], idx, [ukeys, uvals], dn, body),
               [keys, vals, idx, ukeys, uvals])
    assert done.returncode == 0, done.stderr
    assert np.load(tmp_path / "out" / "result0.npy").tolist() == [0, 3, 0, 5, 0]
    assert np.load(tmp_path / "out" / "result1.npy").tolist() == [0, 30, 0, 20, 0]


def test_the_boundary_and_the_errors(tmp_path):
    x = np.zeros((6, 4), np.float32)
    idx = np.zeros((3, 1), np.int32)
    up = np.ones((3, 4), np.float32)
    dn = {"update_window_dims": [1], "inserted_window_dims": [0],
          "scatter_dims_to_operand_dims": [0], "index_vector_dim": 1}
    idx = np.array([[0], [5], [0]], np.int32)
    for engine in ["ireval", "jit"]:  # the native reference between the segments
        done = run(tmp_path, program([x], idx, [up], dn, ADD), [x, idx, up], engine)
        assert done.returncode == 0, done.stderr
        want = x.copy()
        want[0] += 2
        want[5] += 1
        assert_bits(np.load(tmp_path / "out" / "result0.npy"), want)
    assert lower_reports(tmp_path / "s.mlir",
                         "scatter (its update computation is a region) has no einstein_v2")
    big = np.ones((3, 5), np.float32)
    done = run(tmp_path, program([x], idx, [big], dn, ADD), [x, idx, big])
    assert done.returncode == 1 and "(C4)" in done.stderr, done.stderr
    bad = dict(dn, scatter_dims_to_operand_dims=[0, 1])
    done = run(tmp_path, program([x], idx, [up], bad, ADD), [x, idx, up])
    assert done.returncode == 1 and "(C19-C21)" in done.stderr, done.stderr
