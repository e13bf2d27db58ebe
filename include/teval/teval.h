// teval's public C++ API: load a program in any notation teval reads, list
// its inputs and outputs, and run it on tensors passed by name. This header
// is the promise to users: it names no Boost or LLVM type, and everything
// else in the source tree is internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace teval {

/// An element type. bfloat16 is the top half of a float32 (numpy has no
/// such type; it travels as 2-byte words).
enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  Float16,
  BFloat16,
  Float32,
  Float64,
  UInt16,
  UInt32,
  UInt64,
  Int2,
  Int4,
  UInt2,
  UInt4,
  Float8E4M3FN,
  Float8E5M2,
  Float8E4M3,
  Float8E3M4,
  Float8E4M3FNUZ,
  Float8E5M2FNUZ,
  Float8E4M3B11FNUZ,
  Float6E2M3FN,
  Float6E3M2FN,
  Float4E2M1FN,
  Complex64,
  Complex128,
  Float8E8M0FNU,
};

/// The spelling programs use: "float32", "int8", "bool", ...
std::string_view name(DType t);
/// The size of one element in bytes.
size_t size_of(DType t);

/// One message about one place in a program (or an input): the file name
/// given when the program was loaded, a 1-based line and byte column (0
/// when there is no position), and the message, lower-case without a
/// trailing period as teval prints it.
struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string message;
};

/// Everything a program or its inputs can get wrong: a syntax error, an
/// unknown name, a shape or dtype mismatch, an out-of-range read, an integer
/// division by zero, a missing or unexpected input, ... what() is the
/// clang-style text teval prints (file:line:col: error: ..., the source
/// line, a caret).
class Error : public std::exception {
public:
  Error(std::vector<Diagnostic> diagnostics, std::string rendered);
  const char* what() const noexcept override { return rendered_.c_str(); }
  /// The error itself.
  const Diagnostic& error() const { return diagnostics_.front(); }
  /// The error, then the notes that explain it.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// The text what() returns.
  const std::string& rendered() const { return rendered_; }

private:
  std::vector<Diagnostic> diagnostics_;
  std::string rendered_;
};

/// A dtype and a shape.
struct TensorType {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
};

/// A named input or output of a program.
struct TensorInfo {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
};

/// A caller's tensor: element (i0, ..., in) is at data + (i0·strides[0] +
/// ... + in·strides[n])·size_of(dtype) bytes. Empty strides mean C order
/// (row-major, contiguous); Fortran order and other layouts give their
/// strides in elements (negative ones too). A C-order tensor whose data is
/// aligned for its dtype is read where it lies, with no copy; any other
/// layout is gathered into C order first. The memory must stay valid, and
/// unchanged, for the call it is passed to; teval never writes to it.
struct TensorRef {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  std::vector<int64_t> strides;
};

/// A caller's memory that a run writes an output into
/// (Program::run_into): element (i0, ..., in) at data + (i0·strides[0] +
/// ... + in·strides[n])·size_of(dtype) bytes, empty strides meaning C
/// order, as for TensorRef. Distinct elements must lie at distinct
/// addresses (a layout where they might not is an Error).
struct TensorOut {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  void* data = nullptr;
  std::vector<int64_t> strides;
};

/// An owned tensor in C order, as programs return them.
class Tensor {
public:
  /// A zero-filled tensor.
  Tensor(DType dtype, std::vector<int64_t> shape);
  /// A tensor that adopts \p bytes, its elements in C order (numel ·
  /// size_of(dtype) bytes; anything else is an Error).
  Tensor(DType dtype, std::vector<int64_t> shape, std::vector<std::byte> bytes);
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const;
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }
  size_t size_bytes() const { return bytes_.size(); }
  /// A reference to this tensor, to pass it as an input.
  TensorRef ref() const { return {dtype_, shape_, bytes_.data(), {}}; }

private:
  DType dtype_;
  std::vector<int64_t> shape_;
  std::vector<std::byte> bytes_;
};

/// The notation of a program's text.
enum class Notation : uint8_t {
  Detect,  ///< MLIR when the text has `func.func`, Tile when it defines a function (`Tensor f(`
           ///< or `def f(`), else Antares
  Antares, ///< an einstein_v2 program, a COMPUTE_V1 value or a COMPUTE_V1='...' line
  Tile,    ///< PlaidML Tile functions in the tutorial's C++ or Python spelling
  /// An MLIR module of func.func functions over mhlo/stablehlo ops and
  /// ByteIR custom calls (detected by `func.func`): the inputs are the
  /// entry function's arguments arg0, arg1, ..., the outputs what it
  /// returns, result0, result1, ... (docs/BYTEIR.md)
  Mlir,
};

/// Who evaluates a program. Interpreter, IREval and Jit give identical
/// results and errors; Exact accumulates every float sum and product
/// exactly and rounds it once, with correctly rounded math functions
/// (docs/ORACLE.md). An MLIR function's ops without an einstein_v2
/// decomposition run with their native references on IREval and Jit,
/// between the compiled segments of the others; Exact declines them
/// (docs/SEMANTICS.md, "Engines on graphs").
enum class Engine : uint8_t { Interpreter, IREval, Jit, Exact };

namespace api {
struct Access;
}

/// A request to stop evaluations, made from another thread or a signal
/// handler (a Ctrl-C): a run or check given the token stops at its next
/// poll and throws Error ("evaluation interrupted"). A request stays until
/// reset(), so it also stops the next evaluation given the token.
class StopToken {
public:
  StopToken();
  ~StopToken();
  StopToken(const StopToken&) = delete;
  StopToken& operator=(const StopToken&) = delete;
  /// Async-signal-safe; callable from any thread.
  void request() noexcept;
  bool requested() const noexcept;
  void reset() noexcept;

private:
  friend struct api::Access;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// How Program::run evaluates.
struct RunOptions {
  Engine engine = Engine::Interpreter;
  /// Seconds the evaluation may take, 0 for no limit: past it, an Error
  /// ("did not finish within the timeout"). A bound on a hang, not a
  /// measurement.
  double timeout = 0;
  /// Stops the evaluation when requested (nullptr: nothing can).
  StopToken* stop = nullptr;
  /// Engine::Jit: threads that large loop nests' outer loops run on (0:
  /// every core). Results are the same with any number.
  int threads = 1;
  /// Engine::Jit: Order::Any lets the compiled code add each float32 or
  /// float64 reduction in any order and association (vector partial sums):
  /// the results are then within Program::check's rigorous bound instead
  /// of equal to the interpreter's (docs/SEMANTICS.md, "Relaxed float
  /// arithmetic").
  enum class Order : uint8_t { Sequential, Any };
  Order order = Order::Sequential;
  /// Engine::Jit: a product may be fused into the sum or addition it feeds
  /// (within the bound of CheckOptions::fma).
  bool fma = false;
};

/// How Program::check judges a candidate (docs/ORACLE.md).
struct CheckOptions {
  enum class Rule : uint8_t {
    Rigorous,  ///< inside the element's rigorous bound over every legal evaluation
    Ulp,       ///< within `ulps` ulps of the exact result
    Tolerance, ///< |candidate - exact| <= atol + rtol·|exact|
  };
  Rule rule = Rule::Rigorous;
  int64_t ulps = 0;
  double rtol = 0, atol = 0;
  /// A product may be fused into the sum or addition it feeds.
  bool fma = false;
  /// A float16 or bfloat16 value may be kept in float32 between operations
  /// and tensors (excess precision); outputs are rounded to their dtype.
  bool excess_precision = false;
  /// The error allowance of math functions, in ulps of the result dtype
  /// with no absolute part, instead of the measured table of
  /// docs/ORACLE.md: of every function, and of one function by its name
  /// in programs ("erf"), which wins. 0 asks for correct rounding.
  std::optional<int64_t> math_ulp;
  std::map<std::string, int64_t> function_ulp;
  /// As in RunOptions: a time limit for the whole check, and a stop token.
  double timeout = 0;
  StopToken* stop = nullptr;
};

/// The verdict on one candidate output, as `teval check` gives it.
struct Verdict {
  enum class Status : uint8_t {
    Exact,        ///< bit-equal to the exact or the sequential result
    WithinBound,  ///< every element passes the rule
    Mismatch,     ///< a dtype or shape differs, or some element fails
    Inconclusive, ///< no mismatch, but some element has no finite bound and
                  ///< is neither the exact nor the sequential value: no pass
  };
  std::string name;
  Status status = Status::Exact;
  /// For a mismatch: "dtype", "shape", "nan", "inf" or "value".
  std::string kind;
  /// What `teval check` prints for it: the status, the worst element with
  /// its exact value and legal interval, and the values it is computed from.
  std::string text;
  int64_t elements = 0, mismatches = 0;
  /// Elements with no finite bound (anything, or an infinity, is legal).
  int64_t unbounded = 0;
  /// Elements with a finite exact value and no finite bound whose value is
  /// neither the exact nor the sequential one (status Inconclusive).
  int64_t inconclusive = 0;
  /// The largest error of a passing element, in ulps and as a share of its bound.
  double max_ulps = 0, max_fraction = 0;
  /// The worst element's index (the worst mismatch, else the largest error).
  std::vector<int64_t> worst_index;
  bool passed() const { return status == Status::Exact || status == Status::WithinBound; }
};

/// How a program is read.
struct LoadOptions {
  Notation notation = Notation::Detect;
  /// The name diagnostics give the text (a path, or a label).
  std::string name = "<program>";
  /// The Tile or MLIR function to load (needed when the text defines
  /// several; an MLIR module's default is `@main`).
  std::string entry;
  /// The Tile function's integer parameters (`-p s=2` on the command line).
  std::map<std::string, int64_t> ints;
  /// The Tile function's integer-list parameters (std::vector<size_t>).
  std::map<std::string, std::vector<int64_t>> int_lists;
  /// The types of inputs the text does not declare (an Antares program
  /// without input_dict, a Tile function's tensor parameters, the extents
  /// of an MLIR argument's `?` dimensions). Declared inputs given here
  /// must agree with their declaration.
  std::map<std::string, TensorType> inputs;
  /// Values of an MLIR function, named as `teval run --dump-values` names
  /// them ("%5", "%2/%0"), that become outputs after its results, under
  /// those names: run() returns them, and check() judges a compiler's
  /// per-layer dumps of them.
  std::vector<std::string> values;
  /// Values of an MLIR function that become inputs after its arguments,
  /// under those names: what follows such a value is computed from the
  /// array given for it, so that check() judges each layer on its own
  /// inputs (`teval check --given`). A value of a region cannot be given.
  std::vector<std::string> given;
};

/// A program, read and elaborated: immutable, cheap to copy, safe to run
/// from several threads at once.
class Program {
public:
  /// Reads \p text. Throws Error for a wrong program, or when an input's
  /// type is neither declared nor given in options.inputs.
  static Program load(std::string text, const LoadOptions& options = {});

  /// The inputs the program reads, in declaration order, and its outputs.
  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  /// Runs the program on \p inputs, one per input name: a missing input,
  /// a name the program does not read, or a wrong dtype or shape is an
  /// Error, as is everything the program's semantics call an error.
  /// Returns every output by name.
  std::map<std::string, Tensor> run(const std::map<std::string, TensorRef>& inputs,
                                    Engine engine = Engine::Interpreter) const;
  std::map<std::string, Tensor> run(const std::map<std::string, TensorRef>& inputs,
                                    const RunOptions& options) const;

  /// Runs the program as run() does and writes each output named in
  /// \p into to the caller's memory there, instead of returning it;
  /// returns the other outputs. A name the program does not output, a
  /// dtype or shape other than the output's, or two destinations that
  /// overlap is an Error.
  ///
  /// Engine::Jit writes a destination in place when it is in C order,
  /// aligned for its dtype and overlaps no input, and the program provably
  /// never raises an error; otherwise, and with the other engines, the
  /// output is computed into teval's memory and copied there once the run
  /// has succeeded. So an Error leaves every destination unchanged, except
  /// that an interrupted or timed-out run that writes in place may leave
  /// its destinations partly written.
  std::map<std::string, Tensor> run_into(const std::map<std::string, TensorRef>& inputs,
                                         const std::map<std::string, TensorOut>& into,
                                         const RunOptions& options = {}) const;

  /// Judges \p candidates (by output name) as results of the program on
  /// \p inputs: one verdict per candidate, in name order. A candidate for a
  /// name the program does not output is an Error, as are the run's errors.
  std::vector<Verdict> check(const std::map<std::string, TensorRef>& inputs,
                             const std::map<std::string, TensorRef>& candidates,
                             const CheckOptions& options = {}) const;

  /// Seeded random inputs, one per input name: what `teval run --seed`
  /// draws (the distribution docs/SEMANTICS.md gives: valid by
  /// construction where an integer input serves as an index).
  std::map<std::string, Tensor> random_inputs(uint64_t seed) const;

  /// The loop nest the program lowers to, as `teval lower` prints it.
  std::string lower() const;
  /// The JIT's optimised LLVM IR and host assembly of the program, as
  /// `teval jit --emit llvm|asm` prints them (an Error without teval::jit).
  std::string jit_llvm() const;
  std::string jit_asm() const;

  struct Impl;

private:
  explicit Program(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

/// Loads \p text with the types of the given \p inputs and runs it: the
/// shortest way to evaluate a program on some tensors.
std::map<std::string, Tensor> run(std::string text, const std::map<std::string, TensorRef>& inputs,
                                  const LoadOptions& options = {},
                                  Engine engine = Engine::Interpreter);

} // namespace teval
