"""teval.run and teval.Program: arrays in and out, every dtype and layout."""

import subprocess

import numpy as np
import pytest

import teval
from conftest import sequential_matmul

MATMUL = "output0[N, M] +=! input0[N, K] * input1[K, M]"
ENGINES = ["interp", "ireval", "jit", "exact"]


def test_inputs_are_passed_by_name():
    a = np.array([1, 2, 3], dtype=np.float32)
    b = np.array([10, 20, 30], dtype=np.float32)
    # Given in either order, input1 - input0 is input1 - input0.
    out = teval.run("output0[N] = input1[N] - input0[N]", {"input1": b, "input0": a})
    np.testing.assert_array_equal(out["output0"], b - a)
    out = teval.run("output0[N] = input1[N] - input0[N]", {"input0": a, "input1": b})
    np.testing.assert_array_equal(out["output0"], b - a)


@pytest.mark.parametrize("engine", ENGINES[:3])
def test_matmul_is_the_sequential_sum_on_every_engine(engine):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    b = rng.standard_normal((7, 4)).astype(np.float32)
    out = teval.run(MATMUL, {"input0": a, "input1": b}, engine=engine)
    assert list(out) == ["output0"]
    assert out["output0"].dtype == np.float32
    np.testing.assert_array_equal(out["output0"], sequential_matmul(a, b))


@pytest.mark.parametrize("threads", [0, 1, 3])
def test_the_jit_gives_the_same_bits_on_any_number_of_threads(threads):
    # 2^18 points and more: the outer loop runs on the threads.
    rng = np.random.default_rng(2)
    a = rng.standard_normal((96, 64)).astype(np.float32)
    b = rng.standard_normal((64, 48)).astype(np.float32)
    out = teval.run(MATMUL, {"input0": a, "input1": b}, engine="jit", threads=threads)
    np.testing.assert_array_equal(out["output0"], sequential_matmul(a, b))
    with pytest.raises(ValueError):
        teval.run(MATMUL, {"input0": a, "input1": b}, engine="jit", threads=-1)


def test_order_any_frees_the_jit_within_the_bound():
    # 1e8 then 4095 twos: 1e8 in order (each 2 is lost to rounding), more in
    # vector partial sums; teval.check accepts both.
    x = np.full(4096, 2, np.float32)
    x[0] = 1e8
    program = "output0[] +=! input0[K]"
    sequential = teval.run(program, {"input0": x}, engine="jit")["output0"]
    relaxed = teval.run(program, {"input0": x}, engine="jit", order="any", fma=True)["output0"]
    assert sequential == np.float32(1e8)
    assert relaxed != sequential
    assert teval.check(program, {"input0": x}, {"output0": relaxed}, fma=True)["output0"]
    with pytest.raises(ValueError):
        teval.run(program, {"input0": x}, engine="jit", order="sideways")
    with pytest.raises(teval.Error):
        teval.run(program, {"input0": x}, order="any")


def test_the_exact_engine_rounds_once():
    # 1 + 2^-30 - 1 in float32: sequentially 0, exactly 2^-30.
    x = np.array([1.0, 2.0**-30, -1.0], dtype=np.float32)
    prog = "output0[N] +=! input0[K] where N in 1"
    assert teval.run(prog, {"input0": x})["output0"][0] == 0
    assert teval.run(prog, {"input0": x}, engine="exact")["output0"][0] == np.float32(2.0**-30)


# Values of each dtype that exercise its range (bfloat16 as its bits).
DTYPES = {
    "bool": np.array([True, False, True]),
    "int8": np.array([-128, 0, 127], dtype=np.int8),
    "int16": np.array([-32768, 7, 32767], dtype=np.int16),
    "int32": np.array([-2**31, 5, 2**31 - 1], dtype=np.int32),
    "int64": np.array([-2**63, 5, 2**63 - 1], dtype=np.int64),
    "uint8": np.array([0, 128, 255], dtype=np.uint8),
    "float16": np.array([-65504, 6e-8, np.inf], dtype=np.float16),
    "bfloat16": np.array([0x3F80, 0x8000, 0x7F80], dtype=np.uint16).view("V2"),  # 1, -0, inf
    "float32": np.array([-1.5, 1e-45, np.nan], dtype=np.float32),
    "float64": np.array([-1.5, 5e-324, -np.inf], dtype=np.float64),
}


@pytest.mark.parametrize("name", list(DTYPES))
def test_every_dtype_round_trips(name):
    x = DTYPES[name]
    p = teval.Program("output0[N] = input0[N]", inputs={"input0": x})
    assert p.inputs[0].dtype == name
    out = p.run({"input0": x})["output0"]
    assert out.dtype == x.dtype
    assert out.tobytes() == x.tobytes()


def test_bfloat16_is_computed_in_bfloat16():
    # 1.0 + 2^-8 is not a bfloat16: it rounds to even, 1.0; 1 + 3·2^-8 rounds up.
    ones = np.array([0x3F80, 0x3F80], dtype=np.uint16).view(teval.bfloat16)
    p = teval.Program("output0[N] = input0[N] + input1[N]",
                      inputs={"input0": ("bfloat16", (2,)), "input1": ("bfloat16", (2,))})
    small = np.array([0x3B80, 0x3C40], dtype=np.uint16).view(teval.bfloat16)  # 2^-8, 3·2^-8
    out = p.run({"input0": ones, "input1": small})["output0"]
    assert out.dtype == teval.bfloat16
    assert list(out.view(np.uint16)) == [0x3F80, 0x3F82]
    assert list(teval.from_bfloat16(out)) == [1.0, 1.0 + 2.0**-6]


def test_a_uint16_array_is_never_read_as_bfloat16():
    # These had run as bfloat16 words: the row 1000, 2000, 3000 summed to
    # 3001, and 1000 + 1 gave 16256. A uint16 array is uint16 (wrapping).
    got = teval.run("o[N] +=! x[N, K]", {"x": np.array([[1000, 2000, 63000]], dtype=np.uint16)})
    assert got["o"].dtype == np.uint16 and list(got["o"]) == [(1000 + 2000 + 63000) % 65536]
    with pytest.raises(Exception, match="uint16") as raised:
        teval.Program("o[N] = x[N] + 1", inputs={"x": ("bfloat16", (1,))}).run(
            {"x": np.array([1000], dtype=np.uint16)})
    assert "bfloat16" in str(raised.value)


def test_bfloat16_conversions_round_to_nearest_even():
    # 1 + 2^-8 ties to 1; 1 + 3·2^-8 to 1 + 2^-6; the largest finite float32
    # rounds to inf; NaN stays NaN; -0 keeps its sign.
    x = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, 3.4028235e38, np.nan, -0.0], dtype=np.float32)
    b = teval.to_bfloat16(x)
    assert b.dtype == teval.bfloat16
    assert list(b.view(np.uint16)[[0, 1, 2, 4]]) == [0x3F80, 0x3F82, 0x7F80, 0x8000]
    assert np.isnan(teval.from_bfloat16(b)[3])
    # The same file as teval writes and reads: 2-byte void.
    assert teval.run("o[N] = x[N]", {"x": b})["o"].tobytes() == b.tobytes()


def layouts():
    """One 3×4 float32 matrix (0..11 in C order) in many layouts."""
    c = np.arange(12, dtype=np.float32).reshape(3, 4)
    wide = np.zeros((3, 8), dtype=np.float32)
    wide[:, ::2] = c
    buffer = np.zeros(12 * 4 + 1, dtype=np.uint8)
    unaligned = np.frombuffer(buffer.data, dtype=np.float32, count=12, offset=1).reshape(3, 4)
    unaligned[...] = c
    return {
        "c": c,
        "fortran": np.asfortranarray(c),
        "strided": wide[:, ::2],
        "reversed": c[::-1, ::-1].copy()[::-1, ::-1],
        "big-endian": c.astype(">f4"),
        "unaligned": unaligned,
        "transposed": np.ascontiguousarray(c.T).T,
    }


@pytest.mark.parametrize("layout", list(layouts()))
@pytest.mark.parametrize("engine", ["interp", "jit"])
def test_every_layout_is_read_correctly(layout, engine):
    x = layouts()[layout]
    out = teval.run("output0[N, M] = input0[N, M] * 2.0", {"input0": x}, engine=engine)
    np.testing.assert_array_equal(out["output0"], np.arange(12, dtype=np.float32).reshape(3, 4) * 2)


def test_a_broadcast_view_is_read_through_its_zero_strides():
    row = np.array([1, 2, 3], dtype=np.int32)
    x = np.broadcast_to(row, (2, 3))
    out = teval.run("output0[N, M] = input0[N, M] + 1", {"input0": x})["output0"]
    np.testing.assert_array_equal(out, [[2, 3, 4], [2, 3, 4]])


def test_outputs_own_their_memory_and_are_writable():
    x = np.array([1, 2, 3], dtype=np.int32)
    out = teval.run("output0[N] = input0[N]", {"input0": x})["output0"]
    assert out.flags.writeable and out.flags.c_contiguous
    assert not np.shares_memory(out, x)
    out[0] = 42
    assert x[0] == 1
    empty = teval.run("output0[N] = input0[N]", {"input0": np.zeros(0, np.float32)})["output0"]
    assert empty.shape == (0,)


def test_a_torch_tensor_goes_in_through_numpy():
    torch = pytest.importorskip("torch")
    a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    b = torch.ones(4, 2, dtype=torch.float32)
    out = teval.run(MATMUL, {"input0": a.numpy(), "input1": b.t().contiguous().t().numpy()})
    np.testing.assert_array_equal(out["output0"], (a @ b).numpy())
    # Anything numpy.asarray takes is an array: a tensor itself, a list.
    out = teval.run("output0[N] = input0[N] * 2", {"input0": torch.tensor([1, 2], dtype=torch.int64)})
    np.testing.assert_array_equal(out["output0"], [2, 4])
    out = teval.run("output0[N] = input0[N] * 2.0", {"input0": [0.5, 1.5]})
    assert out["output0"].dtype == np.float64


def test_tile_functions_take_entry_and_params():
    text = ("Tensor scale(const Tensor& A, int64_t k) {\n  return A * k;\n}\n"
            "Tensor twice(const Tensor& A) {\n  return A + A;\n}\n")
    a = np.array([1, 2, 3], dtype=np.float32)
    out = teval.run(text, {"A": a}, entry="scale", params={"k": 3})
    assert list(out.values())[0].tolist() == [3, 6, 9]
    out = teval.run(text, {"A": a}, entry="twice")
    assert list(out.values())[0].tolist() == [2, 4, 6]


def test_programs_list_their_inputs_and_outputs():
    p = teval.Program(MATMUL, inputs={"input0": ("float32", (2, 3)), "input1": ("float32", [3, 5])})
    assert [(i.name, i.dtype, i.shape) for i in p.inputs] == [
        ("input0", "float32", (2, 3)), ("input1", "float32", (3, 5))]
    assert [(o.name, o.dtype, o.shape) for o in p.outputs] == [("output0", "float32", (2, 5))]
    assert "for" in p.lower()
    assert "define" in p.jit_llvm()
    assert "ret" in p.jit_asm()
    assert repr(p.outputs[0]) == "TensorInfo(name='output0', dtype='float32', shape=(2, 5))"


def test_seeded_inputs_are_those_of_teval_run(tmp_path, teval_command):
    text = "output0[N, M] +=! input0[N, K] * input1[K, M]"
    p = teval.Program(text, inputs={"input0": ("float32", (3, 4)), "input1": ("float32", (4, 2))})
    drawn = p.random_inputs(11)
    assert sorted(drawn) == ["input0", "input1"]
    assert ((drawn["input0"] >= -1) & (drawn["input0"] < 1)).all()
    subprocess.run([teval_command, "run", "-e", text, "-i", "input0=float32[3,4]",
                    "-i", "input1=float32[4,2]", "--seed", "11", "-o", str(tmp_path)], check=True)
    np.testing.assert_array_equal(p.run(seed=11)["output0"], np.load(tmp_path / "output0.npy"))
    # A given input wins over a drawn one.
    ones = np.ones((4, 2), dtype=np.float32)
    out = p.run({"input1": ones}, seed=11)["output0"]
    np.testing.assert_array_equal(out, sequential_matmul(drawn["input0"], ones))


@pytest.mark.parametrize("engine", ENGINES)
def test_out_arrays_are_written_and_returned(engine):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    b = rng.standard_normal((7, 4)).astype(np.float32)
    # Full of NaN: an element the run did not write shows.
    c = np.full((5, 4), np.nan, dtype=np.float32)
    out = teval.run(MATMUL, {"input0": a, "input1": b}, engine=engine, out={"output0": c})
    assert out["output0"] is c
    # The sequential sum, or for "exact" what it returns without out.
    want = (sequential_matmul(a, b) if engine != "exact" else
            teval.run(MATMUL, {"input0": a, "input1": b}, engine=engine)["output0"])
    np.testing.assert_array_equal(c, want)
    # A transposed view is written where its strides say.
    t = np.full((4, 5), np.nan, dtype=np.float32)
    teval.run(MATMUL, {"input0": a, "input1": b}, engine=engine, out={"output0": t.T})
    np.testing.assert_array_equal(t.T, want)


def test_out_arrays_are_checked():
    a = np.ones(4, dtype=np.float32)
    program = "output0[N] = input0[N] * 2.0"
    with pytest.raises(teval.Error, match="output `output0` is float32\\[4\\], not float64\\[4\\]"):
        teval.run(program, {"input0": a}, out={"output0": np.zeros(4)})
    with pytest.raises(teval.Error, match="no output `output1`"):
        teval.run(program, {"input0": a}, out={"output1": np.zeros(4, np.float32)})
    with pytest.raises(TypeError, match="must be a numpy array, not list"):
        teval.run(program, {"input0": a}, out={"output0": [0, 0, 0, 0]})
    read_only = np.zeros(4, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        teval.run(program, {"input0": a}, out={"output0": read_only})


def test_an_error_leaves_out_arrays_unchanged():
    x = np.array([1, 2, 0, 4], dtype=np.int32)
    o = np.full(4, -7, dtype=np.int32)
    with pytest.raises(teval.Error, match="division by zero"):
        teval.run("output0[N] = 12 / input0[N]", {"input0": x}, engine="jit", out={"output0": o})
    np.testing.assert_array_equal(o, np.full(4, -7, dtype=np.int32))


# Rank-0 temporaries, outputs and reads: a scalar temp once met a tensor
# without storage on the JIT's run path, and the process died.
SCALARS = [
    ("v0[] = input0[0]; output0[D0] = input0[D0] * v0[]",
     lambda x: x * x[0]),
    ("m[] >=! input0[N]; e[N] = (input0[N] - m[]).call(`exp`); s[] +=! e[N]; "
     "output0[N] = e[N] / s[]",
     None),
    ("a[] = 1.0; output0[] = a[] + input0[1]",
     lambda x: np.float32(1.0) + x[1]),
]


@pytest.mark.parametrize("engine", ENGINES[:3])
@pytest.mark.parametrize("program,expected", SCALARS)
def test_scalar_temporaries_on_every_engine_and_call(engine, program, expected):
    x = np.array([0.5, -2.0, 3.25, 7.0], dtype=np.float32)
    p = teval.Program(program, inputs={"input0": x})
    reference = p.run({"input0": x}, engine="interp")["output0"]
    if expected is not None:
        np.testing.assert_array_equal(reference, expected(x))
    # Called again and again (the JIT keeps its temps between calls), and
    # into memory given with out=.
    for _ in range(3):
        np.testing.assert_array_equal(p.run({"input0": x}, engine=engine)["output0"], reference)
    given = np.full(reference.shape, np.nan, dtype=np.float32)
    p.run({"input0": x}, engine=engine, out={"output0": given})
    np.testing.assert_array_equal(given, reference)
