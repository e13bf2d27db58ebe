"""Whole StableHLO graphs in the style of ByteIR's end-to-end tests
(tests/graphs: a BERT encoder layer, a nanoGPT block, a small conv net)
against torch: the references are torch.nn.functional's, computed by
tests/graphs/make_references.py, never by teval. Each graph runs through
the command line on every engine, and `teval check` judges torch's float32
results and intermediate values as a user checking a compiler would."""

import os
import subprocess

import numpy as np
import pytest

import teval as tv
from test_stablehlo import ENGINES, teval

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GRAPHS = ["bert_layer", "gpt_block", "conv_net"]


def data(graph):
    return np.load(os.path.join(ROOT, "tests", "graphs", "data", graph + ".npz"))


def program(graph):
    return os.path.join(ROOT, "tests", "graphs", graph + ".mlir")


def input_options(graph):
    path = os.path.join(ROOT, "tests", "graphs", "data", graph + ".npz")
    options = []
    for key in data(graph):
        if key.startswith("arg"):
            options += ["-i", f"{key}={path}:{key}"]
    return options


def results(graph):
    return sorted(k for k in data(graph) if k.startswith("result"))


def check(graph, candidates, *extra):
    command = [teval(), "check", program(graph)] + input_options(graph)
    for name, path in candidates.items():
        command += ["--candidate", f"{name}={path}"]
    return subprocess.run(command + list(extra), capture_output=True, text=True)


@pytest.mark.parametrize("graph", GRAPHS)
def test_every_engine_gives_the_same_bits_close_to_torch_in_float64(tmp_path, graph):
    d = data(graph)
    first = None
    for engine in ENGINES:
        out = tmp_path / engine
        done = subprocess.run([teval(), "run", program(graph), "--engine", engine, "-o", str(out)]
                              + input_options(graph), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        got = {r: np.load(out / f"{r}.npy") for r in results(graph)}
        for r, value in got.items():
            assert value.dtype == np.float32 and value.shape == d[r].shape, (r, value.shape)
            # float32 rounding through the graph, against the float64 graph
            assert np.allclose(value, d["ref_" + r], rtol=1e-4, atol=1e-5), (engine, r)
        if first is None:
            first = got
        for r in got:
            assert got[r].tobytes() == first[r].tobytes(), (engine, r)


@pytest.mark.parametrize("graph", GRAPHS)
def test_torch_float32_results_and_layers_are_legal(graph):
    path = os.path.join(ROOT, "tests", "graphs", "data", graph + ".npz")
    candidates = {k.split(":", 1)[-1]: f"{path}:{k}" for k in data(graph)
                  if k.startswith("result") or k.startswith("value:")}
    assert len(candidates) >= 3
    done = check(graph, candidates, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    for name in candidates:
        assert f'"{name}"' in done.stdout, name


def planted(tmp_path, graph, key, change):
    a = data(graph)[key].copy()
    change(a)
    path = tmp_path / "wrong.npy"
    np.save(path, a)
    return path


@pytest.mark.parametrize("graph,key,name", [
    ("bert_layer", "value:%probs", "%probs"),  # the two heads swapped
    ("gpt_block", "value:%probs", "%probs"),
    ("conv_net", "value:%pool", "%pool"),       # the channels swapped
])
def test_a_swapped_layer_is_a_mismatch(tmp_path, graph, key, name):
    def swap(a):
        a[:, [0, 1]] = a[:, [1, 0]]
    done = check(graph, {name: planted(tmp_path, graph, key, swap)})
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{name}: mismatch" in done.stdout


# Of a deep graph, a result's rigorous bound from the function's inputs is
# wide (every layer's rounding may add up against it); given the compiler's
# own dump of an earlier layer, the layers after it are judged on their own
# inputs, tightly. The layer each graph is judged from:
LAYER = {"bert_layer": "%h", "gpt_block": "%x1", "conv_net": "%pool"}


def npz(graph):
    return os.path.join(ROOT, "tests", "graphs", "data", graph + ".npz")


@pytest.mark.parametrize("graph", GRAPHS)
def test_layer_by_layer_torch_is_legal_and_an_element_off_by_a_thousandth_is_not(
        tmp_path, graph):
    layer = LAYER[graph]
    given = ("--given", f"{layer}={npz(graph)}:value:{layer}")
    done = check(graph, {"result0": f"{npz(graph)}:result0"}, *given)
    assert done.returncode == 0, done.stdout + done.stderr

    def off(a):
        i = int(np.argmax(np.abs(a)))
        a.flat[i] *= np.float32(1.001)
    done = check(graph, {"result0": planted(tmp_path, graph, "result0", off)}, *given)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "result0: mismatch" in done.stdout


def test_an_element_off_by_a_percent_is_a_mismatch_from_the_inputs(tmp_path):
    def off(a):
        a.flat[int(np.argmax(np.abs(a)))] *= np.float32(1.01)
    done = check("conv_net", {"result0": planted(tmp_path, "conv_net", "result0", off)})
    assert done.returncode == 1 and "result0: mismatch" in done.stdout, done.stdout


@pytest.mark.parametrize("given,message", [
    ("%nothing=X", "error: the function has no value `%nothing`"),
    ("%x=X", "error: `%x` is an argument of the function: give it with -i"),
    ("%h=Y", "error: `%h` is float32 of shape [2, 8, 32], but the array given is float32 of "
             "shape [2, 8]"),
])
def test_given_values_that_do_not_fit_are_errors(tmp_path, given, message):
    np.save(tmp_path / "x.npy", np.zeros((2, 8, 32), np.float32))
    np.save(tmp_path / "y.npy", np.zeros((2, 8), np.float32))
    name, which = given.split("=")
    path = tmp_path / ("x.npy" if which == "X" else "y.npy")
    done = check("bert_layer", {"result0": f"{npz('bert_layer')}:result0"}, "--given",
                 f"{name}={path}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert message in done.stderr, done.stderr
    assert done.stdout == ""


def test_given_applies_to_mlir_functions(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(3, np.float32))
    done = subprocess.run([teval(), "check", "-e", "output0[N] = input0[N] * 2.0", "-i",
                           f"input0={tmp_path / 'x.npy'}", "--candidate",
                           f"output0={tmp_path / 'x.npy'}", "--given",
                           f"output0={tmp_path / 'x.npy'}"], capture_output=True, text=True)
    assert done.returncode == 2 and "--given applies to MLIR functions" in done.stderr


def test_the_python_module_runs_and_checks_a_graph():
    d = data("gpt_block")
    with open(program("gpt_block")) as f:
        text = f.read()
    inputs = {k: d[k] for k in d if k.startswith("arg")}
    p = tv.Program(text)
    assert [i.name for i in p.inputs] == [f"arg{i}" for i in range(17)]
    assert (p.inputs[0].dtype, p.outputs[0].shape) == ("int64", (2, 8, 50))
    got = p.run(inputs)["result0"]
    assert np.allclose(got, d["ref_result0"], rtol=1e-4, atol=1e-5)
    assert p.check(inputs, {"result0": d["result0"]})["result0"].passed


@pytest.mark.parametrize("graph", GRAPHS)
def test_the_python_module_judges_layers_as_teval_check_does(graph):
    # A candidate named as a value is judged against that value; an input
    # so named is given, the layers after it judged on their own inputs.
    d = data(graph)
    with open(program(graph)) as f:
        text = f.read()
    inputs = {k: d[k] for k in d if k.startswith("arg")}
    layers = {k.split(":", 1)[1]: d[k] for k in d if k.startswith("value:")}
    verdicts = tv.check(text, inputs, layers)
    assert sorted(verdicts) == sorted(layers)
    assert all(v.passed for v in verdicts.values()), verdicts
    layer = LAYER[graph]
    given = dict(inputs, **{layer: d["value:" + layer]})
    result = d["result0"].copy()
    assert tv.check(text, given, {"result0": result})["result0"].passed
    result.flat[int(np.argmax(np.abs(result)))] *= np.float32(1.001)
    assert not tv.check(text, given, {"result0": result})["result0"].passed


def test_a_program_loaded_with_values_and_given_outputs_and_reads_them():
    d = data("bert_layer")
    with open(program("bert_layer")) as f:
        p = tv.Program(f.read(), values=["%probs"], given=["%h"])
    assert [o.name for o in p.outputs] == ["result0", "%probs"]
    assert [i.name for i in p.inputs][-1] == "%h"
    assert p.inputs[-1].shape == d["value:%h"].shape
    inputs = {k: d[k] for k in d if k.startswith("arg")}
    inputs["%h"] = d["value:%h"]
    out = p.run(inputs)
    assert np.allclose(out["%probs"], d["value:%probs"], rtol=1e-4, atol=1e-6)
    # what follows %h is computed from the array given for it
    inputs["%h"] = np.zeros_like(d["value:%h"])
    assert not np.allclose(p.run(inputs)["result0"], out["result0"])


@pytest.mark.parametrize("options,message", [
    ({"values": ["%nothing"]}, "the function has no value `%nothing`"),
    ({"given": ["%nothing"]}, "the function has no value `%nothing`"),
    ({"given": ["%x"]}, "`%x` is an argument of the function"),
])
def test_values_and_given_that_do_not_exist_are_errors(options, message):
    with open(program("bert_layer")) as f:
        text = f.read()
    with pytest.raises(tv.Error, match=message):
        tv.Program(text, **options)


def test_values_and_given_apply_to_mlir_functions():
    with pytest.raises(tv.Error, match="values and given apply to MLIR functions"):
        tv.Program("output0[N] = input0[N] * 2.0", inputs={"input0": np.zeros(3, np.float32)},
                   values=["%1"])
    with pytest.raises(tv.Error, match="values and given apply to MLIR functions"):
        tv.check("output0[N] = input0[N] * 2.0",
                 {"input0": np.zeros(3, np.float32), "%1": np.zeros(3, np.float32)},
                 {"output0": np.zeros(3, np.float32)})
