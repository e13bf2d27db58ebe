"""A compiler's test suite checking its softmax kernels (here numpy's and
torch's) against the meaning of the einstein_v2 program, with pytest:
    PYTHONPATH=<teval's site directory> python3 -m pytest examples/ci
"""

import os

import numpy as np
import pytest

import teval
from teval.testing import assert_matches

PROGRAM = teval.Program(open(os.path.join(os.path.dirname(__file__), "softmax.antares")).read(),
                        name="softmax.antares")


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_numpy_softmax(seed):
    inputs = PROGRAM.random_inputs(seed)
    assert_matches(PROGRAM, inputs, {"output0": numpy_softmax(inputs["input0"])})


def test_torch_softmax():
    torch = pytest.importorskip("torch")
    inputs = PROGRAM.random_inputs(4)
    got = torch.softmax(torch.from_numpy(inputs["input0"]), dim=1).numpy()
    assert_matches(PROGRAM, inputs, {"output0": got})


def test_a_softmax_over_the_wrong_axis_is_caught():
    inputs = PROGRAM.random_inputs(5)
    x = inputs["input0"]
    e = np.exp(x - x.max(axis=0, keepdims=True))
    with pytest.raises(AssertionError, match="Mismatched elements of output0"):
        assert_matches(PROGRAM, inputs, {"output0": e / e.sum(axis=0, keepdims=True)})
