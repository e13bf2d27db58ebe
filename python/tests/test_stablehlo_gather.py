"""stablehlo.gather and dynamic_gather (StableHLO specification, "gather";
docs/SEMANTICS.md, "StableHLO's gather") on every engine, against the
specification's formula written out here index by index, and an embedding
lookup against torch."""

import subprocess

import numpy as np
import pytest
import torch

from test_stablehlo import ENGINES, assert_bits, teval, tensor_type


def reference(operand, indices, dn, slice_sizes):
    """result[result_index] = operand[full_start_index + full_batching_index
    + full_offset_index], as the specification defines them."""
    rank = operand.ndim
    ivd = dn["index_vector_dim"]
    offset_dims = dn["offset_dims"]
    dropped = dn["collapsed_slice_dims"] + dn["operand_batching_dims"]
    batch_sizes = [e for d, e in enumerate(indices.shape) if d != ivd]
    offset_sizes = [slice_sizes[d] for d in range(rank) if d not in dropped]
    result_rank = len(batch_sizes) + len(offset_sizes)
    shape, b, o = [], iter(batch_sizes), iter(offset_sizes)
    for d in range(result_rank):
        shape.append(next(o) if d in offset_dims else next(b))
    result = np.zeros(shape, operand.dtype)
    batch_dims = [d for d in range(result_rank) if d not in offset_dims]
    for result_index in np.ndindex(*shape):
        batch_index = [result_index[d] for d in batch_dims]
        if ivd < indices.ndim:
            at = list(batch_index)
            start_index = []
            for k in range(indices.shape[ivd]):
                start_index.append(int(indices[tuple(at[:ivd] + [k] + at[ivd:])]))
        else:
            start_index = [int(indices[tuple(batch_index)])]
        full_start = [0] * rank
        for k, d in enumerate(dn["start_index_map"]):
            full_start[d] = min(max(start_index[k], 0), operand.shape[d] - slice_sizes[d])
        full_batching = [0] * rank
        for d, s in zip(dn["operand_batching_dims"], dn["start_indices_batching_dims"]):
            full_batching[d] = batch_index[s - (0 if s < ivd else 1)]
        offset_index = iter(result_index[d] for d in offset_dims)
        full_offset = [0 if d in dropped else next(offset_index) for d in range(rank)]
        result[result_index] = operand[tuple(
            full_start[d] + full_batching[d] + full_offset[d] for d in range(rank))]
    return result


def program(operand, indices, dn, slice_sizes, result, dynamic=False):
    # As StableHLO prints it: index_vector_dim = 0 left out (its default).
    fields = ", ".join(f"{k} = {v}" for k, v in dn.items()
                       if k != "index_vector_dim" or v != 0)
    numbers = f"#stablehlo.gather<{fields}>"
    sizes = ", ".join(map(str, slice_sizes))
    if dynamic:
        op = (f"%s = stablehlo.constant dense<[{sizes}]> : tensor<{len(slice_sizes)}xi64>\n"
              f'  %r = "stablehlo.dynamic_gather"(%a, %i, %s) {{dimension_numbers = {numbers}}} : '
              f"({tensor_type(operand)}, {tensor_type(indices)}, "
              f"tensor<{len(slice_sizes)}xi64>) -> {tensor_type(result)}")
    else:
        op = (f'%r = "stablehlo.gather"(%a, %i) {{dimension_numbers = {numbers}, '
              f"slice_sizes = array<i64: {sizes}>, indices_are_sorted = false}} : "
              f"({tensor_type(operand)}, {tensor_type(indices)}) -> {tensor_type(result)}")
    return (f"func.func @main(%a: {tensor_type(operand)}, %i: {tensor_type(indices)}) -> "
            f"{tensor_type(result)} {{\n  {op}\n  return %r : {tensor_type(result)}\n}}\n")


def run(tmp_path, text, inputs, engine):
    (tmp_path / "g.mlir").write_text(text)
    command = [teval(), "run", str(tmp_path / "g.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out")]
    for k, a in enumerate(inputs):
        np.save(tmp_path / f"in{k}.npy", a)
        command += ["-i", f"arg{k}={tmp_path / f'in{k}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    return done, (np.load(tmp_path / "out" / "result0.npy") if done.returncode == 0 else None)


SPEC_DN = {"offset_dims": [3, 4], "collapsed_slice_dims": [1], "operand_batching_dims": [0],
           "start_indices_batching_dims": [1], "start_index_map": [2, 1], "index_vector_dim": 3}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_specifications_example(tmp_path, engine):
    operand = np.arange(1, 49, dtype=np.int32).reshape(2, 3, 4, 2)
    indices = np.array([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                        [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]], np.int64)
    want = reference(operand, indices, SPEC_DN, [1, 1, 2, 2])
    # The specification's printed result.
    assert want.tolist() == [
        [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
         [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
        [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
         [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]]
    for dynamic in [False, True]:
        done, got = run(tmp_path, program(operand, indices, SPEC_DN, [1, 1, 2, 2], want,
                                          dynamic), [operand, indices], engine)
        assert done.returncode == 0, done.stderr
        assert_bits(got, want)


def random_case(rng):
    rank = int(rng.integers(1, 4))
    shape = [int(rng.integers(0, 5)) for _ in range(rank)]
    dims = [int(d) for d in rng.permutation(rank)]
    vector = int(rng.integers(1, rank + 1))
    start_index_map = dims[:vector]
    sizes = [int(rng.integers(0, e + 1)) for e in shape]
    collapsed = sorted(d for d in start_index_map if shape[d] > 0 and rng.random() < 0.5)
    for d in collapsed:
        sizes[d] = 1
    batching = []
    if vector < rank and shape[dims[vector]] > 0 and rng.random() < 0.4:
        batching = [dims[vector]]
        sizes[dims[vector]] = 1
    batch = [shape[batching[0]]] if batching else []
    batch += [int(rng.integers(0, 4)) for _ in range(int(rng.integers(0, 3)))]
    ivd = int(rng.integers(0, len(batch) + 1))
    index_shape = batch[:ivd] + [vector] + batch[ivd:]
    indices_batching = [1 if ivd == 0 else 0] if batching else []
    kept = rank - len(collapsed) - len(batching)
    result_rank = len(batch) + kept
    offset_dims = sorted(int(d) for d in rng.permutation(result_rank)[:kept])
    dn = {"offset_dims": offset_dims, "collapsed_slice_dims": collapsed,
          "operand_batching_dims": batching, "start_indices_batching_dims": indices_batching,
          "start_index_map": start_index_map, "index_vector_dim": ivd}
    return shape, index_shape, dn, sizes


@pytest.mark.parametrize("engine", ENGINES)
def test_random_gathers_are_the_specifications(tmp_path, engine):
    rng = np.random.default_rng(31)
    for case in range(30):
        shape, index_shape, dn, sizes = random_case(rng)
        operand = rng.standard_normal(shape).astype(np.float32)
        # Out-of-range starts too: they are clamped.
        dtype = [np.int32, np.int64, np.uint8, np.int8][case % 4]
        low = 0 if dtype == np.uint8 else -3
        indices = rng.integers(low, 7, index_shape).astype(dtype)
        want = reference(operand, indices, dn, sizes)
        done, got = run(tmp_path, program(operand, indices, dn, sizes, want, case % 3 == 0),
                        [operand, indices], engine)
        assert done.returncode == 0, done.stderr
        assert_bits(got, want)


def test_an_embedding_lookup_is_torchs(tmp_path):
    rng = np.random.default_rng(4)
    table = rng.standard_normal((10, 6)).astype(np.float32)
    ids = rng.integers(0, 10, (2, 5)).astype(np.int64)
    want = torch.nn.functional.embedding(torch.from_numpy(ids), torch.from_numpy(table)).numpy()
    dn = {"offset_dims": [2], "collapsed_slice_dims": [0], "start_index_map": [0],
          "index_vector_dim": 2}
    done, got = run(tmp_path, program(table, ids, dn, [1, 6], want), [table, ids], "jit")
    assert done.returncode == 0, done.stderr
    assert_bits(got, want)


def test_errors_name_the_constraint(tmp_path):
    table = np.zeros((10, 6), np.float32)
    ids = np.zeros((2, 5), np.int64)
    result = np.zeros((2, 5, 6), np.float32)
    dn = {"offset_dims": [2], "collapsed_slice_dims": [0], "start_index_map": [0],
          "index_vector_dim": 2}
    cases = [
        (dn, [2, 6], "is collapsed or batching, so its slice size must be at most 1 (C9, C12)"),
        (dn, [1, 7], "slice size 7 of dimension 1 is outside [0, 6] (C21)"),
        (dict(dn, start_index_map=[0, 1]), [1, 6],
         "start_index_map lists 2 dimensions; the index vectors have 1 (C3)"),
        (dict(dn, offset_dims=[]), [1, 6], "must together count the operand's 2 dimensions (C1)"),
    ]
    for numbers, sizes, message in cases:
        done, _ = run(tmp_path, program(table, ids, numbers, sizes, result), [table, ids],
                      "interp")
        assert done.returncode == 1 and message in done.stderr, done.stderr
    # A declared result of another shape.
    done, _ = run(tmp_path, program(table, ids, dn, [1, 6], np.zeros((2, 5, 5), np.float32)),
                  [table, ids], "interp")
    assert done.returncode == 1 and "tensor<2x5x6xf32>" in done.stderr, done.stderr
    # Float start indices.
    done, _ = run(tmp_path, program(table, ids.astype(np.float32), dn, [1, 6], result),
                  [table, ids.astype(np.float32)], "interp")
    assert done.returncode == 1 and "start indices must be integers" in done.stderr, done.stderr
