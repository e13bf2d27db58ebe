"""chlo.ragged_dot (docs/SEMANTICS.md, "CHLO's ops"): its three modes against
a plain loop over the groups written from ChloOps.td's shape signatures, on
every engine. Integer-valued floats keep every product and sum exact, so the
loop's float64 sums are the expected bits."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, run, tensor_type


def numbers(lb, rb, lc, rc, lr, rg):
    f = lambda v: "[" + ", ".join(map(str, v)) + "]"
    return (f"#chlo.ragged_dot<lhs_batching_dimensions = {f(lb)}, rhs_batching_dimensions = "
            f"{f(rb)}, lhs_contracting_dimensions = {f(lc)}, rhs_contracting_dimensions = "
            f"{f(rc)}, lhs_ragged_dimensions = {f(lr)}, rhs_group_dimensions = {f(rg)}>")


def program(lhs, rhs, sizes, want, dims):
    tl, tr, ts, tw = (tensor_type(v) for v in (lhs, rhs, sizes, want))
    return (f'  %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) {{ragged_dot_dimension_numbers = '
            f"{dims}, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]}} "
            f": ({tl}, {tr}, {ts}) -> {tw}\n  return %0 : {tw}")


def starts(sizes):
    return np.concatenate([[0], np.cumsum(sizes)])


@pytest.mark.parametrize("engine", ENGINES)
def test_mode_1_a_group_of_rows_each_with_its_rhs(tmp_path, engine):
    # [m, k] x [g, k, n] with group sizes [g] -> [m, n]; rows past the
    # groups are 0.
    r = rng(1)
    m, k, n, g = 11, 5, 7, 3
    lhs = r.integers(-4, 5, (m, k)).astype(np.float32)
    rhs = r.integers(-4, 5, (g, k, n)).astype(np.float32)
    sizes = np.array([4, 0, 5], np.int64)  # an empty group; rows 9 and 10 in none
    want = np.zeros((m, n), np.float32)
    s = starts(sizes)
    for group in range(g):
        for row in range(s[group], s[group + 1]):
            want[row] = sum(lhs[row, j] * rhs[group, j] for j in range(k))
    status, got, err = run(tmp_path, program(lhs, rhs, sizes, want,
                                             numbers([], [], [1], [1], [0], [0])),
                           [lhs, rhs, sizes], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_mode_1_with_batches_and_per_batch_sizes(tmp_path, engine):
    # [b, m, k] x [g, b, k, n] with group sizes [b, g] -> [b, m, n].
    r = rng(2)
    b, m, k, n, g = 2, 6, 3, 4, 2
    lhs = r.integers(-4, 5, (b, m, k)).astype(np.float32)
    rhs = r.integers(-4, 5, (g, b, k, n)).astype(np.float32)
    sizes = np.array([[2, 4], [5, 1]], np.int32)
    want = np.zeros((b, m, n), np.float32)
    for batch in range(b):
        s = starts(sizes[batch])
        for group in range(g):
            for row in range(s[group], s[group + 1]):
                want[batch, row] = sum(lhs[batch, row, j] * rhs[group, batch, j] for j in range(k))
    status, got, err = run(tmp_path, program(lhs, rhs, sizes, want,
                                             numbers([0], [1], [2], [2], [1], [0])),
                           [lhs, rhs, sizes], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_mode_2_a_group_of_the_contraction_each(tmp_path, engine):
    # [m, k] x [k, n] with group sizes [g] -> [g, m, n]: group g contracts
    # its own part of k.
    r = rng(3)
    m, k, n, g = 3, 8, 4, 3
    lhs = r.integers(-4, 5, (m, k)).astype(np.float32)
    rhs = r.integers(-4, 5, (k, n)).astype(np.float32)
    sizes = np.array([3, 1, 2], np.int64)
    want = np.zeros((g, m, n), np.float32)
    s = starts(sizes)
    for group in range(g):
        for j in range(s[group], s[group + 1]):
            want[group] += np.outer(lhs[:, j], rhs[j])
    status, got, err = run(tmp_path, program(lhs, rhs, sizes, want,
                                             numbers([], [], [1], [0], [1], [])),
                           [lhs, rhs, sizes], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_mode_3_is_a_batched_dot(tmp_path, engine):
    r = rng(4)
    lhs = r.integers(-4, 5, (3, 2, 4)).astype(np.float32)
    rhs = r.integers(-4, 5, (3, 4, 5)).astype(np.float32)
    sizes = np.array([1, 2], np.int64)
    want = np.einsum("bmk,bkn->bmn", lhs, rhs).astype(np.float32)
    status, got, err = run(tmp_path, program(lhs, rhs, sizes, want,
                                             numbers([0], [0], [2], [1], [0], [])),
                           [lhs, rhs, sizes], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("dims, message", [
    (numbers([], [], [1], [1], [0], []), "rhs, of a rank above lhs's, needs one rhs_group"),
    (numbers([], [], [1], [1], [1], [0]), "the ragged dimension must be a non-contracting"),
    (numbers([], [], [1], [1], [0, 1], [0]), "lhs_ragged_dimensions must name one dimension"),
    ("#chlo.ragged_dot<lhs_batching_dimensions = [], bogus = [1]>", "`bogus` is not one of"),
])
def test_errors(tmp_path, dims, message):
    lhs = np.zeros((4, 2), np.float32)
    rhs = np.zeros((2, 2, 3), np.float32)
    sizes = np.array([2, 2], np.int64)
    want = np.zeros((4, 3), np.float32)
    status, _, err = run(tmp_path, program(lhs, rhs, sizes, want, dims), [lhs, rhs, sizes],
                         tensor_type(want), "interp")
    assert status == 1 and message in err, err
