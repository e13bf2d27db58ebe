#!/usr/bin/python3
"""Writes the .npy samples the core tests read, with numpy itself."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
np.save(os.path.join(HERE, "f32_2x3.npy"), np.arange(6, dtype=np.float32).reshape(2, 3) + np.float32(0.5))
np.save(os.path.join(HERE, "f16_4.npy"), np.array([0, 0.1, -2, 65504], dtype=np.float16))
np.save(os.path.join(HERE, "bool_3.npy"), np.array([False, True, False]))
np.save(os.path.join(HERE, "i64_scalar.npy"), np.array(-7, dtype=np.int64))
np.lib.format.write_array(open(os.path.join(HERE, "u8_v2.npy"), "wb"),
                          np.array([1, 2, 255], dtype=np.uint8), version=(2, 0))
