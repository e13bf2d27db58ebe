"""stablehlo.bitcast_convert and reduce_precision (StableHLO specification,
the sections of the same names; docs/SEMANTICS.md, "StableHLO's bit
reinterpretations"): the interpreter's native references against numpy's
views and torch's float16/bfloat16 conversions; neither has a decomposition,
so every engine runs them natively."""

import subprocess

import numpy as np
import pytest
import torch

from test_stablehlo import assert_bits, lower_reports, teval, tensor_type


def run(tmp_path, body, inputs, result, engine="interp"):
    args = ", ".join(f"%arg{i}: {tensor_type(a)}" for i, a in enumerate(inputs))
    (tmp_path / "b.mlir").write_text(
        f"func.func @main({args}) -> {result} {{\n{body}\n}}\n")
    command = [teval(), "run", str(tmp_path / "b.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out")]
    for i, a in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'in{i}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    return done, (np.load(tmp_path / "out" / "result0.npy") if done.returncode == 0 else None)


@pytest.mark.parametrize("source, target", [(np.float32, np.int32), (np.int32, np.float32),
                                            (np.float64, np.uint32), (np.uint8, np.int16),
                                            (np.float16, np.int16), (np.int64, np.float16)])
def test_bitcast_convert_is_numpys_view(tmp_path, source, target):
    rng = np.random.default_rng(1)
    raw = rng.integers(0, 256, 48, dtype=np.uint8)
    x = raw.view(source).reshape(2, -1)
    if np.dtype(source).itemsize < np.dtype(target).itemsize:
        k = np.dtype(target).itemsize // np.dtype(source).itemsize
        x = raw.view(source).reshape(-1, k)
    want = np.ascontiguousarray(x).view(target)
    if np.dtype(source).itemsize > np.dtype(target).itemsize:
        want = want.reshape(*x.shape, -1)
    elif np.dtype(source).itemsize < np.dtype(target).itemsize:
        want = want.reshape(x.shape[:-1])
    done, got = run(tmp_path, f"  %r = stablehlo.bitcast_convert %arg0 : ({tensor_type(x)}) -> "
                              f"{tensor_type(want)}\n  return %r : {tensor_type(want)}",
                    [x], tensor_type(want))
    assert done.returncode == 0, done.stderr
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()  # NaN payloads too


def test_the_specifications_example_and_i1_bits(tmp_path):
    x = np.array(0x0123456789ABCDEF, np.int64).view(np.float64).reshape(())
    done, got = run(tmp_path, "  %r = stablehlo.bitcast_convert %arg0 : (tensor<f64>) -> "
                              "tensor<4xf16>\n  return %r : tensor<4xf16>", [x], "tensor<4xf16>")
    assert done.returncode == 0, done.stderr
    assert got.view(np.uint16).tolist() == [0xCDEF, 0x89AB, 0x4567, 0x0123]
    # An i1 is one bit, the least significant first.
    v = np.array(0x0123456789ABCDEF, np.int64)
    done, got = run(tmp_path, "  %r = stablehlo.bitcast_convert %arg0 : (tensor<i64>) -> "
                              "tensor<64xi1>\n  return %r : tensor<64xi1>", [v], "tensor<64xi1>")
    assert done.returncode == 0, done.stderr
    assert got.tolist() == [bool((0x0123456789ABCDEF >> k) & 1) for k in range(64)]
    done, back = run(tmp_path, "  %r = stablehlo.bitcast_convert %arg0 : (tensor<64xi1>) -> "
                               "tensor<i64>\n  return %r : tensor<i64>", [got], "tensor<i64>")
    assert done.returncode == 0, done.stderr
    assert_bits(back, v)


def reduce_precision_program(x, e, m, pretty):
    t = tensor_type(x)
    op = (f"stablehlo.reduce_precision %arg0, format = e{e}m{m} : {t}" if pretty else
          f'"stablehlo.reduce_precision"(%arg0) {{exponent_bits = {e} : i32, '
          f"mantissa_bits = {m} : i32}} : ({t}) -> {t}")
    return f"  %r = {op}\n  return %r : {t}"


@pytest.mark.parametrize("torch_type, e, m", [(torch.float16, 5, 10), (torch.bfloat16, 8, 7)])
def test_reduce_precision_rounds_as_the_narrow_formats_do(tmp_path, torch_type, e, m):
    rng = np.random.default_rng(5)
    # Normal values of the narrow format (ties among them), and past its
    # range, where both overflow to infinity.
    x = (rng.standard_normal(200) * np.exp2(rng.integers(-10, 12, 200))).astype(np.float32)
    x = np.where(np.abs(x) < 2.0 ** -13, 2.0 ** -13, x).astype(np.float32)  # no subnormal
    x[:4] = [1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 65520.0, -1e6] if m == 10 else \
        [1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 3.4e38, -1e-3]
    want = torch.from_numpy(x).to(torch_type).to(torch.float32).numpy()
    for pretty in [True, False]:
        done, got = run(tmp_path, reduce_precision_program(x, e, m, pretty), [x], tensor_type(x))
        assert done.returncode == 0, done.stderr
        assert_bits(got, want)


def test_reduce_precision_flushes_below_the_least_normal(tmp_path):
    # e5m10's least normal is 2^-14; below it the specification's reduced
    # format has no value but zero (float16 would keep a subnormal).
    x = np.array([2.0 ** -14, 2.0 ** -15, -2.0 ** -20, 0.0, -0.0, np.inf, np.nan, 65504.0],
                 np.float64)
    done, got = run(tmp_path, reduce_precision_program(x, 5, 10, True), [x], tensor_type(x))
    assert done.returncode == 0, done.stderr
    assert_bits(got, np.array([2.0 ** -14, 0.0, -0.0, 0.0, -0.0, np.inf, np.nan, 65504.0]))
    # No mantissa bit kept: NaN becomes infinity.
    done, got = run(tmp_path, reduce_precision_program(x[6:7], 5, 0, True), [x[6:7]],
                    tensor_type(x[6:7]))
    assert done.returncode == 0, done.stderr
    assert_bits(got, np.array([np.inf]))


def test_the_boundary_and_the_errors(tmp_path):
    x = np.zeros(3, np.float32)
    x = np.array([1.0 + 2.0 ** -12, 65520.0, -0.0, np.nan, 3.0e-8], np.float32)
    done, want = run(tmp_path, reduce_precision_program(x, 5, 10, True), [x], tensor_type(x))
    assert done.returncode == 0, done.stderr
    for engine in ["ireval", "jit"]:  # the native reference between the segments
        done, got = run(tmp_path, reduce_precision_program(x, 5, 10, True), [x], tensor_type(x),
                        engine)
        assert done.returncode == 0, done.stderr
        assert_bits(got, want)
    assert lower_reports(tmp_path / "b.mlir",
                         "reduce_precision (a view of the elements' bits) has no einstein_v2 "
                         "decomposition")
    x = np.zeros(3, np.float32)
    done, _ = run(tmp_path, "  %r = stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> "
                            "tensor<f64>\n  return %r : tensor<f64>", [x], "tensor<f64>")
    assert done.returncode == 1 and "needs a trailing dimension of 2 elements (C1)" in \
        done.stderr, done.stderr
    done, _ = run(tmp_path, reduce_precision_program(x, 0, 10, False), [x], tensor_type(x))
    assert done.returncode == 1 and "1 <= exponent_bits (C2)" in done.stderr, done.stderr
    done, _ = run(tmp_path, reduce_precision_program(x, 5, 10, True).replace("e5m10", "fp16"),
                  [x], tensor_type(x))
    assert done.returncode == 1 and "written eNmM" in done.stderr, done.stderr


# The 8-bit minifloats are whole bytes: bitcast_convert reads and writes
# their encodings; reduce_precision applies the specification's formula to
# any float type's own bits (width, mantissa bits, the exponent between,
# the top bit the sign; f8E8M0FNU, with no sign bit, read so too).
MINI = {"f8E4M3FN": 3, "f8E5M2": 2, "f8E4M3FNUZ": 3, "f8E8M0FNU": 0, "f8E3M4": 4}


def minifloat_nan(name, bits):
    from test_stablehlo_minifloat import decode, decode_e8m0
    return np.isnan(decode_e8m0(bits) if name == "f8E8M0FNU" else decode(name, bits))


@pytest.mark.parametrize("name", sorted(MINI))
def test_bitcast_convert_of_8_bit_floats_is_their_encoding(tmp_path, name):
    from test_stablehlo_minifloat import decode, decode_e8m0
    raw = np.arange(256, dtype=np.uint8)
    t = f"tensor<256x{name}>"
    done, got = run(tmp_path, f"  %0 = stablehlo.bitcast_convert %arg0 : (tensor<256xui8>) -> {t}\n"
                              f"  %1 = stablehlo.convert %0 : ({t}) -> tensor<256xf32>\n"
                              f"  return %1 : tensor<256xf32>", [raw], "tensor<256xf32>")
    assert done.returncode == 0, done.stderr
    want = [decode_e8m0(b) if name == "f8E8M0FNU" else decode(name, b) for b in range(256)]
    assert_bits(got, np.array(want, np.float32))
    # And back: the bytes, NaN encodings included.
    done, got = run(tmp_path, f"  %0 = stablehlo.bitcast_convert %arg0 : (tensor<256xui8>) -> {t}\n"
                              f"  %1 = stablehlo.bitcast_convert %0 : ({t}) -> tensor<256xi8>\n"
                              f"  return %1 : tensor<256xi8>", [raw], "tensor<256xi8>")
    assert done.returncode == 0, done.stderr
    assert got.tobytes() == raw.tobytes()


def reduced_bits(bits, width, mantissa, e, m, nan, infinity):
    """The specification's reduce_precision on one element's bits."""
    if m < mantissa:
        drop = mantissa - m
        last = 1 << drop
        bits2 = (bits + (last >> 1) - 1 + ((bits & last) >> drop)) & ~(last - 1) & ((1 << width) - 1)
    else:
        bits2 = bits
    exponent_width = width - mantissa - 1
    if e < exponent_width:
        sign, mask = 1 << (width - 1), ((1 << exponent_width) - 1) << mantissa
        bias, reduced = (1 << (exponent_width - 1)) - 1, (1 << (e - 1)) - 1
        if bits2 & mask > (bias + reduced) << mantissa:
            bits2 = (bits2 & sign) | mask
        elif bits2 & mask <= (bias - reduced) << mantissa:
            bits2 &= sign
    if nan:
        return bits if m > 0 else infinity
    return bits2


@pytest.mark.parametrize("name", sorted(MINI))
@pytest.mark.parametrize("e, m", [(3, 1), (2, 0), (4, 2), (5, 1)])
def test_reduce_precision_of_8_bit_floats(tmp_path, name, e, m):
    t = f"tensor<256x{name}>"
    raw = np.arange(256, dtype=np.uint8)
    done, got = run(tmp_path, f"  %0 = stablehlo.bitcast_convert %arg0 : (tensor<256xui8>) -> {t}\n"
                              f"  %1 = stablehlo.reduce_precision %0, format = e{e}m{m} : {t}\n"
                              f"  %2 = stablehlo.bitcast_convert %1 : ({t}) -> tensor<256xui8>\n"
                              f"  return %2 : tensor<256xui8>", [raw], "tensor<256xui8>")
    assert done.returncode == 0, done.stderr
    # A NaN with no mantissa bit kept becomes the type's infinity of its
    # sign: its NaN where it has none (f8E4M3FN keeps the sign, FNUZ's one
    # NaN is 0x80, f8E8M0FNU's 0xFF).
    infinity = {"f8E5M2": lambda b: (b & 0x80) | 0x7C, "f8E3M4": lambda b: (b & 0x80) | 0x70,
                "f8E4M3FN": lambda b: (b & 0x80) | 0x7F, "f8E4M3FNUZ": lambda b: 0x80,
                "f8E8M0FNU": lambda b: 0xFF}[name]
    want = [reduced_bits(b, 8, MINI[name], e, m, minifloat_nan(name, b), infinity(b))
            for b in range(256)]
    assert got.tolist() == want


def test_bitcast_convert_of_sub_byte_types_is_not_read(tmp_path):
    x = np.zeros(4, np.int8)
    done, _ = run(tmp_path, "  %0 = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xf4E2M1FN>\n"
                            "  %1 = stablehlo.bitcast_convert %0 : (tensor<4xf4E2M1FN>) -> "
                            "tensor<4xi4>\n  return %1 : tensor<4xi4>", [x], "tensor<4xi4>")
    assert done.returncode == 1 and "bitcast_convert of f4E2M1FN values is not read" in done.stderr
