"""StableHLO's complex64 and complex128 (docs/SEMANTICS.md, "Complex
numbers"): literals, .npy files and numpy arrays of numpy's complex dtypes,
the elementwise ops, convert, compare, real/imag/complex, reductions,
dot_general and fft. Expected values are computed here from the parts with
numpy's float arithmetic (add, subtract, multiply: the documented formulas),
numpy's own complex functions and mpmath (within the documented error), and
numpy.fft. Kernels have no complex values: ireval and the JIT decline them."""

import subprocess

import mpmath
import numpy as np
import pytest

import teval as tv
from test_stablehlo import assert_bits, lower_reports, rng, run, teval, tensor_type

COMPLEX = [np.complex64, np.complex128]
PART = {np.complex64: np.float32, np.complex128: np.float64}


def values(seed, dtype, shape=(24,), scale=3.0):
    r = rng(seed)
    part = PART[dtype]
    re = (r.standard_normal(shape) * scale).astype(part)
    im = (r.standard_normal(shape) * scale).astype(part)
    return (re + 1j * im.astype(np.float64)).astype(dtype)


def unary(tmp_path, op, x, result=None, engine="interp"):
    t = tensor_type(x)
    result = result or t
    body = f"  %0 = stablehlo.{op} %arg0 : ({t}) -> {result}\n  return %0 : {result}"
    return run(tmp_path, body, [x], result, engine)


def binary(tmp_path, op, x, y, engine="interp"):
    t = tensor_type(x)
    body = f"  %0 = stablehlo.{op} %arg0, %arg1 : {t}\n  return %0 : {t}"
    return run(tmp_path, body, [x, y], t, engine)


def close(got, want, dtype, ulps=4.0):
    """Norm-wise: |got - want| within ulps units of the parts' precision of
    |want| (each element), NaN where want has NaN."""
    eps = np.finfo(PART[dtype]).eps
    got = got.astype(np.complex128)
    want = want.astype(np.complex128)
    error = np.abs(got - want)
    bound = ulps * eps * np.maximum(np.abs(want), np.finfo(PART[dtype]).tiny)
    assert np.all(error <= bound), (got[error > bound], want[error > bound])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_add_subtract_multiply_are_the_parts_arithmetic(tmp_path, dtype):
    """Each real operation of the formulas rounded to the parts' dtype:
    (a + bi)(c + di) = (ac - bd) + (ad + bc)i."""
    x, y = values(1, dtype), values(2, dtype)
    a, b, c, d = x.real, x.imag, y.real, y.imag
    want = {
        "add": (a + c, b + d),
        "subtract": (a - c, b - d),
        "multiply": (a * c - b * d, a * d + b * c),
    }
    for op, (re, im) in want.items():
        status, got, err = binary(tmp_path, op, x, y)
        assert status == 0, err
        expected = np.empty_like(x)
        expected.real, expected.imag = re, im
        assert_bits(got, expected)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_divide_is_within_an_ulp_of_the_quotient(tmp_path, dtype):
    x, y = values(3, dtype), values(4, dtype)
    status, got, err = binary(tmp_path, "divide", x, y)
    assert status == 0, err
    close(got, x.astype(np.complex128) / y.astype(np.complex128), dtype, ulps=2)
    # Smith's algorithm: no overflow where the quotient is finite.
    big = np.array([1e300 + 1e300j, 1 + 1j], np.complex128)
    status, got, err = binary(tmp_path, "divide", big, np.array([1e300 + 1e300j, 1e300j]))
    assert status == 0, err
    close(got, np.array([1 + 0j, 1e-300 - 1e-300j]), np.complex128)


FUNCTIONS = {
    "exponential": np.exp, "log": np.log, "sqrt": np.sqrt, "sine": np.sin, "cosine": np.cos,
    "tan": np.tan, "tanh": np.tanh, "rsqrt": lambda z: 1 / np.sqrt(z),
    "logistic": lambda z: 1 / (1 + np.exp(-z)),
}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op", sorted(FUNCTIONS))
def test_functions_are_near_numpys(tmp_path, op, dtype):
    x = values(5, dtype, scale=1.5)
    status, got, err = unary(tmp_path, op, x)
    assert status == 0, err
    close(got, FUNCTIONS[op](x.astype(np.complex128)), dtype, ulps=8)


MPMATH = {
    "exponential_minus_one": mpmath.expm1,
    "log_plus_one": mpmath.log1p,
    "cbrt": lambda z: mpmath.exp(mpmath.log(z) / 3),
    "atan2": lambda y, x: -1j * mpmath.log((x + 1j * y) / mpmath.sqrt(x * x + y * y)),
    "power": mpmath.power,
}


@pytest.mark.parametrize("op", sorted(MPMATH))
def test_the_spec_only_functions_against_mpmath(tmp_path, op):
    mpmath.mp.prec = 120
    x = values(6, np.complex128, scale=0.8)
    y = values(7, np.complex128, scale=0.8)
    two = op in ("atan2", "power")
    if two:
        status, got, err = binary(tmp_path, op, x, y)
    else:
        status, got, err = unary(tmp_path, op, x)
    assert status == 0, err
    want = np.array([complex(MPMATH[op](*([mpmath.mpc(a), mpmath.mpc(b)] if two else
                                          [mpmath.mpc(a)])))
                     for a, b in zip(x, y)])
    close(got, want, np.complex128, ulps=16)


def test_the_real_axis_gives_the_real_functions_signs(tmp_path):
    """exp, log, sqrt, tanh and expm1 of x + 0i and x - 0i: the imaginary
    part is that zero (C's Annex G), the real part the real function's."""
    x = np.array([0.5 + 0j, 2 + 0j, 0.25 - 0j], np.complex128)
    x.imag = [0.0, -0.0, -0.0]
    for op, f in [("exponential", np.exp), ("log", np.log), ("sqrt", np.sqrt),
                  ("tanh", np.tanh), ("exponential_minus_one", np.expm1)]:
        status, got, err = unary(tmp_path, op, x)
        assert status == 0, err
        assert np.array_equal(np.signbit(got.imag), np.signbit(x.imag)), op
        assert np.all(got.imag == 0), op
        np.testing.assert_allclose(got.real, f(x.real), rtol=2e-16, err_msg=op)


def test_sqrt_and_log_special_values(tmp_path):
    inf, nan = np.inf, np.nan
    x = np.array([complex(-4, 0), complex(-4, -0.0), complex(0, 0), complex(-0.0, 0),
                  complex(inf, 1), complex(-inf, 1), complex(1, inf), complex(nan, 1)])
    want_sqrt = [complex(0, 2), complex(0, -2), complex(0, 0), complex(0, 0),
                 complex(inf, 0), complex(0, inf), complex(inf, inf), complex(nan, nan)]
    status, got, err = unary(tmp_path, "sqrt", x)
    assert status == 0, err
    assert_bits(got, np.array(want_sqrt))
    status, got, err = unary(tmp_path, "log", x[:4])
    assert status == 0, err
    assert_bits(got, np.array([complex(np.log(4), np.pi), complex(np.log(4), -np.pi),
                               complex(-inf, 0), complex(-inf, np.pi)]))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_abs_real_imag_and_complex(tmp_path, dtype):
    x = values(8, dtype)
    part = PART[dtype]
    pt = tensor_type(x.real.copy())
    for op, want in [("abs", np.abs(x.astype(np.complex128)).astype(part)),
                     ("real", x.real.copy()), ("imag", x.imag.copy())]:
        status, got, err = unary(tmp_path, op, x, pt)
        assert status == 0, err
        if op == "abs":
            np.testing.assert_allclose(got, want, rtol=np.finfo(part).eps)
        else:
            assert_bits(got, want)
    body = f"  %0 = stablehlo.complex %arg0, %arg1 : {tensor_type(x)}\n  return %0 : {tensor_type(x)}"
    status, got, err = run(tmp_path, body, [x.real.copy(), x.imag.copy()], tensor_type(x), "interp")
    assert status == 0, err
    assert_bits(got, x)
    # real and imag of floats: the value and zero.
    f = x.real.copy()
    status, got, err = unary(tmp_path, "imag", f, pt)
    assert status == 0, err
    assert_bits(got, np.zeros_like(f))


def test_convert_keeps_the_real_part(tmp_path):
    z = np.array([1.5 - 2j, -3.75 + 1j, 0.0 + 5j], np.complex128)
    cases = [
        (np.float32, z.real.astype(np.float32)),
        (np.int32, np.trunc(z.real).astype(np.int32)),
        (np.bool_, z.real != 0),
        (np.complex64, z.astype(np.complex64)),
    ]
    for dtype, want in cases:
        t = tensor_type(want)
        status, got, err = unary(tmp_path, "convert", z, t)
        assert status == 0, (dtype, err)
        assert_bits(got, want)
    n = np.array([7, -2], np.int64)
    status, got, err = unary(tmp_path, "convert", n, "tensor<2xcomplex<f32>>")
    assert status == 0, err
    assert_bits(got, n.astype(np.complex64))


def test_compare_is_lexicographic_and_nan_is_unordered(tmp_path):
    nan = np.nan
    x = np.array([1 + 2j, 1 + 2j, 1 + 3j, 2 + 0j, complex(nan, 0), complex(-0.0, 0)])
    y = np.array([1 + 2j, 1 + 3j, 1 + 2j, 1 + 9j, complex(nan, 0), complex(0, 0)])
    t = tensor_type(x)
    key = list(zip(x.real, x.imag)), list(zip(y.real, y.imag))
    for direction, f in [("EQ", lambda a, b: a == b), ("NE", lambda a, b: not a == b),
                         ("LT", lambda a, b: a < b), ("GE", lambda a, b: a >= b)]:
        body = (f"  %0 = stablehlo.compare {direction}, %arg0, %arg1, FLOAT : ({t}, {t}) -> "
                f"tensor<6xi1>\n  return %0 : tensor<6xi1>")
        status, got, err = run(tmp_path, body, [x, y], "tensor<6xi1>", "interp")
        assert status == 0, err
        # Python compares tuples lexicographically; NaN makes every order false.
        want = [f(a, b) if not (np.isnan(a[0]) or np.isnan(b[0])) else direction == "NE"
                for a, b in zip(*key)]
        assert got.tolist() == want, direction


def test_maximum_and_minimum_are_lexicographic(tmp_path):
    x = np.array([1 + 5j, 2 - 1j, 3 + 0j], np.complex64)
    y = np.array([1 + 6j, 1 + 9j, 3 + 0j], np.complex64)
    for op, pick in [("maximum", [0, 1, 1]), ("minimum", [1, 0, 1])]:
        status, got, err = binary(tmp_path, op, x, y)
        assert status == 0, err
        assert_bits(got, np.where(np.array(pick, bool), x, y))


def test_dot_general_and_reduce_sum_complex_products(tmp_path):
    a, b = values(9, np.complex128, (3, 4)), values(10, np.complex128, (4, 2))
    body = (f"  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "
            f"({tensor_type(a)}, {tensor_type(b)}) -> tensor<3x2xcomplex<f64>>\n"
            f"  return %0 : tensor<3x2xcomplex<f64>>")
    status, got, err = run(tmp_path, body, [a, b], "tensor<3x2xcomplex<f64>>", "interp")
    assert status == 0, err
    close(got, a @ b, np.complex128, ulps=16)
    body = ("  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f64>>\n"
            f"  %0 = stablehlo.reduce(%arg0 init: %z) applies stablehlo.add across dimensions = [1]"
            f" : ({tensor_type(a)}, tensor<complex<f64>>) -> tensor<3xcomplex<f64>>\n"
            "  return %0 : tensor<3xcomplex<f64>>")
    status, got, err = run(tmp_path, body, [a], "tensor<3xcomplex<f64>>", "interp")
    assert status == 0, err
    want = np.zeros(3, np.complex128)
    for k in range(4):  # in index order
        want += a[:, k]
    assert_bits(got, want)


@pytest.mark.parametrize("transpose", ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])
@pytest.mark.parametrize("left", [True, False])
def test_triangular_solve_of_complex_systems(tmp_path, transpose, left):
    """op(a) x = b (or x op(a) = b), ADJOINT the conjugate transpose,
    checked against numpy's solve of the triangle."""
    n = 4
    a = values(15, np.complex128, (n, n)) + np.eye(n) * 6
    b = values(16, np.complex128, (n, 3) if left else (3, n))
    flag = "true" if left else "false"
    body = (f'  %0 = "stablehlo.triangular_solve"(%arg0, %arg1) {{left_side = {flag}, '
            f"lower = true, unit_diagonal = false, "
            f"transpose_a = #stablehlo<transpose {transpose}>}} : "
            f"({tensor_type(a)}, {tensor_type(b)}) -> {tensor_type(b)}\n"
            f"  return %0 : {tensor_type(b)}")
    status, got, err = run(tmp_path, body, [a, b], tensor_type(b), "interp")
    assert status == 0, err
    m = np.tril(a)
    m = {"NO_TRANSPOSE": m, "TRANSPOSE": m.T, "ADJOINT": m.conj().T}[transpose]
    want = np.linalg.solve(m, b) if left else np.linalg.solve(m.T, b.T).T
    close(got, want, np.complex128, ulps=64)


@pytest.mark.parametrize("kind", ["FFT", "IFFT", "RFFT", "IRFFT"])
@pytest.mark.parametrize("lengths", [[8], [4, 6], [2, 3, 4]])
def test_fft_is_numpys_transform(tmp_path, kind, lengths):
    lead = [2]
    shape = lead + lengths
    axes = tuple(range(len(lead), len(shape)))
    if kind == "RFFT":
        x = rng(11).standard_normal(shape)
        want = np.fft.rfftn(x, axes=axes)
    elif kind == "IRFFT":
        half = shape[:-1] + [shape[-1] // 2 + 1]
        x = values(12, np.complex128, tuple(half))
        want = np.fft.irfftn(x, s=lengths, axes=axes)
    else:
        x = values(13, np.complex128, tuple(shape))
        want = (np.fft.fftn if kind == "FFT" else np.fft.ifftn)(x, axes=axes)
    result = tensor_type(want)
    body = (f"  %0 = stablehlo.fft %arg0, type = {kind}, length = {lengths} : "
            f"({tensor_type(x)}) -> {result}\n  return %0 : {result}")
    status, got, err = run(tmp_path, body, [x], result, "interp")
    assert status == 0, err
    scale = np.max(np.abs(want))
    assert np.max(np.abs(got - want)) <= 1e-13 * scale * max(lengths), (got, want)
    # The generic form, fft_length an array attribute.
    generic = (f'  %0 = "stablehlo.fft"(%arg0) {{fft_type = #stablehlo<fft_type {kind}>, '
               f'fft_length = array<i64: {", ".join(map(str, lengths))}>}} : '
               f"({tensor_type(x)}) -> {result}\n  return %0 : {result}")
    status, again, err = run(tmp_path, generic, [x], result, "interp")
    assert status == 0, err
    assert_bits(again, got)


def test_literals_npy_files_and_the_python_module(tmp_path):
    text = ("func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n"
            "  %c = stablehlo.constant dense<[(1.5, -2.0), (0x3F800000, 0x40000000)]> : "
            "tensor<2xcomplex<f32>>\n"
            "  %r = stablehlo.multiply %a, %c : tensor<2xcomplex<f32>>\n"
            "  return %r : tensor<2xcomplex<f32>>\n}\n")
    a = np.array([2 + 1j, -1 + 0.5j], np.complex64)
    c = np.array([1.5 - 2j, 1 + 2j], np.complex64)
    want = np.empty_like(a)
    want.real = a.real * c.real - a.imag * c.imag
    want.imag = a.real * c.imag + a.imag * c.real
    assert_bits(tv.run(text, {"arg0": a})["result0"], want)
    src = tmp_path / "f.mlir"
    src.write_text(text)
    np.save(tmp_path / "a.npy", a)
    done = subprocess.run([teval(), "run", str(src), "-i", f"arg0={tmp_path / 'a.npy'}",
                           "--print"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "result0 = array([ (5.0-2.5j), (-2.0-1.5j)], dtype=complex64)\n"


@pytest.mark.parametrize("engine", ["ireval", "jit"])
def test_kernels_run_complex_values_natively(tmp_path, engine):
    x = values(14, np.complex64, (3,))
    status, got, err = unary(tmp_path, "negate", x, engine=engine)
    assert status == 0, err
    assert_bits(got, -x)
    assert lower_reports(tmp_path, "values of complex<f32> have no einstein_v2 decomposition")


@pytest.mark.parametrize("body,message", [
    ("%0 = stablehlo.remainder %arg0, %arg0 : tensor<2xcomplex<f32>>",
     "remainder of tensor<2xcomplex<f32>> is not defined"),
    ("%0 = stablehlo.floor %arg0 : tensor<2xcomplex<f32>>", "floor takes a float tensor"),
    ('%0 = "stablehlo.not"(%arg0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>',
     "not takes i1 or integer values"),
    ("%0 = stablehlo.compare LT, %arg0, %arg0, SIGNED : (tensor<2xcomplex<f32>>, "
     "tensor<2xcomplex<f32>>) -> tensor<2xi1>", "compare_type SIGNED does not fit"),
    ("%0 = stablehlo.fft %arg0, type = RFFT, length = [2] : (tensor<2xcomplex<f32>>) -> "
     "tensor<2xcomplex<f32>>", "fft of type RFFT takes an f32 or f64 tensor"),
    ("%0 = stablehlo.fft %arg0, type = FFT, length = [4] : (tensor<2xcomplex<f32>>) -> "
     "tensor<2xcomplex<f32>>", "takes a tensor ending in 4"),
    ("%0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xcomplex<f32>>",
     "`1.0` is not a value of complex<f32>, written (real part, imaginary part)"),
    ("%0 = stablehlo.bitcast_convert %arg0 : (tensor<2xcomplex<f32>>) -> tensor<2xi64>",
     "a complex type converts only to a complex type"),
])
def test_errors(tmp_path, body, message):
    src = tmp_path / "f.mlir"
    src.write_text("func.func @main(%arg0: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n"
                   f"  {body}\n  return %arg0 : tensor<2xcomplex<f32>>\n}}\n")
    done = subprocess.run([teval(), "run", str(src)], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert message in done.stderr, done.stderr
    assert "f.mlir:2:" in done.stderr
