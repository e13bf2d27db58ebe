"""infeed and outfeed (StableHLO specification, "infeed", "outfeed";
docs/SEMANTICS.md, "StableHLO's rng_bit_generator"): one function
run once has no queue of its own, so what an infeed reads is given as
inputs after the function's arguments and what an outfeed sends comes out
as outputs after its results, in the order the ops are read."""

import subprocess

import numpy as np
import pytest

import teval as tv
from test_stablehlo import ENGINES, assert_bits, teval

TEXT = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = "stablehlo.create_token"() : () -> !stablehlo.token
  %d:3 = "stablehlo.infeed"(%t) {infeed_config = "", layout = [[0], [0, 1]]} :
      (!stablehlo.token) -> (tensor<2xf32>, tensor<2x2xi32>, !stablehlo.token)
  %s = stablehlo.add %x, %d#0 : tensor<2xf32>
  %o = "stablehlo.outfeed"(%s, %d#1, %d#2) {outfeed_config = ""} :
      (tensor<2xf32>, tensor<2x2xi32>, !stablehlo.token) -> !stablehlo.token
  %e:2 = "stablehlo.infeed"(%o) : (!stablehlo.token) -> (tensor<i8>, !stablehlo.token)
  %o2 = "stablehlo.outfeed"(%e#0, %e#1) : (tensor<i8>, !stablehlo.token) -> !stablehlo.token
  %m = stablehlo.multiply %s, %s : tensor<2xf32>
  return %m : tensor<2xf32>
}
"""


def cli(tmp_path, text, arrays, engine="interp"):
    (tmp_path / "f.mlir").write_text(text)
    command = [teval(), "run", str(tmp_path / "f.mlir"), "--engine", engine,
               "-o", str(tmp_path / "out")]
    for i, a in enumerate(arrays):
        np.save(tmp_path / f"arg{i}.npy", a)
        command += ["-i", f"arg{i}={tmp_path / f'arg{i}.npy'}"]
    return subprocess.run(command, capture_output=True, text=True)


@pytest.mark.parametrize("engine", ENGINES)
def test_infeed_data_are_inputs_and_outfeed_data_outputs(tmp_path, engine):
    x = np.array([1.5, -2.0], np.float32)
    fed = np.array([0.25, 4.0], np.float32)
    grid = np.array([[1, 2], [3, 4]], np.int32)
    byte = np.array(-7, np.int8)
    done = cli(tmp_path, TEXT, [x, fed, grid, byte], engine)
    assert done.returncode == 0, done.stderr
    s = x + fed
    out = tmp_path / "out"
    assert_bits(np.load(out / "result0.npy"), s * s)  # the function's result
    assert_bits(np.load(out / "result1.npy"), s)  # the first outfeed's data
    assert_bits(np.load(out / "result2.npy"), grid)
    assert_bits(np.load(out / "result3.npy"), byte)  # the second outfeed's


def test_the_python_module_names_them_as_the_command_line_does():
    x = np.array([1.0, 2.0], np.float32)
    fed = np.array([3.0, 5.0], np.float32)
    got = tv.run(TEXT, {"arg0": x, "arg1": fed, "arg2": np.zeros((2, 2), np.int32),
                        "arg3": np.array(1, np.int8)})
    assert sorted(got) == ["result0", "result1", "result2", "result3"]
    assert_bits(got["result1"], x + fed)


def test_an_infeed_in_a_region_is_an_error(tmp_path):
    text = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %t = "stablehlo.create_token"() : () -> !stablehlo.token
  %p = stablehlo.constant dense<true> : tensor<i1>
  %r = "stablehlo.if"(%p) ({
    %d:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
    stablehlo.return %d#0 : tensor<f32>
  }, {
    stablehlo.return %x : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %r : tensor<f32>
}
"""
    done = cli(tmp_path, text, [np.array(1, np.float32)])
    assert done.returncode == 1
    assert "f.mlir:5:" in done.stderr and "infeed inside a region" in done.stderr, done.stderr


@pytest.mark.parametrize("op,message", [
    ('%d:2 = "stablehlo.infeed"(%x) : (tensor<f32>) -> (tensor<f32>, !stablehlo.token)',
     "infeed takes a token"),
    ('%d:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (!stablehlo.token, tensor<f32>)',
     "infeed gives its data, then a token"),
    ('%d = "stablehlo.outfeed"(%t, %x) : (!stablehlo.token, tensor<f32>) -> !stablehlo.token',
     "outfeed takes its inputs, then a token"),
    ('%d = "stablehlo.outfeed"(%x, %t) {config = 1} : (tensor<f32>, !stablehlo.token) -> '
     "!stablehlo.token", "config"),
])
def test_malformed_feeds_are_errors(tmp_path, op, message):
    text = ("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
            '  %t = "stablehlo.create_token"() : () -> !stablehlo.token\n'
            f"  {op}\n  return %x : tensor<f32>\n}}\n")
    done = cli(tmp_path, text, [np.array(1, np.float32)])
    assert done.returncode == 1 and "f.mlir:3:" in done.stderr, done.stderr
    assert message in done.stderr, done.stderr


def test_a_misspelt_input_is_still_named(tmp_path):
    (tmp_path / "f.mlir").write_text(TEXT)
    done = subprocess.run([teval(), "run", str(tmp_path / "f.mlir"), "-i", "arg9=float32[2]"],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert "no input `arg9`; its inputs are: arg0, arg1, arg2, arg3" in done.stderr, done.stderr
