"""batch_norm_inference, batch_norm_training and batch_norm_grad (StableHLO
specification, the sections of the same names), which the specification
defines as compositions of other ops: the expected values are those
compositions written in numpy (one rounding per operation, in the element
type), the specification's examples, and torch's batch norm."""

import json
import subprocess

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, teval, tensor_type


def run_all(tmp_path, body, inputs, results, engine, *extra):
    """Runs `func.func @main(args) -> (results) { body }`; returns (exit
    status, [result0, ...] or None, stderr)."""
    args = ", ".join(f"%arg{i}: {tensor_type(a)}" for i, a in enumerate(inputs))
    src = tmp_path / "f.mlir"
    src.write_text(f"func.func @main({args}) -> ({', '.join(results)}) {{\n{body}\n}}\n")
    out = tmp_path / f"out-{engine}"
    command = [teval(), "run", str(src), "--engine", engine, "-o", str(out)] + list(extra)
    for i, a in enumerate(inputs):
        np.save(tmp_path / f"arg{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'arg{i}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        return done.returncode, None, done.stderr
    return 0, [np.load(out / f"result{i}.npy") for i in range(len(results))], done.stderr


def bcast(v, x, feature):
    shape = [1] * x.ndim
    shape[feature] = -1
    return v.reshape(shape)


def others(x, feature):
    return tuple(d for d in range(x.ndim) if d != feature)


def inference(x, scale, offset, mean, variance, epsilon, feature):
    """The specification's composition, each operation rounded to x's dtype."""
    t = x.dtype.type
    eps = t(np.float32(epsilon))
    centered = x - bcast(mean, x, feature)
    stddev = np.sqrt(bcast(variance, x, feature) + eps)
    return bcast(scale, x, feature) * (centered / stddev) + bcast(offset, x, feature)


def exact_mean(x, feature):
    """The sum (exact for these inputs, in any order) over the count."""
    t = x.dtype.type
    count = x.size // x.shape[feature]
    return (x.astype(np.float64).sum(axis=others(x, feature)).astype(x.dtype) / t(count))


def quarters(r, shape, dtype):
    """Multiples of 1/4 in [-4, 4] (float16: integers in [-1, 1]): over
    eight elements, their sums, means, centred squares and the sums of
    those are exact in any order."""
    if dtype == np.float16:
        return r.integers(-1, 2, size=shape).astype(dtype)
    return (r.integers(-16, 17, size=shape) / 4).astype(dtype)


SPEC_X = np.array([[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]])
ONES = np.array([1.0, 1.0])
T3, T1 = "tensor<2x2x2xf64>", "tensor<2xf64>"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_specifications_examples(tmp_path, engine):
    mean, grad_output = np.array([2.0, 3.0]), np.full((2, 2, 2), 0.1)
    body = (f'  %r = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg2, %arg3, %arg1) '
            f'{{epsilon = 0.0 : f32, feature_index = 2 : i64}} : ({T3}, {T1}, {T1}, {T1}, {T1}) -> {T3}\n'
            f'  %t:3 = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg2) {{epsilon = 0.0 : f32, '
            f'feature_index = 2 : i64}} : ({T3}, {T1}, {T1}) -> ({T3}, {T1}, {T1})\n'
            f'  %a, %b, %c = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg3, %arg1, %arg4) '
            f'{{epsilon = 0.0 : f32, feature_index = 2 : i64}} : ({T3}, {T1}, {T1}, {T1}, {T3}) -> '
            f'({T3}, {T1}, {T1})\n'
            f'  return %r, %t#0, %t#1, %t#2, %a, %b, %c : {T3}, {T3}, {T1}, {T1}, {T3}, {T1}, {T1}')
    status, got, err = run_all(tmp_path, body, [SPEC_X, ONES, ONES, mean, grad_output],
                               [T3, T3, T1, T1, T3, T1, T1], engine)
    assert status == 0, err
    normalized = np.array([[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]])
    assert_bits(got[0], normalized)
    assert_bits(got[1], normalized)
    assert_bits(got[2], np.array([2.0, 3.0]))
    assert_bits(got[3], np.array([1.0, 1.0]))
    assert_bits(got[4], np.zeros((2, 2, 2)))
    assert_bits(got[5], np.zeros(2))
    assert np.allclose(got[6], [0.4, 0.4], rtol=1e-15)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype,feature", [(np.float32, 1), (np.float32, 0), (np.float16, 3),
                                           (np.float64, 2)])
def test_inference_is_its_composition(tmp_path, engine, dtype, feature):
    r = rng(40 + feature)
    shape = [2, 3, 4, 5]
    x = r.standard_normal(shape).astype(dtype)
    c = shape[feature]
    scale, offset, mean = (r.standard_normal(c).astype(dtype) for _ in range(3))
    variance = r.uniform(0.1, 2.0, c).astype(dtype)
    ty, tv = tensor_type(x), tensor_type(scale)
    body = (f"  %0 = \"stablehlo.batch_norm_inference\"(%arg0, %arg1, %arg2, %arg3, %arg4) "
            f"{{epsilon = 1.000000e-03 : f32, feature_index = {feature} : i64}} : "
            f"({ty}, {tv}, {tv}, {tv}, {tv}) -> {ty}\n  return %0 : {ty}")
    status, got, err = run_all(tmp_path, body, [x, scale, offset, mean, variance], [ty], engine)
    assert status == 0, err
    assert_bits(got[0], inference(x, scale, offset, mean, variance, 1e-3, feature))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_training_normalizes_by_the_batch_statistics(tmp_path, engine, dtype):
    r = rng(50)
    x = quarters(r, (4, 3, 2), dtype)  # 8 elements per feature: exact means
    scale, offset = quarters(r, 3, dtype), quarters(r, 3, dtype)
    ty, tv = tensor_type(x), tensor_type(scale)
    body = (f"  %0:3 = \"stablehlo.batch_norm_training\"(%arg0, %arg1, %arg2) "
            f"{{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}} : ({ty}, {tv}, {tv}) -> "
            f"({ty}, {tv}, {tv})\n  return %0#0, %0#1, %0#2 : {ty}, {tv}, {tv}")
    status, got, err = run_all(tmp_path, body, [x, scale, offset], [ty, tv, tv], engine)
    assert status == 0, err
    mean = exact_mean(x, 1)
    centered = x - bcast(mean, x, 1)
    variance = exact_mean(centered * centered, 1)
    assert_bits(got[1], mean)
    assert_bits(got[2], variance)
    assert_bits(got[0], inference(x, scale, offset, mean, variance, 1e-5, 1))


def test_training_and_grad_agree_with_torch(tmp_path):
    torch = pytest.importorskip("torch")
    r = rng(51)
    x = r.standard_normal((3, 4, 5)).astype(np.float64)
    scale, offset = r.standard_normal(4), r.standard_normal(4)
    grad_output = r.standard_normal((3, 4, 5))
    ty, tv = tensor_type(x), tensor_type(scale)
    body = (f"  %t:3 = \"stablehlo.batch_norm_training\"(%arg0, %arg1, %arg2) "
            f"{{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}} : ({ty}, {tv}, {tv}) -> "
            f"({ty}, {tv}, {tv})\n"
            f"  %g:3 = \"stablehlo.batch_norm_grad\"(%arg0, %arg1, %t#1, %t#2, %arg3) "
            f"{{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}} : "
            f"({ty}, {tv}, {tv}, {tv}, {ty}) -> ({ty}, {tv}, {tv})\n"
            f"  return %t#0, %g#0, %g#1, %g#2 : {ty}, {ty}, {tv}, {tv}")
    status, got, err = run_all(tmp_path, body, [x, scale, offset, grad_output], [ty, ty, tv, tv],
                               "interp")
    assert status == 0, err
    eps = float(np.float32(1e-5))
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(scale, requires_grad=True)
    tb = torch.tensor(offset, requires_grad=True)
    out = torch.nn.functional.batch_norm(tx, None, None, tw, tb, training=True, eps=eps)
    out.backward(torch.tensor(grad_output))
    assert np.allclose(got[0], out.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert np.allclose(got[1], tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert np.allclose(got[2], tw.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert np.allclose(got[3], tb.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_the_composition_is_checked_and_dumped_as_its_ops(tmp_path):
    r = rng(52)
    x = r.standard_normal((2, 3, 4)).astype(np.float32)
    scale, offset, mean = (r.standard_normal(3).astype(np.float32) for _ in range(3))
    variance = r.uniform(0.5, 1.5, 3).astype(np.float32)
    ty, tv = tensor_type(x), tensor_type(scale)
    body = (f"  %bn = \"mhlo.batch_norm_inference\"(%arg0, %arg1, %arg2, %arg3, %arg4) "
            f"{{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}} : "
            f"({ty}, {tv}, {tv}, {tv}, {tv}) -> {ty}\n  return %bn : {ty}")
    status, got, err = run_all(tmp_path, body, [x, scale, offset, mean, variance], [ty], "interp",
                               "--dump-values", str(tmp_path / "values"))
    assert status == 0, err
    values = json.loads((tmp_path / "values" / "values.json").read_text())["values"]
    names = [v["name"] for v in values]
    for inner in ["%bn/centered_operand", "%bn/stddev", "%bn/normalized_operand", "%bn"]:
        assert inner in names, names
    # The composition in numpy is the exact result; a candidate 0.1% off one
    # element's is not a legal one.
    want = inference(x, scale, offset, mean, variance, 1e-3, 1)
    wrong = want.copy()
    wrong[1, 2, 3] *= np.float32(1.001)
    for candidate, status, verdict in [(want, 0, "result0: exact"), (wrong, 1, "mismatch")]:
        np.save(tmp_path / "cand.npy", candidate)
        command = [teval(), "check", str(tmp_path / "f.mlir"), "--candidate",
                   f"result0={tmp_path / 'cand.npy'}"]
        for i in range(5):
            command += ["-i", f"arg{i}={tmp_path / f'arg{i}.npy'}"]
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == status and verdict in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("op,operands,attrs,message", [
    ("batch_norm_inference", "tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, "
     "tensor<3xi32>", "feature_index = 1 : i64", "takes floating-point tensors"),
    ("batch_norm_inference", "tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, "
     "tensor<3xf32>", "feature_index = 2 : i64", "feature_index 2 is not a dimension"),
    ("batch_norm_inference", "tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>, "
     "tensor<3xf32>", "feature_index = 1 : i64", "operand 1 is tensor<2xf32>; it must be"),
    ("batch_norm_training", "tensor<2x3xf32>, tensor<3xf32>", "feature_index = 1 : i64",
     "takes 3 operands, not 2"),
    ("batch_norm_inference", "tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, "
     "tensor<3xf32>", "feature_index = 1 : i64, momentum = 1.0 : f32", "momentum"),
])
def test_errors_are_located(tmp_path, op, operands, attrs, message):
    types = operands.split(", ")
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(types))
    names = ", ".join(f"%arg{i}" for i in range(len(types)))
    src = tmp_path / "f.mlir"
    src.write_text(f"func.func @main({args}) -> {types[0]} {{\n"
                   f"  %0 = \"stablehlo.{op}\"({names}) {{epsilon = 1.0e-5 : f32, {attrs}}} : "
                   f"({operands}) -> {types[0]}\n  return %0 : {types[0]}\n}}\n")
    done = subprocess.run([teval(), "run", str(src)], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "f.mlir:2:" in done.stderr and "^" in done.stderr, done.stderr
    assert message in done.stderr, done.stderr
