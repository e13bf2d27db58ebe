# Reference values for the ByteIR ops, made with PyTorch (the frontend most
# of these ops come from) and numpy, independently of teval:
#   /usr/bin/python3 tests/data/byteir/make_references.py
# writes the .npy files next to this script. teval's native references are
# checked against them within the bounds of docs/BYTEIR.md
# (tests/ops/byteir_reference_test.cpp).
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))


def save(name, a):
    np.save(os.path.join(here, name + ".npy"), np.ascontiguousarray(a))


# Rows with ties, large magnitudes (exp overflows without the max
# subtracted), tiny and negative values.
x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0],
              [100.0, 100.0, 99.0, -100.0, 0.0],
              [-1e-3, 2.5, -7.25, 2.5, 0.125]], dtype=np.float32)
save("x", x)
t = torch.from_numpy(x)
save("softmax_axis1", torch.softmax(t, dim=1).numpy())
save("softmax_axis0", torch.softmax(t, dim=0).numpy())
save("log_softmax_axis1", torch.log_softmax(t, dim=1).numpy())
save("log_softmax_axis0", torch.log_softmax(t, dim=0).numpy())

g = np.linspace(-6.0, 6.0, 49, dtype=np.float32).reshape(7, 7)
save("g", g)
tg = torch.from_numpy(g)
save("gelu_erf", torch.nn.functional.gelu(tg).numpy())
save("gelu_tanh", torch.nn.functional.gelu(tg, approximate="tanh").numpy())
save("erf", torch.erf(tg).numpy())
