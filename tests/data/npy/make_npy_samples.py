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

# Fortran order: the file holds the columns first; teval reads it row-major.
np.save(os.path.join(HERE, "f32_2x3_fortran.npy"),
        np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3) + np.float32(0.5)))
np.save(os.path.join(HERE, "i16_2x3x4_fortran.npy"),
        np.asfortranarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4) - 5))
# .npz archives, stored and deflated (numpy writes zip64 local headers).
np.savez(os.path.join(HERE, "pair.npz"), x=np.array([1.5, -2.0, 3.25], dtype=np.float32),
         idx=np.array([[0, 2], [1, 1]], dtype=np.int32))
np.savez_compressed(os.path.join(HERE, "pair_compressed.npz"),
                    x=np.array([1.5, -2.0, 3.25], dtype=np.float32),
                    idx=np.array([[0, 2], [1, 1]], dtype=np.int32))
