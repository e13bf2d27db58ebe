"""stablehlo.reduce_window (StableHLO specification, "reduce_window";
docs/SEMANTICS.md, "StableHLO's reduce") on every engine, against the
specification's definition written out with numpy (pad with the initial
value, interior padding for base dilations, strided dilated windows, a
fold in row-major order), and pooling against torch."""

import subprocess

import numpy as np
import pytest
import torch

from test_stablehlo import ENGINES, assert_bits, lower_reports, teval, tensor_type, MLIR_TYPES

BODIES = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum,
          "minimum": np.minimum}


def pad(x, init, low, high, interior):
    """The specification's pad, with negative edge padding cropping."""
    out = x
    for d in range(x.ndim):
        n = out.shape[d]
        shape = list(out.shape)
        shape[d] = 0 if n == 0 else (n - 1) * (interior[d] + 1) + 1
        dilated = np.full(shape, init, x.dtype)
        index = [slice(None)] * x.ndim
        index[d] = slice(None, None, interior[d] + 1)
        dilated[tuple(index)] = out
        for side, amount in [(0, low[d]), (1, high[d])]:
            if amount >= 0:
                widths = [(0, 0)] * x.ndim
                widths[d] = (amount, 0) if side == 0 else (0, amount)
                dilated = np.pad(dilated, widths, constant_values=init)
            else:
                keep = range(-amount, dilated.shape[d]) if side == 0 else range(
                    0, dilated.shape[d] + amount)
                dilated = np.take(dilated, keep, axis=d)
        out = dilated
    return out


def reference(x, init, body, c):
    padded = pad(x, init, [p[0] for p in c["padding"]], [p[1] for p in c["padding"]],
                 [b - 1 for b in c["base"]])
    shape = []
    for d in range(x.ndim):
        extent = (c["window"][d] - 1) * c["dilations"][d] + 1
        n = padded.shape[d]
        shape.append(0 if n == 0 or extent > n else (n - extent) // c["strides"][d] + 1)
    out = np.zeros(shape, x.dtype)
    fold = BODIES[body]
    for y in np.ndindex(*shape):
        acc = x.dtype.type(init)
        for w in np.ndindex(*c["window"]):
            at = tuple(y[d] * c["strides"][d] + w[d] * c["dilations"][d] for d in range(x.ndim))
            acc = x.dtype.type(fold(acc, padded[at]))
        out[y] = acc
    return out


def program(x, init_type, body, c, result):
    ints = lambda v: "array<i64" + (": " + ", ".join(map(str, v)) if v else "") + ">"
    pads = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in c["padding"]) + "]" if x.ndim else "0"
    scalar = f"tensor<{MLIR_TYPES[x.dtype.type]}>"
    return (f"func.func @main(%x: {tensor_type(x)}, %i: {init_type}) -> {tensor_type(result)} {{\n"
            f'  %r = "stablehlo.reduce_window"(%x, %i) ({{\n'
            f"    ^bb0(%a: {scalar}, %b: {scalar}):\n"
            f"      %0 = stablehlo.{body} %a, %b : {scalar}\n"
            f"      stablehlo.return %0 : {scalar}\n"
            f"  }}) {{window_dimensions = {ints(c['window'])}, "
            f"window_strides = {ints(c['strides'])}, base_dilations = {ints(c['base'])}, "
            f"window_dilations = {ints(c['dilations'])}, "
            f"padding = dense<{pads}> : tensor<{x.ndim}x2xi64>}} : "
            f"({tensor_type(x)}, {init_type}) -> {tensor_type(result)}\n"
            f"  return %r : {tensor_type(result)}\n}}\n")


def run(tmp_path, text, inputs, engine):
    (tmp_path / "rw.mlir").write_text(text)
    command = [teval(), "run", str(tmp_path / "rw.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out")]
    for k, a in enumerate(inputs):
        np.save(tmp_path / f"in{k}.npy", a)
        command += ["-i", f"arg{k}={tmp_path / f'in{k}.npy'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    return done, (np.load(tmp_path / "out" / "result0.npy") if done.returncode == 0 else None)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_specifications_example(tmp_path, engine):
    x = np.array([[1, 2], [3, 4], [5, 6]], np.int64)
    c = {"window": [2, 1], "strides": [4, 1], "base": [2, 1], "dilations": [3, 1],
         "padding": [(2, 1), (0, 0)]}
    want = reference(x, 0, "add", c)
    assert want.tolist() == [[0, 0], [3, 4]]
    init = np.array(0, np.int64)
    done, got = run(tmp_path, program(x, "tensor<i64>", "add", c, want), [x, init], engine)
    assert done.returncode == 0, done.stderr
    assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_random_windows_are_the_specifications(tmp_path, engine):
    rng = np.random.default_rng(17)
    for case in range(24):
        rank = int(rng.integers(1, 4))
        shape = [int(rng.integers(0, 6)) for _ in range(rank)]
        c = {"window": [], "strides": [], "base": [], "dilations": [], "padding": []}
        for e in shape:
            c["window"].append(int(rng.integers(1, 4)))
            c["strides"].append(int(rng.integers(1, 3)))
            c["base"].append(int(rng.integers(1, 3)))
            c["dilations"].append(int(rng.integers(1, 3)))
            lo, hi = int(rng.integers(-1, 3)), int(rng.integers(-1, 3))
            dilated = 0 if e == 0 else (e - 1) * c["base"][-1] + 1
            c["padding"].append((lo, hi) if dilated + lo + hi >= 0 else (0, 0))
        body = list(BODIES)[case % 4]
        x = rng.standard_normal(shape).astype(np.float32)
        # An initial value that is not the body's identity shows where the
        # padding is.
        init = np.array([0.5, -1.5, -np.inf, np.inf, 2.0][case % 5], np.float32)
        want = reference(x, init, body, c)
        done, got = run(tmp_path, program(x, "tensor<f32>", body, c, want), [x, init], engine)
        assert done.returncode == 0, done.stderr
        assert_bits(got, want)


def test_max_pooling_is_torchs(tmp_path):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    want = torch.nn.functional.max_pool2d(torch.from_numpy(x), 3, stride=2, padding=1).numpy()
    c = {"window": [1, 1, 3, 3], "strides": [1, 1, 2, 2], "base": [1, 1, 1, 1],
         "dilations": [1, 1, 1, 1], "padding": [(0, 0), (0, 0), (1, 1), (1, 1)]}
    init = np.array(-np.inf, np.float32)
    done, got = run(tmp_path, program(x, "tensor<f32>", "maximum", c, want), [x, init], "jit")
    assert done.returncode == 0, done.stderr
    assert_bits(got, want)


def test_errors_name_the_constraint(tmp_path):
    x = np.zeros((4, 4), np.float32)
    init = np.array(0, np.float32)
    c = {"window": [2, 2], "strides": [1, 1], "base": [1, 1], "dilations": [1, 1],
         "padding": [(0, 0), (0, 0)]}
    good = np.zeros((3, 3), np.float32)
    for change, message in [({"window": [2]}, "`window_dimensions` has 1 values"),
                            ({"strides": [0, 1]}, "`window_strides` must be in [1, 2^31), not 0"),
                            ({"padding": [(-9, 0), (0, 0)]}, "negative padding of dimension 0")]:
        done, _ = run(tmp_path, program(x, "tensor<f32>", "add", dict(c, **change), good),
                      [x, init], "interp")
        assert done.returncode == 1 and message in done.stderr, done.stderr
    done, _ = run(tmp_path, program(x, "tensor<f32>", "add", c, np.zeros((2, 3), np.float32)),
                  [x, init], "interp")
    assert done.returncode == 1 and "tensor<3x3xf32>" in done.stderr, done.stderr
    done, _ = run(tmp_path, program(x, "tensor<f64>", "add", c, good),
                  [x, init.astype(np.float64)], "interp")
    assert done.returncode == 1 and "(C3)" in done.stderr, done.stderr


def region_program(xs, inits, body, c, results):
    """reduce_window of the inputs `xs` with the body's text (block
    arguments %a0.. the running values, %b0.. the elements)."""
    ints = lambda v: "array<i64" + (": " + ", ".join(map(str, v)) if v else "") + ">"
    pads = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in c["padding"]) + "]"
    scalars = [f"tensor<{MLIR_TYPES[x.dtype.type]}>" for x in xs]
    n = len(xs)
    args = [f"%x{i}: {tensor_type(x)}" for i, x in enumerate(xs)] + \
           [f"%i{i}: {s}" for i, s in enumerate(scalars)]
    params = [f"%a{i}: {s}" for i, s in enumerate(scalars)] + \
             [f"%b{i}: {s}" for i, s in enumerate(scalars)]
    types = ", ".join([tensor_type(x) for x in xs] + scalars)
    outs = ", ".join(tensor_type(r) for r in results)
    names = ", ".join(f"%r{i}" for i in range(n))
    operands = ", ".join([f"%x{i}" for i in range(n)] + [f"%i{i}" for i in range(n)])
    return (f"func.func @main({', '.join(args)}) -> ({outs}) {{\n"
            f'  {names} = "stablehlo.reduce_window"({operands}) ({{\n'
            f"    ^bb0({', '.join(params)}):\n{body}\n"
            f"  }}) {{window_dimensions = {ints(c['window'])}, "
            f"window_strides = {ints(c['strides'])}, base_dilations = {ints(c['base'])}, "
            f"window_dilations = {ints(c['dilations'])}, "
            f"padding = dense<{pads}> : tensor<{xs[0].ndim}x2xi64>}} : "
            f"({types}) -> ({outs})\n"
            f"  return {names} : {outs}\n}}\n")


def folded_windows(xs, inits, fold, c):
    """The specification's reduce_window of several inputs: pad each with
    its initial value, then fold each window in row-major order."""
    padded = [pad(x, i, [p[0] for p in c["padding"]], [p[1] for p in c["padding"]],
                  [b - 1 for b in c["base"]]) for x, i in zip(xs, inits)]
    shape = []
    for d in range(xs[0].ndim):
        extent = (c["window"][d] - 1) * c["dilations"][d] + 1
        n = padded[0].shape[d]
        shape.append(0 if n == 0 or extent > n else (n - extent) // c["strides"][d] + 1)
    outs = [np.zeros(shape, x.dtype) for x in xs]
    for y in np.ndindex(*shape):
        acc = list(inits)
        for w in np.ndindex(*c["window"]):
            at = tuple(y[d] * c["strides"][d] + w[d] * c["dilations"][d]
                       for d in range(xs[0].ndim))
            acc = fold(acc, [p[at] for p in padded])
        for o, a in zip(outs, acc):
            o[y] = a
    return outs


# r = 10 r + e, in int64: the result's digits are the window's elements in
# the order they were folded (the initial value 7 marks padding).
DIGITS = ("    %t = stablehlo.constant dense<10> : tensor<i64>\n"
          "    %m = stablehlo.multiply %a0, %t : tensor<i64>\n"
          "    %s = stablehlo.add %m, %b0 : tensor<i64>\n"
          "    stablehlo.return %s : tensor<i64>")


def test_a_body_of_several_ops_folds_each_window_in_row_major_order(tmp_path):
    x = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    init = np.array(7, np.int64)
    c = {"window": [2, 2], "strides": [1, 2], "base": [1, 1], "dilations": [1, 1],
         "padding": [(1, 0), (0, 1)]}
    want = folded_windows([x], [init], lambda a, e: [a[0] * 10 + e[0]], c)[0]
    # The window at (0, 0): two padding elements, then 1 and 2, after the
    # initial value 7.
    assert want[0, 0] == 77712
    done, _ = run(tmp_path, region_program([x], [init], DIGITS, c, [want]), [x, init], "interp")
    assert done.returncode == 0, done.stderr
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), want)


# The larger value of each window and the first index of it (as JAX's
# select_and_gather_add and argmax pooling pair them): two inputs, two
# initial values, a compare and two selects.
ARGMAX = ("    %gt = stablehlo.compare GT, %b0, %a0 : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
          "    %v = stablehlo.select %gt, %b0, %a0 : tensor<i1>, tensor<f32>\n"
          "    %k = stablehlo.select %gt, %b1, %a1 : tensor<i1>, tensor<i32>\n"
          "    stablehlo.return %v, %k : tensor<f32>, tensor<i32>")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_inputs_pair_each_window_maximum_with_its_index(tmp_path, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-4, 4, (5, 6)).astype(np.float32)  # ties: the first wins
    index = np.arange(30, dtype=np.int32).reshape(5, 6)
    inits = [np.array(-np.inf, np.float32), np.array(-1, np.int32)]
    c = {"window": [2, 3], "strides": [2, 1], "base": [1, int(rng.integers(1, 3))],
         "dilations": [1, int(rng.integers(1, 3))], "padding": [(1, 0), (1, 1)]}

    def fold(acc, e):
        return [e[0], e[1]] if e[0] > acc[0] else acc
    want = folded_windows([x, index], inits, fold, c)
    done, _ = run(tmp_path, region_program([x, index], inits, ARGMAX, c, want),
                    [x, index] + inits, "interp")
    assert done.returncode == 0, done.stderr
    assert_bits(np.load(tmp_path / "out" / "result0.npy"), want[0])
    assert_bits(np.load(tmp_path / "out" / "result1.npy"), want[1])


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "interp"])
def test_a_region_body_runs_natively_on_every_engine(tmp_path, engine):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    init = np.array(0, np.int64)
    c = {"window": [1, 2], "strides": [1, 1], "base": [1, 1], "dilations": [1, 1],
         "padding": [(0, 0), (0, 0)]}
    want = folded_windows([x], [init], lambda a, e: [a[0] * 10 + e[0]], c)[0]
    done, got = run(tmp_path, region_program([x], [init], DIGITS, c, [want]), [x, init], engine)
    assert done.returncode == 0, done.stderr
    assert_bits(got, want)
    assert lower_reports(tmp_path / "rw.mlir",
                         "reduce_window of several inputs or of a body other than one op")
