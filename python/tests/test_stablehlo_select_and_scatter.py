"""StableHLO select_and_scatter (docs/SEMANTICS.md, "StableHLO's
select_and_scatter"): against the specification's definition written as a
plain loop here, and against torch's max-pooling gradient (select GE,
scatter add: the gradient goes to each window's first largest element).
Interpreter only: ireval and the JIT decline the op."""

import itertools

import numpy as np
import pytest
import torch

from test_stablehlo import assert_bits, lower_reports, rng, run, tensor_type


def reference(x, source, init, window, strides, pad_low, select, scatter):
    """The spec's meaning: per source index in row-major order, the window's
    in-bounds elements in row-major order, the first kept unless select of
    (kept, current) is false; then result[kept] = scatter(scatter(init,
    source), result[kept])."""
    result = np.full(x.shape, init, x.dtype)
    for s in itertools.product(*[range(n) for n in source.shape]):
        kept = None
        for w in itertools.product(*[range(n) for n in window]):
            i = tuple(s[d] * strides[d] + w[d] - pad_low[d] for d in range(x.ndim))
            if any(i[d] < 0 or i[d] >= x.shape[d] for d in range(x.ndim)):
                continue
            if kept is None or not select(x[kept], x[i]):
                kept = i
        if kept is not None:
            result[kept] = scatter(scatter(x.dtype.type(init), source[s]), result[kept])
    return result


def function(x, source, init_text, window, strides, padding, direction, scatter_op, generic):
    t, st = tensor_type(x), tensor_type(source)
    e = tensor_type(np.zeros((), x.dtype))
    pad = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    if generic:
        attrs = (f"{{padding = dense<[{pad}]> : tensor<{len(padding)}x2xi64>, "
                 f"window_dimensions = array<i64: {', '.join(map(str, window))}>, "
                 f"window_strides = array<i64: {', '.join(map(str, strides))}>}}")
        return (f"  %init = stablehlo.constant dense<{init_text}> : {e}\n"
                f"  %0 = \"stablehlo.select_and_scatter\"(%arg0, %arg1, %init) ({{\n"
                f"  ^bb0(%a: {e}, %b: {e}):\n"
                f"    %p = stablehlo.compare {direction}, %a, %b : ({e}, {e}) -> tensor<i1>\n"
                f"    stablehlo.return %p : tensor<i1>\n"
                f"  }}, {{\n"
                f"  ^bb0(%a: {e}, %b: {e}):\n"
                f"    %s = stablehlo.{scatter_op} %a, %b : {e}\n"
                f"    stablehlo.return %s : {e}\n"
                f"  }}) {attrs} : ({t}, {st}, {e}) -> {t}\n"
                f"  return %0 : {t}")
    return (f"  %init = stablehlo.constant dense<{init_text}> : {e}\n"
            f"  %0 = \"stablehlo.select_and_scatter\"(%arg0, %arg1, %init) ({{\n"
            f"  ^bb0(%a: {e}, %b: {e}):\n"
            f"    %p = \"stablehlo.compare\"(%a, %b) {{comparison_direction = "
            f"#stablehlo<comparison_direction {direction}>}} : ({e}, {e}) -> tensor<i1>\n"
            f"    \"stablehlo.return\"(%p) : (tensor<i1>) -> ()\n"
            f"  }}, {{\n"
            f"  ^bb0(%a: {e}, %b: {e}):\n"
            f"    %s = \"stablehlo.{scatter_op}\"(%a, %b) : ({e}, {e}) -> {e}\n"
            f"    \"stablehlo.return\"(%s) : ({e}) -> ()\n"
            f"  }}) {{window_dimensions = array<i64: {', '.join(map(str, window))}>, "
            f"window_strides = array<i64: {', '.join(map(str, strides))}>, "
            f"padding = dense<[{pad}]> : tensor<{len(padding)}x2xi64>}} : ({t}, {st}, {e}) -> {t}\n"
            f"  return %0 : {t}")


def windows(shape, window, strides, padding):
    out = []
    for n, w, s, (lo, hi) in zip(shape, window, strides, padding):
        padded = lo + n + hi
        out.append(0 if padded <= 0 or w > padded else (padded - w) // s + 1)
    return tuple(out)


SELECT = {"GE": lambda a, b: a >= b, "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b}
SCATTER = {"add": lambda a, b: a + b, "maximum": max, "multiply": lambda a, b: a * b}


@pytest.mark.parametrize("generic", [False, True])
def test_random_windows_against_the_definition(tmp_path, generic):
    r = rng(5)
    for case in range(12):
        rank = 1 + case % 3
        shape = tuple(int(n) for n in r.integers(1, 6, rank))
        window = [int(r.integers(1, 4)) for _ in range(rank)]
        strides = [int(r.integers(1, 3)) for _ in range(rank)]
        padding = [(int(r.integers(0, 2)), int(r.integers(0, 2))) for _ in range(rank)]
        source_shape = windows(shape, window, strides, padding)
        dtype = [np.float32, np.int32, np.float64][case % 3]
        x = r.integers(-4, 5, shape).astype(dtype)  # ties: the order decides
        source = r.integers(-3, 4, source_shape).astype(dtype)
        direction = list(SELECT)[case % 3]
        scatter = list(SCATTER)[case % 3]
        init = 1 if scatter == "multiply" else -2
        body = function(x, source, str(init), window, strides, padding, direction, scatter,
                        generic)
        status, got, err = run(tmp_path, body, [x, source], tensor_type(x), "interp")
        assert status == 0, (case, err)
        want = reference(x, source, init, window, strides, [p[0] for p in padding],
                         SELECT[direction], SCATTER[scatter])
        assert_bits(got, want)


def test_max_pool_gradient_against_torch(tmp_path):
    """select GE, scatter add, init 0: the gradient of a 3x3 stride-2 max
    pool over a 1x2x7x9 input (NCHW), as torch computes it."""
    x = rng(6).standard_normal((1, 2, 7, 9)).astype(np.float32)
    grad = rng(7).standard_normal((1, 2, 3, 4)).astype(np.float32)
    body = function(x, grad, "0.0", [1, 1, 3, 3], [1, 1, 2, 2], [(0, 0)] * 4, "GE", "add", False)
    status, got, err = run(tmp_path, body, [x, grad], tensor_type(x), "interp")
    assert status == 0, err
    # float32 throughout: an element in two windows sums its gradients in
    # window order, as teval does.
    xt = torch.tensor(x, requires_grad=True)
    torch.nn.functional.max_pool2d(xt, 3, stride=2).backward(torch.tensor(grad))
    assert_bits(got, xt.grad.numpy())


@pytest.mark.parametrize("engine", ["ireval", "jit"])
def test_kernel_engines_run_it_natively(tmp_path, engine):
    x = np.array([3.0, 1.0, 0.5, 4.0], np.float32)
    source = np.array([2.0, 5.0], np.float32)
    body = function(x, source, "0.0", [2], [2], [(0, 0)], "GE", "add", False)
    status, got, err = run(tmp_path, body, [x, source], tensor_type(x), engine)
    assert status == 0, err
    assert_bits(got, np.array([2.0, 0.0, 0.0, 5.0], np.float32))  # each window's maximum
    assert lower_reports(tmp_path,
                         "select_and_scatter (its select and scatter functions are regions)")


def test_errors(tmp_path):
    x = np.arange(6, dtype=np.float32)
    source = np.ones(2, np.float32)
    cases = [
        (function(x, np.ones(4, np.float32), "0.0", [2], [2], [(0, 0)], "GE", "add", False),
         [x, np.ones(4, np.float32)], "(C2)"),
        (function(x, source, "0.0", [2, 1], [3], [(0, 0)], "GE", "add", False), [x, source],
         "has 2 values; an operand of rank 1 needs 1"),
        (function(x, source, "0.0", [0], [3], [(0, 0)], "GE", "add", False), [x, source],
         "must be in [1, 2^31), not 0"),
    ]
    for body, inputs, message in cases:
        status, _, err = run(tmp_path, body, inputs, tensor_type(x), "interp")
        assert status == 1 and message in err, (message, err)
