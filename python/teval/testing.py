"""Assertions for test suites: is a kernel's output a legal result of a
teval program? For pytest and unittest alike.

    from teval.testing import assert_matches
    assert_matches("output0[N, M] +=! input0[N, K] * input1[K, M]",
                   {"input0": a, "input1": b}, {"output0": my_kernel(a, b)})
"""

import numpy as np

import teval


def _rule(ulp, rtol, atol, fma):
    if ulp is not None:
        rule = f"within {ulp} ulp of the exact result"
    elif rtol is not None or atol is not None:
        rule = f"tolerance rtol={rtol or 0:g}, atol={atol or 0:g}"
    else:
        rule = "the rigorous bound of every legal evaluation order"
    return rule + (", fused multiply-adds allowed" if fma else "")


def assert_matches(program, inputs, outputs, ulp=None, rtol=None, atol=None, fma=False,
                   entry=None, params=None, err_msg="", verbose=True):
    """Raises AssertionError unless every array in `outputs` ({output name:
    array}) is a legal result of `program` on `inputs`.

    The rule is teval check's (see teval.check): the rigorous bound by
    default, `ulp=N`, or `rtol`/`atol`. The message shows each failing
    output's mismatched-element count and its worst element, with the exact
    result and the interval of legal results, the way numpy's
    assert_allclose shows its worst difference; `verbose` adds both arrays.
    teval.Error propagates: a wrong program or wrong inputs are not a
    mismatch.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not these
    if not outputs:
        raise ValueError("assert_matches needs at least one output to check")
    verdicts = teval.check(program, inputs, outputs, ulp=ulp, rtol=rtol, atol=atol, fma=fma,
                           entry=entry, params=params)
    failed = [v for v in verdicts.values() if not v.passed]
    if not failed:
        return
    expected = None
    if verbose:
        try:
            p = teval._program(program, inputs, entry, params, "detect")
            expected = p.run(inputs)
        except teval.Error:
            expected = None
    wrong = any(v.status == "mismatch" for v in failed)
    lines = [f"{'Not' if wrong else 'Not shown to be'} a legal result of the program "
             f"({_rule(ulp, rtol, atol, fma)})"]
    if err_msg:
        lines.append(err_msg)
    for v in failed:
        lines.append("")
        share = 100.0 * v.mismatches / v.elements if v.elements else 0.0
        if v.kind in ("dtype", "shape"):
            lines.append(f"{v.name}: {v.kind} differs")
        elif v.status == "inconclusive":
            lines.append(f"Undecided elements of {v.name} (no finite bound, neither the exact "
                         f"nor the sequential value): {v.inconclusive} / {v.elements}")
        else:
            lines.append(f"Mismatched elements of {v.name}: {v.mismatches} / {v.elements} "
                         f"({share:.3g}%)")
        lines.append(v.text)
        if verbose:
            actual = np.asarray(outputs[v.name])
            lines.append(_show(" actual:     ", actual))
            if expected is not None and v.name in expected:
                lines.append(_show(" sequential: ", expected[v.name]))
    raise AssertionError("\n".join(lines))


def _show(label, array):
    """label, then the array, its later lines aligned under its first."""
    text = np.array2string(np.asarray(array), threshold=20, edgeitems=3, separator=", ")
    return label + text.replace("\n", "\n" + " " * len(label))
