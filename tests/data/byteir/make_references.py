# Reference values for the ByteIR ops, made with PyTorch (the frontend most
# of these ops come from) and numpy, independently of teval:
#   /usr/bin/python3 tests/data/byteir/make_references.py
# writes the .npy files next to this script. teval's native references are
# checked against them within the bounds of docs/BYTEIR.md
# (tests/ops/byteir_reference_test.cpp).
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))


def save(name, a):
    np.save(os.path.join(here, name + ".npy"), np.asarray(a).copy(order="C"))


# Rows with ties, large magnitudes (exp overflows without the max
# subtracted), tiny and negative values.
x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0],
              [100.0, 100.0, 99.0, -100.0, 0.0],
              [-1e-3, 2.5, -7.25, 2.5, 0.125]], dtype=np.float32)
save("x", x)
t = torch.from_numpy(x)
save("softmax_axis1", torch.softmax(t, dim=1).numpy())
save("softmax_axis0", torch.softmax(t, dim=0).numpy())
save("log_softmax_axis1", torch.log_softmax(t, dim=1).numpy())
save("log_softmax_axis0", torch.log_softmax(t, dim=0).numpy())

g = np.linspace(-6.0, 6.0, 49, dtype=np.float32).reshape(7, 7)
save("g", g)
tg = torch.from_numpy(g)
save("gelu_erf", torch.nn.functional.gelu(tg).numpy())
save("gelu_tanh", torch.nn.functional.gelu(tg, approximate="tanh").numpy())
save("erf", torch.erf(tg).numpy())

# layer_norm over the last two axes of a 2x3x4 tensor (PyTorch's
# normalized_shape), eps 1e-5: y, mean (kept dims) and 1 / sqrt(var + eps);
# and the eps_outside_sqrt form, the fused pattern w * (x - mean) /
# (std(unbiased=False) + eps) + b.
rng = np.random.default_rng(2)
ln_x = (rng.standard_normal((2, 3, 4)) * 3 + 1).astype(np.float32)
ln_w = rng.standard_normal((3, 4)).astype(np.float32)
ln_b = rng.standard_normal((3, 4)).astype(np.float32)
for name, a in (("ln_x", ln_x), ("ln_w", ln_w), ("ln_b", ln_b)):
    save(name, a)
tx, tw, tb = (torch.from_numpy(a) for a in (ln_x, ln_w, ln_b))
save("layer_norm", torch.nn.functional.layer_norm(tx, (3, 4), tw, tb, eps=1e-5).numpy())
mean = tx.mean(dim=(1, 2), keepdim=True)
var = tx.var(dim=(1, 2), unbiased=False, keepdim=True)
save("layer_norm_mean", mean.numpy())
save("layer_norm_inv_std", (1 / torch.sqrt(var + 1e-5)).numpy())
std = tx.std(dim=(1, 2), unbiased=False, keepdim=True)
save("layer_norm_eps_outside", (tw * (tx - mean) / (std + 1e-2) + tb).numpy())

# l2_norm along axis 1: torch.nn.functional.normalize (x / max(||x||, eps),
# eps_outside_sqrt) and TensorFlow's l2_normalize (x / sqrt(max(sum x^2,
# eps))), with a zero row where the epsilon decides.
l2_x = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1e-3, -2e-3, 2e-3], [-1.0, 2.0, 2.0]],
                dtype=np.float32)
save("l2_x", l2_x)
tl = torch.from_numpy(l2_x)
save("l2_norm_eps_outside", torch.nn.functional.normalize(tl, p=2.0, dim=1, eps=1e-2).numpy())
save("l2_norm", (tl / torch.sqrt(torch.clamp_min((tl * tl).sum(dim=1, keepdim=True), 1e-4))).numpy())

# addn: a left fold of additions (numpy in float32, left to right).
save("x2", x * 2)
save("x3", x * 3)
save("addn", (x + x * 2) + x * 3)

# arg_max / arg_min along axis 1 of x (rows with ties) and of a row with NaN:
# numpy's argmax and argmin give the first index of the extreme and let NaN
# win, as teval does; select_last_index is the same on the reversed row.
am = np.array([[1.0, 5.0, 5.0, -2.0], [np.nan, 0.0, np.nan, 9.0], [-0.0, 0.0, -1.0, -1.0]],
              dtype=np.float32)
save("am", am)
for name, f in (("arg_max", np.argmax), ("arg_min", np.argmin)):
    first = f(am, axis=1)
    last = am.shape[1] - 1 - f(am[:, ::-1], axis=1)
    save(name + "_indices", first.astype(np.int64))
    save(name + "_last_indices", last.astype(np.int32).reshape(3, 1))
    save(name + "_values", am[np.arange(3), first])

# top_k along axis 1, k = 3: the largest first, equal values by index (a
# stable sort of the negated values; PyTorch's topk gives the same values).
tk = np.array([[3.0, 1.0, 3.0, 7.0, -1.0], [0.5, 0.5, 0.5, 0.5, 0.5], [-4.0, 2.0, -8.0, 1.0, 2.0]],
              dtype=np.float32)
save("tk", tk)
order = np.argsort(-tk, axis=1, kind="stable")[:, :3]
save("top_k_indices", order.astype(np.int64))
save("top_k_values", np.take_along_axis(tk, order, axis=1))
assert (torch.topk(torch.from_numpy(tk), 3, dim=1).values.numpy() == np.take_along_axis(tk, order, axis=1)).all()

# one_hot of indices with out-of-range ones (TensorFlow's OneHot: off
# everywhere), depth 4, the new axis last and first.
oh = np.array([[0, 3], [-1, 4], [2, 1]], dtype=np.int64)
save("oh", oh)
last = (oh[..., None] == np.arange(4)).astype(np.float32) * 2.5 + (oh[..., None] != np.arange(4)) * -1.0
save("one_hot_last", last.astype(np.float32))
save("one_hot_first", np.moveaxis(last, -1, 0).astype(np.float32))

# quantize and dequantize as ONNX's QuantizeLinear and DequantizeLinear
# define them (numpy: float32 division, rint rounds half to even, clip to
# the zero point's type): per tensor to int8, per channel along axis 1 to
# uint8, with ties and values past the range.
qx = np.array([[0.25, -0.25, 0.75, 1.25], [63.9, -64.1, 100.0, -100.0], [2.5, 3.5, -2.5, 0.0]],
              dtype=np.float32)
save("qx", qx)
q_scale = np.array(0.5, dtype=np.float32)
q_zero = np.array(-3, dtype=np.int8)
save("q_scale", q_scale)
save("q_zero", q_zero)
save("quantize", np.clip(np.rint(qx / q_scale) + np.float32(q_zero), -128, 127).astype(np.int8))
c_scale = np.array([0.5, 0.25, 2.0, 1.0], dtype=np.float32)
c_zero = np.array([128, 0, 255, 10], dtype=np.uint8)
save("qc_scale", c_scale)
save("qc_zero", c_zero)
qc = np.clip(np.rint(qx / c_scale) + c_zero.astype(np.float32), 0, 255).astype(np.uint8)
save("quantize_channel", qc)
save("dequantize_channel", ((qc.astype(np.int32) - c_zero.astype(np.int32)).astype(np.float32) * c_scale))

# resize of a 1x1x3x4 image to 1x1x5x7 (target sizes) as PyTorch's
# interpolate computes it: nearest (asymmetric, floor), bilinear with
# align_corners (align_corners) and without (pytorch_half_pixel).
rx = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4) * np.float32(1.5) - np.float32(4.0)
rx[0, 0, 1, 2] = 20.0
save("rx", rx)
trx = torch.from_numpy(rx)
F = torch.nn.functional
save("resize_nearest", F.interpolate(trx, size=(5, 7), mode="nearest").numpy())
save("resize_align_corners", F.interpolate(trx, size=(5, 7), mode="bilinear", align_corners=True).numpy())
save("resize_pytorch_half_pixel",
     F.interpolate(trx, size=(5, 7), mode="bilinear", align_corners=False).numpy())
