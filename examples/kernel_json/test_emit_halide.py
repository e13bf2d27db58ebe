"""`teval emit --to halide` writes pipelines that teval's oracle accepts.

Generated programs of both notations and the Antares examples are emitted,
run as the script's own main runs them (imported into this process, so
that hundreds of programs cost one start of Halide), each with the
schedule its program's seed draws, and their outputs judged by `teval
check` against the program: Halide's math functions are within the
oracle's allowance of teval's, everything else is the interpreter's bits.
The built-in backend runs a short campaign through `teval fuzz`, the path
users run. Run by ctest as examples.emit_halide; skipped where Halide's
Python bindings are not installed.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_emit_torchscript import SMALL_EXAMPLES, check, given, load, outputs_of  # noqa: E402
from test_evaluate import EXAMPLES, TEVAL, generated_cases  # noqa: E402

pytest.importorskip("halide")


def emit(*args):
    return subprocess.run([TEVAL, "emit", "--to", "halide", *args], capture_output=True,
                          text=True)


# Programs on which Halide 14 itself fails (docs/findings/): its compiler
# divides by zero while vectorizing one load of the first.
HALIDE_BUGS = {("antares", 51, "case-000031")}


@pytest.mark.parametrize("lang,seed", [("antares", 51), ("all", 52)])
def test_generated_programs_give_results_the_oracle_accepts(tmp_path, lang, seed):
    corpus = tmp_path / "corpus"
    cases = generated_cases()
    subprocess.run([TEVAL, "gen", "--lang", lang, "--cases", str(cases), "--seed", str(seed), "-o",
                    str(corpus), "--dtypes", "bool,int8,int16,int32,int64,uint8,float16,float32,"
                    "float64"], check=True, capture_output=True)
    counts = {"passed": 0, "declined": 0}
    for case in sorted(corpus.glob("case-*")):
        if (case / "expected" / "error.txt").exists():
            continue  # the pipeline is undefined where teval reports an error
        program = next(case.glob("program.*"))
        extra = ["--lang", program.suffix[1:]]
        if (case / "entry.txt").exists():
            extra += ["--entry", (case / "entry.txt").read_text().strip()]
        r = emit(*extra, *given(case / "inputs"), str(program))
        if r.returncode == 3:
            assert "cannot be expressed in Halide" in r.stderr, r.stderr
            counts["declined"] += 1
            continue
        assert r.returncode == 0, (case, r.stderr)
        if (lang, seed, case.name) in HALIDE_BUGS:
            continue
        module = load(r.stdout, tmp_path, case.name.replace("-", "_"))
        out = tmp_path / case.name / "out"
        assert module.main([str(case / "inputs"), str(out)]) == 0, case
        names = [p.stem for p in (case / "expected").glob("*.npy")]
        verdict = check(program, case / "inputs", out, names, *extra)
        assert verdict == "", (case, program.read_text(), verdict)
        counts["passed"] += 1
    assert counts["passed"] >= 0.72 * cases and counts["declined"] <= cases // 20, counts


@pytest.mark.parametrize("schedule", [None, 1, 2, 3])
def test_antares_examples_give_results_the_oracle_accepts(tmp_path, schedule):
    declined = []
    for name in SMALL_EXAMPLES:
        source = EXAMPLES / "antares" / f"{name}.antares"
        inputs, out = tmp_path / name / "in", tmp_path / name / "out"
        subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs)], check=True,
                       capture_output=True)
        r = emit(str(source))
        if r.returncode == 3:
            declined.append(name)
            continue
        assert r.returncode == 0, (name, r.stderr)
        module = load(r.stdout, tmp_path, name)
        seed = [] if schedule is None else ["--schedule", str(schedule)]
        assert module.main([str(inputs), str(out), *seed]) == 0, name
        verdict = check(source, inputs, out, outputs_of(source))
        assert verdict == "", (name, schedule, verdict)
    assert declined == ["sigmoid"] or declined == [], declined


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
        if r.returncode == 3:
            assert "bfloat16" in r.stderr or "erf of float64" in r.stderr, r.stderr
            continue
        assert r.returncode == 0, (source, r.stderr)
        module = load(r.stdout, tmp_path, source.stem)
        assert module.main([str(inputs), str(out)]) == 0, source
        verdict = check(source, inputs, out, outputs_of(source))
        assert verdict == "", (source, verdict)
        checked += 1
    assert checked >= 10


def run_script(tmp_path, program_args, *schedule):
    """Emits, then runs the script as a process; returns it and the output directory."""
    r = emit(*program_args)
    assert r.returncode == 0, r.stderr
    script, out, inputs = tmp_path / "program.py", tmp_path / "out", tmp_path / "in"
    script.write_text(r.stdout)
    inputs.mkdir(exist_ok=True)
    run = subprocess.run([sys.executable, str(script), str(inputs), str(out), *schedule],
                         capture_output=True, text=True)
    return run, out


# Hand-computed: integer / truncates (by constants too: Halide 14's own
# div_round_to_zero gives -1 for 7 / 3) and % floors, int8 and int32 wrap,
# max orders -0.0 below +0.0 and propagates NaN, a float64 constant keeps
# its bits, and a float64 rounds once to float16: 1 + 2^-11 + 2^-40 is
# above the tie, so it rounds up to 1 + 2^-10, where Halide's cast through
# float32 gives 1. NaN stays NaN in float16 and compares false (Halide 14
# gives inf and true).
@pytest.mark.parametrize("value,dtype,expected", [
    ("const(7).cast(`int32`) / const(-2).cast(`int32`)", np.int32, -3),
    ("const(7).cast(`int32`) / const(3).cast(`int32`)", np.int32, 2),
    ("const(-7).cast(`int32`) / const(3).cast(`int32`)", np.int32, -2),
    ("const(-7).cast(`int32`) / const(-3).cast(`int32`)", np.int32, 2),
    ("const(7).cast(`int32`) % const(-2).cast(`int32`)", np.int32, -1),
    ("const(-7).cast(`int32`) % const(3).cast(`int32`)", np.int32, 2),
    ("const(100).cast(`int8`) + const(100).cast(`int8`)", np.int8, -56),
    ("const(2147483647).cast(`int32`) + const(1).cast(`int32`)", np.int32, -2147483648),
    ("const(-0.0).call(`max`, [const(0.0)])", np.float32, 0.0),
    ("const(0.0).call(`max`, [const(-0.0)])", np.float32, 0.0),
    ("const(0.0).call(`min`, [const(-0.0)])", np.float32, -0.0),
    ("const(1.0).call(`max`, [const(0.0) / const(0.0)])", np.float32, np.nan),
    ("const(1.0004882812509095, `float64`)", np.float64, 1.0004882812509095),
    ("const(1.0004882812509095, `float64`).cast(`float16`)", np.float16, 1 + 2.0**-10),
    # A conversion that does not fit, on the right of a true ||: not taken.
    ("const(0.5) | const(-2147483641).cast(`float16`).call(`floor`)", np.int8, 1),
    ("(const(0.0) / const(0.0)).cast(`float16`)", np.float16, np.nan),
    ("const(1.0) <= const(0.0) / const(0.0)", np.int8, 0),
])
@pytest.mark.parametrize("schedule", [[], ["--schedule", "4"]])
def test_a_pipeline_computes_the_interpreters_special_cases(tmp_path, value, dtype, expected,
                                                           schedule):
    run, out = run_script(tmp_path, ["-e", f"output0[N] = {value} where N in 9"], *schedule)
    assert run.returncode == 0, run.stderr
    got = np.load(out / "output0.npy")
    assert got.dtype == dtype and got.shape == (9,), got
    if np.isnan(expected):
        assert np.isnan(got).all()
    else:
        assert (got == expected).all() and (np.signbit(got) == np.signbit(expected)).all(), got


def test_the_schedule_is_the_programs_and_printed(tmp_path):
    program = ["-e", "output0[N] +=! input0[N, K] where N in 64, K in 32", "-i",
               "input0=float32[64, 32]"]
    first = emit(*program).stdout
    assert first == emit(*program).stdout  # the same program gets the same seed
    seed = int(first.split("_SEED = ")[1].split()[0])
    (tmp_path / "in").mkdir()
    np.save(tmp_path / "in" / "input0.npy", np.ones((64, 32), np.float32))
    run, _ = run_script(tmp_path, program)
    assert run.returncode == 0 and run.stdout.startswith(f"schedule {seed}:"), run.stdout
    other, _ = run_script(tmp_path, program, "--schedule", "12")
    assert other.returncode == 0 and other.stdout.startswith("schedule 12:"), other.stdout


@pytest.mark.parametrize("program,inputs,why", [
    ("output0[N] = input0[N].cast(`bfloat16`) where N in 2", "input0=float32[2]", "bfloat16"),
    ("output0[N] = input0[N] % const(2.5) where N in 2", "input0=float32[2]", "% of floats"),
    ("output0[N] = input0[N].call(`erf`) where N in 2", "input0=float64[2]", "erf of float64"),
    ("output0[N] = input0[N].call(`normcdf`) where N in 2", "input0=float32[2]", "normcdf"),
])
def test_what_halide_cannot_express_is_declined_with_status_3(program, inputs, why):
    r = emit("-e", program, "-i", inputs)
    assert r.returncode == 3 and r.stdout == "", r.stderr
    assert "cannot be expressed in Halide: " + why in r.stderr, r.stderr


def test_the_halide_backend_runs_a_campaign(tmp_path):
    r = subprocess.run([TEVAL, "fuzz", "--backend", "halide", "--cases", "40", "--seed", "5",
                        "-j", "2", "--quiet", "--out", str(tmp_path / "campaign"), "--lang",
                        "all"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads((tmp_path / "campaign" / "report.json").read_text())
    reached = report["cases"] - report["external_skipped"] - report["unsupported"]
    assert reached >= 34, report
