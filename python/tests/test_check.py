"""teval.check and teval.testing.assert_matches: verdicts on a kernel
written with numpy."""

import unittest

import numpy as np
import pytest

import teval
from teval.testing import assert_matches

MATMUL = "output0[N, M] +=! input0[N, K] * input1[K, M]"


def split_k_matmul(a, b):
    """The kernel under test: each sum over K in two halves, added last."""
    t = a.dtype.type
    h = a.shape[1] // 2
    out = np.zeros((a.shape[0], b.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            low, high = t(0), t(0)
            for k in range(h):
                low = t(low + t(a[i, k] * b[k, j]))
            for k in range(h, a.shape[1]):
                high = t(high + t(a[i, k] * b[k, j]))
            out[i, j] = t(low + high)
    return out


def data():
    rng = np.random.default_rng(5)
    return (rng.standard_normal((6, 8)).astype(np.float32),
            rng.standard_normal((8, 5)).astype(np.float32))


def test_a_reordered_sum_is_within_the_bound():
    a, b = data()
    v = teval.check(MATMUL, {"input0": a, "input1": b}, {"output0": split_k_matmul(a, b)})
    verdict = v["output0"]
    assert verdict.passed and bool(verdict)
    assert verdict.status in ("exact", "within-bound")
    assert verdict.elements == 30 and verdict.mismatches == 0
    assert_matches(MATMUL, {"input0": a, "input1": b}, {"output0": split_k_matmul(a, b)})


def test_a_wrong_element_is_a_mismatch_with_its_index():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 1), dtype=np.float32)
    wrong = np.array([[3], [13]], dtype=np.float32)  # 12 is right
    v = teval.check(MATMUL, {"input0": a, "input1": b}, {"output0": wrong})["output0"]
    assert (v.status, v.kind, v.mismatches, v.worst_index) == ("mismatch", "value", 1, (1, 0))
    assert v.text.startswith("output0: mismatch (value): element [1, 0] is 13.0; the exact "
                             "result is 12.0")
    # A loose tolerance accepts it.
    assert teval.check(MATMUL, {"input0": a, "input1": b}, {"output0": wrong}, rtol=0.1)["output0"]
    assert not teval.check(MATMUL, {"input0": a, "input1": b}, {"output0": wrong}, ulp=4)["output0"]


def test_a_candidate_without_a_finite_bound_is_inconclusive_not_a_pass():
    # A float16 sum whose partial sums may overflow (60000 + 60000 is +inf):
    # the bound [59840, +inf] is not finite, so only the exact result
    # (60000) and the sequential one (+inf) pass; other values inside it get
    # no verdict, values outside it (0, NaN) are mismatches.
    x = {"x": np.array([60000, 60000, -60000], dtype=np.float16)}
    program = "o[] +=! x[N]"
    for legal in (60000, np.inf):
        assert teval.check(program, x, {"o": np.float16(legal)})["o"].status == "exact"
    for undecided in (60032, 65504):
        v = teval.check(program, x, {"o": np.array(undecided, dtype=np.float16)})["o"]
        assert (v.status, v.passed, v.inconclusive, v.unbounded) == ("inconclusive", False, 1, 1)
    for wrong in (0, np.nan):
        v = teval.check(program, x, {"o": np.array(wrong, dtype=np.float16)})["o"]
        assert (v.status, v.passed) == ("mismatch", False)
    with pytest.raises(AssertionError, match="Not shown to be a legal result"):
        assert_matches(program, x, {"o": np.array(65504, dtype=np.float16)})


def test_the_float16_sum_of_2048_ones_has_one_legal_result():
    # Every partial sum of every order is an integer of at most 2048.
    x = {"x": np.ones(2048, dtype=np.float16)}
    assert teval.check("o[] +=! x[N]", x, {"o": np.float16(2048)})["o"].status == "exact"
    for wrong in (0, np.nan, np.inf, 8192, 2047):
        v = teval.check("o[] +=! x[N]", x, {"o": np.array(wrong, dtype=np.float16)})["o"]
        assert (v.status, v.passed) == ("mismatch", False)


def test_no_candidate_is_an_error():
    with pytest.raises(teval.Error, match="no candidate"):
        teval.check("o[N] = x[N] + 1.0", {"x": np.ones(2, dtype=np.float32)}, {})


def test_assert_matches_shows_the_worst_element_like_assert_allclose():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 1), dtype=np.float32)
    wrong = np.array([[3], [13]], dtype=np.float32)
    with pytest.raises(AssertionError) as info:
        assert_matches(MATMUL, {"input0": a, "input1": b}, {"output0": wrong}, err_msg="conv #3")
    message = str(info.value)
    lines = message.splitlines()
    assert lines[0] == ("Not a legal result of the program (the rigorous bound of every legal "
                        "evaluation order)")
    assert lines[1] == "conv #3"
    assert "Mismatched elements of output0: 1 / 2 (50%)" in lines
    assert any(l.startswith("output0: mismatch (value): element [1, 0] is 13.0") for l in lines)
    assert " actual:     [[ 3.],\n              [13.]]" in message
    assert " sequential: [[ 3.],\n              [12.]]" in message


def test_wrong_shapes_and_dtypes_are_mismatches_not_errors():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 1), dtype=np.float32)
    v = teval.check(MATMUL, {"input0": a, "input1": b}, {"output0": np.zeros((2,), np.float32)})
    assert (v["output0"].status, v["output0"].kind) == ("mismatch", "shape")
    v = teval.check(MATMUL, {"input0": a, "input1": b}, {"output0": np.zeros((2, 1))})
    assert v["output0"].kind == "dtype"
    with pytest.raises(AssertionError, match="output0: dtype differs"):
        assert_matches(MATMUL, {"input0": a, "input1": b}, {"output0": np.zeros((2, 1))})


def test_fused_multiply_adds_need_fma():
    # a·b + c with one rounding differs from two roundings here.
    a = np.array([1 + 2.0**-12], dtype=np.float32)
    c = np.array([-(1 + 2.0**-11)], dtype=np.float32)
    fused = np.array([np.float64(a[0]) * np.float64(a[0]) + np.float64(c[0])], dtype=np.float32)
    prog = "output0[N] = input0[N] * input0[N] + input1[N]"
    assert not teval.check(prog, {"input0": a, "input1": c}, {"output0": fused})["output0"]
    assert teval.check(prog, {"input0": a, "input1": c}, {"output0": fused}, fma=True)["output0"]


class UnittestStyle(unittest.TestCase):
    def test_assert_matches_raises_the_assertion_error_unittest_expects(self):
        x = np.array([1.0, 2.0])
        assert_matches("output0[N] = input0[N] * 3.0", {"input0": x}, {"output0": x * 3})
        with self.assertRaises(AssertionError):
            assert_matches("output0[N] = input0[N] * 3.0", {"input0": x}, {"output0": x * 2})


def test_math_ulp_sets_the_allowance_of_math_functions():
    # exp(0.7f) three ulps above its rounded value: legal by the measured
    # table (4 ulps) and by {"exp": 3}, not by 0 (faithful rounding).
    x = {"x": np.array([0.7], dtype=np.float32)}
    v = np.float32(2.0137526988983154)
    for _ in range(3):
        v = np.nextafter(v, np.float32(3))
    c = {"o": np.array([v], dtype=np.float32)}
    program = "o[N] = x[N].call(`exp`)"
    assert teval.check(program, x, c)["o"].passed
    assert teval.check(program, x, c, math_ulp={"exp": 3})["o"].passed
    assert not teval.check(program, x, c, math_ulp=0)["o"].passed
    with pytest.raises(teval.Error, match="`abs` is not a math function"):
        teval.check(program, x, c, math_ulp={"abs": 1})
    with pytest.raises(ValueError, match="math_ulp takes a non-negative integer"):
        teval.check(program, x, c, math_ulp=-1)


def test_excess_precision_lets_float16_be_kept_in_float32():
    # 300 · 300 overflows float16, not float32: 90000 / 4 = 22500 -> 22496.
    ins = {"x": np.array([300], dtype=np.float16), "z": np.array([4], dtype=np.float16)}
    c = {"o": np.array([22496], dtype=np.float16)}
    program = "o[N] = x[N] * x[N] / z[N]"
    assert teval.check(program, ins, c)["o"].status == "mismatch"
    assert teval.check(program, ins, c, excess_precision=True)["o"].passed
