#!/usr/bin/python3
"""A reference reader of `teval lower --json` (schema teval-kernel, version 1).

It evaluates a program from its JSON form alone, point by point, as
docs/KERNEL_JSON.md defines it, and writes each output as NAME.npy: what an
adapter for another compiler must reproduce, written without teval's code.
Its tests (test_evaluate.py) run it on generated programs and compare its
bits with the interpreter's.

    teval lower --json program.antares > kernel.json
    evaluate.py kernel.json INPUT_DIR OUT_DIR

INPUT_DIR holds one NAME.npy per input tensor. On an error of the program
(an out-of-range read, integer division by zero, ...) it prints the error
and exits with status 1, writing nothing.

Math functions (exp, log, ...) are numpy's float64 functions, rounded to the
dtype: teval's own library agrees with them to within one ulp, so programs
that call them may differ in the last bit (the result says so).
"""

import json
import math
import sys
from pathlib import Path

import numpy as np

# dtype name -> (significand bits, minimum and maximum exponent) for floats.
FLOATS = {"float16": (11, -14, 15), "bfloat16": (8, -126, 127),
          "float32": (24, -126, 127), "float64": (53, -1022, 1023)}
INTS = {"bool": (0, 1), "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1),
        "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1), "uint8": (0, 255),
        "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1)}
NUMPY = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
         "int64": np.int64, "uint8": np.uint8, "float16": np.float16, "float32": np.float32,
         "float64": np.float64, "uint16": np.uint16, "uint32": np.uint32}
MATH = {"exp", "log", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
        "cosh", "tanh", "erf", "normcdf", "sigmoid", "pow", "erfc", "expm1", "log1p", "cbrt",
        "asinh", "acosh", "atanh", "atan2"}


class ProgramError(Exception):
    """The program is wrong at this point (teval reports an error)."""


class InvalidPoint(Exception):
    """Under out_of_range "skip": the point contributes nothing."""


class Inexact(Exception):
    """exactdiv of numbers that do not divide."""


def round_float(x, dtype):
    """The double or int x rounded once to dtype, to nearest, ties to even."""
    p, emin, emax = FLOATS[dtype]
    if isinstance(x, float):
        if x == 0 or math.isnan(x) or math.isinf(x):
            return x
        m, e = math.frexp(x)
        mant, exp = int(m * 2**53), e - 53
    else:
        mant, exp = x, 0
        if mant == 0:
            return 0.0
    sign = -1.0 if mant < 0 else 1.0
    mant = abs(mant)
    lead = exp + mant.bit_length() - 1
    q = max(lead, emin) - (p - 1)  # the exponent of the last significand bit
    shift = q - exp
    if shift <= 0:
        n = mant << -shift
    else:
        n, rest = mant >> shift, mant & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and n & 1):
            n += 1
    if n and q + n.bit_length() - 1 > emax:
        return sign * math.inf
    return sign * math.ldexp(n, q) if n else math.copysign(0.0, sign)


def wrap(v, dtype):
    if dtype == "bool":
        return int(v != 0)
    lo, hi = INTS[dtype]
    span = hi - lo + 1
    return (v - lo) % span + lo


def value(x, dtype):
    """x (a Python int or float) as a value of dtype."""
    return round_float(x, dtype) if dtype in FLOATS else wrap(x, dtype)


def constant(c):
    v = c["value"]
    if c["dtype"] in FLOATS:
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v) * 1.0
    return int(v)


def float_to_int(x, dtype):
    if math.isnan(x) or math.isinf(x):
        raise ProgramError(f"{x} does not fit {dtype}")
    t = math.trunc(x)
    lo, hi = INTS[dtype]
    if not lo <= t <= hi:
        raise ProgramError(f"{x} does not fit {dtype}")
    return t


def fmax(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return b if math.copysign(1, a) < 0 else a
    return max(a, b)


def fmin(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


def math_function(op, x, y, dtype):
    """op in float64 (for float64) or in float32 (the narrower dtypes): the
    library functions correctly rounded to it, the compound ones (rsqrt,
    sigmoid, normcdf) rounded after each step."""
    def r(v):  # rounded to the precision the function runs in
        v = float(v)
        return v if dtype == "float64" else round_float(v, "float32")

    def div(a, b):
        return float_op("div", a, b, "float64")

    with np.errstate(all="ignore"):
        f = np.float64
        if op == "rsqrt":
            return r(div(1.0, r(np.sqrt(f(x)))))
        if op == "sigmoid":
            return r(div(1.0, r(1.0 + r(np.exp(-f(x))))))
        if op == "normcdf":
            return 0.5 * r(math.erfc(r(-x * r(0.70710678118654752440))))
        return r({"exp": lambda: np.exp(f(x)), "log": lambda: np.log(f(x)),
                  "sqrt": lambda: np.sqrt(f(x)), "sin": lambda: np.sin(f(x)),
                  "cos": lambda: np.cos(f(x)), "tan": lambda: np.tan(f(x)),
                  "asin": lambda: np.arcsin(f(x)), "acos": lambda: np.arccos(f(x)),
                  "atan": lambda: np.arctan(f(x)), "sinh": lambda: np.sinh(f(x)),
                  "cosh": lambda: np.cosh(f(x)), "tanh": lambda: np.tanh(f(x)),
                  "erf": lambda: f(math.erf(x)), "pow": lambda: np.power(f(x), f(y)),
                  "erfc": lambda: f(math.erfc(x)), "expm1": lambda: np.expm1(f(x)),
                  "log1p": lambda: np.log1p(f(x)), "cbrt": lambda: np.cbrt(f(x)),
                  "asinh": lambda: np.arcsinh(f(x)), "acosh": lambda: np.arccosh(f(x)),
                  "atanh": lambda: np.arctanh(f(x)),
                  "atan2": lambda: np.arctan2(f(x), f(y))}[op]())


def float_op(op, a, b, dtype):
    if op == "add":
        r = a + b
    elif op == "sub":
        r = a - b
    elif op == "mul":
        r = a * b
    elif op == "div":
        if b == 0:
            r = math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1, b)
        else:
            r = a / b
    elif op == "mod":
        if b == 0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
            r = math.nan
        else:
            r = math.fmod(a, b)
            if r != 0 and (r < 0) != (b < 0):
                r += b
    elif op == "max":
        r = fmax(a, b)
    elif op == "min":
        r = fmin(a, b)
    elif op == "neg":
        r = -a
    elif op == "abs":
        r = abs(a)
    elif op == "frac":  # IEEE floor and ceil keep the sign of zero (-0.5 -> -0.0)
        r = a - float(np.floor(a)) if math.isfinite(a) else math.nan
    elif op == "rfloor":
        r = float(np.floor(a))
    elif op == "rceil":
        r = float(np.ceil(a))
    else:
        r = math_function(op, a, b, dtype)
    return round_float(r, dtype)


def int_op(op, a, b, dtype, trap):
    if op in ("add", "sub", "mul", "neg", "abs", "div", "exactdiv"):
        if op == "add":
            r = a + b
        elif op == "sub":
            r = a - b
        elif op == "mul":
            r = a * b
        elif op == "neg":
            r = -a
        elif op == "abs":
            r = abs(a)
        else:
            if b == 0:
                raise ProgramError("integer division by zero")
            r = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncating
            if op == "exactdiv" and r * b != a:
                raise Inexact()
        lo, hi = INTS[dtype]
        if trap and not lo <= r <= hi:
            raise ProgramError("integer overflow in index arithmetic")
        return wrap(r, dtype)
    if op == "mod":
        if b == 0:
            raise ProgramError("integer modulo by zero")
        return a % b  # floored: Python's
    if op == "max":
        return max(a, b)
    if op == "min":
        return min(a, b)
    if op in ("shl", "shr"):
        bits = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
                "uint32": 32}[dtype]
        if not 0 <= b < bits:
            raise ProgramError("shift amount out of range")
        return wrap(a << b, dtype) if op == "shl" else a >> b
    raise ValueError(f"an integer {op}")


def compare(op, a, b):
    if op == "same":
        if isinstance(a, float):
            if math.isnan(a) or math.isnan(b):
                return math.isnan(a) and math.isnan(b)
            return a == b and math.copysign(1, a) == math.copysign(1, b)
        return a == b
    return {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b,
            "ne": a != b}[op]


class Statement:
    def __init__(self, program, s):
        self.program, self.s = program, s
        self.point = []

    def eval(self, e):
        kind, dtype = e["kind"], e["dtype"]
        if kind == "const":
            return constant(e)
        if kind == "var":
            return value(self.point[e["var"]], dtype)
        if kind == "load":
            tensor = self.program.values[e["tensor"]]
            index = tuple(self.eval(i) for i in e["index"])
            if any(not 0 <= i < n for i, n in zip(index, tensor.shape)):
                if self.s["out_of_range"] == "skip":
                    raise InvalidPoint()
                raise ProgramError(f"read out of range: {index} of {tensor.shape}")
            return tensor[index]
        if kind == "cast":
            v, source = self.eval(e["value"]), e["from"]
            if dtype == "bool":
                return int(v != 0)
            if dtype in FLOATS:
                return round_float(v, dtype)
            return float_to_int(v, dtype) if source in FLOATS else wrap(v, dtype)
        if kind == "select":
            return self.eval(e["then"] if self.eval(e["cond"]) != 0 else e["else"])
        op, args = e["op"], e["args"]
        if op == "and":
            return int(self.eval(args[0]) != 0 and self.eval(args[1]) != 0)
        if op == "or":
            return int(self.eval(args[0]) != 0 or self.eval(args[1]) != 0)
        if op == "not":
            return int(self.eval(args[0]) == 0)
        vals = [self.eval(a) for a in args]
        operand = args[0]["dtype"]
        if op in ("lt", "le", "gt", "ge", "eq", "ne", "same"):
            return int(compare(op, *vals))
        if op in ("floor", "ceil"):
            return float_to_int(math.floor(vals[0]) if op == "floor" else math.ceil(vals[0]), dtype) \
                if math.isfinite(vals[0]) else float_to_int(vals[0], dtype)
        if op in MATH:
            self.program.approximate = True
        a, b = vals[0], vals[1] if len(vals) > 1 else 0
        if operand in FLOATS:
            return float_op(op, a, b, dtype)
        return int_op(op, a, b, dtype, e.get("overflow") == "error")

    def valid(self, e):
        """Under "skip": every read anywhere in e (both branches) in range."""
        kind = e["kind"]
        if kind == "load":
            if not all(self.valid(i) for i in e["index"]):
                return False
            shape = self.program.values[e["tensor"]].shape
            return all(0 <= self.eval(i) < n for i, n in zip(e["index"], shape))
        if kind == "apply":
            return all(self.valid(a) for a in e["args"])
        if kind == "cast":
            return self.valid(e["value"])
        if kind == "select":
            return all(self.valid(e[k]) for k in ("cond", "then", "else"))
        return True

    def run(self):
        s, program = self.s, self.program
        decl = program.tensors[s["target"]]
        dtype = decl["dtype"]
        if s["init_from"] is not None:
            out = program.values[s["init_from"]].copy()
        else:
            out = np.full(decl["shape"], constant(s["init"]), dtype=object)
        skip = s["out_of_range"] == "skip"
        written = {}
        ranges = [range(v["begin"], v["end"]) for v in s["vars"]]
        for number, point in enumerate(np.ndindex(*[len(r) for r in ranges])):
            self.point = [r[i] for r, i in zip(ranges, point)]
            try:
                if any(not 0 <= self.eval(c["expr"]) < c["bound"] for c in s["constraints"]):
                    continue
                if skip and not self.valid(s["value"]):
                    continue
                index = tuple(self.eval(i) for i in s["out_index"])
                if any(not 0 <= i < n for i, n in zip(index, out.shape)):
                    if skip:
                        continue
                    raise ProgramError(f"write out of range: {index} of {out.shape}")
                v = self.eval(s["value"])
            except InvalidPoint:
                continue
            except Inexact:
                if skip:
                    continue
                raise ProgramError("fractional index")
            first = index not in written
            agg = s["aggregation"]
            if agg == "assign":
                if not first and (s["write_conflict"] == "error" or
                                  not compare("same", out[index], v)):
                    raise ProgramError(f"two writes to {index}")
                out[index] = v
            elif first and s["start"] == "first_value":
                out[index] = v
            else:
                out[index] = combine(agg, out[index], v, dtype)
            written.setdefault(index, number)
        program.values[s["target"]] = out


def combine(agg, acc, v, dtype):
    if agg in ("all", "any"):
        return int((acc != 0 and v != 0) if agg == "all" else (acc != 0 or v != 0))
    if dtype in FLOATS:
        r = {"sum": lambda: acc + v, "product": lambda: acc * v,
             "max": lambda: fmax(acc, v), "min": lambda: fmin(acc, v)}[agg]()
        return round_float(r, dtype)
    r = {"sum": acc + v, "product": acc * v, "max": max(acc, v), "min": min(acc, v)}[agg]
    return wrap(r, dtype)


class Program:
    def __init__(self, kernel):
        assert kernel["schema"] == "teval-kernel" and kernel["version"] == 1, "unknown schema"
        self.kernel = kernel
        self.tensors = kernel["tensors"]
        self.values = [None] * len(self.tensors)
        self.approximate = False

    def run(self, inputs):
        for i, t in enumerate(self.tensors):
            if "constant" in t:  # the program's own value (an MLIR constant)
                v = np.empty(len(t["constant"]), dtype=object)
                v[:] = [constant({"dtype": t["dtype"], "value": c}) for c in t["constant"]]
                self.values[i] = v.reshape(t["shape"])
            elif t["role"] == "input":
                self.values[i] = inputs[t["name"]]
        for s in self.kernel["statements"]:
            Statement(self, s).run()
        return {self.tensors[o]["name"]: self.values[o] for o in self.kernel["outputs"]}


def read_npy(path, dtype):
    a = np.load(path)
    if dtype == "bfloat16":
        bits = a.reshape(-1).view(np.uint16).astype(np.uint32) << 16
        a = bits.view(np.float32).reshape(a.shape)
    out = np.empty(a.shape, dtype=object)
    for i in np.ndindex(*a.shape):
        out[i] = float(a[i]) if dtype in FLOATS else int(a[i])
    return out


def to_numpy(values, dtype):
    if dtype == "bfloat16":
        f = np.array(values.tolist(), dtype=np.float32).reshape(-1)
        return (f.view(np.uint32) >> 16).astype(np.uint16).view("V2").reshape(values.shape)
    return np.array(values.tolist() if values.shape else values[()], dtype=NUMPY[dtype]).reshape(
        values.shape)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    kernel = json.loads(Path(argv[1]).read_text())
    program = Program(kernel)
    inputs = {t["name"]: read_npy(Path(argv[2]) / f"{t['name']}.npy", t["dtype"])
              for t in kernel["tensors"] if t["role"] == "input" and "constant" not in t}
    try:
        outputs = program.run(inputs)
    except ProgramError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    out = Path(argv[3])
    out.mkdir(parents=True, exist_ok=True)
    dtypes = {t["name"]: t["dtype"] for t in kernel["tensors"]}
    for name, v in outputs.items():
        np.save(out / f"{name}.npy", to_numpy(v, dtypes[name]))
    if program.approximate:
        print("calls math functions: the last bit may differ from teval's", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
