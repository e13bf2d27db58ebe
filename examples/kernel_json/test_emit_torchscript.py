"""`teval emit --to torchscript` writes scripts that teval's oracle accepts.

Generated programs of both notations and the Antares examples are emitted,
run as the script's own main runs them (imported into this process, so
that 500 programs cost one start of torch), and their outputs judged by
`teval check` against the program: torch's math functions are within the
oracle's documented allowance of teval's, everything else is the
interpreter's bits. The built-in backends run short campaigns through
`teval fuzz`, the path users run: TorchScript without a fuser is a
known-good configuration and must give no finding. Run by ctest as
examples.emit_torchscript; skipped where torch is not installed.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_evaluate import EXAMPLES, TEVAL, generated_cases  # noqa: E402

torch = pytest.importorskip("torch")


def emit(*args):
    return subprocess.run([TEVAL, "emit", "--to", "torchscript", *args], capture_output=True,
                          text=True)


def load(script, where, name):
    """The emitted script as a module, as `python3 SCRIPT` would run it."""
    path = where / f"{name}.py"
    path.write_text(script)
    spec = importlib.util.spec_from_file_location(f"emitted_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def given(inputs):
    return [a for f in sorted(inputs.glob("*.npy")) for a in ("-i", f"{f.stem}={f}")]


def check(program, inputs, outputs, names, *extra):
    """teval check's verdict on the script's outputs; "" when they pass."""
    candidates = [a for n in names for a in ("--candidate", f"{n}={outputs / n}.npy")]
    r = subprocess.run([TEVAL, "check", *extra, *given(inputs), str(program), *candidates],
                       capture_output=True, text=True)
    return "" if r.returncode == 0 else r.stdout + r.stderr


def outputs_of(program, *extra):
    kernel = json.loads(subprocess.run([TEVAL, "lower", "--json", *extra, str(program)],
                                       capture_output=True, text=True, check=True).stdout)
    return [kernel["tensors"][o]["name"] for o in kernel["outputs"]]


@pytest.mark.parametrize("lang,seed", [("antares", 51), ("all", 52)])
def test_generated_programs_give_results_the_oracle_accepts(tmp_path, lang, seed):
    corpus = tmp_path / "corpus"
    cases = generated_cases()
    subprocess.run([TEVAL, "gen", "--lang", lang, "--cases", str(cases), "--seed", str(seed), "-o",
                    str(corpus)], check=True, capture_output=True)
    counts = {"passed": 0, "declined": 0}
    for case in sorted(corpus.glob("case-*")):
        if (case / "expected" / "error.txt").exists():
            continue  # teval reports an error: see test_errors_are_the_interpreters
        program = next(case.glob("program.*"))
        extra = ["--lang", program.suffix[1:]]
        if (case / "entry.txt").exists():
            extra += ["--entry", (case / "entry.txt").read_text().strip()]
        r = emit(*extra, *given(case / "inputs"), str(program))
        if r.returncode == 3:
            assert "cannot be expressed in TorchScript" in r.stderr, r.stderr
            counts["declined"] += 1
            continue
        assert r.returncode == 0, (case, r.stderr)
        module = load(r.stdout, tmp_path, case.name.replace("-", "_"))
        out = tmp_path / case.name / "out"
        assert module.main([str(case / "inputs"), str(out)]) == 0, case
        names = [p.stem for p in (case / "expected").glob("*.npy")]
        verdict = check(program, case / "inputs", out, names, *extra)
        assert verdict == "", (case, program.read_text(), verdict)
        counts["passed"] += 1
    assert counts["passed"] >= 0.72 * cases, counts


# The examples small enough to run in a few seconds each.
SMALL_EXAMPLES = ["broadcast", "cast", "concat", "condition_relu", "depthwise_conv",
                  "div_no_nan", "elementwise", "gather", "logical_bool_operation", "one_hot",
                  "pad", "range_tanh", "reduce_min", "reduce_sum", "scaler_compute", "sigmoid",
                  "slice", "softmax", "tile"]


@pytest.mark.parametrize("fuser", ["none", "nnc"])
def test_antares_examples_give_results_the_oracle_accepts(tmp_path, fuser):
    for name in SMALL_EXAMPLES:
        source = EXAMPLES / "antares" / f"{name}.antares"
        inputs, out = tmp_path / name / "in", tmp_path / name / "out"
        subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs)], check=True,
                       capture_output=True)
        r = emit(str(source))
        assert r.returncode == 0, (name, r.stderr)
        module = load(r.stdout, tmp_path, name)
        assert module.main([str(inputs), str(out), "--fuser", fuser]) == 0, name
        verdict = check(source, inputs, out, outputs_of(source))
        assert verdict == "", (name, verdict)


def test_byteir_functions_give_results_the_oracle_accepts(tmp_path):
    checked = 0
    for source in sorted((EXAMPLES / "byteir").glob("*.mlir")):
        inputs, out = tmp_path / source.stem / "in", tmp_path / source.stem / "out"
        run = subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs)],
                             capture_output=True, text=True)
        if run.returncode != 0:  # a dynamic shape without an input
            continue
        inputs.mkdir(parents=True, exist_ok=True)  # a function of constants alone
        r = emit(str(source))
        assert r.returncode == 0, (source, r.stderr)
        module = load(r.stdout, tmp_path, source.stem)
        assert module.main([str(inputs), str(out)]) == 0, source
        verdict = check(source, inputs, out, outputs_of(source))
        assert verdict == "", (source, verdict)
        checked += 1
    assert checked >= 10


def run_script(tmp_path, program_args, inputs=None):
    """Emits, then runs the script as a process; returns it and the output directory."""
    r = emit(*program_args)
    assert r.returncode == 0, r.stderr
    script, out = tmp_path / "program.py", tmp_path / "out"
    script.write_text(r.stdout)
    if inputs is None:
        inputs = tmp_path / "in"
        inputs.mkdir(exist_ok=True)
    run = subprocess.run([sys.executable, str(script), str(inputs), str(out)],
                         capture_output=True, text=True)
    return run, out


# Hand-computed: integer / truncates and % floors, int8 wraps, max orders
# -0.0 below +0.0 and propagates NaN, a float64 constant keeps its bits
# (TorchScript's torch.tensor(float) would round it through float32), and a
# float64 rounds once to float16: 1 + 2^-11 + 2^-40 is above the tie, so it
# rounds up to 1 + 2^-10, where rounding through float32 would give 1.
@pytest.mark.parametrize("value,dtype,expected", [
    ("const(7).cast(`int32`) / const(-2).cast(`int32`)", np.int32, -3),
    ("const(7).cast(`int32`) % const(-2).cast(`int32`)", np.int32, -1),
    ("const(100).cast(`int8`) + const(100).cast(`int8`)", np.int8, -56),
    ("const(-0.0).call(`max`, [const(0.0)])", np.float32, 0.0),
    ("const(0.0).call(`max`, [const(-0.0)])", np.float32, 0.0),
    ("const(1.0).call(`max`, [const(0.0) / const(0.0)])", np.float32, np.nan),
    ("const(1.0004882812509095, `float64`)", np.float64, 1.0004882812509095),
    ("const(1.0004882812509095, `float64`).cast(`float16`)", np.float16, 1 + 2.0**-10),
])
def test_a_script_computes_the_interpreters_special_cases(tmp_path, value, dtype, expected):
    run, out = run_script(tmp_path, ["-e", f"output0[N] = {value} where N in 1"])
    assert run.returncode == 0, run.stderr
    got = np.load(out / "output0.npy")
    assert got.dtype == dtype, got.dtype
    if np.isnan(expected):
        assert np.isnan(got[0])
    else:
        assert got[0] == expected and np.signbit(got[0]) == np.signbit(expected), got


@pytest.mark.parametrize("program,inputs,message", [
    ("output0[N] = input0[N + 1] where N in 4", "input0=float32[4]",
     "error: read out of range of input0"),
    ("output0[N] = input0[N] / (input0[N] - input0[N]) where N in 2", "input0=int32[2]",
     "error: integer division by zero"),
    ("output0[N] = (input0[N] * 0.0 / 0.0).cast(`int32`) where N in 2", "input0=float32[2]",
     "error: a float that is NaN or infinite converted to an integer"),
])
def test_errors_are_the_interpreters(tmp_path, program, inputs, message):
    name, declared = inputs.split("=")
    dtype, n = declared[:-1].split("[")
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / f"{name}.npy"
    np.save(path, np.arange(1, int(n) + 1).astype(dtype))
    interp = subprocess.run([TEVAL, "run", "-e", program, "-i", f"{name}={path}"],
                            capture_output=True, text=True)
    assert interp.returncode == 1, interp.stderr
    run, out = run_script(tmp_path, ["-e", program, "-i", inputs], tmp_path / "in")
    assert run.returncode == 1 and message in run.stderr, run.stderr
    assert not out.exists() or not any(out.iterdir())


def test_a_branch_not_taken_is_not_an_error(tmp_path):
    # The seed's Pad: the read of input0[N - 1] at N = 0 is under .when.
    program = ("output0[N] = input0[N - 1].when([N > 0], const(0.0)) where N in 5")
    inputs = tmp_path / "in"
    subprocess.run([TEVAL, "run", "-e", program, "-i", "input0=float32[4]", "--seed", "3",
                    "--save-inputs", str(inputs)], check=True, capture_output=True)
    run, out = run_script(tmp_path, ["-e", program, "-i", "input0=float32[4]"], inputs)
    assert run.returncode == 0, run.stderr
    x = np.load(inputs / "input0.npy")
    assert np.array_equal(np.load(out / "output0.npy"), np.concatenate([[0.0], x]).astype(np.float32))


def test_what_torchscript_cannot_express_is_declined_with_status_3():
    r = emit("-e", "output0[N] = input0[N].cast(`bfloat16`) where N in 2", "-i",
             "input0=int64[2]")
    assert r.returncode == 3 and r.stdout == "", r.stderr
    assert "cannot be expressed in TorchScript: an int64 converted to bfloat16" in r.stderr


def campaign(tmp_path, backend, cases, *extra):
    r = subprocess.run([TEVAL, "fuzz", "--backend", backend, "--cases", str(cases), "--seed", "5",
                        "-j", "2", "--quiet", "--out", str(tmp_path / "campaign"), *extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads((tmp_path / "campaign" / "report.json").read_text())
    return report, report["cases"] - report["external_skipped"] - report["unsupported"]


def test_torchscript_without_a_fuser_gives_no_finding(tmp_path):
    report, reached = campaign(tmp_path, "torchscript:nofuse", 40, "--lang", "all")
    assert report["findings"] == [] and reached >= 36, (reached, report["findings"])


def test_the_nnc_backend_runs_a_campaign(tmp_path):
    report, reached = campaign(tmp_path, "torchscript", 12)
    assert reached >= 11, report
