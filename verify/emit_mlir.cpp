// A program as an MLIR module (see emit_mlir.h). Each statement is one
// linalg.generic over its index variables, in their order (the first
// outermost, so that the loops MLIR lowers it to fold a reduction in the
// interpreter's order); its output indexing map is the identity on the
// variables that name the output's dimensions, the others are reduction
// dimensions. The reads evaluated at every point at affine indices are the
// generic's operands; the others (gathers, reads under `.when`) are
// tensor.extract inside scf.if. Files are read and written by the C
// library's fopen, fread and fwrite, called through the LLVM dialect.
#include "verify/emit_mlir.h"

#include "core/error.h"
#include "core/npy.h"
#include "core/shape.h"
#include "verify/emit_mlir_body.h"

#include <cmath>
#include <cstdio>

namespace teval::verify {

namespace {

using core::DType;
using mlir::element_type;
using mlir::tensor_type;

// \p bytes as an MLIR string literal's contents, with a terminating NUL.
std::string escaped(const std::string& bytes) {
  std::string s;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      s += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "\\%02X", c);
      s += buf;
    }
  }
  return s + "\\00";
}

std::string memref_type(const core::TensorDecl& t) {
  std::string s = tensor_type(t);
  return "memref" + s.substr(s.find('<'));
}

// The iteration dimensions' names: "(d0, d1, d2)".
std::string dims(size_t n) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", d" : "d") + std::to_string(i);
  return s + ")";
}

// The value an accumulator starting at its first value may start at
// instead: the aggregation's identity, which the first value replaces
// exactly (-0.0 for a float sum, so that -0.0 stays -0.0).
core::Scalar identity(core::Aggregation a, DType t) {
  using core::Aggregation;
  const bool f = core::is_float(t);
  switch (a) {
  case Aggregation::Sum:
    return f ? core::Scalar::of_float(t, -0.0) : core::Scalar::of_int(t, 0);
  case Aggregation::Product:
  case Aggregation::All:
    return f ? core::Scalar::of_float(t, 1) : core::Scalar::of_int(t, 1);
  case Aggregation::Any:
    return core::Scalar::of_int(t, 0);
  case Aggregation::Max:
    return f ? core::Scalar::of_float(t, -INFINITY) : core::lowest(t);
  default:
    return f ? core::Scalar::of_float(t, INFINITY) : core::highest(t);
  }
}

// Bufferization to MLIR's LLVM dialect, after linalg is lowered.
constexpr const char* kLowering =
    " --convert-vector-to-scf=full-unroll=true --lower-affine --convert-scf-to-cf"
    " --expand-strided-metadata --lower-affine --convert-math-to-libm --convert-vector-to-llvm"
    " --finalize-memref-to-llvm --convert-math-to-llvm --convert-arith-to-llvm"
    " --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts";

class Module {
public:
  Module(const core::Kernel& k, const MlirOptions& options) : k_(k), options_(options) {}

  std::string text(const std::string& origin,
                   const std::map<std::string, core::Tensor>& constants) {
    tensors_.assign(k_.tensors.size(), "");
    std::string main;
    for (size_t i = 0; i < k_.tensors.size(); ++i)
      if (k_.tensors[i].role == core::TensorRole::Input)
        main += input(static_cast<int>(i), constants);
    for (size_t s = 0; s < k_.statements.size(); ++s)
      main += statement(k_.statements[s], static_cast<int>(s));
    for (int o : k_.outputs)
      main += output(o);
    std::string text = header(origin) +
                       (options_.vectorize ? "module attributes {transform.with_named_sequence} {\n"
                                           : "module {\n") +
                       kLibrary + globals_ + "  func.func @main() {\n" + main + "    return\n  }\n";
    if (options_.vectorize)
      text += "  transform.named_sequence private @__transform_main(%root: !transform.any_op "
              "{transform.readonly}) {\n" +
              schedule_ + "    transform.yield\n  }\n";
    return text + "}\n";
  }

private:
  static const char* const kLibrary;

  std::string fresh() { return "%v" + std::to_string(counter_++); }

  std::string header(const std::string& origin) const {
    return "// " + origin +
           " as MLIR, by teval emit --to mlir (docs/EMIT.md). Lower and run it with\n"
           "//   mlir-opt-19 " +
           mlir_pipeline(options_.vectorize ? "vector" : "loops") +
           " FILE -o LOWERED\n"
           "//   " +
           kMlirRunner +
           " LOWERED\n"
           "// (" +
           (options_.vectorize ? "its transform script tiles and vectorizes the generics"
                               : "or any other pipeline from one-shot bufferization") +
           "). It reads\n"
           "// " +
           options_.inputs +
           "/NAME.npy for each input (its .npy header must be the one teval\n"
           "// writes for the input's dtype and shape, byte for byte) and writes " +
           options_.outputs +
           "/NAME.npy\n"
           "// for each output. It computes teval's interpreter's bits where MLIR keeps\n"
           "// IEEE semantics: no fast-math flags, float16 computed in float32 (exact or\n"
           "// rounded once), exp, log, sin, pow, erfc and the other library functions in\n"
           "// float64 (the C library's, within an ulp of teval's), rounded to float32 and\n"
           "// then to the dtype. It relies on each linalg.generic's reduction being folded\n"
           "// in the order of its iteration dimensions, as the loops MLIR lowers it to do.\n"
           "// The program must be one teval runs without an error on these inputs: an\n"
           "// out-of-range read or an integer division by zero is undefined here.\n";
  }

  // Global string \p bytes; its address and length, as SSA values.
  std::pair<std::string, std::string> string(const std::string& bytes, std::string& out) {
    const std::string name = "@s" + std::to_string(strings_++);
    globals_ += "  llvm.mlir.global internal constant " + name + "(\"" + escaped(bytes) +
                "\") {addr_space = 0 : i32}\n";
    const std::string address = fresh(), length = fresh();
    out += "    " + address + " = llvm.mlir.addressof " + name + " : !llvm.ptr\n";
    out += "    " + length + " = llvm.mlir.constant(" + std::to_string(bytes.size()) +
           " : i64) : i64\n";
    return {address, length};
  }

  // A call of @teval_read or @teval_write for tensor \p id's file and the
  // memref \p memref.
  std::string file_call(const char* function, const std::string& path, int id,
                        const std::string& memref) {
    const core::TensorDecl& t = k_.tensors[id];
    std::string out;
    const std::string index = fresh(), address = fresh(), pointer = fresh(), bytes = fresh();
    out += "    " + index + " = memref.extract_aligned_pointer_as_index " + memref + " : " +
           memref_type(t) + " -> index\n";
    out += "    " + address + " = arith.index_cast " + index + " : index to i64\n";
    out += "    " + pointer + " = llvm.inttoptr " + address + " : i64 to !llvm.ptr\n";
    const int64_t size = core::checked_numel(t.shape).value_or(0) * core::size_bytes(t.dtype);
    out += "    " + bytes + " = llvm.mlir.constant(" + std::to_string(size) + " : i64) : i64\n";
    const std::string name = string(path + "/" + t.name + ".npy", out).first;
    auto [head, head_length] = string(core::npy_header(t.dtype, t.shape), out);
    out += "    llvm.call @" + std::string(function) + "(" + name + ", " + head + ", " +
           head_length + ", " + pointer + ", " + bytes +
           ") : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64) -> ()\n";
    return out;
  }

  std::string input(int id, const std::map<std::string, core::Tensor>& constants) {
    const core::TensorDecl& t = k_.tensors[id];
    const std::string type = tensor_type(t);
    tensors_[id] = fresh();
    if (auto c = constants.find(t.name); c != constants.end()) {
      if (c->second.numel() == 0)
        return "    " + tensors_[id] + " = tensor.empty() : " + type + "\n";
      std::string data;
      for (int64_t e = 0; e < c->second.numel(); ++e) {
        const core::Scalar v = c->second.get(e);
        if (t.dtype == DType::Bool) {
          data += std::string(e ? ", " : "") + (v.i ? "true" : "false");
          continue;
        }
        std::string value = mlir::constant(t.dtype, v);
        value = value.substr(0, value.find(' '));
        data += (e ? ", " : "") + value;
      }
      // Nested brackets are optional in a dense literal of integers only;
      // floats are given by their bits, which MLIR reads for a list too.
      return "    " + tensors_[id] + " = arith.constant dense<" +
             (t.shape.empty() ? data : "[" + data + "]") + "> : " + reshaped(type, t) + "\n" +
             reshape(id, type);
    }
    const std::string memref = fresh();
    std::string out =
        "    " + memref + " = memref.alloc() {alignment = 64 : i64} : " + memref_type(t) + "\n";
    out += file_call("teval_read", options_.inputs, id, memref);
    return out + "    " + tensors_[id] + " = bufferization.to_tensor " + memref +
           " restrict writable : " + memref_type(t) + "\n";
  }

  // A constant's literal is one flat list: its type is the flat tensor,
  // reshaped to the declared shape.
  std::string reshaped(const std::string& type, const core::TensorDecl& t) {
    if (t.shape.size() <= 1)
      return type;
    return "tensor<" + std::to_string(core::checked_numel(t.shape).value_or(0)) + "x" +
           element_type(t.dtype) + ">";
  }
  std::string reshape(int id, const std::string& type) {
    const core::TensorDecl& t = k_.tensors[id];
    if (t.shape.size() <= 1)
      return "";
    const std::string flat = tensors_[id];
    tensors_[id] = fresh();
    std::string out = "    " + tensors_[id] + " = tensor.expand_shape " + flat + " [[";
    for (size_t d = 0; d < t.shape.size(); ++d)
      out += (d ? ", " : "") + std::to_string(d);
    out += "]] output_shape [";
    for (size_t d = 0; d < t.shape.size(); ++d)
      out += (d ? ", " : "") + std::to_string(t.shape[d]);
    return out + "] : " + reshaped(type, t) + " into " + type + "\n";
  }

  std::string output(int id) {
    const core::TensorDecl& t = k_.tensors[id];
    if (tensors_[id].empty())
      throw Inexpressible{"an output no statement writes (" + t.name + ")"};
    const std::string memref = fresh();
    std::string out = "    " + memref + " = bufferization.to_memref " + tensors_[id] + " : " +
                      memref_type(t) + "\n";
    return out + file_call("teval_write", options_.outputs, id, memref);
  }

  std::string statement(const core::Statement& s, int number) {
    const core::TensorDecl& target = k_.tensors[s.target];
    if (!s.constraints.empty())
      throw Inexpressible{"a constraint on the index variables (Tile's)"};
    if (s.out_of_range == core::OutOfRange::Skip && !core::accesses_in_range(k_, s))
      throw Inexpressible{"points skipped for an out-of-range access (Tile's)"};
    // The output's dimensions: distinct variables over the whole dimension.
    std::vector<bool> parallel(s.vars.size(), false);
    std::string out_map;
    for (size_t d = 0; d < s.out_index.size(); ++d) {
      const auto* v = std::get_if<core::VarRef>(&s.out_index[d]->node);
      if (!v || parallel[v->var] || s.vars[v->var].begin != 0 ||
          s.vars[v->var].end != target.shape[d])
        throw Inexpressible{"a write to " + target.name +
                            " that is not one element per point of its dimensions"};
      parallel[v->var] = true;
      out_map += (d ? ", d" : "d") + std::to_string(v->var);
    }
    bool reduces = false, empty_box = false;
    std::string iterators;
    for (size_t v = 0; v < s.vars.size(); ++v) {
      reduces |= !parallel[v];
      empty_box |= s.vars[v].end <= s.vars[v].begin;
      iterators += std::string(v ? ", " : "") + (parallel[v] ? "\"parallel\"" : "\"reduction\"");
    }
    const bool assign = s.aggregation == core::Aggregation::Assign;
    if (assign && reduces)
      throw Inexpressible{"several values assigned to one element of " + target.name};

    const std::string type = tensor_type(target), elem = element_type(target.dtype);
    std::string out = "    // statement " + std::to_string(number) + ": " + target.name + "\n";
    std::string init;
    if (assign) {
      init = fresh();
      out += "    " + init + " = tensor.empty() : " + type + "\n";
    } else if (s.init_from) {
      init = tensors_[*s.init_from];
    } else {
      const core::Scalar start = s.start == core::Start::FirstValue && !empty_box
                                     ? identity(s.aggregation, target.dtype)
                                     : s.init;
      const std::string value = fresh(), empty = fresh();
      init = fresh();
      out += "    " + value + " = arith.constant " + mlir::constant(target.dtype, start) + "\n";
      out += "    " + empty + " = tensor.empty() : " + type + "\n";
      out += "    " + init + " = linalg.fill ins(" + value + " : " + elem + ") outs(" + empty +
             " : " + type + ") -> " + type + "\n";
    }
    if (s.start == core::Start::FirstValue && !assign && s.init_from && !empty_box)
      throw Inexpressible{"an accumulator that starts at its first value over a given tensor"};

    // An empty box computes nothing: its region only keeps the start
    // (and reads nothing, which linalg would check against the shapes).
    mlir::Body body(k_, s, tensors_, counter_);
    static const std::vector<mlir::Operand> none;
    const std::vector<mlir::Operand>& operands = empty_box ? none : body.operands();
    std::string region;
    const std::string folded = empty_box ? "%acc" : body.fold("%acc", body.value(region), region);

    // The dimensions no operand bounds, by a first operand of their shape
    // that the region does not read (as linalg's pooling ops do).
    std::vector<bool> bound = parallel;
    for (const mlir::Operand& o : operands)
      for (int v : o.bound)
        bound[v] = true;
    std::string maps, ins, in_types, args, window_map, window_type;
    for (size_t v = 0; v < s.vars.size(); ++v)
      if (!bound[v]) {
        window_map += (window_map.empty() ? "d" : ", d") + std::to_string(v);
        window_type += std::to_string(s.vars[v].end - s.vars[v].begin) + "x";
      }
    if (!window_map.empty()) {
      const std::string window = fresh();
      window_type = "tensor<" + window_type + "i8>";
      out += "    " + window + " = tensor.empty() : " + window_type + "\n";
      maps += "affine_map<" + dims(s.vars.size()) + " -> (" + window_map + ")>, ";
      ins = window;
      in_types = window_type;
      args = "%window: i8, ";
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      const core::TensorDecl& t = k_.tensors[operands[i].tensor];
      maps += "affine_map<" + dims(s.vars.size()) + " -> (" + operands[i].map + ")>, ";
      ins += (ins.empty() ? "" : ", ") + tensors_[operands[i].tensor];
      in_types += (in_types.empty() ? "" : ", ") + tensor_type(t);
      args += "%a" + std::to_string(i) + ": " + element_type(t.dtype) + ", ";
    }
    maps += "affine_map<" + dims(s.vars.size()) + " -> (" + out_map + ")>";
    const std::string result = fresh();
    if (options_.vectorize) {
      // linalg vectorizes generics whose operands' maps are projected
      // permutations (no d1 + d3, no constant index) and whose reduction
      // is one operation it recognizes on the accumulator (not float16's
      // through float32, nor && and || through comparisons).
      bool vectorizable = window_map.empty();
      for (const mlir::Operand& o : operands)
        vectorizable &= o.permutation;
      using core::Aggregation;
      if (reduces)
        vectorizable &= s.aggregation != Aggregation::All && s.aggregation != Aggregation::Any &&
                        target.dtype != DType::Float16;
      schedule(s, number, region, vectorizable);
    }
    out += "    " + result + " = linalg.generic {indexing_maps = [" + maps +
           "], iterator_types = [" + iterators + "]" +
           (options_.vectorize ? ", teval.statement = " + std::to_string(number) + " : i64" : "") +
           "}" + (ins.empty() ? "" : " ins(" + ins + " : " + in_types + ")") + " outs(" + init +
           " : " + type + ") {\n";
    out += "    ^bb0(" + args + "%acc: " + elem + "):\n" + region;
    out += "      linalg.yield " + folded + " : " + elem + "\n    } -> " + type + "\n";
    tensors_[s.target] = result;
    return out;
  }

  // The transform script's part for statement \p number: tile sizes that
  // divide each dimension (so that tiles have static shapes), then
  // vectorization unless the region holds what linalg cannot vectorize.
  void schedule(const core::Statement& s, int number, const std::string& region,
                bool vectorizable) {
    if (s.vars.empty())
      return;
    const std::string n = std::to_string(number);
    std::string sizes, loops;
    for (size_t v = 0; v < s.vars.size(); ++v) {
      const int64_t extent = s.vars[v].end - s.vars[v].begin;
      const size_t from_last = s.vars.size() - 1 - v;
      int64_t size = from_last == 0 ? 8 : from_last == 1 ? 4 : 1;
      while (size > 1 && extent % size != 0)
        size /= 2;
      sizes += (v ? ", " : "") + std::to_string(size);
      loops += ", !transform.any_op";
    }
    schedule_ += "    %g" + n +
                 " = transform.structured.match ops{[\"linalg.generic\"]} attributes "
                 "{teval.statement = " +
                 n +
                 " : i64} in %root : (!transform.any_op) -> "
                 "!transform.any_op\n";
    schedule_ += "    %t" + n + ", %l" + n + ":" + std::to_string(s.vars.size()) +
                 " = transform.structured.tile_using_for %g" + n + " tile_sizes [" + sizes +
                 "] : (!transform.any_op) -> (!transform.any_op" + loops + ")\n";
    if (vectorizable && region.find("scf.if") == std::string::npos &&
        region.find("func.call") == std::string::npos)
      schedule_ += "    transform.structured.vectorize %t" + n +
                   " {vectorize_nd_extract} : !transform.any_op\n";
  }

  const core::Kernel& k_;
  const MlirOptions& options_;
  std::string schedule_;             // the transform script's body
  std::vector<std::string> tensors_; // each tensor's SSA value so far
  std::string globals_;
  int counter_ = 0;
  int strings_ = 0;
};

// The C library's functions, and reading and writing a .npy file whose
// header is known: a failure prints the path and exits with status 1.
const char* const Module::kLibrary = R"(  llvm.func @fopen(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
  llvm.func @fread(!llvm.ptr, i64, i64, !llvm.ptr) -> i64
  llvm.func @fwrite(!llvm.ptr, i64, i64, !llvm.ptr) -> i64
  llvm.func @fclose(!llvm.ptr) -> i32
  llvm.func @memcmp(!llvm.ptr, !llvm.ptr, i64) -> i32
  llvm.func @strlen(!llvm.ptr) -> i64
  llvm.func @write(i32, !llvm.ptr, i64) -> i64
  llvm.func @exit(i32)
  func.func private @erfc(f64) -> f64
  llvm.mlir.global internal constant @teval_rb("rb\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @teval_wb("wb\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @teval_cannot("teval: cannot read or write \00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @teval_newline("\0A\00") {addr_space = 0 : i32}
  llvm.func @teval_fail(%path: !llvm.ptr) {
    %fd = llvm.mlir.constant(2 : i32) : i32
    %m = llvm.mlir.addressof @teval_cannot : !llvm.ptr
    %ml = llvm.mlir.constant(28 : i64) : i64
    %w0 = llvm.call @write(%fd, %m, %ml) : (i32, !llvm.ptr, i64) -> i64
    %pl = llvm.call @strlen(%path) : (!llvm.ptr) -> i64
    %w1 = llvm.call @write(%fd, %path, %pl) : (i32, !llvm.ptr, i64) -> i64
    %n = llvm.mlir.addressof @teval_newline : !llvm.ptr
    %one = llvm.mlir.constant(1 : i64) : i64
    %w2 = llvm.call @write(%fd, %n, %one) : (i32, !llvm.ptr, i64) -> i64
    %status = llvm.mlir.constant(1 : i32) : i32
    llvm.call @exit(%status) : (i32) -> ()
    llvm.unreachable
  }
  llvm.func @teval_open(%path: !llvm.ptr, %mode: !llvm.ptr) -> !llvm.ptr {
    %f = llvm.call @fopen(%path, %mode) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %missing = llvm.icmp "eq" %f, %null : !llvm.ptr
    llvm.cond_br %missing, ^fail, ^open
  ^open:
    llvm.return %f : !llvm.ptr
  ^fail:
    llvm.call @teval_fail(%path) : (!llvm.ptr) -> ()
    llvm.unreachable
  }
  llvm.func @teval_read(%path: !llvm.ptr, %header: !llvm.ptr, %header_length: i64, %data: !llvm.ptr, %size: i64) {
    %mode = llvm.mlir.addressof @teval_rb : !llvm.ptr
    %f = llvm.call @teval_open(%path, %mode) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
    %buffer = llvm.alloca %header_length x i8 : (i64) -> !llvm.ptr
    %one = llvm.mlir.constant(1 : i64) : i64
    %got = llvm.call @fread(%buffer, %one, %header_length, %f) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64
    %whole = llvm.icmp "eq" %got, %header_length : i64
    %cmp = llvm.call @memcmp(%buffer, %header, %header_length) : (!llvm.ptr, !llvm.ptr, i64) -> i32
    %zero = llvm.mlir.constant(0 : i32) : i32
    %same = llvm.icmp "eq" %cmp, %zero : i32
    %got_data = llvm.call @fread(%data, %one, %size, %f) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64
    %all = llvm.icmp "eq" %got_data, %size : i64
    %extra = llvm.alloca %one x i8 : (i64) -> !llvm.ptr
    %more = llvm.call @fread(%extra, %one, %one, %f) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64
    %zero64 = llvm.mlir.constant(0 : i64) : i64
    %end = llvm.icmp "eq" %more, %zero64 : i64
    %closed = llvm.call @fclose(%f) : (!llvm.ptr) -> i32
    %ok0 = llvm.and %whole, %same : i1
    %ok1 = llvm.and %ok0, %all : i1
    %ok = llvm.and %ok1, %end : i1
    llvm.cond_br %ok, ^done, ^fail
  ^done:
    llvm.return
  ^fail:
    llvm.call @teval_fail(%path) : (!llvm.ptr) -> ()
    llvm.unreachable
  }
  llvm.func @teval_write(%path: !llvm.ptr, %header: !llvm.ptr, %header_length: i64, %data: !llvm.ptr, %size: i64) {
    %mode = llvm.mlir.addressof @teval_wb : !llvm.ptr
    %f = llvm.call @teval_open(%path, %mode) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
    %one = llvm.mlir.constant(1 : i64) : i64
    %w0 = llvm.call @fwrite(%header, %one, %header_length, %f) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64
    %w1 = llvm.call @fwrite(%data, %one, %size, %f) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64
    %closed = llvm.call @fclose(%f) : (!llvm.ptr) -> i32
    %zero = llvm.mlir.constant(0 : i32) : i32
    %ok0 = llvm.icmp "eq" %w0, %header_length : i64
    %ok1 = llvm.icmp "eq" %w1, %size : i64
    %ok2 = llvm.icmp "eq" %closed, %zero : i32
    %ok3 = llvm.and %ok0, %ok1 : i1
    %ok = llvm.and %ok3, %ok2 : i1
    llvm.cond_br %ok, ^done, ^fail
  ^done:
    llvm.return
  ^fail:
    llvm.call @teval_fail(%path) : (!llvm.ptr) -> ()
    llvm.unreachable
  }
)";

} // namespace

std::string mlir_pipeline(const std::string& variant) {
  const std::string bufferize = "--one-shot-bufferize=bufferize-function-boundaries";
  if (variant == "affine")
    return bufferize +
           " --convert-linalg-to-affine-loops --affine-loop-fusion --affine-scalrep"
           " --affine-super-vectorize=virtual-vector-size=8" +
           kLowering;
  if (variant == "vector")
    return "--transform-interpreter --symbol-dce --canonicalize " + bufferize +
           " --convert-linalg-to-loops --lower-vector-mask --lower-vector-multi-reduction" +
           kLowering;
  return bufferize + " --convert-linalg-to-loops" + kLowering;
}

std::string emit_mlir(const core::Kernel& k, const std::string& origin, const MlirOptions& options,
                      const std::map<std::string, core::Tensor>& constants) {
  return Module(k, options).text(origin, constants);
}

} // namespace teval::verify
