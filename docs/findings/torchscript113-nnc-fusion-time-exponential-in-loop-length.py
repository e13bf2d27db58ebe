# TorchScript (PyTorch 1.13, Debian 12's python3-torch) with the NNC fuser on
# the CPU: a loop of N steps, each a torch.where over an int64 value wrapped
# to 8 bits, takes time exponential in N when the profiling executor
# optimizes it (the second call). Prints the seconds of each call for
# N = 4, 6, 8, 10: the second call took 0.07, 0.45, 6.4 and 89 s here (about
# 14 times more for 2 more steps); 12 steps did not finish in 100 s. Without
# the fuser every call takes milliseconds. Run: /usr/bin/python3 THIS
import time

import torch

torch._C._jit_override_can_fuse_on_cpu(True)
torch._C._jit_set_te_must_use_llvm_cpu(False)  # Debian's torch has no LLVM


def make(n: int):
    source = f"""
def kernel(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros([], dtype=torch.int64)
    first = torch.ones([], dtype=torch.bool)
    for r in range({n}):
        v = x[r]
        acc = torch.where(first, v, (((acc * v) + 128) & 255) - 128)
        first = torch.zeros_like(first)
    return acc
"""
    return torch.jit.CompilationUnit(source).kernel


x = torch.arange(1, 13, dtype=torch.int64)
for n in (4, 6, 8, 10):
    kernel = make(n)
    times = []
    for call in range(3):
        start = time.time()
        kernel(x)
        times.append(time.time() - start)
    print(f"N = {n}: " + ", ".join(f"{t:.3f} s" for t in times), flush=True)
