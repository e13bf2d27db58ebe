#!/usr/bin/python3
"""The real-world corpus's inputs and expected outputs, computed with numpy
and Python's math, never with teval. A float32 program's elementwise steps
are float32 operations here too, each rounded (a math function computed in
float64 and rounded once); a reduction is summed in float64 and rounded
once, a legal order of the program's. Writes data/*.npy and cases.txt; run it from any
directory after changing a case, and commit what it writes:

    /usr/bin/python3 tests/realworld/make_expected.py

Each case is a program of this directory, its teval arguments, the expected
outputs and how tests/tools/realworld_test.cpp judges them:
  exact      teval's outputs are numpy's, bit for bit
  check      numpy's result is a legal result: `teval check` accepts it
  close R A  |teval - numpy| <= A + R |numpy| elementwise (MLIR, which
             teval check does not read)
Every engine must moreover give the interpreter's bits.
"""

import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
os.makedirs(DATA, exist_ok=True)

f32, f64 = np.float32, np.float64


def rng(seed):
    return np.random.default_rng(seed)


def uniform(r, shape, lo=-1.0, hi=1.0, dtype=f32):
    return r.uniform(lo, hi, size=shape).astype(dtype)


def ints(r, shape, lo, hi, dtype):
    return r.integers(lo, hi + 1, size=shape).astype(dtype)


def wrap8(x):
    return (((np.asarray(x, dtype=np.int64) + 128) % 256) - 128).astype(np.int8)


def sum32(x, axis=None, keepdims=False):
    """A float32 sum: exact in float64, rounded once."""
    return x.astype(f64).sum(axis=axis, keepdims=keepdims).astype(f32)


def exp32(x):
    return np.exp(x.astype(f64)).astype(f32)


def softmax32(x, axis):
    """As a float32 program computes it: x - max and the quotient in float32."""
    e = exp32(x - x.max(axis=axis, keepdims=True))
    return e / sum32(e, axis=axis, keepdims=True)


CASES = []


def case(name, program, inputs, outputs, judge, entry=None):
    """inputs and outputs: {name: array}, in the program's order."""
    args = []
    if entry:
        args.append("--entry " + entry)
    for key, value in inputs.items():
        path = "data/%s_%s.npy" % (name, key)
        np.save(os.path.join(HERE, path), value)
        args.append("-i %s=%s" % (key, path))
    outs = []
    for key, value in outputs.items():
        path = "data/%s_%s.npy" % (name, key)
        np.save(os.path.join(HERE, path), value)
        outs.append("%s=%s" % (key, path))
    CASES.append(" | ".join([name, program, " ".join(args), " ".join(outs), judge]))


# --- Tile, C++ (tile/edsl.tile) ---------------------------------------------

r = rng(1)
A, B = uniform(r, (5, 7)), uniform(r, (7, 6))
case("tile_dot", "tile/edsl.tile", {"A": A, "B": B},
     {"result": (A.astype(f64) @ B.astype(f64)).astype(f32)}, "check", "dot")

r = rng(2)
X = (r.normal(size=(4, 10)) * 3).astype(f32)
case("tile_softmax", "tile/edsl.tile", {"X": X}, {"result": softmax32(X, 1)},
     "check", "softmax")

r = rng(3)
I, K = uniform(r, (1, 6, 5, 3)), uniform(r, (3, 3, 3, 4))
padded = np.zeros((1, 8, 7, 3))
padded[:, 1:7, 1:6, :] = I
O = np.zeros((1, 6, 5, 4))
for x in range(6):
    for y in range(5):
        window = padded[0, x:x + 3, y:y + 3, :]
        O[0, x, y, :] = np.tensordot(window, K.astype(f64), axes=([0, 1, 2], [0, 1, 2]))
case("tile_conv2d_same", "tile/edsl.tile", {"I": I, "K": K}, {"result": O.astype(f32)}, "check",
     "conv2d_same")

r = rng(4)
I = uniform(r, (1, 6, 7, 2), -5, 5)
O = np.full((1, 3, 4, 2), -np.inf, dtype=f32)
for x in range(3):
    for y in range(4):
        O[0, x, y, :] = I[0, 2 * x:2 * x + 2, 2 * y:2 * y + 2, :].max(axis=(0, 1))
case("tile_max_pool", "tile/edsl.tile", {"I": I}, {"O": O}, "exact", "max_pool_2x2")

r = rng(5)
I, P = uniform(r, (3, 4)), np.array(-1.5, dtype=f32)
O = np.full((5, 8), P, dtype=f32)
O[1:4, 2:6] = I
case("tile_explicit_pad", "tile/edsl.tile", {"I": I, "P": P}, {"result": O}, "exact",
     "explicit_pad")

r = rng(6)
A, B = ints(r, (4, 9), -128, 127, np.int8), ints(r, (9, 3), -128, 127, np.int8)
case("tile_int8_dot", "tile/edsl.tile", {"A": A, "B": B},
     {"C": wrap8(A.astype(np.int64) @ B.astype(np.int64))}, "exact", "int8_dot")

r = rng(7)
I, K = uniform(r, (2, 9, 3)), uniform(r, (3, 3, 4))
O = np.zeros((2, 5, 4))
for x in range(5):
    for k in range(3):
        O[:, x, :] += I[:, x + 2 * k, :].astype(f64) @ K[k].astype(f64)
case("tile_dilated_conv1d", "tile/edsl.tile", {"I": I, "K": K}, {"O": O.astype(f32)}, "check",
     "dilated_conv1d")

r = rng(8)
I = uniform(r, (3, 4, 5), 0, 10)
case("tile_center", "tile/edsl.tile", {"I": I}, {"result": I - sum32(I) / f32(60)}, "check",
     "center")

# --- Tile, Python (tile/edsl_py.tile) ---------------------------------------

r = rng(9)
I = uniform(r, (3, 5), -2, 2)
I[0, 0], I[1, 1], I[2, 2] = -0.0, np.nan, 0.0
case("tile_relu", "tile/edsl_py.tile", {"I": I}, {"result": np.where(I < 0.0, f32(0), I)},
     "exact", "relu")

r = rng(10)
I = ints(r, (3, 6), -50, 50, np.int32)
case("tile_cumsum_rows", "tile/edsl_py.tile", {"I": I},
     {"result": np.cumsum(I, axis=1).astype(np.int32)},
     "exact", "cumsum_rows")

r = rng(11)
X = (r.normal(size=(3, 8)) * 2 + 1).astype(f32)
d = X - sum32(X, axis=1, keepdims=True) / f32(8)
v = sum32(d * d, axis=1, keepdims=True)
case("tile_layer_norm", "tile/edsl_py.tile", {"X": X},
     {"result": d / np.sqrt(v / f32(8) + f32(1e-5))}, "check", "layer_norm")

r = rng(12)
I = uniform(r, (3, 4))
case("tile_transpose", "tile/edsl_py.tile", {"I": I}, {"O": I.T.copy()}, "exact", "transpose")

# --- Antares (antares/*.antares) --------------------------------------------

r = rng(13)
x, g, b = (r.normal(size=(8, 64)) * 2).astype(f32), uniform(r, (64,), 0.5, 1.5), uniform(r, (64,))
diff = x - sum32(x / f32(64), axis=1, keepdims=True)
var = sum32(diff * diff / f32(64), axis=1, keepdims=True)
out = diff / np.sqrt(var + f32(1e-5)) * g + b
case("antares_layer_norm", "antares/layer_norm.antares",
     {"input0": x, "input1": g, "input2": b}, {"output0": out}, "check")

r = rng(14)
x = (r.normal(size=256) * 2).astype(f32)
erf = np.array([math.erf(v) for v in (x * f32(0.7071067811865476)).astype(f64)]).astype(f32)
case("antares_gelu", "antares/gelu.antares", {"input0": x},
     {"output0": x * (f32(1) + erf) * f32(0.5)}, "check")

r = rng(15)
a, w = ints(r, (6, 32), -128, 127, np.int8), ints(r, (32, 5), -128, 127, np.int8)
acc = a.astype(np.int64) @ w.astype(np.int64)
q = np.clip((acc * 77 + 512) >> 10, -128, 127).astype(np.int8)
case("antares_quantized_matmul", "antares/quantized_matmul.antares", {"input0": a, "input1": w},
     {"output0": q}, "exact")

r = rng(16)
x = np.round(r.uniform(0, 1, size=(7, 9)), 1).astype(f32)  # ties in most rows
case("antares_argmax", "antares/argmax.antares", {"input0": x},
     {"output0": x.argmax(axis=1).astype(np.int32)}, "exact")

r = rng(17)
table, idx = uniform(r, (10, 8)), ints(r, (3, 4), 0, 9, np.int32)
case("antares_embedding_bag", "antares/embedding_bag.antares", {"input0": table, "input1": idx},
     {"output0": sum32(table[idx], axis=1)}, "check")

r = rng(18)
x, bias = uniform(r, (4, 16), -3, 3, np.float16), uniform(r, (16,), -1, 1, np.float16)
y = np.maximum(x.astype(f64) + bias.astype(f64), 0).astype(np.float16)
case("antares_bias_relu_f16", "antares/bias_relu_f16.antares", {"input0": x, "input1": bias},
     {"output0": y}, "exact")

r = rng(19)
x = (r.normal(size=50) * 4).astype(f32)
case("antares_global_softmax", "antares/global_softmax.antares", {"input0": x},
     {"output0": softmax32(x, 0)}, "check")

# --- ByteIR in MLIR (mlir/*.mlir) -------------------------------------------

r = rng(20)
a, b, x = np.array(1.7, dtype=f32), np.array(-0.3, dtype=f32), uniform(r, (4,), -4, 4)
s = (a + b) * a  # float32 arithmetic, each step rounded, as the program's
case("mlir_scalar_chain", "mlir/scalar_chain.mlir", {"arg0": a, "arg1": b, "arg2": x},
     {"result0": s, "result1": (x * s).astype(f32)}, "exact")

r = rng(21)
x0, x1 = uniform(r, (4, 32), -2, 2), uniform(r, (4, 32), -2, 2)
g, b = uniform(r, (32,), 0.5, 1.5), uniform(r, (32,))
h = (x0 + x1).astype(f64)  # the add is float32
m = h.mean(axis=1, keepdims=True)
v = ((h - m) ** 2).mean(axis=1, keepdims=True)
ln = (h - m) / np.sqrt(v + 1e-5) * g.astype(f64) + b.astype(f64)
case("mlir_residual_layer_norm", "mlir/residual_layer_norm.mlir",
     {"arg0": x0, "arg1": x1, "arg2": g, "arg3": b}, {"result0": ln.astype(f32)},
     "close 1e-5 1e-6")

r = rng(22)
x = (r.normal(size=(2, 3, 8)) * 6).astype(f32)
case("mlir_scaled_softmax", "mlir/scaled_softmax.mlir", {"arg0": x},
     {"result0": softmax32(x * f32(0.125), 2)}, "close 1e-5 1e-7")

r = rng(23)
x = np.round(r.uniform(-1, 1, size=(5, 6)), 1).astype(f32)
case("mlir_arg_max_keep", "mlir/arg_max_keep.mlir", {"arg0": x},
     {"result0": x.max(axis=1, keepdims=True),
      "result1": x.argmax(axis=1).astype(np.int64).reshape(5, 1)}, "exact")

r = rng(24)
x, scale, zero = uniform(r, (4, 8), -8, 8), np.array(0.05, dtype=f32), np.array(-3, dtype=np.int8)
q = np.clip(np.rint(x / scale) + zero, -128, 127).astype(np.int8)  # x / scale in float32
dq = ((q.astype(f32) - f32(zero)) * scale).astype(f32)
case("mlir_quantize_roundtrip", "mlir/quantize_roundtrip.mlir",
     {"arg0": x, "arg1": scale, "arg2": zero}, {"result0": q, "result1": dq}, "exact")

r = rng(25)
x = (r.normal(size=(3, 16)) * 2).astype(f32)
xd = x.astype(f64)
tanh_gelu = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)))
case("mlir_gelu_tanh", "mlir/gelu_tanh.mlir", {"arg0": x}, {"result0": tanh_gelu.astype(f32)},
     "close 1e-5 1e-6")

if __name__ == "__main__":
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("# NAME | PROGRAM | TEVAL ARGUMENTS | OUTPUT=EXPECTED.npy ... | JUDGE\n")
        f.write("# Written by make_expected.py, with the .npy files under data/.\n")
        for line in CASES:
            f.write(line + "\n")
