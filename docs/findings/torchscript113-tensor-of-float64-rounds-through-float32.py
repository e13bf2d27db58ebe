# TorchScript (PyTorch 1.13, Debian 12's python3-torch): torch.tensor(x,
# dtype=torch.float64) of a Python float x rounds x through float32 in a
# scripted function, where eager torch keeps its bits. Prints the eager
# value, then the scripted one, which differs from it.
import torch


def constant() -> torch.Tensor:
    return torch.tensor(1.0004882812509095, dtype=torch.float64)


print(repr(constant().item()))                    # 1.0004882812509095
print(repr(torch.jit.script(constant)().item()))  # 1.00048828125: rounded to float32
