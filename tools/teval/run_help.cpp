// The texts of `teval run --help`, `teval lower --help` and `teval jit --help`.
#include "tools/teval/run_command.h"

namespace teval::tools {

const char* const kRunHelp =
    R"(usage: teval run [--lang antares|tile|mlir] (FILE | -e TEXT) [options]

Evaluates a program with teval's ground-truth interpreter and writes or
prints its outputs.

An Antares einstein_v2 program comes in any of three forms:
  a bare program         output0[N] +=! input0[N, K] * input1[K]
  a COMPUTE_V1 value     - _K = 64; einstein_v2(f"...", input_dict={...})
  a shell line           COMPUTE_V1='- einstein_v2("...", {...})' make
A PlaidML Tile source (FILE.tile) holds functions in the tutorial's C++ or
Python spelling; --entry picks the one to run, its tensor parameters come
from -i and its integer parameters from -p. Its result is written as
DIR/<returned name>.npy (`result` for an unnamed returned expression).
An MLIR file (FILE.mlir) holds a module of func.func: --entry picks one
(default @main, or the only one); its arguments are the inputs arg0, arg1,
... and what it returns the outputs result0, result1, ... Its ops are
mhlo/stablehlo ops and ByteIR custom calls (docs/BYTEIR.md); the
interpreter runs each op's native reference, ireval and jit its einstein_v2
decomposition (teval lower prints it).

options:
  -e TEXT                the program text itself instead of FILE
  --lang antares|tile|mlir
                         the notation (default: tile for *.tile files, mlir for
                         *.mlir files, else antares)
  --entry NAME           the Tile function to run (needed when there are
                         several), or the MLIR function
  -p NAME=INT            an integer parameter of the Tile function
  -p NAME=[I,J,...]      an integer-list parameter (std::vector<size_t>)
  -i NAME=PATH.npy       read input NAME from a numpy .npy file (C or Fortran
                         order); its dtype and shape must match the input_dict
                         entry, if any
  -i NAME=PATH.npz:KEY   read input NAME from array KEY of a numpy .npz archive
                         (np.savez, np.savez_compressed); PATH.npz alone reads
                         the array named NAME
  -i NAME=DTYPE[d0,...]  give input NAME seeded random data of this dtype and
                         shape (for inputs input_dict does not declare);
                         NAME must be an input of the program (read, declared
                         or a parameter), else it is an error
  --seed N               seed of the random inputs (default 0)
  -o DIR                 write each output to DIR/NAME.npy (created if needed;
                         every file is written only when the whole run
                         succeeds, all of them or none, never through a link)
  --save-inputs DIR      also write every input the run used, read or random,
                         to DIR/NAME.npy (only when the whole run succeeds),
                         so another tool can be run on the same data
  --print                print the outputs like numpy (the default without -o)
  --dump-values DIR      an MLIR function: also write every value it computes
                         to DIR (DIR/0.npy for %0, DIR/2/0.npy for %0 of the
                         call that defines %2) and the list of them,
                         DIR/values.json (docs/BYTEIR.md), for checking a
                         compiler's per-layer dumps one by one
  --dump-kernel          print the elaborated Kernel IR before running
  --engine interp|ireval|jit|hexagon
                         evaluate with the interpreter (the default), by
                         lowering to a loop nest and running IREval, by
                         compiling the loop nest for this machine with LLVM,
                         or for the Hexagon DSP, run under qemu-hexagon;
                         all give identical results and errors
                         (interp-definitional: the interpreter one point at
                         a time, without its block evaluation)
  --threads N            --engine jit: run large loop nests' outer loops on
                         N threads (default: every core); results are the
                         same with any N
  --order sequential|any --engine jit|hexagon: sequential (the default) gives
                         the interpreter's bits; any lets the compiler add
                         each float reduction in any order and association
                         (vector partial sums), and the results are within
                         teval check's bound instead (docs/SEMANTICS.md)
  --fma                  --engine jit|hexagon: let the compiler fuse a
                         product into the sum or addition it feeds; the
                         results are within teval check --fma's bound
  --no-cache             --engine jit: compile the kernel even if an earlier
                         run cached its code (by default compiled code is
                         kept in $TEVAL_CACHE_DIR, else ~/.cache/teval, and
                         reused; TEVAL_NO_CACHE=1 turns the cache off)
  --max-memory SIZE      the most the program's tensors may take in all
                         (bytes, or with K, M, G, T; default 8G or half the
                         machine's memory): a larger program is an error
                         before anything is allocated
  --timeout SECONDS      stop an evaluation that runs longer (an error,
                         nothing written); see docs/LIMITS.md
  --exact                evaluate in exact mode: every sum and product
                         accumulated exactly and rounded once, math
                         functions correctly rounded (docs/ORACLE.md)
  --no-progress          no progress line: on a terminal, an evaluation that
                         takes more than a second shows one on stderr
                         (statement, share of its points, seconds)
  -h, --help             this text

Inputs that are neither read from .npy nor given a shape with -i get seeded
random data of their input_dict dtype and shape: floats uniform in [-1, 1),
integers uniform in [-10, 10], except integer tensors used as indices, which
are drawn in range (see docs/SEMANTICS.md).

exit status: 0 success; 1 the program or its inputs are wrong (a diagnostic
on stderr, nothing written); 2 a usage error.
)";

const char* const kLowerHelp =
    R"(usage: teval lower [--lang antares|tile] (FILE | -e TEXT) [options]

Prints the loop nest a program lowers to, in C-like text: every loop with
its exact bounds, the guards that decide which points are valid, the
reduction updates and temp buffers. `teval run --engine ireval` runs it.

options (as for teval run):
  -e TEXT, --lang antares|tile, --entry NAME, -p NAME=..., -i NAME=...,
  --max-memory SIZE
  --schedule             the nest as the host JIT compiles it: scheduled for
                         speed (loops interchanged and vectorized where no
                         result and no error can change), each step first as
                         a // comment
  --json                 the typed program as JSON instead (schema
                         "teval-kernel", docs/KERNEL_JSON.md): tensors,
                         statements with their index ranges, aggregation
                         and start, every operation with its result dtype,
                         conversions explicit, validity conditions
  -h, --help             this text

exit status: 0 success; 1 the program or its inputs are wrong; 2 a usage
error.
)";

const char* const kEmitHelp =
    R"(usage: teval emit --to c|mlir|torchscript|halide [--lang antares|tile|mlir]
                  (FILE | -e TEXT) [options]

--to c prints the program as a complete C program (GNU C, for GCC or Clang)
that computes the interpreter's bits: its main takes INPUT_DIR OUTPUT_DIR,
reads INPUT_DIR/NAME.npy for each input and writes OUTPUT_DIR/NAME.npy for
each output; on the program's error (an out-of-range read, integer division
by zero, ...) it prints it and exits 1, writing nothing. A header comment
says what the code relies on (IEEE float and double, no contraction into
fused multiply-adds: compile with -ffp-contract=off; the C library's exp,
log, ..., within an ulp of teval's).

--to mlir prints the program as an MLIR 19 module: each statement one
linalg.generic on tensors, and a main that reads --input-dir/NAME.npy and
writes --output-dir/NAME.npy; its header comment gives the mlir-opt-19 and
mlir-cpu-runner-19 commands that lower and run it. A program linalg cannot
express as teval means it (a Tile constraint, several values for one
element, bfloat16) is declined with exit status 3.

--to torchscript prints the program as a Python script (PyTorch and numpy):
the program as one TorchScript function, and a main that takes INPUT_DIR
OUTPUT_DIR [--fuser none|nnc] [--runs N] like the C program's; torch's math
functions are within the allowance teval check gives them. An int64
converted to bfloat16 is declined with exit status 3.

--to halide prints the program as a Python script (Halide 14's Python
bindings and numpy) that builds one Halide pipeline, schedules it from a
seed (main's --schedule SEED; default the program's own) and JIT-compiles
it; its main takes INPUT_DIR OUTPUT_DIR like the C program's, and is
undefined where the program is an error. bfloat16, % of floats, erf of
float64 and normcdf are declined with exit status 3. docs/EMIT.md.

options (as for teval run):
  --to c|mlir|torchscript|halide
                         the language
  --input-dir DIR        --to mlir: where the module reads its inputs (default .)
  --output-dir DIR       --to mlir: where it writes its outputs (default .)
  --vectorize            --to mlir: with a transform script that tiles and
                         vectorizes the generics (run by --transform-interpreter)
  -e TEXT, --lang antares|tile|mlir, --entry NAME, -p NAME=..., -i NAME=...,
  --max-memory SIZE
  -h, --help             this text

exit status: 0 success; 1 the program or its inputs are wrong; 2 a usage
error; 3 (--to mlir, --to torchscript, --to halide) the program cannot be
expressed in the language.
)";

const char* const kJitHelp =
    R"(usage: teval jit [--lang antares|tile|mlir] (FILE | -e TEXT) [--target host|hexagon]
                 [--emit llvm|asm|obj] [options]

Compiles a program's loop nest with LLVM and prints the optimised LLVM IR
(the default), the assembly, or writes the object file to standard output.
`teval run --engine jit` runs the host's code.

options (as for teval run):
  --target host|hexagon  this machine (the default), or the Hexagon DSP
                         (v67, HVX vectors of 128 bytes)
  --emit llvm|asm|obj    what to print (default llvm); obj is an ELF object,
                         written to standard output when it is not a terminal
  --order any, --fma     the code teval run --order any, --fma runs
  -e TEXT, --lang antares|tile, --entry NAME, -p NAME=..., -i NAME=...,
  --max-memory SIZE
  -h, --help             this text

exit status: 0 success; 1 the program or its inputs are wrong; 2 a usage
error.
)";

} // namespace teval::tools
