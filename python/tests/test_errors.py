"""teval.Error and the Python errors of misuse."""

import os
import signal
import threading

import numpy as np
import pytest

import teval


def test_a_syntax_error_is_located():
    with pytest.raises(teval.Error) as info:
        teval.Program("output0[N] = input0[N] +* 2", name="kernel.antares",
                      inputs={"input0": ("float32", (2,))})
    e = info.value
    assert (e.file, e.line, e.column) == ("kernel.antares", 1, 25)
    assert e.message == "expected expression before `*`"
    assert str(e) == ("kernel.antares:1:25: error: expected expression before `*`\n"
                      "output0[N] = input0[N] +* 2\n"
                      "                        ^\n")
    assert e.diagnostics[0] == ("kernel.antares", 1, 25, "expected expression before `*`")
    assert isinstance(e, Exception)


def test_an_out_of_range_read_names_the_index_point():
    with pytest.raises(teval.Error) as info:
        teval.run("output0[N] = input0[N + 1] where N in 2",
                  {"input0": np.zeros(2, np.float32)})
    assert "out of range" in info.value.message
    assert "(at N=1)" in str(info.value)


def test_integer_division_by_zero_is_an_error_on_every_engine():
    for engine in ["interp", "ireval", "jit"]:
        with pytest.raises(teval.Error, match="division by zero"):
            teval.run("output0[N] = input0[N] // input1[N]",
                      {"input0": np.array([1, 2], np.int32), "input1": np.array([1, 0], np.int32)},
                      engine=engine)


def test_names_that_do_not_match_are_errors():
    p = teval.Program("output0[N] = input0[N] * 2.0", inputs={"input0": ("float32", (2,))})
    x = np.zeros(2, np.float32)
    with pytest.raises(teval.Error, match="input `input0` is not given"):
        p.run({})
    with pytest.raises(teval.Error, match="the program has no input `x`; it reads: input0"):
        p.run({"input0": x, "x": x})
    with pytest.raises(teval.Error, match=r"input `input0` is float32\[2\], not float64\[2\]"):
        p.run({"input0": x.astype(np.float64)})
    with pytest.raises(teval.Error, match="no output `result`"):
        p.check({"input0": x}, {"result": x})
    # A type nobody gives.
    with pytest.raises(teval.Error):
        teval.Program("output0[N] = input0[N]")


def test_misuse_raises_pythons_own_errors():
    x = np.zeros(2, np.float32)
    with pytest.raises(TypeError, match="no dtype for numpy's timedelta64"):
        teval.run("output0[N] = input0[N]", {"input0": np.array([1, 2], "timedelta64[s]")})
    # complex64 is numpy's and teval's, but kernels have none.
    with pytest.raises(teval.Error, match="complex64 is an element type of MLIR functions only"):
        teval.run("output0[N] = input0[N]", {"input0": x.astype(np.complex64)})
    with pytest.raises(TypeError, match="no dtype"):
        teval.run("output0[N] = input0[N]", {"input0": np.array(["a", "b"])})
    with pytest.raises(ValueError, match="unknown engine 'llvm'"):
        teval.run("output0[N] = input0[N]", {"input0": x}, engine="llvm")
    with pytest.raises(ValueError, match="unknown dtype 'float8'"):
        teval.Program("output0[N] = input0[N]", inputs={"input0": ("float8", (2,))})
    with pytest.raises(ValueError, match="ulp, or rtol and atol"):
        teval.check("output0[N] = input0[N]", {"input0": x}, {"output0": x}, ulp=1, rtol=0.1)
    with pytest.raises(TypeError):
        teval.run(42, {})


def test_the_module_keeps_working_while_a_program_raises_in_another_thread():
    good = teval.Program("output0[N] +=! input0[N, K]", inputs={"input0": ("float64", (64, 64))})
    x = np.ones((64, 64))
    errors, results = [], []

    def failing():
        for _ in range(50):
            try:
                teval.run("output0[N] = input0[N + 1] where N in 4",
                          {"input0": np.zeros(4, np.float32)}, engine="jit")
            except teval.Error as e:
                errors.append(e.message)

    thread = threading.Thread(target=failing)
    thread.start()
    for _ in range(50):
        results.append(good.run({"input0": x}, engine="jit")["output0"])
    thread.join()
    assert len(errors) == 50 and all("out of range" in m for m in errors)
    assert all((r == 64).all() for r in results)


LONG = teval.Program("output0[N, M] +=! input0[N, K] * input1[K, M]",
                     inputs={"input0": ("float32", (2048, 2048)),
                             "input1": ("float32", (2048, 2048))})
LONG_INPUTS = LONG.random_inputs(1)


@pytest.mark.parametrize("engine", ["interp", "jit"])
def test_a_timeout_stops_a_long_evaluation(engine):
    with pytest.raises(teval.Error) as info:
        LONG.run(LONG_INPUTS, engine=engine, timeout=0.2)
    assert info.value.message == "the evaluation did not finish within the timeout of 0.2 s"
    with pytest.raises(teval.Error, match="non-negative"):
        LONG.run(LONG_INPUTS, timeout=-1)


def test_ctrl_c_stops_a_long_evaluation_with_keyboard_interrupt():
    # SIGINT to this process while the main thread evaluates (the inputs
    # are drawn before); the timeout is a backstop so that a failure is an
    # error, not a hang.
    for engine in ["interp", "jit"]:
        timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            LONG.run(LONG_INPUTS, engine=engine, timeout=120)
        timer.join()
    # Python's handler is back, and the module works on.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    out = teval.run("output0[N] = input0[N] + 1", {"input0": np.array([1], np.int8)})
    assert out["output0"][0] == 2
