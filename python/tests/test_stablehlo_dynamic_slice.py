"""StableHLO's dynamic_slice and dynamic_update_slice (docs/SEMANTICS.md,
"StableHLO's dynamic slices"), run as users run them (`teval run
FILE.mlir`) on every engine; the expected values are the specification's
formulas (each start clamped into [0, extent - size]) written in numpy."""

import numpy as np
import pytest

from test_stablehlo import ENGINES, assert_bits, rng, run, tensor_type

STARTS = [(-5, 9), (1, 2), (100, -100), (0, 0)]


def adjusted(starts, shape, sizes):
    return [min(max(int(s), 0), e - z) for s, e, z in zip(starts, shape, sizes)]


def slice_body(x, starts, sizes, form):
    t = tensor_type(x)
    names = ", ".join(f"%arg{i + 1}" for i in range(len(starts)))
    types = ", ".join([t] + [tensor_type(s) for s in starts])
    out = f"tensor<{'x'.join(map(str, sizes))}x{t.split('x')[-1]}"
    if form == "pretty":
        sz = ", ".join(map(str, sizes))
        op = f"stablehlo.dynamic_slice %arg0, {names}, sizes = [{sz}]"
    else:
        op = (f'"stablehlo.dynamic_slice"(%arg0, {names}) '
              f"{{slice_sizes = array<i64: {', '.join(map(str, sizes))}>}}")
    return f"  %0 = {op} : ({types}) -> {out}\n  return %0 : {out}", out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty"])
@pytest.mark.parametrize("index", [np.int64, np.int8, np.uint8, np.int32])
def test_dynamic_slice(tmp_path, engine, form, index):
    x = rng(1).integers(-50, 50, (5, 7)).astype(np.int32)
    sizes = (2, 3)
    for s in STARTS:
        if index == np.uint8 and min(s) < 0:
            continue
        starts = [np.array(v, dtype=index) for v in s]
        a = adjusted(s, x.shape, sizes)
        want = x[a[0]:a[0] + sizes[0], a[1]:a[1] + sizes[1]]
        body, out = slice_body(x, starts, sizes, form)
        status, got, err = run(tmp_path, body, [x] + starts, out, engine)
        assert status == 0, err
        assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_dynamic_update_slice(tmp_path, engine, form):
    x = rng(2).standard_normal((4, 6)).astype(np.float32)
    u = rng(3).standard_normal((2, 4)).astype(np.float32)
    t, ut = tensor_type(x), tensor_type(u)
    for s in STARTS:
        starts = [np.array(v, dtype=np.int64) for v in s]
        a = adjusted(s, x.shape, u.shape)
        want = x.copy()
        want[a[0]:a[0] + 2, a[1]:a[1] + 4] = u
        types = f"{t}, {ut}, tensor<i64>, tensor<i64>"
        op = ("stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3" if form == "pretty"
              else '"stablehlo.dynamic_update_slice"(%arg0, %arg1, %arg2, %arg3)')
        body = f"  %0 = {op} : ({types}) -> {t}\n  return %0 : {t}"
        status, got, err = run(tmp_path, body, [x, u] + starts, t, engine)
        assert status == 0, err
        assert_bits(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_slices_and_updates(tmp_path, engine):
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    starts = [np.array(2, np.int32), np.array(-1, np.int32)]
    body, out = slice_body(x, starts, (0, 4), "generic")
    status, got, err = run(tmp_path, body, [x] + starts, out, engine)
    assert status == 0, err
    assert_bits(got, np.zeros((0, 4), np.int64))
    u = np.zeros((3, 0), np.int64)
    t = tensor_type(x)
    body = ('  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 : '
            f"({t}, tensor<3x0xi64>, tensor<i32>, tensor<i32>) -> {t}\n  return %0 : {t}")
    status, got, err = run(tmp_path, body, [x, u] + starts, t, engine)
    assert status == 0, err
    assert_bits(got, x)


def test_errors(tmp_path):
    x = np.zeros((3, 4), np.float32)
    i, j = np.array(0, np.int64), np.array(0, np.int32)
    body, out = slice_body(x, [i, j], (2, 2), "pretty")
    status, _, err = run(tmp_path, body, [x, i, j], out, "interp")
    assert status == 1 and "f.mlir:2:" in err and "rank-0 integer tensors of one type" in err, err
    body, out = slice_body(x, [i, i], (2, 5), "generic")
    status, _, err = run(tmp_path, body, [x, i, i], out, "interp")
    assert status == 1 and "size of dimension 1 is 5: it must be in [0, 4]" in err, err
    body, out = slice_body(x, [i], (2,), "generic")
    status, _, err = run(tmp_path, body, [x, i], out, "interp")
    assert status == 1 and "one start index per dimension" in err, err
    u = np.zeros((4, 1), np.float32)
    t = tensor_type(x)
    body = ('  %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg2 : '
            f"({t}, tensor<4x1xf32>, tensor<i64>, tensor<i64>) -> {t}\n  return %0 : {t}")
    status, _, err = run(tmp_path, body, [x, u, i], t, "interp")
    assert status == 1 and "no extent beyond the operand's" in err, err
