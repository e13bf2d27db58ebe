"""StableHLO's dot_general and dot (docs/SEMANTICS.md, "StableHLO's
contractions"), run as users run them: `teval run FILE.mlir` on every
engine. The expected values come from the specification's formula written
as plain loops over numpy scalars: each sum from zero in the result type,
product by product in row-major order of the contracting dimensions as
listed, every step rounded (or wrapped) to that type — never from teval."""

import itertools

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, rng, run, tensor_type


def dot_reference(lhs, rhs, lb, rb, lc, rc, dtype):
    lf = [d for d in range(lhs.ndim) if d not in lb + lc]
    rf = [d for d in range(rhs.ndim) if d not in rb + rc]
    shape = ([lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lf] +
             [rhs.shape[d] for d in rf])
    out = np.zeros(shape, dtype)
    terms = [lhs.shape[d] for d in lc]
    for idx in itertools.product(*[range(e) for e in shape]):
        li, ri = [0] * lhs.ndim, [0] * rhs.ndim
        for n, (dl, dr) in enumerate(zip(lb, rb)):
            li[dl] = ri[dr] = idx[n]
        for n, d in enumerate(lf):
            li[d] = idx[len(lb) + n]
        for n, d in enumerate(rf):
            ri[d] = idx[len(lb) + len(lf) + n]
        acc = np.zeros((), dtype)
        for k in itertools.product(*[range(e) for e in terms]):
            for n, (dl, dr) in enumerate(zip(lc, rc)):
                li[dl] = ri[dr] = k[n]
            a = np.asarray(lhs[tuple(li)]).astype(dtype)
            b = np.asarray(rhs[tuple(ri)]).astype(dtype)
            acc = np.asarray(acc + np.asarray(a * b, dtype), dtype)
        out[idx] = acc
    return out


def numbers(lb, rb, lc, rc, dialect="stablehlo"):
    parts = [f"{name} = [{', '.join(map(str, v))}]"
             for name, v in [("lhs_batching_dimensions", lb), ("rhs_batching_dimensions", rb),
                             ("lhs_contracting_dimensions", lc),
                             ("rhs_contracting_dimensions", rc)] if v]
    return f"#{dialect}.dot<{', '.join(parts)}>"


def dot_general_body(lhs, rhs, lb, rb, lc, rc, out, form):
    types = f"({tensor_type(lhs)}, {tensor_type(rhs)}) -> {out}"
    if form == "pretty":
        dims = ""
        if lb:
            dims += f", batching_dims = {lb} x {rb}"
        dims += f", contracting_dims = {lc} x {rc}"
        op = f"stablehlo.dot_general %arg0, %arg1{dims}, precision = [DEFAULT, DEFAULT] : {types}"
    elif form == "mhlo":
        op = (f'"mhlo.dot_general"(%arg0, %arg1) {{dot_dimension_numbers = '
              f'{numbers(lb, rb, lc, rc, "mhlo")}}} : {types}')
    else:
        op = (f'"stablehlo.dot_general"(%arg0, %arg1) {{dot_dimension_numbers = '
              f'{numbers(lb, rb, lc, rc)}, precision_config = [#stablehlo<precision DEFAULT>, '
              f'#stablehlo<precision HIGHEST>]}} : {types}')
    return f"  %0 = {op}\n  return %0 : {out}"


def result_type(shape, mlir_element):
    return f"tensor<{''.join(f'{d}x' for d in shape)}{mlir_element}>"


# (lhs shape, rhs shape, lhs batching, rhs batching, lhs contracting, rhs
# contracting): a batched matmul, the spec's example, two contracting
# dimensions paired in a crossed order, batching dimensions in the middle,
# an outer product, and a contraction of extent 0.
CASES = [
    ((2, 3, 4), (2, 4, 5), [0], [0], [2], [1]),
    ((2, 2, 2), (2, 2, 2), [0], [0], [2], [1]),
    ((3, 4, 5), (5, 4, 2), [], [], [1, 2], [1, 0]),
    ((4, 3, 2), (3, 2, 5), [1], [0], [2], [1]),
    ((3, 2), (4,), [], [], [], []),
    ((3, 0), (0, 2), [], [], [1], [0]),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty", "mhlo"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_dot_general_float32(tmp_path, engine, form, case):
    ls, rs, lb, rb, lc, rc = CASES[case]
    r = rng(40 + case)
    lhs = r.standard_normal(ls).astype(np.float32)
    rhs = r.standard_normal(rs).astype(np.float32)
    want = dot_reference(lhs, rhs, lb, rb, lc, rc, np.float32)
    out = result_type(want.shape, "f32")
    status, got, err = run(tmp_path, dot_general_body(lhs, rhs, lb, rb, lc, rc, out, form),
                           [lhs, rhs], out, engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_dot_general_integers_wrap_and_result_types_convert(tmp_path, engine):
    r = rng(50)
    # int8 products and sums wrap in int8.
    lhs = r.integers(-128, 128, (3, 6)).astype(np.int8)
    rhs = r.integers(-128, 128, (6, 2)).astype(np.int8)
    want = dot_reference(lhs, rhs, [], [], [1], [0], np.int8)
    out = result_type(want.shape, "i8")
    status, got, err = run(tmp_path, dot_general_body(lhs, rhs, [], [], [1], [0], out, "pretty"),
                           [lhs, rhs], out, engine)
    assert status == 0, err
    assert_bits(got, want)
    # int8 operands, an int32 result: each element converted first, so
    # nothing wraps.
    want = dot_reference(lhs, rhs, [], [], [1], [0], np.int32)
    assert np.array_equal(want, lhs.astype(np.int64) @ rhs.astype(np.int64))
    out = result_type(want.shape, "i32")
    status, got, err = run(tmp_path, dot_general_body(lhs, rhs, [], [], [1], [0], out, "generic"),
                           [lhs, rhs], out, engine)
    assert status == 0, err
    assert_bits(got, want)
    # float16 operands, a float32 result (JAX's preferred_element_type):
    # the products are exact in float32.
    a = r.standard_normal((2, 5)).astype(np.float16)
    b = r.standard_normal((5, 3)).astype(np.float16)
    want = dot_reference(a, b, [], [], [1], [0], np.float32)
    out = result_type(want.shape, "f32")
    status, got, err = run(tmp_path, dot_general_body(a, b, [], [], [1], [0], out, "mhlo"),
                           [a, b], out, engine)
    assert status == 0, err
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((3, 4), (4,)), ((4,), (4, 2)), ((4,), (4,))])
def test_dot(tmp_path, engine, shapes):
    ls, rs = shapes
    r = rng(60)
    lhs = r.standard_normal(ls)
    rhs = r.standard_normal(rs)
    want = dot_reference(lhs, rhs, [], [], [len(ls) - 1], [0], np.float64)
    out = result_type(want.shape, "f64")
    types = f"({tensor_type(lhs)}, {tensor_type(rhs)}) -> {out}"
    for op in [f"stablehlo.dot %arg0, %arg1 : {types}",
               f'"mhlo.dot"(%arg0, %arg1) {{precision_config = [#mhlo<precision DEFAULT>, '
               f"#mhlo<precision DEFAULT>]}} : {types}"]:
        status, got, err = run(tmp_path, f"  %0 = {op}\n  return %0 : {out}", [lhs, rhs], out,
                               engine)
        assert status == 0, err
        assert_bits(got, want)


def test_the_sum_is_sequential_in_the_result_type(tmp_path):
    # [2^24, 1, 1, ..., 1] . ones in float32: each 1 is lost against 2^24
    # when added one at a time, as the specification's reduce folds them.
    lhs = np.array([[2.0**24] + [1.0] * 8], np.float32)
    rhs = np.ones((9, 1), np.float32)
    out = "tensor<1x1xf32>"
    for engine in ENGINES:
        status, got, err = run(tmp_path, dot_general_body(lhs, rhs, [], [], [1], [0], out,
                                                          "pretty"), [lhs, rhs], out, engine)
        assert status == 0, err
        assert got[0, 0] == np.float32(2.0**24), (engine, got)


@pytest.mark.parametrize("op, message", [
    ("stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [1] : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>", "different extents (4 and 3)"),
    ("stablehlo.dot_general %arg0, %arg1, contracting_dims = [1, 1] x [0, 1] : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>", "listed twice"),
    ("stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0] : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>", "lhs dimension 2 is outside [0, 2)"),
    ("stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [], contracting_dims = [1] x [0]"
     " : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>", "numbers of batching"),
    ('"stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<'
     "lhs_contracting_dimensions = [1], rhs_contracting_dims = [0]>} : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>", "dot_dimension_numbers must be"),
    ("stablehlo.dot %arg0, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>",
     "the contracting dimensions 1 of lhs and 0 of rhs have different extents"),
    ("stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<3x3xi32>", "not between floats and integers"),
    ('"stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<'
     "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, algorithm = "
     "#stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, "
     "accumulation_type = f32, lhs_component_count = 3, rhs_component_count = 3, "
     "num_primitive_operations = 6, allow_imprecise_accumulation = false>} : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>", "several components"),
    # The pretty form's bare `<...>` reads as an attribute too.
    ("stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, "
     "DEFAULT], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, "
     "accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 2, "
     "num_primitive_operations = 2, allow_imprecise_accumulation = false> : "
     "(tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>", "several components"),
])
def test_errors_are_located(tmp_path, op, message):
    x = np.zeros((4, 3), np.float32)
    status, got, err = run(tmp_path, f"  %0 = {op}\n  return %0 : tensor<4x4xf32>", [x, x],
                           "tensor<4x4xf32>", "interp")
    assert status == 1 and got is None
    assert "f.mlir:2:" in err and "error:" in err and "^" in err, err
    assert message in err, err


def test_attention_example_matches_torch(tmp_path):
    # examples/byteir/attention.mlir against torch's own attention, in
    # float64 (teval's float32 sums differ from it by rounding only).
    import subprocess

    import torch

    from test_stablehlo import teval

    r = rng(70)
    q, k, v = (r.standard_normal((2, 4, 8)).astype(np.float32) for _ in range(3))
    w = r.standard_normal((8, 6)).astype(np.float32)
    command = [teval(), "run", "examples/byteir/attention.mlir", "-o", str(tmp_path)]
    for name, a in zip(["arg0", "arg1", "arg2", "arg3"], [q, k, v, w]):
        np.save(tmp_path / f"{name}.npy", a)
        command += ["-i", f"{name}={tmp_path / f'{name}.npy'}"]
    root = __file__.rsplit("/python/tests/", 1)[0]
    for engine in ENGINES:
        done = subprocess.run(command + ["--engine", engine], capture_output=True, text=True,
                              cwd=root)
        assert done.returncode == 0, done.stderr
        got = np.load(tmp_path / "result0.npy")
        t = [torch.from_numpy(a.astype(np.float64)) for a in (q, k, v, w)]
        probs = torch.softmax(t[0] @ t[1].transpose(1, 2) * 0.353553385, dim=2)
        want = ((probs @ t[2]).reshape(8, 8) @ t[3]).numpy()
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5), (engine, got, want)


def test_i1_operands_are_not_read_yet(tmp_path):
    p = np.zeros((4, 3), np.bool_)
    body = ("  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : "
            "(tensor<4x3xi1>, tensor<4x3xi1>) -> tensor<3x3xi1>\n  return %0 : tensor<3x3xi1>")
    status, got, err = run(tmp_path, body, [p, p], "tensor<3x3xi1>", "interp")
    assert status == 1 and got is None
    assert "f.mlir:2:" in err and "i1 values is not read" in err, err


def tf32(x):
    """Each float32 rounded to nearest even at the tenth mantissa bit
    (float32's exponent range), by integer arithmetic on the bits."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    last = np.uint64(1 << 13)
    bits = (bits + (last >> np.uint64(1)) - np.uint64(1) + ((bits >> np.uint64(13)) & np.uint64(1)))
    return (bits & ~(last - np.uint64(1))).astype(np.uint32).view(np.float32)


def algorithm(lhs_type, rhs_type, acc, counts=(1, 1, 1), imprecise="false"):
    return (f"algorithm = <lhs_precision_type = {lhs_type}, rhs_precision_type = {rhs_type}, "
            f"accumulation_type = {acc}, lhs_component_count = {counts[0]}, "
            f"rhs_component_count = {counts[1]}, num_primitive_operations = {counts[2]}, "
            f"allow_imprecise_accumulation = {imprecise}>")


def algorithm_body(lhs, rhs, out, attribute, precision="DEFAULT"):
    return (f"  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], "
            f"precision = [{precision}, {precision}], {attribute} : "
            f"({tensor_type(lhs)}, {tensor_type(rhs)}) -> {out}\n  return %0 : {out}")


@pytest.mark.parametrize("engine", ENGINES)
def test_an_algorithm_rounds_the_operands_and_accumulates_in_its_type(tmp_path, engine):
    """The specification's DotAlgorithm of one component: each operand
    rounded to its precision type (tf32: float32 with 10 mantissa bits;
    bf16), products and sums in the accumulation type, the sum converted to
    the result's (docs/SEMANTICS.md, "StableHLO's contractions")."""
    r = rng(70)
    lhs = r.standard_normal((3, 5)).astype(np.float32)
    rhs = r.standard_normal((5, 4)).astype(np.float32)
    out = tensor_type(np.zeros((3, 4), np.float32))
    # tf32 both sides, sums in float32
    status, got, err = run(tmp_path, algorithm_body(lhs, rhs, out, algorithm("tf32", "tf32", "f32")),
                           [lhs, rhs], out, engine)
    assert status == 0, err
    assert_bits(got, dot_reference(tf32(lhs), tf32(rhs), [], [], [1], [0], np.float32))
    # float64 operands rounded to float32, sums in float32, the result float64
    l64, r64 = lhs.astype(np.float64) / 3, rhs.astype(np.float64) / 7
    out64 = tensor_type(np.zeros((3, 4), np.float64))
    status, got, err = run(tmp_path, algorithm_body(l64, r64, out64,
                                                    algorithm("f32", "f32", "f32")),
                           [l64, r64], out64, engine)
    assert status == 0, err
    want = dot_reference(l64.astype(np.float32), r64.astype(np.float32), [], [], [1], [0],
                         np.float32).astype(np.float64)
    assert_bits(got, want)
    # integers: the precision types round floats; integer sums are exact
    li = r.integers(-50, 50, (3, 5)).astype(np.int32)
    ri = r.integers(-50, 50, (5, 4)).astype(np.int32)
    outi = tensor_type(np.zeros((3, 4), np.int32))
    status, got, err = run(tmp_path, algorithm_body(li, ri, outi,
                                                    algorithm("tf32", "tf32", "f32")),
                           [li, ri], outi, engine)
    assert status == 0, err
    assert_bits(got, dot_reference(li, ri, [], [], [1], [0], np.int32))


@pytest.mark.parametrize("attribute,precision,message", [
    (algorithm("bf16", "bf16", "f32", (3, 3, 6)), "DEFAULT", "several components"),
    (algorithm("tf32", "tf32", "f32", (0, 1, 1)), "DEFAULT", "lhs_component_count is 0; it must "
     "be above 0 (C22)"),
    (algorithm("tf32", "tf32", "f32"), "HIGHEST", "takes precision DEFAULT (C21)"),
    (algorithm("tf32", "tf32", "f8E5M2"), "DEFAULT", "accumulation_type is f8E5M2"),
    (algorithm("i8", "tf32", "f32"), "DEFAULT", "lhs_precision_type is i8"),
    ("algorithm = <lhs_precision_type = tf32>", "DEFAULT", "`rhs_precision_type` is not given"),
])
def test_algorithm_errors(tmp_path, attribute, precision, message):
    x = np.ones((2, 2), np.float32)
    out = tensor_type(x)
    status, _, err = run(tmp_path, algorithm_body(x, x, out, attribute, precision), [x, x], out,
                         "interp")
    assert status == 1 and message in err and "f.mlir:2:" in err, err


def test_a_trivial_algorithm_decomposes(tmp_path):
    # f32 operands rounded to f32, summed in f32: the plain dot_general.
    x = np.ones((2, 2), np.float32)
    out = tensor_type(x)
    run(tmp_path, algorithm_body(x, x, out, algorithm("f32", "f32", "f32")), [x, x], out, "interp")
    assert not lower_reports(tmp_path, "has no einstein_v2 decomposition")
    run(tmp_path, algorithm_body(x, x, out, algorithm("tf32", "tf32", "f32")), [x, x], out,
        "interp")
    assert lower_reports(tmp_path, "dot_general with an algorithm")
