"""stablehlo.cholesky (StableHLO specification, "cholesky"; docs/SEMANTICS.md,
"StableHLO's triangular_solve and cholesky"): the specification's example,
random symmetric positive-definite batches against the factorization
written as plain loops over numpy scalars (and against numpy's cholesky in
float64), the upper factor, and the inputs whose result the specification
leaves undefined, which are errors."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, tensor_type


def factor(a, lower):
    """The lower factor column by column, every operation in a's dtype:
    L[j][j] = sqrt(a[j][j] - s), L[i][j] = (a[i][j] - s) / L[j][j], s the
    sum from zero of L[j][k] * L[i][k] over k < j; the upper one is the
    transpose of the lower factor of a's transpose."""
    t = a.dtype.type
    out = np.zeros_like(a)
    for batch in np.ndindex(*a.shape[:-2]):
        m = a[batch] if lower else a[batch].T
        n = m.shape[0]
        f = np.zeros_like(m)
        for j in range(n):
            for i in range(j, n):
                s = t(0)
                for k in range(j):
                    s = t(s + t(f[j, k] * f[i, k]))
                v = t(m[i, j] - s) if j else m[i, j]
                f[i, j] = t(np.sqrt(v)) if i == j else t(v / f[j, j])
        out[batch] = f if lower else f.T
    return out


def spd(shape, dtype, seed):
    """Symmetric positive-definite matrices: B·Bᵀ + n·I, symmetric exactly."""
    r = rng(seed)
    n = shape[-1]
    b = r.standard_normal(shape)
    a = b @ np.swapaxes(b, -1, -2) + n * np.eye(n)
    a = (a + np.swapaxes(a, -1, -2)) / 2
    return a.astype(dtype)


def body(t, lower, generic):
    flag = "true" if lower else "false"
    if generic:
        return (f'  %0 = "stablehlo.cholesky"(%arg0) {{lower = {flag}}} : ({t}) -> {t}\n'
                f"  return %0 : {t}")
    return f"  %0 = stablehlo.cholesky %arg0, lower = {flag} : {t}\n  return %0 : {t}"


def test_the_specifications_example(tmp_path):
    a = np.array([[1, 2, 3], [2, 20, 26], [3, 26, 70]], np.float32)
    t = tensor_type(a)
    status, got, err = run(tmp_path, body(t, True, True), [a], t, "interp")
    assert status == 0, err
    assert_bits(got, np.array([[1, 0, 0], [2, 4, 0], [3, 5, 6]], np.float32))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_random_batches_are_the_columnwise_factorization(tmp_path, lower, dtype):
    a = spd((2, 3, 5, 5), dtype, 4)
    t = tensor_type(a)
    status, got, err = run(tmp_path, body(t, lower, generic=dtype == np.float64), [a], t, "interp")
    assert status == 0, err
    assert_bits(got, factor(a, lower))
    want = np.linalg.cholesky(a.astype(np.float64))
    if not lower:
        want = np.swapaxes(want, -1, -2)
    assert np.allclose(got.astype(np.float64), want, rtol=5e-2 if dtype == np.float16 else 1e-4)


def test_the_default_is_the_upper_factor(tmp_path):
    a = spd((4, 4), np.float32, 5)
    t = tensor_type(a)
    status, got, err = run(tmp_path, f'  %0 = "stablehlo.cholesky"(%arg0) : ({t}) -> {t}\n'
                           f"  return %0 : {t}", [a], t, "interp")
    assert status == 0, err
    assert_bits(got, factor(a, False))


@pytest.mark.parametrize("matrix,message", [
    ([[4, 1], [2, 5]], "not symmetric: [1, 0] is 2.0, [0, 1] is 1.0"),
    ([[1, 2], [2, 1]], "not positive-definite: pivot 1 is -3"),
    ([[-1, 0], [0, 1]], "not positive-definite: pivot 0 is -1"),
    ([[np.nan, 0], [0, 1]], "not positive-definite: pivot 0 is nan"),
    ([[1, np.nan], [np.nan, 1]], "not positive-definite: pivot 1 is nan"),
])
def test_an_undefined_result_is_an_error(tmp_path, matrix, message):
    a = np.array(matrix, np.float32)
    t = tensor_type(a)
    status, _, err = run(tmp_path, body(t, True, False), [a], t, "interp")
    assert status == 1 and message in err, err
    assert "f.mlir:2:" in err and "leaves its result undefined" in err


def test_the_batch_of_the_error_is_named(tmp_path):
    a = spd((3, 2, 2), np.float64, 6)
    a[2] = [[1, 3], [3, 1]]
    t = tensor_type(a)
    status, _, err = run(tmp_path, body(t, True, False), [a], t, "interp")
    assert status == 1 and "not positive-definite of batch [2]" in err, err


def hermitian(shape, dtype, seed):
    """Hermitian positive-definite matrices: B·Bᴴ + n·I, Hermitian exactly."""
    r = rng(seed)
    n = shape[-1]
    b = r.standard_normal(shape) + 1j * r.standard_normal(shape)
    a = b @ np.conj(np.swapaxes(b, -1, -2)) + n * np.eye(n)
    a = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    return a.astype(dtype)


@pytest.mark.parametrize("lower", [True, False])
def test_a_complex_factor_of_gaussian_integers_is_exact(tmp_path, lower):
    """a = L·Lᴴ with L of Gaussian integers and an integer diagonal: every
    step of the factorization is exact, so the factor is L (Lᴴ for the
    upper one), bit for bit."""
    f = np.array([[1, 0, 0], [2j, 2, 0], [1 - 1j, 1 + 2j, 3]], np.complex128)
    a = f @ f.conj().T
    # The upper factor is Lᴴ, its zeros and its diagonal's imaginary parts +0.
    upper = np.triu(f.conj().T, 1) + np.diag(np.diagonal(f).real) + 0
    for dtype in (np.complex64, np.complex128):
        t = tensor_type(a.astype(dtype))
        status, got, err = run(tmp_path, body(t, lower, dtype == np.complex64), [a.astype(dtype)],
                               t, "interp")
        assert status == 0, err
        assert_bits(got, (f if lower else upper).astype(dtype))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_random_complex_batches_are_numpys_factor(tmp_path, lower, dtype):
    a = hermitian((2, 5, 5), dtype, 8)
    t = tensor_type(a)
    status, got, err = run(tmp_path, body(t, lower, False), [a], t, "interp")
    assert status == 0, err
    want = np.linalg.cholesky(a.astype(np.complex128))
    if not lower:
        want = np.conj(np.swapaxes(want, -1, -2))
    eps = np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
    assert np.max(np.abs(got - want)) <= 64 * eps * np.max(np.abs(want)), (got, want)
    # The other triangle is zero, the diagonal real and positive.
    other = np.triu(got, 1) if lower else np.tril(got, -1)
    assert not other.any()
    diagonal = np.diagonal(got, axis1=-2, axis2=-1)
    assert not diagonal.imag.any() and (diagonal.real > 0).all()


@pytest.mark.parametrize("matrix,message", [
    ([[4, 1 + 1j], [1 + 1j, 5]], "not Hermitian: [1, 0] is (1.0+1.0j), [0, 1] is (1.0+1.0j)"),
    ([[4 + 1j, 0], [0, 5]], "not Hermitian: [0, 0] is (4.0+1.0j)"),
    ([[1, 2j], [-2j, 1]], "not positive-definite: pivot 1 is (-3.0"),
])
def test_an_undefined_complex_result_is_an_error(tmp_path, matrix, message):
    a = np.array(matrix, np.complex64)
    t = tensor_type(a)
    status, _, err = run(tmp_path, body(t, True, False), [a], t, "interp")
    assert status == 1 and message in err, err


@pytest.mark.parametrize("operand,message", [
    ("tensor<3xf32>", "rank 2 or more and be square"),
    ("tensor<2x3xf32>", "rank 2 or more and be square"),
    ("tensor<2x2xi32>", "cholesky takes a float, complex or quantized tensor"),
])
def test_types_the_specification_rules_out(tmp_path, operand, message):
    status, _, err = run(tmp_path, body(operand, True, True), [], operand, "interp",
                         types=[operand])
    assert status == 1 and message in err, err


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "interp"])
def test_the_kernel_engines_run_it_natively(tmp_path, engine):
    a = spd((2, 3, 3), np.float32, 7)
    t = tensor_type(a)
    status, want, err = run(tmp_path, body(t, True, False), [a], t, "interp")
    assert status == 0, err
    status, got, err = run(tmp_path, body(t, True, False), [a], t, engine)
    assert status == 0, err
    assert_bits(got, want)
    assert lower_reports(tmp_path, "cholesky (a factorization checked as it runs")
