"""CHLO's broadcasting ops and its sugar (docs/SEMANTICS.md, "CHLO's ops"):
chlo.broadcast_add ... broadcast_select against numpy's broadcasting of the
same arithmetic, with broadcast_dimensions against the mapping written out
by hand, and chlo.square, chlo.conj, chlo.constant_like and chlo.constant
against their definitions in ChloOps.td, on every engine."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, run, tensor_type

# op: (numpy's function, operand dtype)
ARITHMETIC = {
    "add": (np.add, np.float32),
    "subtract": (np.subtract, np.float32),
    "multiply": (np.multiply, np.float32),
    "divide": (np.divide, np.float32),
    "maximum": (np.maximum, np.float32),
    "minimum": (np.minimum, np.float32),
    "and": (np.bitwise_and, np.int32),
    "or": (np.bitwise_or, np.int32),
    "xor": (np.bitwise_xor, np.int32),
    "shift_left": (lambda a, b: np.left_shift(a, b), np.int32),
    "shift_right_logical": (lambda a, b: (a.view(np.uint32) >> b.view(np.uint32)).view(np.int32),
                            np.int32),
    "shift_right_arithmetic": (np.right_shift, np.int32),
}


def operand_pair(dtype, seed):
    r = rng(seed)
    if dtype == np.int32:
        return (r.integers(-1000, 1000, (2, 1, 4)).astype(np.int32),
                r.integers(0, 31, (3, 1)).astype(np.int32))
    return (r.standard_normal((2, 1, 4)).astype(np.float32),
            (r.standard_normal((3, 1)) + 3).astype(np.float32))


def broadcast_program(op, a, b, want, generic=False, attrs=""):
    ta, tb, tw = tensor_type(a), tensor_type(b), tensor_type(want)
    if generic:
        line = f'"chlo.broadcast_{op}"(%arg0, %arg1) {attrs} : ({ta}, {tb}) -> {tw}'
    else:
        line = f"chlo.broadcast_{op} %arg0, %arg1 {attrs} : ({ta}, {tb}) -> {tw}"
    return f"  %0 = {line}\n  return %0 : {tw}"


@pytest.mark.parametrize("op", sorted(ARITHMETIC))
@pytest.mark.parametrize("engine", ENGINES)
def test_numpy_rank_broadcasting(tmp_path, op, engine):
    # (2, 1, 4) against (3, 1): aligned to the trailing dimensions, each
    # extent of 1 stretched: (2, 3, 4).
    f, dtype = ARITHMETIC[op]
    a, b = operand_pair(dtype, len(op))
    want = f(a, b).astype(dtype)
    status, got, err = run(tmp_path, broadcast_program(op, a, b, want, generic=op == "xor"),
                           [a, b], tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_broadcast_dimensions_map_the_operand_of_lower_rank(tmp_path, engine):
    r = rng(3)
    a = r.standard_normal((2, 3, 4)).astype(np.float32)
    b = r.standard_normal((2, 4)).astype(np.float32)
    # b's dimensions are the result's 0 and 2: b[i, k] at every j.
    want = np.array([[[a[i, j, k] * b[i, k] for k in range(4)] for j in range(3)]
                     for i in range(2)], np.float32)
    for generic, attrs in [(False, "{broadcast_dimensions = array<i64: 0, 2>}"),
                           (True, "{broadcast_dimensions = dense<[0, 2]> : tensor<2xi64>}")]:
        status, got, err = run(tmp_path, broadcast_program("multiply", a, b, want, generic, attrs),
                               [a, b], tensor_type(want), engine)
        assert status == 0, err
        assert_bits(got, want)
    # The lower-rank operand on the left, and an extent of 1 stretched too.
    c = r.standard_normal((1, 4)).astype(np.float32)
    want = np.array([[[c[0, k] - a[i, j, k] for k in range(4)] for j in range(3)]
                     for i in range(2)], np.float32)
    status, got, err = run(tmp_path, broadcast_program(
        "subtract", c, a, want, attrs="{broadcast_dimensions = array<i64: 1, 2>}"), [c, a],
        tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_compare_select_and_complex(tmp_path, engine):
    r = rng(5)
    a = r.integers(-5, 5, (2, 3)).astype(np.int32)
    b = r.integers(-5, 5, (3,)).astype(np.int32)
    want = a < b
    ta, tb, tw = tensor_type(a), tensor_type(b), tensor_type(want)
    for attrs in ["{comparison_direction = #chlo<comparison_direction LT>}",
                  "{comparison_direction = #chlo<comparison_direction LT>, "
                  "compare_type = #chlo<comparison_type NOTYPE>}",
                  "{comparison_direction = #chlo<comparison_direction LT>, "
                  "compare_type = #chlo<comparison_type SIGNED>}"]:
        status, got, err = run(tmp_path, f"  %0 = chlo.broadcast_compare %arg0, %arg1 {attrs} : "
                                         f"({ta}, {tb}) -> {tw}\n  return %0 : {tw}",
                               [a, b], tw, engine)
        assert status == 0, err
        assert_bits(got, want)
    p = np.array([[True], [False]])
    x = r.standard_normal((3,)).astype(np.float32)
    y = r.standard_normal((2, 3)).astype(np.float32)
    want = np.where(p, x, y)
    tp, tx, ty, tw = tensor_type(p), tensor_type(x), tensor_type(y), tensor_type(want)
    status, got, err = run(tmp_path, f"  %0 = chlo.broadcast_select %arg0, %arg1, %arg2 : "
                                     f"({tp}, {tx}, {ty}) -> {tw}\n  return %0 : {tw}",
                           [p, x, y], tw, engine)
    assert status == 0, err
    assert_bits(got, want)
    re = r.standard_normal((2, 3)).astype(np.float32)
    im = r.standard_normal((3,)).astype(np.float32)
    want = (re + 1j * im).astype(np.complex64)
    status, got, err = run(tmp_path, broadcast_program("complex", re, im, want), [re, im],
                           tensor_type(want), engine)
    assert status == 0, err
    assert_bits(got, want)


def test_power_remainder_atan2_next_after(tmp_path):
    r = rng(7)
    a = r.uniform(0.5, 4, (2, 3))
    b = r.uniform(0.5, 3, (3,))
    for op, want in [("power", np.power(a, b)), ("remainder", np.fmod(a, b)),
                     ("atan2", np.arctan2(a, b)), ("next_after", np.nextafter(a, b))]:
        status, got, err = run(tmp_path, broadcast_program(op, a, b, want), [a, b],
                               tensor_type(want), "interp")
        assert status == 0, err
        if op in ("power", "atan2"):  # teval's correctly rounded functions, numpy's libm
            assert np.allclose(got, want, rtol=4e-16, atol=0), op
        else:
            assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_square_conj_and_constants(tmp_path, engine):
    r = rng(9)
    x = r.standard_normal(6).astype(np.float32)
    t = tensor_type(x)
    status, got, err = run(tmp_path, f"  %0 = chlo.square %arg0 : {t} -> {t}\n  return %0 : {t}",
                           [x], t, engine)
    assert status == 0, err
    assert_bits(got, x * x)
    # A complex square is complex((re - im) (re + im), re im 2), each step
    # rounded to float32: not the complex product x * x.
    z = (r.standard_normal(6) + 1j * r.standard_normal(6)).astype(np.complex64)
    t = tensor_type(z)
    re, im = z.real.copy(), z.imag.copy()
    want = ((re - im) * (re + im) + 1j * ((re * im) * np.float32(2))).astype(np.complex64)
    status, got, err = run(tmp_path, f'  %0 = "chlo.square"(%arg0) : ({t}) -> {t}\n'
                                     f"  return %0 : {t}", [z], t, engine)
    assert status == 0, err
    assert_bits(got, want)
    status, got, err = run(tmp_path, f"  %0 = chlo.conj %arg0 : {t} -> {t}\n  return %0 : {t}",
                           [z], t, engine)
    assert status == 0, err
    assert_bits(got, np.conj(z))
    tx = tensor_type(x)
    status, got, err = run(tmp_path, f"  %0 = chlo.conj %arg0 : {tx} -> {tx}\n  return %0 : {tx}",
                           [x], tx, engine)
    assert status == 0, err
    assert_bits(got, x)
    # constant_like: the value in the operand's shape; chlo.constant.
    status, got, err = run(tmp_path, f'  %0 = "chlo.constant_like"(%arg0) {{value = 2.5 : f32}} : '
                                     f"({tx}) -> {tx}\n  return %0 : {tx}", [x], tx, engine)
    assert status == 0, err
    assert_bits(got, np.full(6, 2.5, np.float32))
    status, got, err = run(tmp_path, "  %0 = chlo.constant dense<[1, -2]> : tensor<2xi32>\n"
                                     "  return %0 : tensor<2xi32>", [], "tensor<2xi32>", engine)
    assert status == 0, err
    assert_bits(got, np.array([1, -2], np.int32))


@pytest.mark.parametrize("body, message", [
    ("  %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<2xf32>) -> "
     "tensor<2x3xf32>", "do not broadcast: dimension 1 of the result is 3 in one and 2"),
    ("  %0 = chlo.broadcast_add %arg0, %arg1 {broadcast_dimensions = array<i64: 0, 1>} : "
     "(tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>", "broadcast_dimensions has 2 entries"),
    ("  %0 = chlo.broadcast_add %arg0, %arg1 {broadcast_dimensions = array<i64: 2>} : "
     "(tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>",
     "broadcast_dimensions must be distinct dimensions of the result's rank 2, not 2"),
    ("  %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> "
     "tensor<3x3xf32>", "but its type says tensor<3x3xf32>"),
    ("  %0 = chlo.broadcast_shift_left %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> "
     "tensor<2x3xf32>", "shift_left takes integer values"),
    ("  %0 = \"chlo.constant_like\"(%arg0) {value = 1 : i32} : (tensor<2x3xf32>) -> "
     "tensor<2x3xf32>", "chlo.constant_like's value is of i32"),
])
def test_errors_are_located(tmp_path, body, message):
    a = np.zeros((2, 3), np.float32)
    b = np.zeros(3 if "tensor<3xf32>" in body else 2, np.float32)
    inputs = [a] if "constant_like" in body else [a, b]
    result = body[body.rindex("-> ") + 3:]
    status, _, err = run(tmp_path, f"{body}\n  return %0 : {result}", inputs, result, "interp")
    assert status == 1 and message in err, err
    assert "f.mlir:2:" in err, err
