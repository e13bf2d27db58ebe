"""The kernel under test, standing in for a compiler's generated code:
reads IN_DIR/input0.npy, writes OUT_DIR/output0.npy."""

import os
import sys

import numpy as np

in_dir, out_dir = sys.argv[1], sys.argv[2]
x = np.load(os.path.join(in_dir, "input0.npy"))
e = np.exp(x - x.max(axis=1, keepdims=True))
os.makedirs(out_dir, exist_ok=True)
np.save(os.path.join(out_dir, "output0.npy"), e / e.sum(axis=1, keepdims=True))
