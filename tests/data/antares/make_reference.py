#!/usr/bin/python3
"""Generates the reduced-shape conformance cases for the seed's Antares examples.

Each case is a directory holding
  program.antares          the seed example with smaller shapes
  <input>.npy              its inputs (numpy, seeded)
  expected/<output>.npy    the expected outputs, computed here with numpy,
                           independently of teval
  tolerance                (optional) the largest distance in units in the last
                           place allowed for float outputs; absent means bit-exact

Bit-exact references replicate the semantics' evaluation order: reductions
accumulate sequentially in the output dtype, reduce axes in the order teval
walks them (where-clause order, then first appearance), each numpy float32
operation rounding to float32 as teval's do. Transcendental functions
(exp, tanh) come from numpy's own implementations, so their cases allow a
few ulps. Winograd cases are checked against a direct float64 convolution.

Run with Debian's python3-numpy:  /usr/bin/python3 make_reference.py
"""
import itertools
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
f32 = np.float32
CASES = []


def case(name, program, inputs, expected, tolerance=None):
    CASES.append((name, program, inputs, expected, tolerance))


def rng(seed):
    return np.random.default_rng(seed)


def floats(seed, *shape):
    return rng(seed).uniform(-1, 1, size=shape).astype(f32)


def seq_sum(shape, dtype, ranges, term):
    """acc[data] = sum over the reduce ranges in row-major order, one rounding per step."""
    acc = np.zeros(shape, dtype=dtype)
    for idx in itertools.product(*[range(r) for r in ranges]):
        acc = (acc + term(*idx)).astype(dtype)
    return acc


# --- elementwise and layout ------------------------------------------------
x = floats(1, 4)
case("broadcast",
     '''- einstein_v2("output0[N, F, HO, WO] = input0[N] where F in 3, HO in 2, WO in 2", input_dict={"input0": {"dtype": "float32", "shape": [4]}})''',
     {"input0": x}, {"output0": np.broadcast_to(x[:, None, None, None], (4, 3, 2, 2)).copy()})

x = floats(2, 1)
case("broadcast_all",
     '''- einstein_v2("output0[N, F, HO, WO] = input0[0] where N in 2, F in 3, HO in 2, WO in 2", input_dict={"input0": {"dtype": "float32", "shape": [1]}})''',
     {"input0": x}, {"output0": np.full((2, 3, 2, 2), x[0], dtype=f32)})

a, b = floats(3, 16), floats(4, 16)
case("elementwise",
     '''- einstein_v2("output0[N] = input0[N] + input1[N]", input_dict={"input0": {"dtype": "float32", "shape": [16]}, "input1": {"dtype": "float32", "shape": [16]}})''',
     {"input0": a, "input1": b}, {"output0": a + b})

a = np.array(rng(5).uniform(-1, 1), dtype=f32)
b = np.array(rng(6).uniform(-1, 1), dtype=f32)
case("scaler_compute",
     '''- einstein_v2("output0[] = input0[] + input1[]", input_dict={"input0": {"dtype": "float32", "shape": []}, "input1": {"dtype": "float32", "shape": []}})''',
     {"input0": a, "input1": b}, {"output0": np.array(a + b, dtype=f32)})

a, b = floats(7, 8), floats(8, 8)
o1 = (a * f32(2)).astype(f32)
case("multiple_outputs",
     '''- einstein_v2("output0[N] = input0[N] + input1[N]; output1[N] = input0[N] * 2; output2[N] = input1[N] + output1[N];", input_dict={"input0": {"dtype": "float32", "shape": [8]}, "input1": {"dtype": "float32", "shape": [8]}}, extra_outputs=["output0", "output1", "output2"])''',
     {"input0": a, "input1": b}, {"output0": a + b, "output1": o1, "output2": b + o1})

x = floats(9, 2, 5, 4, 3)
case("transpose",
     '''- einstein_v2("output0[N, C, H, W] = input0[N, H, W, C]", input_dict={"input0": {"dtype": "float32", "shape": [2, 5, 4, 3]}})''',
     {"input0": x}, {"output0": x.transpose(0, 3, 1, 2).copy()})

x = floats(10, 2, 3, 2, 4)
case("reshape",
     '''- einstein_v2("output0[A, B, C] = input0[A, B, C / 4, C % 4] where C in 8", input_dict={"input0": {"dtype": "float32", "shape": [2, 3, 2, 4]}})''',
     {"input0": x}, {"output0": x.reshape(2, 3, 8)})

x = floats(11, 4, 9)
case("reduce_sum",
     '''- einstein_v2("output0[N] +=! input0[N, C]", input_dict={"input0": {"dtype": "float32", "shape": [4, 9]}})''',
     {"input0": x}, {"output0": seq_sum((4,), f32, [9], lambda c: x[:, c])})

case("reduce_min",
     '''- einstein_v2("output0[N] <=! input0[N, C]", input_dict={"input0": {"dtype": "float32", "shape": [4, 9]}})''',
     {"input0": x}, {"output0": x.min(axis=1)})

case("cast",
     '''- einstein_v2("output0[N] = N.cast(`float32`) where N in 16", {})''',
     {}, {"output0": np.arange(16, dtype=f32)})

x = floats(12, 4, 6)
case("condition_relu",
     '''- einstein_v2("output0[N, C] = input0[N, C].when([input0[N, C] > 0.0], 0.0)", input_dict={"input0": {"dtype": "float32", "shape": [4, 6]}})''',
     {"input0": x}, {"output0": np.where(x > 0, x, f32(0))})

xh = floats(13, 4, 6).astype(np.float16)
case("condition_relu_dynamic_dtype",
     '''- einstein_v2("output0[N, C] = input0[N, C].when([input0[N, C] > const(0.0).cast(input0[N, C].dtype())], const(0.0).cast(input0[N, C].dtype()))", input_dict={"input0": {"dtype": "float16", "shape": [4, 6]}})''',
     {"input0": xh}, {"output0": np.where(xh > 0, xh, np.float16(0))})

case("range_tanh",
     '''- einstein_v2("output0[N] = (N.cast(`float32`) / 8.0).call(`tanh`) where N in 16", {})''',
     {}, {"output0": np.tanh((np.arange(16, dtype=f32) / f32(8)).astype(f32))}, tolerance=2)

# --- contractions ------------------------------------------------------------
a, b = floats(14, 5, 7), floats(15, 7, 3)
case("matmul",
     '''- einstein_v2("output0[N, M] +=! input0[N, K] * input1[K, M]", { "input0": {"dtype": "float32", "shape": [5, 7]}, "input1": {"dtype": "float32", "shape": [7, 3]}})''',
     {"input0": a, "input1": b},
     {"output0": seq_sum((5, 3), f32, [7], lambda k: (a[:, k, None] * b[None, k, :]).astype(f32))})

bias = floats(16, 3)
case("matmul_bias_add",
     '''- einstein_v2("output0[N, M] +=! input0[N, K] * input1[K, M] + input2[M] / K.val()", { "input0": {"dtype": "float32", "shape": [5, 7]}, "input1": {"dtype": "float32", "shape": [7, 3]}, "input2": {"dtype": "float32", "shape": [3]} })''',
     {"input0": a, "input1": b, "input2": bias},
     {"output0": seq_sum((5, 3), f32, [7], lambda k: ((a[:, k, None] * b[None, k, :]).astype(f32)
                                                       + (bias / f32(7)).astype(f32)[None, :]).astype(f32))})

a, b = floats(17, 2, 4, 5), floats(18, 2, 5, 3)
case("batch_matmul",
     '''- einstein_v2("output0[B, N, M] +=! input0[B, N, K] * input1[B, K, M]", input_dict={"input0": {"dtype": "float32", "shape": [2, 4, 5]}, "input1": {"dtype": "float32", "shape": [2, 5, 3]}})''',
     {"input0": a, "input1": b},
     {"output0": seq_sum((2, 4, 3), f32, [5], lambda k: (a[:, :, k, None] * b[:, None, k, :]).astype(f32))})


def conv(inp, w, ho, wo, stride=1, pad=0, reduce_order="ckk"):
    """Direct convolution accumulated as teval walks it: C, KH, KW innermost-last."""
    n, ci, h, wd = inp.shape
    co, _, kh, kw = w.shape
    out = np.zeros((n, co, ho, wo), dtype=f32)
    for c, i, j in itertools.product(range(ci), range(kh), range(kw)):
        rows = np.arange(ho) * stride + i - pad
        cols = np.arange(wo) * stride + j - pad
        ok = ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < wd))[None, :]
        patch = inp[:, c][:, np.clip(rows, 0, h - 1)][:, :, np.clip(cols, 0, wd - 1)]
        patch = np.where(ok[None], patch, f32(0)).astype(f32)
        term = (patch[:, None] * w[None, :, c, i, j, None, None]).astype(f32)
        out = (out + term).astype(f32)
    return out


inp, w = floats(19, 2, 3, 6, 6), floats(20, 4, 3, 3, 3)
case("convolution_no_pad",
     '''- einstein_v2("output0[N, F, HO, WO] +=! input0[N, C, HO + KH, WO + KW] * input1[F, C, KH, KW] where HO in 4, WO in 4", { "input0": {"dtype": "float32", "shape": [2, 3, 6, 6]}, "input1": {"dtype": "float32", "shape": [4, 3, 3, 3]}})''',
     {"input0": inp, "input1": w}, {"output0": conv(inp, w, 4, 4)})

case("convolution_with_pad",
     '''- _N, _CI, _H, _W, _CO, _KH, _KW, _SH, _SW, _PH, _PW = 2, 3, 6, 6, 4, 3, 3, 2, 2, 1, 1; _HO, _WO = (_H - _KH + _PH * 2) // _SH + 1, (_W - _KW + _PW * 2) // _SW + 1; einstein_v2(f"output0[N, F, HO, WO] +=! input0[N, C, HO * {_SH} + KH - {_PH}, WO * {_SW} + KW - {_PW}].when([HO * {_SH} + KH - {_PH} >= 0, HO * {_SH} + KH - {_PH} < {_H}, WO * {_SW} + KW - {_PW} >= 0, WO * {_SW} + KW - {_PW} < {_W}], 0.0) * input1[F, C, KH, KW] where HO in {_HO}, WO in {_WO}", { "input0": {"dtype": "float32", "shape": [_N, _CI, _H, _W]}, "input1": {"dtype": "float32", "shape": [_CO, _CI, _KH, _KW]}})''',
     {"input0": inp, "input1": w}, {"output0": conv(inp, w, 3, 3, stride=2, pad=1)})

w2 = w.reshape(4, 27)
case("convolution_with_pad_fused_reduce_axis",
     '''- _N, _CI, _H, _W, _CO, _KH, _KW, _SH, _SW, _PH, _PW = 2, 3, 6, 6, 4, 3, 3, 1, 1, 1, 1; \\
_HO, _WO = (_H - _KH + _PH * 2) // _SH + 1, (_W - _KW + _PW * 2) // _SW + 1; \\
einstein_v2(f" \\
output0[N, F, HO, WO] +=! input0[N, CKHKW // {_KW * _KH}, HO * {_SH} + ((CKHKW % {_KW * _KH}) // {_KW}) - {_PH}, WO * {_SW} + ((CKHKW % {_KW * _KH}) % {_KW}) - {_PW}].when([HO * {_SH} + ((CKHKW % {_KW * _KH}) // {_KW}) - {_PH} >= 0, HO * {_SH} + ((CKHKW % {_KW * _KH}) // {_KW}) - {_PH} < {_H}, WO * {_SW} + ((CKHKW % {_KW * _KH}) % {_KW}) - {_PW} >= 0, WO * {_SW} + ((CKHKW % {_KW * _KH}) % {_KW}) - {_PW} < {_W}], 0.0) * input1[F, CKHKW] where HO in {_HO}, WO in {_WO} \\
", { "input0": {"dtype": "float32", "shape": [_N, _CI, _H, _W]}, "input1": {"dtype": "float32", "shape": [_CO, _CI * _KH * _KW]}})''',
     {"input0": inp, "input1": w2}, {"output0": conv(inp, w, 6, 6, stride=1, pad=1)})

# Winograd F(2x2, 3x3): checked against a direct float64 convolution.
# The helper matrices exactly as the seed's internal variant builds them.
G = np.array([[1, 0, 0], [0.5, -0.5, 0.5], [0.5, 0.5, 0.5], [0, 0, 1]], dtype=f32)
BT = np.array([[1, 0, 0, 0], [0, -1, 1, -1], [-1, 1, 1, 0], [0, 0, 0, 1]], dtype=f32)
AT = np.array([[1, 0], [1, -1], [1, 1], [0, 1]], dtype=f32)
winp, ww = floats(21, 1, 2, 6, 6), floats(22, 3, 2, 3, 3)


def direct_conv64(inp, w):
    n, ci, h, wd = inp.shape
    co, _, kh, kw = w.shape
    out = np.zeros((n, co, h - kh + 1, wd - kw + 1))
    for i, j in itertools.product(range(kh), range(kw)):
        out += np.einsum("nchw,fc->nfhw", inp[:, :, i:i + h - kh + 1, j:j + wd - kw + 1].astype(np.float64),
                         w[:, :, i, j].astype(np.float64))
    return out.astype(f32)


WINO = '''transform_filter[EPS, NU, CI, CO] +=! ((input1[CO, CI, Rkh, Rkw] * helper4x3[EPS, Rkh] * helper4x3[NU, Rkw])); \\
input_tile[C, B, EPS, NU] = input0[B // ({_nH} * {_nW}), C, B // {_nW} % {_nH} * 2 + EPS, B % {_nW} * 2 + NU] where C in {_CI}, B in {_P}, EPS in 4, NU in 4; \\
transform_input[EPS, NU, C, B] +=! input_tile[C, B, K1, K2] * helper4x4[K1, EPS] * helper4x4[K2, NU] where EPS in 4, NU in 4, C in {_CI}, B in {_P}; \\
batch_gemm[EPS, NU, K, B] +=! transform_filter[EPS, NU, CI, K] * transform_input[EPS, NU, CI, B] where EPS in 4, NU in 4, K in {_CO}, B in {_P}; \\
inverse[K, B, VH, VW] +=! batch_gemm[K1, K2, K, B] * helper4x2[K1, VH] * helper4x2[K2, VW] where K in {_CO}, B in {_P}, VH in 2, VW in 2; \\
output0[N, K, H, W] = inverse[K, N * {_nH} * {_nW} + H // 2 * {_nW} + W // 2, H % 2, W % 2] where N in {_N}, K in {_CO}, H in {_HO}, W in {_WO} \\
'''
case("conv_winograd_3x3",
     '''- _N, _CI, _H, _W, _CO = 1, 2, 6, 6, 3; _HO, _WO = _H - 2, _W - 2; _nH, _nW = (_HO + 1) // 2, (_WO + 1) // 2; _P = _N * _nH * _nW; einstein_v2(f"helper4x3[N, M] = const(1.0).when([N * 3 + M == 0, N * 3 + M == 11], const(0.0).when([N * 3 + M == 1, N * 3 + M == 2, N * 3 + M == 9, N * 3 + M == 10], const(-0.5).when([N * 3 + M == 4], 0.5, merge_op=`any`), merge_op=`any`), merge_op=`any`) where N in 4, M in 3; transform_filter[EPS, NU, CI, CO] +=! ((input1[CO, CI, Rkh, Rkw] * helper4x3[EPS, Rkh] * helper4x3[NU, Rkw])); input_tile[C, B, EPS, NU] = input0[B // ({_nH} * {_nW}), C, B // {_nW} % {_nH} * 2 + EPS, B % {_nW} * 2 + NU] where C in {_CI}, B in {_P}, EPS in 4, NU in 4; helper4x4[N, M] = const(1.0).when([N * 4 + M == 0, N * 4 + M == 6, N * 4 + M == 9, N * 4 + M == 10, N * 4 + M == 15], const(-1.0).when([N * 4 + M == 5, N * 4 + M == 7, N * 4 + M == 8], 0.0, merge_op=`any`), merge_op=`any`) where N in 4, M in 4; transform_input[EPS, NU, C, B] +=! input_tile[C, B, K1, K2] * helper4x4[K1, EPS] * helper4x4[K2, NU] where EPS in 4, NU in 4, C in {_CI}, B in {_P}; batch_gemm[EPS, NU, K, B] +=! transform_filter[EPS, NU, CI, K] * transform_input[EPS, NU, CI, B] where EPS in 4, NU in 4, K in {_CO}, B in {_P}; helper4x2[N, M] = const(0.0) .when([N * 2 + M == 1, N * 2 + M == 6], const(-1.0).when([N * 2 + M == 3], 1.0, merge_op=`any`), merge_op=`any`) where N in 4, M in 2; inverse[K, B, VH, VW] +=! batch_gemm[K1, K2, K, B] * helper4x2[K1, VH] * helper4x2[K2, VW] where K in {_CO}, B in {_P}, VH in 2, VW in 2; output0[N, K, H, W] = inverse[K, N * {_nH} * {_nW} + H // 2 * {_nW} + W // 2, H % 2, W % 2] where N in {_N}, K in {_CO}, H in {_HO}, W in {_WO}", {"input0": {"dtype": "float32", "shape": [_N, _CI, _H, _W]}, "input1": {"dtype": "float32", "shape": [_CO, _CI, 3, 3]}})''',
     {"input0": winp, "input1": ww}, {"output0": direct_conv64(winp, ww)}, tolerance=64)

case("conv_winograd_3x3_external_helpers",
     '''- _N, _CI, _H, _W, _CO = 1, 2, 6, 6, 3; _HO, _WO = _H - 2, _W - 2; _nH, _nW = (_HO + 1) // 2, (_WO + 1) // 2; _P = _N * _nH * _nW; einstein_v2(f""" \\
''' + WINO + '''""", {"input0": {"dtype": "float32", "shape": [_N, _CI, _H, _W]}, "input1": {"dtype": "float32", "shape": [_CO, _CI, 3, 3]}, "helper4x2": {"dtype": "float32", "shape": [4, 2]}, "helper4x3": {"dtype": "float32", "shape": [4, 3]}, "helper4x4": {"dtype": "float32", "shape": [4, 4]}})''',
     {"input0": winp, "input1": ww, "helper4x2": AT, "helper4x3": G, "helper4x4": BT},
     {"output0": direct_conv64(winp, ww)}, tolerance=64)

x = floats(23, 1, 2, 3, 2, 2, 4)
case("depth_to_space",
     '''- einstein_v2("output0[N, H, C0, W, C1, C2] = input0[N, H, W, C0, C1, C2]", input_dict={"input0": {"dtype": "float32", "shape": [1, 2, 3, 2, 2, 4]}})''',
     {"input0": x}, {"output0": x.transpose(0, 1, 3, 2, 4, 5).copy()})

dinp, dw = floats(24, 2, 3, 6, 6), floats(25, 3, 3, 3, 1)


def depthwise(inp, w, ho, wo):
    out = np.zeros((inp.shape[0], inp.shape[1], ho, wo), dtype=f32)
    for i, j in itertools.product(range(3), range(3)):  # reduce axes KH, KW
        term = (inp[:, :, i:i + ho, j:j + wo] * w[i, j, :, 0][None, :, None, None]).astype(f32)
        out = (out + term).astype(f32)
    return out


case("depthwise_conv",
     '''- einstein_v2("output0[N, C, HO, WO] +=! input0[N, C, HO + KH, WO + KW] * input1[KH, KW, C, 0] where HO in 4, WO in 4", input_dict={"input0": {"dtype": "float32", "shape": [2, 3, 6, 6]}, "input1": {"dtype": "float32", "shape": [3, 3, 3, 1]}})''',
     {"input0": dinp, "input1": dw}, {"output0": depthwise(dinp, dw, 4, 4)})

x = floats(26, 1, 5, 4)
case("slice",
     '''- einstein_v2("output0[N, F] = input0[N, F, 2]", input_dict={"input0": {"dtype": "float32", "shape": [1, 5, 4]}})''',
     {"input0": x}, {"output0": x[:, :, 2].copy()})

a, b = floats(27, 2, 3), floats(28, 2, 3)
case("concat",
     '''- einstein_v2("output0[N, F] = input0[N, F].when([F < 3], input1[N, F - 3]) where F in 6", input_dict={"input0": {"dtype": "float32", "shape": [2, 3]}, "input1": {"dtype": "float32", "shape": [2, 3]}})''',
     {"input0": a, "input1": b}, {"output0": np.concatenate([a, b], axis=1)})

idx = np.array([3, 0, 7, 7, 1], dtype=np.int32)
case("one_hot",
     '''- einstein_v2("output0[N, F] = const(1.0).when([input0[N] == F], const(0.0)) where F in 8", input_dict={"input0": {"dtype": "int32", "shape": [5]}})''',
     {"input0": idx}, {"output0": np.eye(8, dtype=f32)[idx]})

table, rows = floats(29, 10, 4), np.array([9, 0, 3, 3, 5, 1], dtype=np.int32)
case("take",
     '''- einstein_v2("output0[F, C] = input0[input1[F], C]", input_dict={"input0": {"dtype": "float32", "shape": [10, 4]}, "input1": {"dtype": "int32", "shape": [6]}})''',
     {"input0": table, "input1": rows}, {"output0": table[rows]})

flat, gidx = floats(30, 20), rng(31).integers(0, 20, size=(3, 4)).astype(np.int32)
case("gather",
     '''- einstein_v2("output0[N, F] = input0[input1[N, F]]", input_dict={"input0": {"dtype": "float32", "shape": [20]}, "input1": {"dtype": "int32", "shape": [3, 4]}})''',
     {"input0": flat, "input1": gidx}, {"output0": flat[gidx]})

x = floats(32, 2, 3, 4, 4)
case("pad",
     '''- einstein_v2("output0[N, C, HO, WO] = input0[N, C, -1 + HO, -1 + WO].when([-1 + HO >= 0, -1 + HO < 4, -1 + WO >= 0, -1 + WO < 4], 0.0) where HO in 6, WO in 6", input_dict={"input0": {"dtype": "float32", "shape": [2, 3, 4, 4]}})''',
     {"input0": x}, {"output0": np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))})

a, b = floats(33, 16), floats(34, 16)
b[[1, 5, 6, 12]] = 0
with np.errstate(divide="ignore", invalid="ignore"):
    dnn = np.where(b != 0, a / b, f32(0)).astype(f32)
case("div_no_nan",
     '''- einstein_v2("output0[N] = (input0[N] / input1[N]).when([input1[N] != 0], 0.0)", input_dict={"input0": {"dtype": "float32", "shape": [16]}, "input1": {"dtype": "float32", "shape": [16]}})''',
     {"input0": a, "input1": b}, {"output0": dnn})

x = floats(35, 2, 3, 6, 6)
case("max_pool",
     '''- einstein_v2("output0[N, C, HO, WO] >=! input0[N, C, HO * 2 + KH, WO * 2 + KW] where HO in 3, WO in 3, KW in 2, KH in 2", input_dict={"input0": {"dtype": "float32", "shape": [2, 3, 6, 6]}})''',
     {"input0": x}, {"output0": x.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5))})

x = floats(36, 4, 9, 9)
# Reduce axes walk in where-clause order: KW outer, KH inner.
avg = seq_sum((4, 3, 3), f32, [3, 3],
              lambda kw, kh: (x[:, kh::3, kw::3] / f32(9)).astype(f32))
case("avg_pool",
     '''- einstein_v2("output0[NC, HO, WO] +=! input0[NC, HO * 3 + KH, WO * 3 + KW] / 9.0 where HO in 3, WO in 3, KW in 3, KH in 3", input_dict={"input0": {"dtype": "float32", "shape": [4, 9, 9]}})''',
     {"input0": x}, {"output0": avg})

x = floats(37, 2, 4)
case("tile",
     '''- einstein_v2("output0[ON, OC] = input0[ON % 2, OC % 4] where ON in 6, OC in 8", input_dict={"input0": {"dtype": "float32", "shape": [2, 4]}})''',
     {"input0": x}, {"output0": np.tile(x, (3, 2))})

x = floats(38, 3, 10)
t0 = x.max(axis=1)
ex = np.exp((x - t0[:, None]).astype(f32)).astype(f32)
t1 = seq_sum((3,), f32, [10], lambda c: ex[:, c])
case("softmax",
     '''- einstein_v2("temp0[N] >=! input0[N, C]; temp1[N] +=! (input0[N, C] - temp0[N]).call(`exp`); output0[N, C] = (input0[N, C] - temp0[N]).call(`exp`) / temp1[N]", { "input0": {"dtype": "float32", "shape": [3, 10]} })''',
     {"input0": x}, {"output0": (ex / t1[:, None]).astype(f32)}, tolerance=4)

x = floats(39, 2, 4, 3, 3)
mean, var = floats(40, 4), np.abs(floats(41, 4)) + f32(0.1)
scale, bias = floats(42, 4), floats(43, 4)
c = lambda v: v[None, :, None, None]
bn = (c(bias) + ((c(scale) * (x - c(mean)).astype(f32)).astype(f32)
                 / np.sqrt((f32(1e-5) + c(var)).astype(f32)).astype(f32)).astype(f32)).astype(f32)
case("batchnorm_inference",
     '''- einstein_v2("output0[N, C, H, W] = bias[C] + scale[C] * (input0[N, C, H, W] - mean[C]) / (1e-5 + variance[C]).call(`sqrt`)", input_dict={"input0": {"dtype": "float32", "shape": [2, 4, 3, 3]}, "mean": {"dtype": "float32", "shape": [4]}, "variance": {"dtype": "float32", "shape": [4]}, "scale": {"dtype": "float32", "shape": [4]}, "bias": {"dtype": "float32", "shape": [4]} })''',
     {"input0": x, "mean": mean, "variance": var, "scale": scale, "bias": bias}, {"output0": bn})

p, q = rng(44).integers(-2, 3, size=(4, 6)).astype(np.int8), rng(45).integers(-2, 3, size=(4, 6)).astype(np.int8)
case("logical_bool_operation",
     '''- einstein_v2("output0[N, M] = input0[N, M] & ~input1[N, M]", { "input0": {"dtype": "int8", "shape": [4, 6]}, "input1": {"dtype": "int8", "shape": [4, 6]} })''',
     {"input0": p, "input1": q}, {"output0": ((p != 0) & (q == 0)).astype(np.int8)})

x = floats(46, 4, 6) * f32(4)
case("sigmoid",
     '''- einstein_v2("output0[N, M] = 1.0 / (1.0 + (-input0[N, M]).call(`exp`))", { "input0": {"dtype": "float32", "shape": [4, 6]} })''',
     {"input0": x}, {"output0": (f32(1) / (f32(1) + np.exp(-x).astype(f32))).astype(f32)}, tolerance=4)

a, b = floats(47, 6, 5), floats(48, 5, 3)
t0 = (a.T + f32(100)).astype(f32)  # temp0[K, N] = input0[N, K] + 100
case("add_matmul_head_fusion",
     '''- einstein_v2("temp0[K, N] = input0[N, K] + 100; output0[N, M] +=! temp0[K, N] * input1[K, M] where K in 3", { "input0": {"dtype": "float32", "shape": [6, 5]}, "input1": {"dtype": "float32", "shape": [5, 3]}})''',
     {"input0": a, "input1": b},
     {"output0": seq_sum((6, 3), f32, [3], lambda k: (t0[k, :, None] * b[None, k, :]).astype(f32))})

inp, w, b2 = floats(49, 1, 3, 5, 5), floats(50, 1, 1, 3, 4), floats(51, 1, 1, 1, 4)
co = seq_sum((1, 4, 5, 5), f32, [3], lambda cc: (inp[:, cc, None, :, :] * w[0, 0, cc, :, None, None][None]).astype(f32))
cb = (co + b2[0, 0, 0, :, None, None][None]).astype(f32)
case("conv_bias_relu_tail_fusion",
     '''- einstein_v2("conv_out[N, F, HO, WO] +=! input0[N, C, HO + KH, WO + KW] * input1[KH, KW, C, F] where HO in 5, WO in 5; conv_bias[N, F, HO, WO] = conv_out[N, F, HO, WO] + input2[0, 0, 0, F]; output0[N, F, HO, WO] = conv_bias[N, F, HO, WO].when(conv_bias[N, F, HO, WO] > 0.0, 0.0)", input_dict={"input0": {"dtype": "float32", "shape": [1, 3, 5, 5]}, "input1": {"dtype": "float32", "shape": [1, 1, 3, 4]}, "input2": {"dtype": "float32", "shape": [1, 1, 1, 4]}})''',
     {"input0": inp, "input1": w, "input2": b2}, {"output0": np.where(cb > 0, cb, f32(0))})

data = floats(52, 4, 4, 4, 4, 3)
ind = np.array([[0, 1, 2, 3], [3, 3, 0, 1]], dtype=np.int32)
upd = floats(53, 2, 3)
scattered = data.copy()
for bb in range(2):
    scattered[tuple(ind[bb])] = upd[bb]
case("scatter_4d",
     '''- _B, _M = 2, 3; einstein_v2("data[indices[B, 0], indices[B, 1], indices[B, 2], indices[B, 3], M] =. updates[B, M]", input_dict={"data": {"dtype": "float32", "shape": [4, 4, 4, 4, _M]}, "indices": {"dtype": "int32", "shape": [_B, 4]}, "updates": {"dtype": "float32", "shape": [_B, _M]}})''',
     {"data": data, "indices": ind, "updates": upd}, {"data": scattered})


def main():
    for name, program, inputs, expected, tolerance in CASES:
        d = os.path.join(HERE, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "expected"))
        with open(os.path.join(d, "program.antares"), "w") as f:
            f.write(program + "\n")
        for k, v in inputs.items():
            np.save(os.path.join(d, k + ".npy"), np.array(v, order="C"))
        for k, v in expected.items():
            np.save(os.path.join(d, "expected", k + ".npy"), np.array(v, order="C"))
        if tolerance is not None:
            with open(os.path.join(d, "tolerance"), "w") as f:
                f.write(f"{tolerance}\n")
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
