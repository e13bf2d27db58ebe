#!/usr/bin/python3
"""The errors of the math functions compilers call, measured on this machine.

For each function and dtype, every library's result is compared with the
exact value (math.* in double, whose error is below 2^-50 of the result:
far below an ulp of float32, float16 or bfloat16) on float32 samples
(2^20 random values of the function's domain, plus a grid of [-6, 6])
and on every finite float16 and bfloat16 value. Reported: the largest
error in ulps of the result dtype (an ulp taken in the exact value's
binade) and, for functions that pass through zero, the largest absolute
error in units of u = 2^-p (the error the allowance must cover where the
result is added to a value near 1, as in GELU's 1 + erf). For GELU,
0.5·x·(1 + f(x)) with f erf(x/√2) or its tanh form, the absolute error is
that of the f inside it, 2·gelu(x)/x - 1 - f(x) for |x| > 1/1000, in
float32; GELU itself is compared with the exact function on [-5, 10]
(below, 1 + f(x) cancels to nothing in any float32 formula).

Libraries: glibc's scalar libm and its vector libmvec (a C helper built
here with gcc, the loop vectorized with -ffast-math so that gcc calls
libmvec's AVX2 variants), numpy's loops, torch's CPU kernels (vectorized,
on 64 or more elements; torch.erf, exp, log, tanh and sigmoid use SLEEF
or torch's own vector code; GELU has its own erf) and oneDNN's eltwise
(through torch's mkldnn tensors: gelu, tanh, sigmoid). Run with
`scripts/dev math-ulps`; the table is in docs/ORACLE.md.
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

FORMATS = {"float32": (24, -126), "float16": (11, -14), "bfloat16": (8, -126)}

C_SCALAR = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void vector_apply(const char* f, const float* x, float* y, long n);
static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
int main(int argc, char** argv) {
  long n = atol(argv[3]);
  float* x = malloc(n * sizeof *x);
  float* y = malloc(n * sizeof *y);
  FILE* in = fopen(argv[4], "rb");
  if (fread(x, sizeof *x, n, in) != (size_t)n) return 1;
  if (strcmp(argv[2], "vector") == 0) vector_apply(argv[1], x, y, n);
  else
    for (long i = 0; i < n; ++i) {
      const char* f = argv[1];
      y[i] = !strcmp(f, "exp") ? expf(x[i]) : !strcmp(f, "log") ? logf(x[i])
           : !strcmp(f, "tanh") ? tanhf(x[i]) : !strcmp(f, "erf") ? erff(x[i])
           : !strcmp(f, "sin") ? sinf(x[i]) : !strcmp(f, "cos") ? cosf(x[i])
           : sigmoidf(x[i]);
    }
  FILE* out = fopen(argv[5], "wb");
  fwrite(y, sizeof *y, n, out);
  fclose(out);
  return 0;
}
"""

C_VECTOR = r"""
#include <math.h>
#include <string.h>
#define LOOP(expr) for (long i = 0; i < n; ++i) y[i] = expr
void vector_apply(const char* f, const float* restrict x, float* restrict y, long n) {
  if (!strcmp(f, "exp")) LOOP(expf(x[i]));
  else if (!strcmp(f, "log")) LOOP(logf(x[i]));
  else if (!strcmp(f, "tanh")) LOOP(tanhf(x[i]));
  else if (!strcmp(f, "erf")) LOOP(erff(x[i]));
  else if (!strcmp(f, "sin")) LOOP(sinf(x[i]));
  else if (!strcmp(f, "cos")) LOOP(cosf(x[i]));
  else LOOP(1.0f / (1.0f + expf(-x[i])));
}
"""


def build_helper(directory):
    """The glibc helper: scalar libm, and libmvec through a vectorized loop
    (compiled with -ffast-math, linked without it: no flush to zero)."""
    with open(os.path.join(directory, "scalar.c"), "w") as f:
        f.write(C_SCALAR)
    with open(os.path.join(directory, "vector.c"), "w") as f:
        f.write(C_VECTOR)
    cc = ["gcc", "-O2", "-c"]
    subprocess.run(cc + ["scalar.c"], cwd=directory, check=True)
    subprocess.run(cc + ["-O3", "-mavx2", "-mfma", "-ffast-math", "vector.c"], cwd=directory,
                   check=True)
    subprocess.run(["gcc", "scalar.o", "vector.o", "-lmvec", "-lm", "-o", "probe"], cwd=directory,
                   check=True)
    symbols = subprocess.run(["nm", "vector.o"], cwd=directory, capture_output=True,
                             text=True).stdout
    return os.path.join(directory, "probe"), "_ZGVdN8v_" in symbols


def glibc(probe, name, vector, x):
    with tempfile.TemporaryDirectory() as d:
        x.astype(np.float32).tofile(os.path.join(d, "x"))
        subprocess.run([probe, name, "vector" if vector else "scalar", str(len(x)),
                        os.path.join(d, "x"), os.path.join(d, "y")], check=True)
        return np.fromfile(os.path.join(d, "y"), dtype=np.float32).astype(np.float64)


def sigmoid(v):
    return 1 / (1 + math.exp(-v)) if v > -700 else 0.0


def gelu_inner(v):
    return math.erf(v / math.sqrt(2))


def gelu_tanh_inner(v):
    return math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))


def gelu(v):
    return 0.5 * v * (1 + gelu_inner(v))


def gelu_tanh(v):
    return 0.5 * v * (1 + gelu_tanh_inner(v))


INNER = {"gelu": gelu_inner, "gelu_tanh": gelu_tanh_inner}


EXACT = {"exp": math.exp, "log": math.log, "tanh": math.tanh, "erf": math.erf, "sin": math.sin,
         "cos": math.cos, "sigmoid": sigmoid, "gelu": gelu, "gelu_tanh": gelu_tanh}
DOMAIN = {"exp": (-87, 88), "log": (1e-30, 1e30), "sin": (-100, 100), "cos": (-100, 100),
          "gelu": (-5, 10), "gelu_tanh": (-5, 10)}
THROUGH_ZERO = {"tanh", "erf", "sin", "cos"}


def samples(name, dtype, rng):
    """The arguments: float32 samples, or every finite value of float16/bfloat16."""
    lo, hi = DOMAIN.get(name, (-10, 10))
    if dtype == "float16":
        x = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float64)
    elif dtype == "bfloat16":
        x = (np.arange(65536, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)
    else:
        if name == "log":
            x = np.exp(rng.uniform(math.log(lo), math.log(hi), 1 << 20))
        else:
            x = rng.uniform(lo, hi, 1 << 20)
            tiny = np.exp(rng.uniform(-40, 0, 1 << 16)) * rng.choice([-1, 1], 1 << 16)
            x = np.concatenate([x, np.linspace(-6, 6, 20001), tiny])
        x = x.astype(np.float32).astype(np.float64)
    x = x[np.isfinite(x) & (x >= lo) & (x <= hi)]
    return x


def to_dtype(v, dtype):
    """float64 values rounded to nearest in dtype, as float64."""
    if dtype == "bfloat16":
        return torch.from_numpy(v).to(torch.bfloat16).to(torch.float64).numpy()
    return v.astype(dtype).astype(np.float64)


def torch_dtype(dtype):
    return {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype]


def libraries(name, dtype, probe, mvec):
    """(library, function of float64 values of dtype -> float64 results)."""
    out = []
    t = torch_dtype(dtype)
    tf = {"exp": torch.exp, "log": torch.log, "tanh": torch.tanh, "erf": torch.erf,
          "sin": torch.sin, "cos": torch.cos, "sigmoid": torch.sigmoid,
          "gelu": torch.nn.functional.gelu,
          "gelu_tanh": lambda v: torch.nn.functional.gelu(v, approximate="tanh")}[name]
    out.append(("torch", lambda x: tf(torch.from_numpy(x).to(t)).to(torch.float64).numpy()))
    if name in ("gelu", "tanh", "sigmoid") and dtype != "float16":
        out.append(("oneDNN", lambda x: tf(torch.from_numpy(x).to(torch.float32).to_mkldnn(t))
                    .to_dense().to(torch.float64).numpy()))
    npf = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sin": np.sin, "cos": np.cos,
           "sigmoid": lambda v: 1 / (1 + np.exp(-v))}.get(name)
    if npf and dtype != "bfloat16":
        out.append(("numpy", lambda x: npf(x.astype(dtype)).astype(np.float64)))
    if name in C_VECTOR and dtype == "float32" and name not in ("gelu", "gelu_tanh"):
        out.append(("glibc", lambda x: glibc(probe, name, False, x)))
        if mvec:
            out.append(("libmvec", lambda x: glibc(probe, name, True, x)))
    return out


def measure(name, dtype, probe, mvec, rng):
    p, emin = FORMATS[dtype]
    x = samples(name, dtype, rng)
    exact = np.array([EXACT[name](v) for v in x])
    binade = np.floor(np.log2(np.maximum(np.abs(exact), 2.0 ** emin)))
    ulp = 2.0 ** (binade - p + 1)
    rows = []
    for library, f in libraries(name, dtype, probe, mvec):
        try:
            y = f(x)
        except RuntimeError:  # torch has no kernel for this dtype on the CPU
            continue
        ok = np.isfinite(y) & np.isfinite(exact) & (np.abs(exact) < 2.0 ** 120)
        err = np.abs(y[ok] - exact[ok])
        ulps = err / ulp[ok]
        worst = int(np.argmax(ulps))
        absolute = float(np.max(err)) / 2.0 ** -p if name in THROUGH_ZERO else None
        if name in INNER and dtype == "float32":
            v = x[ok]
            big = np.abs(v) > 1e-3
            inner = np.array([INNER[name](a) for a in v[big]])
            implied = np.abs(2 * y[ok][big] / v[big] - 1 - inner)
            absolute = float(np.max(implied)) / 2.0 ** -24
        rows.append((library, float(ulps[worst]), float(x[ok][worst]), absolute))
    return rows


def main():
    rng = np.random.default_rng(1)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as d:
        probe, mvec = build_helper(d)
        print("| function | dtype | library | worst error (ulps) | at x | "
              "worst absolute error (units of 2^-p; GELU: of its erf or tanh, units of 2^-24) |")
        print("|---|---|---|---|---|---|")
        for name in EXACT:
            for dtype in FORMATS:
                for library, ulps, at, absolute in measure(name, dtype, probe, mvec, rng):
                    a = "" if absolute is None else f"{absolute:.2f}"
                    print(f"| {name} | {dtype} | {library} | {ulps:.2f} | {at:.9g} | {a} |")
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
