"""Shared helpers of the module's tests. Expected values are computed here
with plain loops in numpy scalars (one rounding per operation, as the
programs' sequential meaning has), never with teval."""

import os

import numpy as np
import pytest


def sequential_matmul(a, b):
    """a @ b with each output's sum in K order, rounded to a.dtype after
    every product and addition."""
    t = a.dtype.type
    n, k = a.shape
    m = b.shape[1]
    out = np.zeros((n, m), dtype=a.dtype)
    for i in range(n):
        for j in range(m):
            acc = t(0)
            for kk in range(k):
                acc = t(acc + t(a[i, kk] * b[kk, j]))
            out[i, j] = acc
    return out


@pytest.fixture
def teval_command():
    """The teval command of this build."""
    path = os.environ.get("TEVAL_COMMAND")
    if not path:
        pytest.skip("TEVAL_COMMAND is not set")
    return path
