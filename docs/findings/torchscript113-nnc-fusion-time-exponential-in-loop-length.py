# TorchScript (PyTorch 1.13, Debian 12's python3-torch) with the NNC fuser on
# the CPU: a loop of N steps folding a masked sum that starts at its first
# value, acc = where(k, where(w, acc + v, v), acc), takes time exponential
# in N when the profiling executor optimizes it (the second call). Prints
# the seconds of each call for N = 4, 6, 8: the second call took 0.03,
# 0.64 and 28 s here (an int8 product wrapped to 8 bits,
# where(first, v, ((acc * v + 128) & 255) - 128), does the same, 14 times
# more per two steps). Without the fuser every call takes milliseconds.
# Run: /usr/bin/python3 THIS
import time

import torch

torch._C._jit_override_can_fuse_on_cpu(True)
torch._C._jit_set_te_must_use_llvm_cpu(False)  # Debian's torch has no LLVM


def make(n: int):
    return torch.jit.CompilationUnit(f"""
def kernel(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros([], dtype=torch.float32)
    w = torch.zeros([], dtype=torch.bool)
    for r in range({n}):
        v = x[r]
        k = m[r]
        acc = torch.where(k, torch.where(w, acc + v, v), acc)
        w = w | k
    return acc
""").kernel


x, m = torch.rand(12), torch.ones(12, dtype=torch.bool)
for n in (4, 6, 8):
    kernel = make(n)
    times = []
    for call in range(3):
        start = time.time()
        kernel(x, m)
        times.append(time.time() - start)
    print(f"N = {n}: " + ", ".join(f"{t:.3f} s" for t in times), flush=True)
