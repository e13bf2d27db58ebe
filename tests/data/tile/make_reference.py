#!/usr/bin/python3
"""Expected results of the Tile tutorial's functions, computed with numpy.

Each case directory holds the inputs (<param>.npy), the integer parameters
(`params`, one `-p` value per line: `s=[2,1]`), the function names in the C++
and the Python spelling (`entry`: two lines), and `expected/<output>.npy`.
The expectations follow the tutorial's meaning written out with loops over
the valid index points; sums accumulate in float32 in the order teval walks
them (output indices outer, then the right-hand side's indices in order of
appearance), each numpy float32 operation rounding as teval's do.

Run with Debian's python3-numpy:  /usr/bin/python3 make_reference.py
"""
import itertools
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
f32 = np.float32
CASES = []


def floats(seed, *shape):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(f32)


def case(name, cpp, py, inputs, output, expected, params=None):
    CASES.append((name, cpp, py, inputs, output, expected, params or {}))


def seq_sum(terms):
    acc = None
    for t in terms:
        acc = t if acc is None else f32(acc + t)
    return f32(0) if acc is None else acc


I = floats(1, 4, 3)
case("sum_over_axis", "sum_over_axis", "sum_over_axis", {"I": I}, "O",
     np.array([seq_sum(I[m, n] for m in range(4)) for n in range(3)], dtype=f32))
case("max_over_axis", "max_over_axis", "max_over_axis", {"I": I}, "O", I.max(axis=0))

A, B = floats(2, 2, 3), floats(3, 3, 4)
case("matmul", "matmul", "matmul", {"A": A, "B": B}, "C",
     np.array([[seq_sum(f32(A[i, k] * B[k, j]) for k in range(3)) for j in range(4)]
               for i in range(2)], dtype=f32))

G = floats(4, 2, 3, 4)
case("global_min", "global_min", "global_min", {"I": G}, "O", np.array(G.min(), dtype=f32))

S = seq_sum(I[x, y] for x in range(4) for y in range(3))
case("avg_stages", "avg_stages", "avg_stages", {"I": I}, "result",
     np.array(f32(f32(S / f32(4)) / f32(3)), dtype=f32))
case("avg_merge", "avg_merge", "avg_merge", {"I": I}, "result", np.array(f32(S / f32(12)), dtype=f32))

for n in (6, 7):
    P = floats(5 + n, n)
    case(f"wrong_max_pool_1d_{n}", "wrong_max_pool_1d", "wrong_max_pool_1d", {"I": P}, "O",
         np.full(n // 2, P.max(), dtype=f32))
    case(f"max_pool_1d_{n}", "max_pool_1d", "max_pool_1d", {"I": P}, "O",
         np.array([P[2 * i:2 * i + 2].max() for i in range((n + 1) // 2)], dtype=f32))

Sk = floats(20, 4, 5)
skip = np.zeros(5, dtype=f32)
for i in range(0, 3):
    if 2 * i < 4:  # 2i indexes both I's rows (4) and O (5)
        skip[2 * i] = seq_sum(Sk[2 * i, j] for j in range(5))
case("skip", "skip", "skip", {"I": Sk}, "O", skip)

C = floats(21, 6)
case("csum", "csum", "csum", {"I": C}, "O",
     np.array([seq_sum(C[k] for k in range(i + 1)) for i in range(6)], dtype=f32))

CI, CK = floats(22, 2, 7, 3), floats(23, 3, 3, 4)
conv1 = np.zeros((2, 5, 4), dtype=f32)
for n, x, co in itertools.product(range(2), range(5), range(4)):
    conv1[n, x, co] = seq_sum(f32(CI[n, x + k, ci] * CK[k, ci, co])
                              for k in range(3) for ci in range(3))
case("conv_1d", "conv_1d", "conv_1d", {"I": CI, "K": CK}, "O", conv1)

DI, DK = floats(24, 1, 9, 10, 2), floats(25, 2, 3, 2, 3)
conv2 = np.zeros((1, 7, 4, 3), dtype=f32)
for n, x, y, co in itertools.product(range(1), range(7), range(4), range(3)):
    conv2[n, x, y, co] = seq_sum(f32(DI[n, x + 2 * kx, y + 3 * ky, ci] * DK[kx, ky, ci, co])
                                 for kx in range(2) for ky in range(3) for ci in range(2))
case("conv_2d_dilated", "conv_2d_dilated", "conv_2d_dilated", {"I": DI, "K": DK}, "O", conv2)

XI, XK = floats(26, 1, 5, 5, 2, 3), floats(27, 3, 3, 2, 3, 2)
s, d = (2, 1), (1, 2)
X, Kd = (5, 5), (3, 3)
Y = [(X[i] + s[i] - 1) // s[i] for i in range(2)]
EK = [d[i] * (Kd[i] - 1) + 1 for i in range(2)]
P = [((Y[i] - 1) * s[i] + EK[i] - X[i]) // 2 for i in range(2)]
cc = np.zeros((1, Y[0], Y[1], 2, 2), dtype=f32)
for n, x0, x1, g, gco in itertools.product(range(1), range(Y[0]), range(Y[1]), range(2), range(2)):
    terms = []
    for k0, k1, gci in itertools.product(range(3), range(3), range(3)):
        r, c = s[0] * x0 + d[0] * k0 - P[0], s[1] * x1 + d[1] * k1 - P[1]
        if 0 <= r < X[0] and 0 <= c < X[1]:  # padding: out-of-range points are not valid
            terms.append(f32(XI[n, r, c, g, gci] * XK[k0, k1, g, gci, gco]))
    cc[n, x0, x1, g, gco] = seq_sum(terms)
case("complex_conv_2d", "complex_conv_2d", "complex_conv_2d", {"I": XI, "K": XK}, "O", cc,
     params={"cpp": ["s=[2,1]", "d=[1,2]"], "py": ["s0=2", "s1=1", "d0=1", "d1=2"]})


def main():
    for name, cpp, py, inputs, output, expected, params in CASES:
        d = os.path.join(HERE, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "expected"))
        with open(os.path.join(d, "entry"), "w") as f:
            f.write(f"{cpp}\n{py}\n")
        for k, v in inputs.items():
            np.save(os.path.join(d, k + ".npy"), np.array(v, order="C"))
        np.save(os.path.join(d, "expected", output + ".npy"), np.array(expected, dtype=f32, order="C"))
        if params:
            with open(os.path.join(d, "params"), "w") as f:
                f.write(" ".join(params["cpp"]) + "\n" + " ".join(params["py"]) + "\n")
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
