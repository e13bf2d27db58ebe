"""StableHLO's rng_bit_generator (docs/SEMANTICS.md, "StableHLO's
rng_bit_generator"), replica_id and partition_id, run as users run them:
`teval run FILE.mlir` on every engine. The expected bits come from Threefry-2x32 and Philox-4x32 written
here in plain Python from Salmon et al. (SC 2011), checked against the
Random123 known-answer vectors, laid out as XLA lays them out, and from
values published with StableHLO: its specification's example and JAX's
exported test data."""

import subprocess

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, lower_reports, teval

M = 0xFFFFFFFF


def rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & M


def threefry(k0, k1, x0, x1):
    ks = [k0, k1, 0x1BD11BDA ^ k0 ^ k1]
    rotations = [13, 15, 26, 6, 17, 29, 16, 24]
    x0, x1 = (x0 + ks[0]) & M, (x1 + ks[1]) & M
    for i in range(20):
        x0 = (x0 + x1) & M
        x1 = rotl(x1, rotations[i % 8]) ^ x0
        if i % 4 == 3:
            s = i // 4 + 1
            x0 = (x0 + ks[s % 3]) & M
            x1 = (x1 + ks[(s + 1) % 3] + s) & M
    return x0, x1


def philox(c, k):
    c, k = list(c), list(k)
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M, (p0 >> 32) ^ c[3] ^ k[1], p0 & M]
        k = [(k[0] + 0x9E3779B9) & M, (k[1] + 0xBB67AE85) & M]
    return c


def test_the_reference_generators_give_random123s_answers():
    assert threefry(0, 0, 0, 0) == (0x6B200159, 0x99BA4EFE)
    assert threefry(M, M, M, M) == (0x1CB996FC, 0xBB002BE7)
    assert threefry(0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3) == (0xC4923A9C, 0x483DF7A0)
    assert philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def halves(w):
    return w & M, (w >> 32) & M


def threefry_bits(key, counter, shape, width):
    """XLA's Threefry layout: 64-bit elements one counter each; narrower
    ones from the 32-bit words of a counter per pair along the first
    dimension of even extent (else the longest)."""
    n = int(np.prod(shape))
    if width == 64:
        out = [threefry(*halves(key), *halves(counter + i)) for i in range(n)]
        return [a | b << 32 for a, b in out], n
    if not shape:
        return [threefry(*halves(key), *halves(counter))[0]], 1
    split = next((d for d, e in enumerate(shape) if e % 2 == 0), None)
    if split is None:
        split = max(range(len(shape)), key=lambda d: (shape[d], -d))
    half = list(shape)
    half[split] = (shape[split] + 1) // 2
    values = []
    for index in np.ndindex(*shape):
        h = list(index)
        h[split] //= 2
        position = int(np.ravel_multi_index(h, half)) if half else 0
        values.append(threefry(*halves(key), *halves(counter + position))[index[split] % 2])
    return values, int(np.prod(half))


def philox_bits(key, low, high, n, width):
    per = 2 if width == 64 else 4
    counters = (n + per - 1) // per
    values = []
    for c in range(counters):
        value = low + high * 2**64 + c
        l, h = value % 2**64, (value >> 64) % 2**64
        y = philox([*halves(l), *halves(h)], list(halves(key)))
        values += [y[0] | y[1] << 32, y[2] | y[3] << 32] if width == 64 else y
    return values[:n], counters


def generate(tmp_path, engine, state, algorithm, out_type, generic=False):
    words = len(state)
    st = f"tensor<{words}xui64>"
    if generic:
        op = (f'%s, %o = "stablehlo.rng_bit_generator"(%arg0) {{rng_algorithm = '
              f"#stablehlo<rng_algorithm {algorithm}>}} : ({st}) -> ({st}, {out_type})")
    else:
        op = (f"%s, %o = stablehlo.rng_bit_generator %arg0, algorithm = {algorithm} : "
              f"({st}) -> ({st}, {out_type})")
    src = tmp_path / "f.mlir"
    src.write_text(f"func.func @main(%arg0: {st}) -> ({st}, {out_type}) {{\n  {op}\n"
                   f"  return %s, %o : {st}, {out_type}\n}}\n")
    np.save(tmp_path / "state.npy", np.array(state, dtype=np.uint64))
    done = subprocess.run([teval(), "run", str(src), "--engine", engine, "-i",
                           f"arg0={tmp_path / 'state.npy'}", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return np.load(tmp_path / "out" / "result0.npy"), np.load(tmp_path / "out" / "result1.npy")


@pytest.mark.parametrize("engine", ENGINES)
def test_threefry_gives_the_published_values(tmp_path, engine):
    # The specification's example.
    new, bits = generate(tmp_path, engine, [1, 2], "THREE_FRY", "tensor<2x2xui64>", generic=True)
    assert_bits(new, np.array([1, 6], dtype=np.uint64))
    assert_bits(bits, np.array([[9236835810183407956, 16087790271692313299],
                                [18212823393184779219, 2658481902456610144]], dtype=np.uint64))
    # JAX's exported test data (rng_bit_generator_uint64_2).
    new, bits = generate(tmp_path, engine, [3, 3], "THREE_FRY", "tensor<ui64>")
    assert_bits(new, np.array([3, 4], dtype=np.uint64))
    assert bits == np.uint64(3349939604322698703)
    # rng_bit_generator_uint32_4: state [1, 4, 0, 1] as ui32 words, the
    # first two of its 100x100 values.
    state = [1 | 4 << 32, 1 << 32]
    new, bits = generate(tmp_path, engine, state, "THREE_FRY", "tensor<100x100xui64>")
    assert_bits(new, np.array([state[0], state[1] + 10000], dtype=np.uint64))
    assert bits.flat[0] == np.uint64(0xA3E974730835D3C1)
    assert bits.flat[1] == np.uint64(0x252E8081823789CE)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape,dtype,mlir", [
    ((3, 5), np.uint32, "ui32"), ((5, 3), np.int32, "i32"), ((7,), np.uint16, "ui16"),
    ((2, 3, 2), np.int8, "i8"), ((), np.uint32, "ui32"), ((4, 0), np.uint32, "ui32"),
    ((3, 4), np.uint64, "ui64"), ((2, 3), np.float32, "f32"), ((3,), np.float16, "f16"),
    ((2, 2), np.float64, "f64")])
def test_threefry_and_philox_lay_bits_out_as_xla(tmp_path, engine, shape, dtype, mlir):
    out_type = f"tensor<{''.join(f'{d}x' for d in shape)}{mlir}>"
    width = 8 * np.dtype(dtype).itemsize
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    mask = (1 << width) - 1
    key, counter = 0x0123456789ABCDEF, 0xFFFFFFFFFFFFFFFE  # the counter wraps
    new, bits = generate(tmp_path, engine, [key, counter], "THREE_FRY", out_type)
    values, moved = threefry_bits(key, counter, list(shape), 64 if width == 64 else 32)
    want = np.array([v & mask for v in values], dtype=unsigned).reshape(shape).view(dtype)
    assert_bits(bits, want)
    assert_bits(new, np.array([key, (counter + moved) % 2**64], dtype=np.uint64))
    # Philox with a 3-word state: a 128-bit counter whose low word carries.
    n = int(np.prod(shape))
    for state in ([key, 2**64 - 1, 7], [key, 5]):
        new, bits = generate(tmp_path, engine, state, "PHILOX", out_type)
        high = state[2] if len(state) == 3 else 0
        values, moved = philox_bits(key, state[1], high, n, 64 if width == 64 else 32)
        want = np.array([v & mask for v in values], dtype=unsigned).reshape(shape).view(dtype)
        assert_bits(bits, want)
        counter = state[1] + high * 2**64 + moved
        expected = [key, counter % 2**64] + ([(counter >> 64) % 2**64] if len(state) == 3 else [])
        assert_bits(new, np.array(expected, dtype=np.uint64))


def test_default_is_threefry_and_the_engines_run_it_natively(tmp_path):
    a = generate(tmp_path, "interp", [5, 9], "DEFAULT", "tensor<3x4xui32>")
    b = generate(tmp_path, "interp", [5, 9], "THREE_FRY", "tensor<3x4xui32>")
    assert_bits(a[0], b[0])
    assert_bits(a[1], b[1])
    # No decomposition (ui64 state: kernels have no uint64): ireval and the
    # JIT run it natively between their segments.
    assert lower_reports(tmp_path, "have no einstein_v2 decomposition")


@pytest.mark.parametrize("body,message", [
    ('%s, %o = stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<3xui64>) -> '
     '(tensor<3xui64>, tensor<2xui32>)', "with THREE_FRY takes a state of 2 ui64 words, not 3"),
    ('%s, %o = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<3xui64>) -> '
     '(tensor<3xui64>, tensor<2xi1>)', "output is a tensor of integers or floats, not"),
    ('%s, %o = stablehlo.rng_bit_generator %arg0, algorithm = FOUR_FRY : (tensor<3xui64>) -> '
     '(tensor<3xui64>, tensor<2xui32>)', "rng_algorithm is FOUR_FRY; it is one of"),
    ('%s, %o = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<3xui64>) -> '
     '(tensor<2xui64>, tensor<2xui32>)', "result 0 of"),
])
def test_errors_point_at_the_op(tmp_path, body, message):
    src = tmp_path / "f.mlir"
    src.write_text("func.func @main(%arg0: tensor<3xui64>) -> tensor<3xui64> {\n  " + body +
                   "\n  return %arg0 : tensor<3xui64>\n}\n")
    done = subprocess.run([teval(), "run", str(src)], capture_output=True, text=True)
    assert done.returncode == 1
    assert message in done.stderr, done.stderr
    assert "f.mlir:2:" in done.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_replica_and_partition_ids_are_those_of_one_process(tmp_path, engine):
    """teval runs one process: replica 0 of 1 and partition 0 of 1 (the
    specification's replica_id and partition_id, generic and pretty)."""
    src = tmp_path / "f.mlir"
    src.write_text(
        "func.func @main(%arg0: tensor<3xui32>) -> tensor<3xui32> {\n"
        '  %0 = "stablehlo.replica_id"() : () -> tensor<ui32>\n'
        "  %1 = stablehlo.partition_id : tensor<ui32>\n"
        "  %2 = stablehlo.add %0, %1 : tensor<ui32>\n"
        "  %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<3xui32>\n"
        "  %4 = stablehlo.add %arg0, %3 : tensor<3xui32>\n"
        "  return %4 : tensor<3xui32>\n}\n")
    x = np.array([7, 0, 4294967295], dtype=np.uint32)
    np.save(tmp_path / "x.npy", x)
    done = subprocess.run([teval(), "run", str(src), "--engine", engine, "-i",
                           f"arg0={tmp_path / 'x.npy'}", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), x)
    src.write_text("func.func @main() -> tensor<i32> {\n"
                   '  %0 = "stablehlo.replica_id"() : () -> tensor<i32>\n'
                   "  return %0 : tensor<i32>\n}\n")
    done = subprocess.run([teval(), "run", str(src)], capture_output=True, text=True)
    assert done.returncode == 1 and "replica_id gives a tensor<ui32>, not tensor<i32>" in done.stderr
