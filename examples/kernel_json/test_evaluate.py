"""`teval lower --json` carries everything an adapter needs.

evaluate.py, written from docs/KERNEL_JSON.md alone, evaluates the JSON of
generated programs (Antares and Tile, every dtype, errors included) and of
the ByteIR examples, and must give the interpreter's bits: the expected
results come from `teval gen` and `teval run`, whose outputs are the
interpreter's. Run by ctest as examples.kernel_json (TEVAL names the teval
binary).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import evaluate  # noqa: E402

TEVAL = os.environ.get("TEVAL", "teval")
EXAMPLES = Path(__file__).resolve().parent.parent


def generated_cases(default=250):
    """Generated programs per run of an emitter's test: two runs of 250 give
    each emitter 500 programs in CI's time, or TEVAL_EXAMPLE_CASES=N for
    another size (the campaigns of docs/CAMPAIGNS.md are the long runs)."""
    return int(os.environ.get("TEVAL_EXAMPLE_CASES", default))


def lower_json(*args):
    r = subprocess.run([TEVAL, "lower", "--json", *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def nan_mask(a, dtype):
    if dtype == "bfloat16":
        bits = a.reshape(-1).view(np.uint16).reshape(a.shape)
        return (bits & 0x7F80 == 0x7F80) & (bits & 0x7F != 0)
    return np.isnan(a)


def same_bits(got, want, dtype):
    """Identical, except that any NaN equals any NaN (docs/SEMANTICS.md: a
    NaN's sign and payload are not part of the semantics)."""
    if got.shape != want.shape:
        return False
    if got.tobytes() == want.tobytes():
        return True
    if dtype not in evaluate.FLOATS:
        return False
    width = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32,
             "float64": np.uint64}[dtype]
    g, w = got.reshape(-1).view(width), want.reshape(-1).view(width)
    nan = nan_mask(got, dtype).reshape(-1) & nan_mask(want, dtype).reshape(-1)
    return bool(np.all((g == w) | nan))


def within_an_ulp(got, want, dtype):
    """For programs calling math functions: teval's library and numpy's
    agree to within an ulp (docs/SEMANTICS.md, "Math functions")."""
    if dtype not in ("float32", "float64"):
        return same_bits(got, want, dtype)
    g, w = got.astype(np.float64), want.astype(np.float64)
    ulp = np.spacing(np.abs(want)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return bool(np.all((g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= ulp)))


def evaluate_case(kernel, input_dir):
    program = evaluate.Program(kernel)
    inputs = {t["name"]: evaluate.read_npy(input_dir / f"{t['name']}.npy", t["dtype"])
              for t in kernel["tensors"] if t["role"] == "input" and "constant" not in t}
    return program, program.run(inputs)


def legal(check_args, name, got, tmp):
    """Whether `teval check` judges `got` a legal `name` of the program:
    within its rigorous bounds, which follow an ulp of a math function
    through what the program computes from it (a remainder of a log)."""
    path = tmp / f"candidate-{name}.npy"
    np.save(path, got)
    done = subprocess.run([TEVAL, "check", *check_args, "--candidate", f"{name}={path}"],
                          capture_output=True, text=True)
    return done.returncode == 0


def check_outputs(program, outputs, kernel, expected_dir, check_args):
    """The interpreter's bits; for programs calling math functions (numpy's
    then, not teval's), an ulp away, or else legal by teval check."""
    dtypes = {t["name"]: t["dtype"] for t in kernel["tensors"]}
    for name, values in outputs.items():
        got = evaluate.to_numpy(values, dtypes[name])
        want = np.load(expected_dir / f"{name}.npy")
        if program.approximate:
            assert within_an_ulp(got, want, dtypes[name]) or \
                legal(check_args, name, got, expected_dir.parent), (name, got, want)
        else:
            assert same_bits(got, want, dtypes[name]), (name, got, want)


def input_args(directory):
    return [a for f in sorted(directory.glob("*.npy")) for a in ("-i", f"{f.stem}={f}")]


@pytest.mark.parametrize("lang,seed", [("antares", 21), ("tile", 22)])
def test_generated_programs_evaluate_from_their_json_to_the_interpreters_bits(tmp_path, lang,
                                                                             seed):
    corpus = tmp_path / "corpus"
    cases = generated_cases(250)
    subprocess.run([TEVAL, "gen", "--lang", lang, "--cases", str(cases), "--seed", str(seed), "-o",
                    str(corpus)], check=True, capture_output=True)
    counts = {"values": 0, "errors": 0}
    for case in sorted(corpus.glob("case-*")):
        source = next(case.glob("program.*"))
        given = input_args(case / "inputs") if lang == "tile" else []  # Tile's from files
        status, text, _ = lower_json("--lang", lang, *given, str(source))
        wants_error = (case / "expected" / "error.txt").exists()
        if status != 0:  # the program does not elaborate: an error in teval too
            assert status == 1 and wants_error, case
            counts["errors"] += 1
            continue
        kernel = json.loads(text)
        try:
            program, outputs = evaluate_case(kernel, case / "inputs")
        except evaluate.ProgramError:
            assert wants_error, case
            counts["errors"] += 1
            continue
        assert not wants_error, (case, (case / "expected" / "error.txt").read_text())
        check_outputs(program, outputs, kernel, case / "expected",
                      ["--lang", lang, *input_args(case / "inputs"), str(source)])
        counts["values"] += 1
    # Both kinds are drawn: results and failing programs.
    assert counts["values"] > 0.4 * cases and counts["errors"] >= cases // 50, counts


def test_byteir_functions_evaluate_from_their_json(tmp_path):
    checked = 0
    for source in sorted((EXAMPLES / "byteir").glob("*.mlir")):
        status, text, _ = lower_json(str(source))
        if status != 0:  # a dynamic shape without an input, or an op left out
            continue
        inputs, outputs = tmp_path / source.stem / "in", tmp_path / source.stem / "out"
        run = subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs), "-o",
                              str(outputs)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        kernel = json.loads(text)
        program, values = evaluate_case(kernel, inputs)
        check_outputs(program, values, kernel, outputs, [str(source), *input_args(inputs)])
        checked += 1
    assert checked >= 10


def test_the_json_of_a_small_program_says_everything_by_hand():
    status, text, _ = lower_json(
        "-e", "output0[N] +=! input0[N, K].when([K < 3], const(0.5).cast(`float16`)) * 2 "
        "where N in 2, K in 4", "-i", "input0=float16[2, 4]")
    assert status == 0
    k = json.loads(text)
    assert k["schema"] == "teval-kernel" and k["version"] == 1
    assert k["tensors"] == [
        {"name": "input0", "dtype": "float16", "shape": [2, 4], "role": "input"},
        {"name": "output0", "dtype": "float16", "shape": [2], "role": "output"}]
    assert k["outputs"] == [1]
    (s,) = k["statements"]
    assert (s["target"], s["aggregation"], s["start"], s["init_from"]) == (1, "sum", "init", None)
    assert s["init"] == {"dtype": "float16", "value": 0.0, "bits": "0x0000"}
    assert [(v["name"], v["begin"], v["end"], v["reduce"]) for v in s["vars"]] == [
        ("N", 0, 2, False), ("K", 0, 4, True)]
    assert s["out_index"] == [{"dtype": "int32", "kind": "var", "var": 0}]
    value = s["value"]
    assert (value["kind"], value["op"], value["dtype"]) == ("apply", "mul", "float16")
    guarded, two = value["args"]
    # The integer literal 2 is converted to the float16 of the product.
    assert two["dtype"] == "float16" and two["value"] == 2.0 and two["bits"] == "0x4000"
    assert guarded["kind"] == "select" and guarded["cond"]["op"] == "lt"
    assert guarded["else"]["value"] == 0.5 and guarded["else"]["bits"] == "0x3800"
    assert guarded["then"]["kind"] == "load" and guarded["then"]["tensor"] == 0
    assert (s["constraints"], s["out_of_range"], s["write_conflict"]) == ([], "error", "error")
    assert s["source"] == {"line": 1, "column": 1}


def test_special_values_keep_their_bits():
    status, text, _ = lower_json(
        "-e", "output0[N] = input0[N] + const(-0.0) + const(1e300).cast(`float64`) "
        "where N in 1", "-i", "input0=float64[1]")
    assert status == 0
    consts = []

    def walk(e):
        if e["kind"] == "const":
            consts.append(e)
        for key in ("args", "index"):
            for x in e.get(key, []):
                walk(x)
        for key in ("value", "cond", "then", "else"):
            if isinstance(e.get(key), dict):
                walk(e[key])

    walk(json.loads(text)["statements"][0]["value"])
    bits = {c["bits"] for c in consts}
    assert "0x8000000000000000" in bits or "0x80000000" in bits, consts  # -0.0 kept
    assert any(c["value"] == 1e300 for c in consts), consts


@pytest.mark.parametrize("args,message", [
    (["run", "--json"], "--json applies to teval lower"),
    (["lower", "--json", "--schedule"], "this command takes the program options only"),
    (["jit", "--json"], "this command takes the program options only"),
])
def test_json_is_an_option_of_lower_alone(args, message):
    r = subprocess.run([TEVAL, *args, "-e", "output0[N] = input0[N] where N in 2", "-i",
                        "input0=float32[2]"], capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr and r.stdout == ""


def test_a_wrong_program_gives_a_diagnostic_and_no_json():
    status, text, err = lower_json("-e", "output0[N] = input9[N] where N in 2")
    assert status == 1 and text == "" and "error:" in err and "^" in err
