#!/usr/bin/python3
"""Inputs and torch references for the graphs of this directory, computed
with torch.nn.functional and never with teval. Writes data/NAME.npz (the
inputs arg0, arg1, ...; torch's float32 results result0, ... and its
float64 results ref_result0, ...; torch's float32 values of named
intermediate values, as `value:%name` keys) for each graph; run it after
changing a graph, and commit what it writes:

    /usr/bin/python3 tests/graphs/make_references.py

python/tests/test_graphs.py runs each graph on every engine and judges
it against these: teval's results are close to torch's float64 ones, and
`teval check` accepts torch's float32 results (and intermediate values)
as legal results, as a user checking a compiler's output would.
"""

import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")


def normal(r, *shape, scale=1.0):
    return (r.standard_normal(shape) * scale).astype(np.float32)


def bert_layer_inputs(r):
    x = normal(r, 2, 8, 32)
    mask = np.ones((2, 8), np.float32)
    mask[1, 5:] = 0  # the second sequence is padded after 5 tokens
    args = [x, mask]
    for _ in range(4):  # q, k, v, output projections
        args += [normal(r, 32, 32, scale=0.18), normal(r, 32, scale=0.1)]
    args += [1 + normal(r, 32, scale=0.1), normal(r, 32, scale=0.1)]
    args += [normal(r, 64, 32, scale=0.18), normal(r, 64, scale=0.1)]
    args += [normal(r, 32, 64, scale=0.125), normal(r, 32, scale=0.1)]
    args += [1 + normal(r, 32, scale=0.1), normal(r, 32, scale=0.1)]
    return args


def bert_layer(t):
    x, mask, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1, b1, w2, b2, g2, be2 = t

    def heads(y):
        return y.reshape(2, 8, 2, 16).transpose(1, 2)

    q, k, v = (heads(F.linear(x, w, b)) for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    logits = q @ k.transpose(2, 3) / 4.0 + ((1.0 - mask) * -10000.0)[:, None, None, :]
    probs = torch.softmax(logits, dim=3)
    ctx = (probs @ v).transpose(1, 2).reshape(2, 8, 32)
    h = F.layer_norm(F.linear(ctx, wo, bo) + x, (32,), g1, be1, eps=1e-12)
    ffn = F.linear(F.gelu(F.linear(h, w1, b1)), w2, b2)
    out = F.layer_norm(ffn + h, (32,), g2, be2, eps=1e-12)
    return [out], {"%probs": probs, "%h": h}


def gpt_block_inputs(r):
    idx = r.integers(0, 50, size=(2, 8)).astype(np.int64)
    args = [idx, normal(r, 50, 32, scale=0.5), normal(r, 16, 32, scale=0.5)]
    args += [1 + normal(r, 32, scale=0.1), normal(r, 32, scale=0.1)]
    args += [normal(r, 96, 32, scale=0.18), normal(r, 96, scale=0.1)]
    args += [normal(r, 32, 32, scale=0.18), normal(r, 32, scale=0.1)]
    args += [1 + normal(r, 32, scale=0.1), normal(r, 32, scale=0.1)]
    args += [normal(r, 128, 32, scale=0.18), normal(r, 128, scale=0.1)]
    args += [normal(r, 32, 128, scale=0.09), normal(r, 32, scale=0.1)]
    args += [1 + normal(r, 32, scale=0.1), normal(r, 32, scale=0.1)]
    return args


def gpt_block(t):
    (idx, wte, wpe, ln1_g, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_g, ln2_b, fc_w, fc_b,
     fc2_w, fc2_b, lnf_g, lnf_b) = t
    x = (wte[idx] + wpe[:8]).reshape(16, 32)
    qkv = F.linear(F.layer_norm(x, (32,), ln1_g, ln1_b, eps=1e-5), attn_w, attn_b)

    def heads(y):
        return y.reshape(2, 8, 2, 16).transpose(1, 2)

    q, k, v = (heads(y) for y in qkv.split(32, dim=1))
    att = q @ k.transpose(2, 3) * 0.25
    causal = torch.tril(torch.ones(8, 8, dtype=torch.bool))
    att = att.masked_fill(~causal, float("-inf"))
    probs = torch.softmax(att, dim=3)
    y = (probs @ v).transpose(1, 2).reshape(16, 32)
    x1 = x + F.linear(y, proj_w, proj_b)
    up = F.linear(F.layer_norm(x1, (32,), ln2_g, ln2_b, eps=1e-5), fc_w, fc_b)
    gelu = 0.5 * up * (1.0 + torch.tanh(0.797884583 * (up + 0.044715 * torch.pow(up, 3.0))))
    x2 = x1 + F.linear(gelu, fc2_w, fc2_b)
    logits = F.layer_norm(x2, (32,), lnf_g, lnf_b, eps=1e-5) @ wte.T
    return [logits.reshape(2, 8, 50)], {"%probs": probs, "%x1": x1}


def conv_net_inputs(r):
    args = [normal(r, 2, 3, 12, 12), normal(r, 8, 3, 3, 3, scale=0.3)]
    args += [1 + normal(r, 8, scale=0.1), normal(r, 8, scale=0.1), normal(r, 8, scale=0.1),
             (0.5 + r.random(8)).astype(np.float32)]
    args += [normal(r, 8, 1, 3, 3, scale=0.4), normal(r, 8, scale=0.1),
             normal(r, 16, 8, 1, 1, scale=0.35)]
    args += [normal(r, 10, 16, scale=0.25), normal(r, 10, scale=0.1)]
    return args


def conv_net(t):
    x, w1, scale, offset, mean, var, w2, b2, w3, fc_w, fc_b = t
    bn = F.batch_norm(F.conv2d(x, w1, padding=1), mean, var, scale, offset, training=False,
                      eps=9.99999974e-6)
    pool = F.max_pool2d(F.relu(bn), 2)
    r2 = torch.clamp(F.conv2d(pool, w2, b2, padding=1, groups=8), 0.0, 6.0)
    features = F.conv2d(r2, w3, stride=2).mean(dim=(2, 3))
    logp = F.log_softmax(F.linear(features, fc_w, fc_b), dim=1)
    return [logp, features], {"%bn": bn, "%pool": pool}


GRAPHS = {
    "bert_layer": (bert_layer_inputs, bert_layer, 101),
    "gpt_block": (gpt_block_inputs, gpt_block, 102),
    "conv_net": (conv_net_inputs, conv_net, 103),
}


def main():
    os.makedirs(DATA, exist_ok=True)
    torch.set_num_threads(1)
    for name, (make_inputs, compute, seed) in GRAPHS.items():
        args = make_inputs(np.random.default_rng(seed))
        arrays = {f"arg{i}": a for i, a in enumerate(args)}
        for dtype, prefix in ((torch.float32, ""), (torch.float64, "ref_")):
            tensors = [torch.from_numpy(a) if a.dtype.kind != "f" else
                       torch.from_numpy(a).to(dtype) for a in args]
            with torch.no_grad():
                results, values = compute(tensors)
            for i, res in enumerate(results):
                arrays[f"{prefix}result{i}"] = res.numpy()
            if not prefix:
                for value, v in values.items():
                    arrays[f"value:{value}"] = v.numpy()
        np.savez(os.path.join(DATA, name + ".npz"), **arrays)
        print(name, ", ".join(f"{k} {v.dtype}{list(v.shape)}" for k, v in arrays.items()
                              if not k.startswith("arg")))


if __name__ == "__main__":
    main()
