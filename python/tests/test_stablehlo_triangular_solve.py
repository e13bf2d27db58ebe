"""StableHLO's triangular_solve (docs/SEMANTICS.md, "StableHLO's
triangular_solve and cholesky"), run as users run it (`teval run FILE.mlir`) on every
engine. The expected values are the substitution written here as plain
loops over numpy scalars, one rounding per operation; each solution is
also checked to solve its system in float64 (op(a) @ x close to b)."""

import itertools

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, run, tensor_type


def substitution(a, b, left, lower, unit, transpose):
    """X with op(a) X = b (left) or X op(a) = b: unknown p is (b_p - s) /
    coefficient(p, p), s the sum from zero, in ascending order of q, of
    coefficient(p, q) * x_q over the unknowns solved before p."""
    t = a.dtype.type
    n = a.shape[-1]
    op = np.swapaxes(a, -1, -2) if transpose else a
    # the coefficient of unknown q in equation p: op[p, q] on the left,
    # op[q, p] on the right (X's columns are the unknowns)
    lower_system = lower != transpose if left else lower == transpose
    x = np.zeros_like(b)
    for batch in itertools.product(*[range(d) for d in b.shape[:-2]]):
        others = b.shape[-1] if left else b.shape[-2]
        for k in range(others):
            order = range(n) if lower_system else range(n - 1, -1, -1)
            for p in order:
                used = range(0, p) if lower_system else range(p + 1, n)

                def coef(p, q):
                    return op[batch + ((p, q) if left else (q, p))]

                def at(p):
                    return batch + ((p, k) if left else (k, p))
                s = t(0)
                for q in used:
                    s = t(s + t(coef(p, q) * x[at(q)]))
                v = b[at(p)]
                if len(used):
                    v = t(v - s)
                if not unit:
                    v = t(v / coef(p, p))
                x[at(p)] = v
    return x


def solves(a, b, x, left, lower, unit, transpose):
    """op(a) x close to b in float64, a's other triangle (and, for a unit
    diagonal, its diagonal) ignored."""
    n = a.shape[-1]
    keep = np.tril(np.ones((n, n), bool), -1 if unit else 0)
    if not lower:
        keep = keep.T
    m = np.where(keep, a, 0).astype(np.float64)
    if unit:
        m = m + np.eye(n)
    if transpose:
        m = np.swapaxes(m, -1, -2)
    got = m @ x.astype(np.float64) if left else x.astype(np.float64) @ m
    np.testing.assert_allclose(got, b.astype(np.float64), rtol=1e-3, atol=1e-3)


def solve_body(a, b, left, lower, unit, transpose, dialect="stablehlo"):
    flag = lambda v: "true" if v else "false"
    return (f'  %0 = "{dialect}.triangular_solve"(%arg0, %arg1) {{left_side = {flag(left)}, '
            f"lower = {flag(lower)}, unit_diagonal = {flag(unit)}, "
            f"transpose_a = #{dialect}<transpose {transpose}>}} : "
            f"({tensor_type(a)}, {tensor_type(b)}) -> {tensor_type(b)}\n"
            f"  return %0 : {tensor_type(b)}")


def system(seed, dtype, batch, n, k, left):
    """A well-conditioned a (a dominant diagonal) and b."""
    g = rng(seed)
    a = g.uniform(-1, 1, batch + (n, n)) + np.eye(n) * 4
    b = g.uniform(-4, 4, batch + ((n, k) if left else (k, n)))
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose", ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])
def test_every_side_triangle_and_transposition(tmp_path, engine, left, lower, transpose):
    a, b = system(7, np.float32, (2,), 5, 3, left)
    for unit in (False, True):
        want = substitution(a, b, left, lower, unit, transpose != "NO_TRANSPOSE")
        solves(a, b, want, left, lower, unit, transpose != "NO_TRANSPOSE")
        body = solve_body(a, b, left, lower, unit, transpose,
                          "mhlo" if unit and left else "stablehlo")
        status, got, err = run(tmp_path, body, [a, b], tensor_type(b), engine)
        assert status == 0, err
        assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_float_types_and_empty_systems(tmp_path, engine, dtype):
    for n, k in [(4, 2), (0, 2), (3, 0)]:
        a, b = system(n + 11, dtype, (), n, k, True)
        want = substitution(a, b, True, False, False, False)
        body = solve_body(a, b, True, False, False, "NO_TRANSPOSE")
        status, got, err = run(tmp_path, body, [a, b], tensor_type(b), engine)
        assert status == 0, err
        assert_bits(got, want)


def test_only_the_triangle_is_read(tmp_path):
    """NaN in the other triangle (and on a unit diagonal) changes nothing."""
    a, b = system(3, np.float32, (), 4, 2, True)
    poisoned = a.copy()
    poisoned[np.triu_indices(4, 0)] = np.nan
    want = substitution(a, b, True, True, True, False)
    assert not np.isnan(want).any()
    body = solve_body(poisoned, b, True, True, True, "NO_TRANSPOSE")
    for engine in ENGINES:
        status, got, err = run(tmp_path, body, [poisoned, b], tensor_type(b), engine)
        assert status == 0, err
        assert_bits(got, want)


def test_errors(tmp_path):
    a = np.eye(3, dtype=np.float32)
    b = np.ones((2, 3), np.float32)  # left_side needs 3 rows
    body = solve_body(a, b, True, True, False, "NO_TRANSPOSE")
    status, _, err = run(tmp_path, body, [a, b], tensor_type(b), "interp")
    assert status == 1 and "f.mlir:2:" in err and "a must be square" in err, err
    body = solve_body(a, np.ones((3, 2), np.float32), True, True, False, "CONJUGATE")
    status, _, err = run(tmp_path, body, [a, np.ones((3, 2), np.float32)], "tensor<3x2xf32>",
                         "interp")
    assert status == 1 and "transpose_a is CONJUGATE" in err, err
    i = np.eye(3, dtype=np.int32)
    body = solve_body(i, i, True, True, False, "NO_TRANSPOSE")
    status, _, err = run(tmp_path, body, [i, i], tensor_type(i), "interp")
    assert status == 1 and "triangular_solve takes float, complex or quantized tensors, not tensor<3x3xi32>" in err, err
    body = body.replace("unit_diagonal = false, ", "")
    status, _, err = run(tmp_path, body, [i, i], tensor_type(i), "interp")
    assert status == 1 and "unit_diagonal" in err, err
