"""stablehlo.convolution (StableHLO specification, "convolution";
docs/SEMANTICS.md, "StableHLO's contractions") on every engine, against the
specification's definition written out here with numpy (pad, windows,
reversal, the dot product in teval's documented order, groups by split and
concatenate) and against torch's conv2d."""

import re
import subprocess

import numpy as np
import pytest
import torch

from test_stablehlo import ENGINES, assert_bits, teval, tensor_type as mlir_type


def pad_dilate(x, axis, low, high, dilation):
    """pad() of one spatial axis: interior padding dilation - 1, edge
    padding low and high (negative: cropping)."""
    n = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = 0 if n == 0 else (n - 1) * dilation + 1
    out = np.zeros(shape, x.dtype)
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, dilation)
    out[tuple(index)] = x
    if low >= 0:
        widths = [(0, 0)] * x.ndim
        widths[axis] = (low, 0)
        out = np.pad(out, widths)
    else:
        out = np.take(out, range(-low, out.shape[axis]), axis=axis)
    if high >= 0:
        widths = [(0, 0)] * x.ndim
        widths[axis] = (0, high)
        out = np.pad(out, widths)
    else:
        out = np.take(out, range(0, out.shape[axis] + high), axis=axis)
    return out


def reference(lhs, rhs, c, out_dtype):
    """The specification's convolution, sums in teval's order (the kernel's
    spatial positions row-major, then its input features), each operation
    rounded to out_dtype."""
    dn = c["dn"]
    if c["fgc"] > 1 or c["bgc"] > 1:
        groups = max(c["fgc"], c["bgc"])
        lhs_axis = dn["if"] if c["fgc"] > 1 else dn["ib"]
        parts = zip(np.split(lhs, groups, axis=lhs_axis), np.split(rhs, groups, axis=dn["ko"]))
        one = dict(c, fgc=1, bgc=1)
        return np.concatenate([reference(l, r, one, out_dtype) for l, r in parts], axis=dn["of"])
    spatial = len(dn["isp"])
    x = np.transpose(lhs, [dn["ib"]] + dn["isp"] + [dn["if"]]).astype(out_dtype)
    w = np.transpose(rhs, dn["ksp"] + [dn["ki"], dn["ko"]]).astype(out_dtype)
    for s in range(spatial):
        x = pad_dilate(x, 1 + s, c["pad"][s][0], c["pad"][s][1], c["lhs_dil"][s])
    kernel = w.shape[:spatial]
    windows = []
    for s in range(spatial):
        extent = 0 if kernel[s] == 0 else (kernel[s] - 1) * c["rhs_dil"][s] + 1
        padded = x.shape[1 + s]
        windows.append(0 if padded == 0 or extent > padded
                       else (padded - extent) // c["strides"][s] + 1)
    out = np.zeros([x.shape[0]] + windows + [w.shape[-1]], out_dtype)
    for n in range(out.shape[0]):
        for y in np.ndindex(*windows):
            for o in range(out.shape[-1]):
                acc = out_dtype(0)
                for k in np.ndindex(*kernel):
                    at = []
                    for s in range(spatial):
                        kk = kernel[s] - 1 - k[s] if c["rev"][s] else k[s]
                        at.append(y[s] * c["strides"][s] + kk * c["rhs_dil"][s])
                    for i in range(w.shape[-2]):
                        acc = out_dtype(acc + x[(n, *at, i)] * w[(*k, i, o)])
                out[(n, *y, o)] = acc
    # [n, spatial..., o] back to the output layout.
    order = [dn["ob"]] + dn["osp"] + [dn["of"]]
    return np.transpose(out, np.argsort(order))


def letters(ib, feat, sp, batch_letter, feature_letter):
    items = [None] * (len(sp) + 2)
    items[ib], items[feat] = batch_letter, feature_letter
    for s, d in enumerate(sp):
        items[d] = str(s)
    return "[" + ", ".join(items) + "]"


def program(c, lhs, rhs, result_type, pretty):
    dn = c["dn"]
    numbers = (letters(dn["ib"], dn["if"], dn["isp"], "b", "f") + "x" +
               letters(dn["ki"], dn["ko"], dn["ksp"], "i", "o") + "->" +
               letters(dn["ob"], dn["of"], dn["osp"], "b", "f"))
    types = f"({mlir_type(lhs)}, {mlir_type(rhs)}) -> {result_type}"
    groups = (f"feature_group_count = {c['fgc']} : i64, "
              f"batch_group_count = {c['bgc']} : i64")
    bools = ", ".join("true" if r else "false" for r in c["rev"])
    if pretty:
        window = (f"stride = {c['strides']}, pad = {[list(p) for p in c['pad']]}, "
                  f"lhs_dilate = {c['lhs_dil']}, rhs_dilate = {c['rhs_dil']}, reverse = [{bools}]")
        op = (f"%r = stablehlo.convolution(%a, %b) dim_numbers = {numbers}, "
              f"window = {{{window}}} {{{groups}}} : {types}")
    else:
        ints = lambda v: "array<i64" + (": " + ", ".join(map(str, v)) if v else "") + ">"
        spatial = len(c["strides"])
        pads = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in c["pad"]) + "]" if spatial else "0"
        op = (f'%r = "stablehlo.convolution"(%a, %b) {{window_strides = {ints(c["strides"])}, '
              f'padding = dense<{pads}> : tensor<{spatial}x2xi64>, '
              f'lhs_dilation = {ints(c["lhs_dil"])}, rhs_dilation = {ints(c["rhs_dil"])}, '
              f'window_reversal = array<i1' + (f": {bools}" if spatial else "") + '>, '
              f'dimension_numbers = #stablehlo.conv<{numbers}>, {groups}}} : {types}')
    return (f"func.func @main(%a: {mlir_type(lhs)}, %b: {mlir_type(rhs)}) -> {result_type} {{\n"
            f"  {op}\n  return %r : {result_type}\n}}\n")


def run(tmp_path, text, inputs, engine, expect_ok=True):
    (tmp_path / "conv.mlir").write_text(text)
    command = [teval(), "run", str(tmp_path / "conv.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out")]
    for i, a in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'in{i}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if not expect_ok:
        return done
    assert done.returncode == 0, text + done.stderr
    return np.load(tmp_path / "out" / "result0.npy")


def random_case(rng):
    spatial = int(rng.integers(0, 3))
    rank = spatial + 2
    perm = lambda: [int(v) for v in rng.permutation(rank)]
    pi, pk, po = perm(), perm(), perm()
    dn = {"ib": pi[0], "if": pi[1], "isp": pi[2:], "ki": pk[0], "ko": pk[1], "ksp": pk[2:],
          "ob": po[0], "of": po[1], "osp": po[2:]}
    fgc = int(rng.integers(2, 4)) if rng.random() < 0.25 else 1
    bgc = 2 if fgc == 1 and rng.random() < 0.25 else 1
    kin = int(rng.integers(1, 4))
    kout = fgc * bgc * int(rng.integers(1, 3))
    c = {"dn": dn, "fgc": fgc, "bgc": bgc, "strides": [], "pad": [], "lhs_dil": [],
         "rhs_dil": [], "rev": []}
    ls, rs = [0] * rank, [0] * rank
    ls[dn["ib"]], ls[dn["if"]] = bgc * int(rng.integers(1, 3)), fgc * kin
    rs[dn["ki"]], rs[dn["ko"]] = kin, kout
    for s in range(spatial):
        x, k = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        ld, rd = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        lo, hi = int(rng.integers(-1, 3)), int(rng.integers(-1, 3))
        if (x - 1) * ld + 1 + lo + hi < 0:
            lo = hi = 0
        ls[dn["isp"][s]], rs[dn["ksp"][s]] = x, k
        c["strides"].append(int(rng.integers(1, 4)))
        c["pad"].append((lo, hi))
        c["lhs_dil"].append(ld)
        c["rhs_dil"].append(rd)
        c["rev"].append(bool(rng.random() < 0.3))
    return c, ls, rs


@pytest.mark.parametrize("engine", ENGINES)
def test_the_specifications_example(tmp_path, engine):
    lhs = np.array([[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[10], [11], [14], [15]],
                     [[12], [13], [16], [17]]]], np.int64)
    rhs = np.ones((3, 3, 1, 1), np.int64)
    c = {"dn": {"ib": 0, "if": 3, "isp": [1, 2], "ki": 2, "ko": 3, "ksp": [0, 1], "ob": 0,
                "of": 3, "osp": [1, 2]}, "fgc": 1, "bgc": 1, "strides": [4, 4],
         "pad": [(0, 0), (0, 0)], "lhs_dil": [2, 2], "rhs_dil": [1, 1], "rev": [False, False]}
    want = np.array([[[[10], [26]], [[46], [62]]]], np.int64)
    for pretty in [True, False]:
        got = run(tmp_path, program(c, lhs, rhs, "tensor<1x2x2x1xi64>", pretty), [lhs, rhs],
                  engine)
        assert_bits(got, want)
    assert_bits(reference(lhs, rhs, c, np.int64), want)


@pytest.mark.parametrize("engine", ENGINES)
def test_random_convolutions_are_the_specifications(tmp_path, engine):
    rng = np.random.default_rng(2024)
    for case in range(25):
        c, ls, rs = random_case(rng)
        lhs = rng.standard_normal(ls).astype(np.float32)
        rhs = rng.standard_normal(rs).astype(np.float32)
        want = reference(lhs, rhs, c, np.float32)
        got = run(tmp_path, program(c, lhs, rhs, mlir_type(want), case % 2 == 0), [lhs, rhs],
                  engine)
        assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_integers_wrap_and_widen(tmp_path, engine):
    rng = np.random.default_rng(7)
    c, ls, rs = random_case(rng)
    while not c["strides"]:
        c, ls, rs = random_case(rng)
    lhs = rng.integers(-128, 128, ls, dtype=np.int8)
    rhs = rng.integers(-128, 128, rs, dtype=np.int8)
    for out in [np.int8, np.int32]:
        with np.errstate(over="ignore"):  # integers wrap
            want = reference(lhs, rhs, c, out)
        got = run(tmp_path, program(c, lhs, rhs, mlir_type(want), True), [lhs, rhs], engine)
        assert_bits(got, want)


def test_torch_conv2d_agrees(tmp_path):
    """NCHW/OIHW in float64, with groups, strides, padding and dilation: as
    torch computes it (a cross-correlation), to float64 rounding."""
    rng = np.random.default_rng(3)
    for groups, stride, padding, dilation in [(1, 1, 0, 1), (2, 2, 1, 1), (3, 1, 2, 2),
                                              (1, 3, 1, 2)]:
        x = rng.standard_normal((2, 3 * groups, 7, 6))
        w = rng.standard_normal((2 * groups, 3, 3, 2))
        want = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride,
                                          padding=padding, dilation=dilation,
                                          groups=groups).numpy()
        c = {"dn": {"ib": 0, "if": 1, "isp": [2, 3], "ki": 1, "ko": 0, "ksp": [2, 3], "ob": 0,
                    "of": 1, "osp": [2, 3]}, "fgc": groups, "bgc": 1,
             "strides": [stride, stride], "pad": [(padding, padding)] * 2,
             "lhs_dil": [1, 1], "rhs_dil": [dilation, dilation], "rev": [False, False]}
        got = run(tmp_path, program(c, x, w, mlir_type(want), False), [x, w], "jit")
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_errors_name_the_constraint(tmp_path):
    x = np.zeros((1, 4, 5, 5), np.float32)
    w = np.zeros((2, 3, 3, 3), np.float32)
    c = {"dn": {"ib": 0, "if": 1, "isp": [2, 3], "ki": 1, "ko": 0, "ksp": [2, 3], "ob": 0,
                "of": 1, "osp": [2, 3]}, "fgc": 1, "bgc": 1, "strides": [1, 1],
         "pad": [(0, 0), (0, 0)], "lhs_dil": [1, 1], "rhs_dil": [1, 1], "rev": [False, False]}
    done = run(tmp_path, program(c, x, w, "tensor<1x2x3x3xf32>", True), [x, w], "interp",
               expect_ok=False)
    assert done.returncode == 1
    assert ("the kernel's input feature extent is 3; the input's 4 features in 1 group(s) "
            "need 4") in done.stderr, done.stderr
    w = np.zeros((2, 4, 3, 3), np.float32)
    done = run(tmp_path, program(c, x, w, "tensor<1x2x4x3xf32>", True), [x, w], "interp",
               expect_ok=False)
    assert done.returncode == 1 and "tensor<1x2x3x3xf32>" in done.stderr, done.stderr
    text = program(c, x, w, "tensor<1x2x3x3xf32>", True).replace("[b, f, 0, 1]x", "[b, f, 0, 0]x")
    done = run(tmp_path, text, [x, w], "interp", expect_ok=False)
    assert done.returncode == 1 and "dimension numbers" in done.stderr, done.stderr
    both = dict(c, fgc=2, bgc=2)
    done = run(tmp_path, program(both, x, w, "tensor<1x2x3x3xf32>", False), [x, w], "interp",
               expect_ok=False)
    assert done.returncode == 1 and "not both above 1" in done.stderr, done.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_dynamic_conv_takes_its_padding_from_a_constant(tmp_path, engine):
    """dynamic_conv is convolution with the padding as a constant operand
    (spec "dynamic_conv"): the same values as the specification's formula."""
    rng = np.random.default_rng(11)
    done = 0
    while done < 6:
        c, ls, rs = random_case(rng)
        spatial = len(c["strides"])
        if not spatial:
            continue
        lhs = rng.standard_normal(ls).astype(np.float32)
        rhs = rng.standard_normal(rs).astype(np.float32)
        want = reference(lhs, rhs, c, np.float32)
        text = program(c, lhs, rhs, mlir_type(want), False)
        pad = re.search(r"padding = (dense<.*?> : tensor<\d+x2xi64>), ", text)
        text = text.replace(pad.group(0), "").replace(
            '%r = "stablehlo.convolution"(%a, %b)',
            f'%p = stablehlo.constant {pad.group(1)}\n  %r = "stablehlo.dynamic_conv"(%a, %b, %p)')
        text = text.replace(f"({mlir_type(lhs)}, {mlir_type(rhs)}) -> {mlir_type(want)}",
                            f"({mlir_type(lhs)}, {mlir_type(rhs)}, tensor<{spatial}x2xi64>) -> "
                            f"{mlir_type(want)}")
        assert_bits(run(tmp_path, text, [lhs, rhs], engine), want)
        done += 1
    # Padding that is not a constant has no static result shape.
    text = ("func.func @main(%a: tensor<1x1x4xf32>, %b: tensor<1x1x2xf32>, %p: tensor<1x2xi64>) "
            "-> tensor<1x1x3xf32> {\n"
            '  %r = "stablehlo.dynamic_conv"(%a, %b, %p) {dimension_numbers = '
            "#stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64, "
            "batch_group_count = 1 : i64} : (tensor<1x1x4xf32>, tensor<1x1x2xf32>, "
            "tensor<1x2xi64>) -> tensor<1x1x3xf32>\n  return %r : tensor<1x1x3xf32>\n}\n")
    done = run(tmp_path, text, [np.zeros((1, 1, 4), np.float32), np.zeros((1, 1, 2), np.float32),
                                np.zeros((1, 2), np.int64)], "interp", expect_ok=False)
    assert done.returncode == 1 and "dynamic_conv's padding is not a constant" in done.stderr
