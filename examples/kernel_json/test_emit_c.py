"""`teval emit --to c` writes C programs that give the interpreter's bits.

Generated programs (Antares and Tile, every dtype, failing ones included)
and the ByteIR examples are emitted, compiled with the system's C compiler
(gcc, or $CC) at -O2 -ffp-contract=off, run on the corpus's inputs, and
their outputs compared with the interpreter's (`teval gen`'s expected
files, `teval run`'s outputs); a program the interpreter rejects must exit
1 without writing. Run by ctest as examples.emit_c.
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

CC = os.environ.get("CC", "gcc")
LIBRARY = ("exp(", "log(", "sin(", "cos(", "tan(", "pow(", "erf(", "erfc(", "sinh(", "cosh(",
           "tanh(", "asin(", "acos(", "atan(")


def compile_c(text, where):
    where.mkdir(parents=True, exist_ok=True)
    (where / "program.c").write_text(text)
    r = subprocess.run([CC, "-O2", "-ffp-contract=off", "-o", str(where / "program"),
                        str(where / "program.c"), "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return where / "program"


def check_run(text, binary, inputs, expected, dtypes, outputs):
    out = binary.parent / "out"
    r = subprocess.run([str(binary), str(inputs), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    approximate = any(f in text for f in LIBRARY)  # the C library's functions
    for name in outputs:
        got, want = np.load(out / f"{name}.npy"), np.load(expected / f"{name}.npy")
        compare = within_an_ulp if approximate else same_bits
        assert compare(got, want, dtypes[name]), (name, got, want)


@pytest.mark.skipif(shutil.which(CC) is None, reason="no C compiler")
@pytest.mark.parametrize("lang,seed", [("antares", 31), ("tile", 32)])
def test_generated_programs_compile_to_the_interpreters_bits(tmp_path, lang, seed):
    corpus = tmp_path / "corpus"
    cases = generated_cases()
    subprocess.run([TEVAL, "gen", "--lang", lang, "--cases", str(cases), "--seed", str(seed), "-o",
                    str(corpus)], check=True, capture_output=True)
    counts = {"values": 0, "errors": 0}
    for case in sorted(corpus.glob("case-*")):
        program = next(case.glob("program.*"))
        given = []
        if lang == "tile":
            for f in sorted((case / "inputs").glob("*.npy")):
                given += ["-i", f"{f.stem}={f}"]
        wants_error = (case / "expected" / "error.txt").exists()
        r = subprocess.run([TEVAL, "emit", "--to", "c", "--lang", lang, *given, str(program)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            assert r.returncode == 1 and wants_error, (case, r.stderr)
            counts["errors"] += 1
            continue
        binary = compile_c(r.stdout, tmp_path / case.name)
        if wants_error:
            run = subprocess.run([str(binary), str(case / "inputs"), str(binary.parent / "out")],
                                 capture_output=True, text=True)
            assert run.returncode == 1 and "error:" in run.stderr, (case, run.stderr)
            assert not (binary.parent / "out").exists(), case  # nothing written
            counts["errors"] += 1
            continue
        kernel = json.loads(subprocess.run([TEVAL, "lower", "--json", "--lang", lang, *given,
                                            str(program)], capture_output=True, text=True).stdout)
        dtypes = {t["name"]: t["dtype"] for t in kernel["tensors"]}
        outputs = [kernel["tensors"][o]["name"] for o in kernel["outputs"]]
        check_run(r.stdout, binary, case / "inputs", case / "expected", dtypes, outputs)
        counts["values"] += 1
    assert counts["values"] > cases // 2 and counts["errors"] >= cases // 60, counts


@pytest.mark.skipif(shutil.which(CC) is None, reason="no C compiler")
def test_byteir_functions_compile_to_the_interpreters_bits(tmp_path):
    checked = 0
    for source in sorted((EXAMPLES / "byteir").glob("*.mlir")):
        r = subprocess.run([TEVAL, "emit", "--to", "c", str(source)], capture_output=True,
                           text=True)
        if r.returncode != 0:  # a dynamic shape without an input
            continue
        inputs, outputs = tmp_path / source.stem / "in", tmp_path / source.stem / "expected"
        run = subprocess.run([TEVAL, "run", str(source), "--save-inputs", str(inputs), "-o",
                              str(outputs)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        kernel = json.loads(subprocess.run([TEVAL, "lower", "--json", str(source)],
                                           capture_output=True, text=True).stdout)
        dtypes = {t["name"]: t["dtype"] for t in kernel["tensors"]}
        names = [kernel["tensors"][o]["name"] for o in kernel["outputs"]]
        binary = compile_c(r.stdout, tmp_path / source.stem / "c")
        check_run(r.stdout, binary, inputs, outputs, dtypes, names)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("args,message", [
    (["emit"], "give the language with --to c"),
    (["emit", "--to", "tvm"],
     "unknown --to 'tvm'; teval emit writes: c, mlir, torchscript, halide"),
    (["run", "--to", "c"], "--to applies to teval emit"),
    (["lower", "--to", "c"], "this command takes the program options only"),
])
def test_to_is_an_option_of_emit(args, message):
    r = subprocess.run([TEVAL, *args, "-e", "output0[N] = input0[N] where N in 2", "-i",
                        "input0=float32[2]"], capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr and r.stdout == "", r.stderr
