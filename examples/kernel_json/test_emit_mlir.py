"""`teval emit --to mlir` writes MLIR modules that give the interpreter's bits.

Generated Antares programs and the Antares examples are emitted, lowered by
the pipeline the module's header names (the one `teval fuzz --backend
mlir:loops` runs), run by mlir-cpu-runner-19 on the interpreter's inputs,
and their outputs compared with the interpreter's. The built-in backends
run short campaigns: the loops pipeline, a known-good configuration, must
give no finding. Run by ctest as examples.emit_mlir; skipped where MLIR 19
(mlir-19-tools, libmlir-19) is not installed.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_evaluate import EXAMPLES, TEVAL, generated_cases, same_bits, within_an_ulp  # noqa: E402

RUNNER_LIBRARY = "/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so.19.1"
HAVE_MLIR = (shutil.which("mlir-opt-19") is not None
             and shutil.which("mlir-cpu-runner-19") is not None
             and os.path.exists(RUNNER_LIBRARY))
needs_mlir = pytest.mark.skipif(not HAVE_MLIR, reason="MLIR 19 (mlir-19-tools, libmlir-19) "
                                "is not installed")
LIBRARY = ("math.exp", "math.log", "math.sin", "math.cos", "math.tan", "math.powf", "math.erf",
           "@erfc(", "math.sinh", "math.cosh", "math.tanh", "math.asin", "math.acos",
           "math.atan")


def commands(module):
    """The two command lines of the module's header comment."""
    lines = [line[len("//   "):] for line in module.splitlines()[:4] if line.startswith("//   ")]
    assert len(lines) == 2 and lines[0].startswith("mlir-opt-19 "), module[:400]
    return lines[0].split(), lines[1].split()


def run_module(module, where):
    """Lowers and runs \\p module as its header says; returns the runner's status."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "program.mlir").write_text(module)
    opt, runner = commands(module)
    lowered = where / "lowered.mlir"
    args = [str(where / "program.mlir") if a == "FILE" else str(lowered) if a == "LOWERED"
            else a for a in opt]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    r = subprocess.run([str(lowered) if a == "LOWERED" else a for a in runner],
                       capture_output=True, text=True)
    return r


def emit(program, inputs, outputs, *extra):
    return subprocess.run([TEVAL, "emit", "--to", "mlir", *extra, "--input-dir", str(inputs),
                           "--output-dir", str(outputs), str(program)], capture_output=True,
                          text=True)


def compare(module, kernel, outputs, expected):
    dtypes = {t["name"]: t["dtype"] for t in kernel["tensors"]}
    approximate = any(f in module for f in LIBRARY)
    for o in kernel["outputs"]:
        name = kernel["tensors"][o]["name"]
        got, want = np.load(outputs / f"{name}.npy"), np.load(expected / f"{name}.npy")
        check = within_an_ulp if approximate else same_bits
        assert check(got, want, dtypes[name]), (name, got, want)


def kernel_of(program, *given):
    return json.loads(subprocess.run([TEVAL, "lower", "--json", *given, str(program)],
                                     capture_output=True, text=True, check=True).stdout)


@needs_mlir
def test_generated_programs_lower_to_the_interpreters_bits(tmp_path):
    corpus = tmp_path / "corpus"
    cases = generated_cases(400)  # and 100 Tile programs below: 500 in all
    subprocess.run([TEVAL, "gen", "--lang", "antares", "--cases", str(cases), "--seed", "41",
                    "--dtypes", "bool,int8,int16,int32,int64,uint8,float16,float32,float64",
                    "-o", str(corpus)], check=True, capture_output=True)
    counts = {"values": 0, "declined": 0}
    for case in sorted(corpus.glob("case-*")):
        if (case / "expected" / "error.txt").exists():
            continue  # the module's behaviour is undefined where teval reports an error
        program, out = case / "program.antares", tmp_path / case.name / "out"
        out.mkdir(parents=True)
        r = emit(program, case / "inputs", out)
        if r.returncode == 3:
            assert "cannot be expressed in MLIR's linalg" in r.stderr, r.stderr
            counts["declined"] += 1
            continue
        assert r.returncode == 0, (case, r.stderr)
        run = run_module(r.stdout, tmp_path / case.name)
        assert run.returncode == 0, (case, run.stderr[-2000:])
        compare(r.stdout, kernel_of(program), out, case / "expected")
        counts["values"] += 1
    assert counts["values"] >= 0.75 * cases, counts


@needs_mlir
def test_generated_tile_programs_linalg_expresses_lower_to_the_interpreters_bits(tmp_path):
    # The linalg profile (the MLIR backends'): Tile contractions whose reads
    # are proved in range over their box, each write one element per point.
    corpus = tmp_path / "corpus"
    cases = generated_cases(100)
    subprocess.run([TEVAL, "gen", "--lang", "tile", "--cases", str(cases), "--seed", "41",
                    "--profile", "linalg",
                    "--dtypes", "bool,int8,int16,int32,int64,uint8,float16,float32,float64",
                    "-o", str(corpus)], check=True, capture_output=True)
    values = 0
    for c in json.loads((corpus / "manifest.json").read_text())["cases"]:
        case = corpus / c["id"]
        if (case / "expected" / "error.txt").exists():
            continue
        given = ["--entry", c["entry"]]
        for i in c["inputs"]:
            given += ["-i", f"{i['name']}={corpus / i['path']}"]
        out = tmp_path / c["id"] / "out"
        out.mkdir(parents=True)
        r = subprocess.run([TEVAL, "emit", "--to", "mlir", *given, "--input-dir",
                            str(case / "inputs"), "--output-dir", str(out),
                            str(case / "program.tile")], capture_output=True, text=True)
        assert r.returncode == 0, (c["id"], r.stderr)
        run = run_module(r.stdout, tmp_path / c["id"])
        assert run.returncode == 0, (c["id"], run.stderr[-2000:])
        compare(r.stdout, kernel_of(case / "program.tile", *given), out, case / "expected")
        values += 1
    assert values >= 0.65 * cases, values


# The examples small enough to run in a few seconds each.
SMALL_EXAMPLES = ["batch_matmul", "broadcast", "cast", "concat", "condition_relu",
                  "depthwise_conv", "div_no_nan", "elementwise", "gather",
                  "logical_bool_operation", "one_hot", "pad", "range_tanh", "reduce_min",
                  "reduce_sum", "scaler_compute", "sigmoid", "slice", "softmax", "take",
                  "tile"]


@needs_mlir
@pytest.mark.parametrize("vectorize", [False, True])
def test_antares_examples_lower_to_the_interpreters_bits(tmp_path, vectorize):
    for name in SMALL_EXAMPLES:
        source = EXAMPLES / "antares" / f"{name}.antares"
        inputs, expected, out = (tmp_path / name / d for d in ("in", "expected", "out"))
        run = subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs), "-o",
                              str(expected)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        out.mkdir(parents=True)
        r = emit(source, inputs, out, *(["--vectorize"] if vectorize else []))
        assert r.returncode == 0, (name, r.stderr)
        assert ("transform.named_sequence" in r.stdout) == vectorize, name
        result = run_module(r.stdout, tmp_path / name)
        assert result.returncode == 0, (name, result.stderr[-2000:])
        compare(r.stdout, kernel_of(source), out, expected)


@needs_mlir
def test_byteir_functions_lower_to_the_interpreters_bits(tmp_path):
    checked = 0
    for source in sorted((EXAMPLES / "byteir").glob("*.mlir")):
        inputs, expected, out = (tmp_path / source.stem / d for d in ("in", "expected", "out"))
        run = subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs), "-o",
                              str(expected)], capture_output=True, text=True)
        if run.returncode != 0:  # a dynamic shape without an input
            continue
        out.mkdir(parents=True)
        r = emit(source, inputs, out)
        assert r.returncode == 0, (source, r.stderr)
        result = run_module(r.stdout, tmp_path / source.stem)
        assert result.returncode == 0, (source, result.stderr[-2000:])
        compare(r.stdout, kernel_of(source), out, expected)
        checked += 1
    assert checked >= 10


@needs_mlir
def test_the_module_reads_only_the_inputs_it_was_written_for(tmp_path):
    source = EXAMPLES / "antares" / "elementwise.antares"
    inputs = tmp_path / "in"
    subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs)], check=True,
                   capture_output=True)
    victim = sorted(inputs.glob("*.npy"))[0]
    np.save(victim, np.load(victim).astype(np.float64))  # another dtype
    r = emit(source, inputs, tmp_path / "out")
    (tmp_path / "out").mkdir()
    run = run_module(r.stdout, tmp_path / "m")
    assert run.returncode == 1, run.stderr
    assert f"teval: cannot read or write {victim}" in run.stderr
    assert not any((tmp_path / "out").iterdir())


@needs_mlir
def test_what_linalg_cannot_express_is_declined_with_status_3(tmp_path):
    cases = [
        (["-e", "output0[N] = input0[N] where N in 4", "-i", "input0=bfloat16[4]"],
         "bfloat16"),
        (["-e", "output0[N // 2] +=. input0[N] where N in 4", "-i", "input0=float32[4]", "-i",
          "output0=float32[2]"], "a write to output0 that is not one element per point"),
        ([str(EXAMPLES / "tile" / "tutorial.tile"), "--entry", "max_pool_1d", "-i",
          "I=float32[12]"], "a constraint on the index variables"),
        # a read that may be out of range: the point is skipped there
        (["--lang", "tile", "-e", "Tensor f(const Tensor& A) { TensorIndex i, j; auto O = "
          "TensorOutput(3); O(i) += A(i + j); return O; }", "-i", "A=float32[4]"],
         "points skipped for an out-of-range access"),
    ]
    for args, message in cases:
        r = subprocess.run([TEVAL, "emit", "--to", "mlir", *args], capture_output=True,
                           text=True)
        assert r.returncode == 3 and message in r.stderr and r.stdout == "", r.stderr


@pytest.mark.parametrize("args,message", [
    (["emit", "--to", "c", "--input-dir", "x"], "apply to teval emit --to mlir"),
    (["emit", "--to", "c", "--vectorize"], "apply to teval emit --to mlir"),
    (["run", "--output-dir", "x"], "apply to teval emit --to mlir"),
    (["lower", "--vectorize"], "this command takes the program options only"),
])
def test_the_mlir_options_are_options_of_emit_to_mlir(args, message):
    r = subprocess.run([TEVAL, *args, "-e", "output0[N] = input0[N] where N in 2", "-i",
                        "input0=float32[2]"], capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr and r.stdout == "", r.stderr


@needs_mlir
def test_the_loops_backend_gives_no_finding(tmp_path):
    r = subprocess.run([TEVAL, "fuzz", "--backend", "mlir:loops", "--cases", "200", "--seed",
                        "3", "-j", "2", "--quiet", "--out", str(tmp_path / "campaign")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads((tmp_path / "campaign" / "report.json").read_text())
    reached = report["cases"] - report["external_skipped"] - report["unsupported"]
    assert report["findings"] == [] and reached >= 160, (reached, report["findings"])
