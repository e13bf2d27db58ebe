"""teval: one precise meaning for tensor index notations, evaluated exactly.

Programs are Antares einstein_v2 expressions (or COMPUTE_V1 strings) and
PlaidML Tile functions. Tensors are numpy arrays, in and out:

    >>> import numpy as np, teval
    >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> teval.run("output0[N] +=! input0[N, K]", {"input0": a})["output0"]
    array([ 3., 12.], dtype=float32)

Inputs are passed by name. An array in C order whose dtype the program
declares is read where it lies; other layouts (Fortran order, slices,
negative strides) are gathered first. Outputs are new arrays that own their
memory. numpy has no bfloat16: a bfloat16 tensor is an array of dtype
teval.bfloat16, numpy's 2-byte void holding the bits (the top 16 bits of a
float32), both ways, as in teval's .npy files; teval.to_bfloat16 and
teval.from_bfloat16 convert. A uint16 array is an error, never bfloat16.

Wrong programs and inputs raise teval.Error, whose str() is the clang-style
diagnostic and whose .file, .line, .column and .message locate it.
"""

import numpy as _np

from ._teval import Error, Program, TensorInfo, Verdict

for _type in (Error, Program, TensorInfo, Verdict):
    _type.__module__ = "teval"  # as tracebacks and repr() show them
del _type

__all__ = ["Error", "Program", "TensorInfo", "Verdict", "run", "check", "testing", "bfloat16",
           "to_bfloat16", "from_bfloat16"]

#: The numpy dtype of bfloat16 arrays: 2-byte void, the bits of each value.
bfloat16 = _np.dtype("V2")


def to_bfloat16(values):
    """`values` (any real array) as a teval.bfloat16 array: each rounded to
    the nearest bfloat16, ties to even (through float32: a float64 value is
    rounded to float32 first); NaN stays NaN."""
    f = _np.ascontiguousarray(values, dtype=_np.float32)
    bits = f.view(_np.uint32).astype(_np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = _np.isnan(f)
    rounded[nan] = (bits[nan] >> 16) | 0x40  # a quiet NaN keeps its sign
    return rounded.astype(_np.uint16).view(bfloat16)


def from_bfloat16(array):
    """A teval.bfloat16 array as float32 (exact: every bfloat16 is a float32)."""
    a = _np.ascontiguousarray(array)
    if a.dtype != bfloat16:
        raise TypeError("from_bfloat16 takes a teval.bfloat16 array, not " + str(a.dtype))
    return (a.view(_np.uint16).astype(_np.uint32) << 16).view(_np.float32)

ENGINES = ("interp", "ireval", "jit", "exact")


def _program(program, inputs, entry, params, notation, candidates=None):
    """A Program from text (with the types of the given arrays) or as it is.

    Of an MLIR function, names of values (`%5`, `%2/%0`) among `inputs`
    are given values and among `candidates` values made outputs, as
    `teval check --given` and `--candidate` take them."""
    if isinstance(program, Program):
        if entry is not None or params is not None or notation != "detect":
            raise ValueError("entry, params and notation apply to program text, "
                             "not to a loaded teval.Program")
        return program
    if not isinstance(program, str):
        raise TypeError("program must be program text or a teval.Program")
    inputs = dict(inputs) if inputs else {}
    given = [name for name in inputs if name.startswith("%")]
    values = [name for name in candidates or () if name.startswith("%")]
    types = {name: a for name, a in inputs.items() if not name.startswith("%")}
    return Program(program, notation=notation, entry=entry, params=params,
                   inputs=types or None, values=values or None, given=given or None)


def run(program, inputs=None, engine="interp", entry=None, params=None, seed=None,
        notation="detect", timeout=None, threads=1, order="sequential", fma=False, out=None):
    """Runs `program` on `inputs` (a dict of arrays by input name).

    program   program text in any notation teval reads, or a teval.Program.
    inputs    {name: array}. Inputs the program does not declare take their
              dtype and shape from the array.
    engine    "interp" (the ground truth), "ireval", "jit" or "exact":
              the first three agree bit for bit; "exact" rounds each float
              sum and product once.
    entry     the Tile function to run; params its integer (list) parameters.
    seed      draw the inputs not given from this seed, as `teval run --seed`.
    notation  "detect", "antares", "tile" or "mlir".
    timeout   seconds the evaluation may take; past them, teval.Error.
    threads   engine "jit": threads large loop nests' outer loops run on
              (0: every core); the results are the same with any number.
    order     engine "jit": "sequential" (the interpreter's bits) or "any":
              each float reduction added in any order and association, the
              results within teval.check's bound instead.
    fma       engine "jit": products may be fused into the sums and
              additions they feed (within teval.check(..., fma=True)'s bound).
    out       {name: array}: writable numpy arrays of the outputs' dtypes and
              shapes (any strides) that the run writes those outputs into,
              as numpy's out= does; they are returned as the outputs. The
              JIT writes one in place when it is contiguous, overlaps no
              input and the program provably cannot fail; otherwise the
              output is copied there once the run has succeeded, so an
              error leaves the arrays unchanged (an interrupted run that
              writes in place may leave them partly written).

    Returns {name: array} for every output. Ctrl-C stops a long evaluation
    (KeyboardInterrupt), as it stops Python code.
    """
    return _program(program, inputs, entry, params, notation).run(
        inputs, engine=engine, seed=seed, timeout=timeout, threads=threads, order=order, fma=fma,
        out=out)


def check(program, inputs, candidates, ulp=None, rtol=None, atol=None, fma=False,
          entry=None, params=None, seed=None, notation="detect", timeout=None, math_ulp=None,
          excess_precision=False):
    """Judges `candidates` ({output name: array}) as results of `program` on
    `inputs`, as `teval check` does: by default every element must lie in
    its rigorous bound over all legal evaluations; `ulp=N` asks for N ulps
    of the exact result, `rtol`/`atol` for numpy's tolerance rule; `fma`
    allows fused multiply-adds; `math_ulp=N` (or {"erf": N, ...}) sets the
    error allowance of math functions in ulps instead of the measured
    table (docs/ORACLE.md); `excess_precision` lets float16 and bfloat16
    values be kept in float32 between operations, as libraries computing
    them in float32 do; `timeout` bounds the check in seconds.

    Of an MLIR function given as text, a compiler's per-layer dumps are
    judged too: a candidate named as `teval run --dump-values` names a value
    (`"%5"`, `"%2/%0"`) is judged against that value's bound, and an input
    so named is a given value (`teval check --given`): what follows it is
    bounded from the array given, each layer on its own inputs. (A loaded
    teval.Program takes them as Program(text, values=[...], given=[...]).)
    Returns {name: teval.Verdict}.
    """
    p = _program(program, inputs, entry, params, notation, candidates)
    return p.check(inputs, candidates, seed=seed, ulp=ulp, rtol=rtol, atol=atol, fma=fma,
                   timeout=timeout, math_ulp=math_ulp, excess_precision=excess_precision)


from . import testing  # noqa: E402  (testing uses check)
