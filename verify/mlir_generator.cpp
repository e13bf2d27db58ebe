// The generator of random MLIR functions of ByteIR ops (see generators.h):
// a chain of 1 to 5 ops over values of every element type, each reading
// the function's arguments or earlier results (a new argument when none
// fits), every ByteIR op with each value of its attributes, mhlo and
// stablehlo spellings, and scalar tensor<f32> values broadcast into
// tensors as frontends emit them. Results no later op reads are returned.
#include "verify/generators.h"

#include "core/graph.h"
#include "verify/choice.h"

#include <algorithm>
#include <numeric>

namespace teval::verify {

namespace {

using core::DType;

struct Val {
  std::string name; // %arg0, %3, %3#1
  DType dtype;
  core::Shape shape;
  bool read = false;
};

std::string type_of(DType t, const core::Shape& shape) {
  return core::to_mlir({t, shape});
}

std::string type_of(const Val& v) {
  return type_of(v.dtype, v.shape);
}

// The element type as attributes spell it: "f32", "i8".
std::string element(DType t) {
  std::string s = type_of(t, {});
  return s.substr(7, s.size() - 8);
}

class MlirBuilder {
public:
  explicit MlirBuilder(Program& p) : p_(p) {}

  std::string function() {
    int ops = pick(1, 5);
    for (int i = 0; i < ops; ++i)
      op();
    std::string args, results, types;
    for (size_t i = 0; i < p_.inputs.size(); ++i)
      args += (i ? ", %arg" : "%arg") + std::to_string(i) + ": " +
              type_of(p_.inputs[i].second.dtype, p_.inputs[i].second.shape);
    for (const Val& v : values_)
      if (!v.read && v.name.rfind("%arg", 0) != 0) {
        results += (results.empty() ? "" : ", ") + v.name;
        types += (types.empty() ? "" : ", ") + type_of(v);
      }
    return "func.func @main(" + args + ") -> (" + types + ") {\n" + body_ + "  return " + results +
           " : " + types + "\n}\n";
  }

private:
  DType float_dtype() { return chance(55) ? DType::Float32 : one_of(kFloatDTypes); }

  core::Shape shape(int min_rank = 0) {
    core::Shape s(static_cast<size_t>(chance(20) ? min_rank : pick(std::max(min_rank, 1), 3)));
    for (int64_t& d : s)
      d = chance(8) ? 0 : pick(1, 4);
    return s;
  }

  Val argument(DType t, core::Shape s) {
    std::string name = "arg" + std::to_string(p_.inputs.size());
    p_.inputs.push_back({name, {t, s}});
    values_.push_back({"%" + name, t, std::move(s)});
    return values_.back();
  }

  // A value of \p t (any shape when \p s is null) to read: an earlier one
  // most of the time, else a new argument. (A copy: later values move the
  // list.)
  Val operand(std::optional<DType> t, const core::Shape* s = nullptr, int min_rank = 0) {
    std::vector<size_t> fits;
    for (size_t i = 0; i < values_.size(); ++i)
      if ((!t || values_[i].dtype == *t) && (!s || values_[i].shape == *s) &&
          static_cast<int>(values_[i].shape.size()) >= min_rank)
        fits.push_back(i);
    if (fits.empty() || chance(25))
      return argument(t ? *t : float_dtype(), s ? *s : shape(min_rank));
    Val& v = values_[one_of(fits)];
    v.read = true;
    return v;
  }

  // Any element type but bool, floats mostly.
  DType number_dtype() { return chance(80) ? float_dtype() : one_of(kIntegerDTypes); }

  // `%N = TEXT` (one result) or `%N:K = TEXT`; returns the result names.
  std::vector<std::string> define(const std::string& text, const std::vector<Val>& results) {
    std::string id = "%" + std::to_string(next_++);
    body_ += "  " + id + (results.size() > 1 ? ":" + std::to_string(results.size()) : "") + " = " +
             text + "\n";
    std::vector<std::string> names;
    for (size_t i = 0; i < results.size(); ++i) {
      Val v = results[i];
      v.name = results.size() > 1 ? id + "#" + std::to_string(i) : id;
      v.read = false;
      values_.push_back(v);
      names.push_back(v.name);
    }
    return names;
  }

  // A ByteIR custom call in one of its two spellings.
  static std::string custom_call(const std::string& op, const std::string& operands,
                                 const std::string& attrs, const std::string& types) {
    if (chance(50))
      return "stablehlo.custom_call @byteir." + op + "(" + operands + ")" +
             (attrs.empty() ? "" : " {byteir_attrs = {" + attrs + "}}") + " : " + types;
    return "\"mhlo.custom_call\"(" + operands + ") {" +
           (attrs.empty() ? "" : "byteir_attrs = {" + attrs + "}, ") +
           "call_target_name = \"byteir." + op + "\", has_side_effect = false} : " + types;
  }

  static std::string dialect() { return chance(50) ? "stablehlo." : "mhlo."; }

  // A constant holding \p shape, the operand of a dynamic form (its name).
  std::string shape_constant(const core::Shape& shape) {
    std::string values;
    for (size_t d = 0; d < shape.size(); ++d)
      values += (d ? ", " : "") + std::to_string(shape[d]);
    Val v{"", DType::Int64, {static_cast<int64_t>(shape.size())}};
    return define(dialect() + "constant dense<[" + values + "]> : " + type_of(v), {v})[0];
  }
  static std::string shape_type(const core::Shape& shape) {
    return "tensor<" + std::to_string(shape.size()) + "xi64>";
  }

  void op() {
    switch (pick(0, 18)) {
    case 0:
    case 1: { // x op y, y an earlier value, an argument or a splat constant
      // (power of floats, remainder of integers); or an optimization_barrier
      const char* ops[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum", ""};
      Val x = operand(number_dtype());
      ops[6] = core::is_float(x.dtype) ? "power" : "remainder";
      if (chance(5)) {
        Val y = operand(std::nullopt);
        define(chance(50) ? "stablehlo.optimization_barrier " + x.name + ", " + y.name + " : " +
                                type_of(x) + ", " + type_of(y)
                          : "\"" + dialect() + "optimization_barrier\"(" + x.name + ", " + y.name +
                                ") : (" + type_of(x) + ", " + type_of(y) + ") -> (" + type_of(x) +
                                ", " + type_of(y) + ")",
               {x, y});
        return;
      }
      std::string y;
      if (chance(30)) {
        std::string c = core::is_float(x.dtype)
                            ? (chance(50) ? "1.250000e-01" : "-2.0")
                            : (chance(50) || x.dtype == DType::UInt8 ? "3" : "-1");
        y = define(dialect() + "constant dense<" + c + "> : " + type_of(x), {x})[0];
      } else {
        y = operand(x.dtype, &x.shape).name;
      }
      define(dialect() + ops[pick(0, 6)] + " " + x.name + ", " + y + " : " + type_of(x), {x});
      return;
    }
    case 2: { // unary math, or negate and abs of any type
      Val x = operand(float_dtype());
      const char* ops[] = {"negate", "abs", "exponential", "log", "tanh", "sqrt", "rsqrt"};
      define(dialect() + ops[pick(0, 6)] + " " + x.name + " : " + type_of(x), {x});
      return;
    }
    case 3: { // convert to any type
      Val x = operand(std::nullopt);
      Val to = x;
      to.dtype = one_of(kDTypes);
      define(dialect() + "convert " + x.name + " : (" + type_of(x) + ") -> " + type_of(to), {to});
      return;
    }
    case 4: { // broadcast: a scalar into a tensor, or a new leading axis
      Val x = operand(number_dtype(), chance(50) ? &kScalar : nullptr);
      Val to = x;
      to.shape.insert(to.shape.begin(), pick(1, 3));
      if (x.shape.empty() && chance(50))
        to.shape.push_back(pick(1, 4));
      std::string dims;
      for (size_t d = 0; d < x.shape.size(); ++d)
        dims += (d ? ", " : "") + std::to_string(d + 1);
      if (chance(25)) { // the dynamic form, its output shape a constant
        std::string shape = shape_constant(to.shape);
        std::vector<int64_t> along;
        for (size_t d = 0; d < x.shape.size(); ++d)
          along.push_back(static_cast<int64_t>(d) + 1);
        define("\"" + dialect() + "dynamic_broadcast_in_dim\"(" + x.name + ", " + shape +
                   ") {broadcast_dimensions = " + ints(along, false) + "} : (" + type_of(x) + ", " +
                   shape_type(to.shape) + ") -> " + type_of(to),
               {to});
        return;
      }
      define("stablehlo.broadcast_in_dim " + x.name + ", dims = [" + dims + "] : (" + type_of(x) +
                 ") -> " + type_of(to),
             {to});
      return;
    }
    case 5: { // reshape to one dimension; or get_dimension_size
      Val x = operand(std::nullopt);
      Val to = x;
      if (chance(10) && !x.shape.empty()) {
        std::string d = std::to_string(pick(0, static_cast<int>(x.shape.size()) - 1));
        define(chance(50)
                   ? "stablehlo.get_dimension_size " + x.name + ", dim = " + d + " : (" +
                         type_of(x) + ") -> tensor<i32>"
                   : "\"" + dialect() + "get_dimension_size\"(" + x.name + ") {dimension = " + d +
                         " : i64} : (" + type_of(x) + ") -> tensor<i32>",
               {Val{"", DType::Int32, {}}});
        return;
      }
      to.shape = {core::checked_numel(x.shape).value_or(0)};
      if (chance(25)) {
        std::string shape = shape_constant(to.shape);
        define(dialect() + "dynamic_reshape " + x.name + ", " + shape + " : (" + type_of(x) + ", " +
                   shape_type(to.shape) + ") -> " + type_of(to),
               {to});
        return;
      }
      define(dialect() + "reshape " + x.name + " : (" + type_of(x) + ") -> " + type_of(to), {to});
      return;
    }
    case 6: { // softmax, log_softmax, gelu, erf
      Val x = operand(float_dtype(), nullptr, 1);
      std::string ops[] = {"softmax", "log_softmax", "gelu", "erf"};
      std::string op = ops[pick(0, 3)], attrs;
      if (op == "gelu")
        attrs = std::string("approximate = \"") + (chance(50) ? "tanh" : "none") + "\"";
      else if (op != "erf")
        attrs = axis(x) + " : i64";
      define(custom_call(op, x.name, attrs, "(" + type_of(x) + ") -> " + type_of(x)), {x});
      return;
    }
    case 7:
      return norm();
    case 8: { // addn of 1 to 3 values of one type
      Val x = operand(float_dtype());
      std::string operands = x.name, types = type_of(x);
      for (int i = pick(1, 3); i > 1; --i) {
        operands += ", " + operand(x.dtype, &x.shape).name;
        types += ", " + type_of(x);
      }
      define(custom_call("addn", operands, "", "(" + types + ") -> " + type_of(x)), {x});
      return;
    }
    case 9:
      return arg_or_top_k();
    case 10:
      return quantization();
    case 11: { // one_hot of integer indices
      Val x = operand(chance(50) ? DType::Int32 : DType::Int64);
      int64_t depth = pick(0, 4);
      size_t at = static_cast<size_t>(pick(0, static_cast<int>(x.shape.size())));
      Val to = x;
      to.shape.insert(to.shape.begin() + static_cast<std::ptrdiff_t>(at), depth);
      to.dtype = chance(50) ? DType::Float32 : one_of(kDTypes);
      if (to.dtype == DType::Bool)
        to.dtype = DType::Int8;
      bool f = core::is_float(to.dtype);
      std::string attrs =
          "axis = " + std::to_string(at) + " : i64, depth = " + std::to_string(depth) +
          " : i64, on_value = " + (f ? "1.5" : "7") + " : " + element(to.dtype) + ", off_value = " +
          (f                          ? "-0.0"
           : to.dtype == DType::UInt8 ? "0"
                                      : "-1") +
          " : " + element(to.dtype);
      define(custom_call("one_hot", x.name, attrs, "(" + type_of(x) + ") -> " + type_of(to)), {to});
      return;
    }
    case 12:
      return resize();
    case 13:
      return layout();
    case 14:
      return selection();
    case 15:
      return elementwise();
    case 16:
      return contraction();
    case 17:
      return reduction();
    default: { // rng_uniform: low, high, seed, offset
      DType t = float_dtype();
      std::string scalar = type_of(t, {}), word = type_of(DType::Int64, {});
      std::string operands = operand(t, &kScalar).name + ", " + operand(t, &kScalar).name + ", " +
                             operand(DType::Int64, &kScalar).name + ", " +
                             operand(DType::Int64, &kScalar).name;
      Val to{"", t, shape()};
      define(custom_call("rng_uniform", operands, "",
                         "(" + scalar + ", " + scalar + ", " + word + ", " + word + ") -> " +
                             type_of(to)),
             {to});
      return;
    }
    }
  }

  // A list of integers as the pretty (`[1, 0]`) or generic
  // (`array<i64: 1, 0>`) form writes it.
  static std::string ints(const std::vector<int64_t>& v, bool pretty) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i)
      out += (i ? ", " : "") + std::to_string(v[i]);
    return pretty ? "[" + out + "]" : "array<i64" + std::string(v.empty() ? "" : ": ") + out + ">";
  }

  // transpose, slice, reverse, concatenate, pad: any element type, rank >= 1.
  void layout() {
    Val x = operand(std::nullopt, nullptr, 1);
    const size_t rank = x.shape.size();
    const bool pretty = chance(50);
    Val to = x;
    switch (pick(0, 5)) {
    case 4:
      return pad(x);
    case 5:
      return dynamic_slice(x);
    case 0: {
      std::vector<int64_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      for (size_t i = rank; i > 1; --i)
        std::swap(perm[i - 1], perm[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
      for (size_t d = 0; d < rank; ++d)
        to.shape[d] = x.shape[static_cast<size_t>(perm[d])];
      define((pretty ? "stablehlo.transpose " + x.name + ", dims = " + ints(perm, true)
                     : "\"" + dialect() + "transpose\"(" + x.name +
                           ") {permutation = " + ints(perm, false) + "}") +
                 " : (" + type_of(x) + ") -> " + type_of(to),
             {to});
      return;
    }
    case 1: {
      std::vector<int64_t> start(rank), limit(rank), stride(rank);
      std::string ranges;
      for (size_t d = 0; d < rank; ++d) {
        int e = static_cast<int>(x.shape[d]);
        start[d] = pick(0, e);
        limit[d] = pick(static_cast<int>(start[d]), e);
        stride[d] = pick(1, 3);
        to.shape[d] = (limit[d] - start[d] + stride[d] - 1) / stride[d];
        ranges += (d ? ", " : "") + std::to_string(start[d]) + ":" + std::to_string(limit[d]) +
                  (stride[d] == 1 && chance(50) ? "" : ":" + std::to_string(stride[d]));
      }
      define((pretty ? "stablehlo.slice " + x.name + " [" + ranges + "]"
                     : "\"" + dialect() + "slice\"(" + x.name + ") {start_indices = " +
                           ints(start, false) + ", limit_indices = " + ints(limit, false) +
                           ", strides = " + ints(stride, false) + "}") +
                 " : (" + type_of(x) + ") -> " + type_of(to),
             {to});
      return;
    }
    case 2: {
      std::vector<int64_t> dims;
      for (size_t d = 0; d < rank; ++d)
        if (chance(50))
          dims.push_back(static_cast<int64_t>(d));
      if (chance(50))
        std::reverse(dims.begin(), dims.end());
      define(pretty ? "stablehlo.reverse " + x.name + ", dims = " + ints(dims, true) + " : " +
                          type_of(x)
                    : "\"" + dialect() + "reverse\"(" + x.name + ") {dimensions = " +
                          ints(dims, false) + "} : (" + type_of(x) + ") -> " + type_of(x),
             {x});
      return;
    }
    default: { // concatenate 1 to 3 values along one dimension
      size_t along = static_cast<size_t>(pick(0, static_cast<int>(rank) - 1));
      std::string operands = x.name, types = type_of(x);
      for (int i = pick(1, 3); i > 1; --i) {
        core::Shape s = x.shape;
        s[along] = pick(0, 3);
        Val y = operand(x.dtype, &s);
        operands += ", " + y.name;
        types += ", " + type_of(y);
        to.shape[along] += s[along];
      }
      std::string d = std::to_string(along);
      define((pretty ? "stablehlo.concatenate " + operands + ", dim = " + d
                     : "\"" + dialect() + "concatenate\"(" + operands + ") {dimension = " + d +
                           " : i64}") +
                 " : (" + types + ") -> " + type_of(to),
             {to});
      return;
    }
    }
  }

  // dynamic_slice (sizes up to the operand's extents) or
  // dynamic_update_slice (an update no larger than the operand), the start
  // indices rank-0 integers of one type drawn anywhere: clamped when out of
  // range.
  void dynamic_slice(const Val& x) {
    const bool pretty = chance(50), update = chance(50);
    Val to = x;
    std::vector<int64_t> sizes;
    for (int64_t e : x.shape)
      sizes.push_back(pick(0, static_cast<int>(e)));
    DType index = one_of(kIntegerDTypes);
    std::string operands = x.name, types = type_of(x);
    if (update) {
      Val u = operand(x.dtype, nullptr);
      if (u.shape.size() != x.shape.size() ||
          !std::equal(u.shape.begin(), u.shape.end(), x.shape.begin(), std::less_equal<>()))
        u = argument(x.dtype, core::Shape(sizes.begin(), sizes.end()));
      operands += ", " + u.name;
      types += ", " + type_of(u);
    } else {
      to.shape = core::Shape(sizes.begin(), sizes.end());
    }
    for (size_t d = 0; d < x.shape.size(); ++d) {
      operands += ", " + operand(index, &kScalar).name;
      types += ", " + type_of(index, {});
    }
    std::string op = update ? "dynamic_update_slice" : "dynamic_slice";
    std::string attrs = update   ? ""
                        : pretty ? ", sizes = " + ints(sizes, true)
                                 : " {slice_sizes = " + ints(sizes, false) + "}";
    define((pretty ? "stablehlo." + op + " " + operands + (update ? "" : attrs)
                   : "\"" + dialect() + op + "\"(" + operands + ")" + attrs) +
               " : (" + types + ") -> " + type_of(to),
           {to});
  }

  // pad of \p x by a constant or an argument: edge paddings in [-2, 2]
  // (none removing more than the dimension has), interior in [0, 2].
  void pad(const Val& x) {
    const size_t rank = x.shape.size();
    std::vector<int64_t> low(rank), high(rank), interior(rank);
    Val to = x;
    for (size_t d = 0; d < rank; ++d) {
      interior[d] = chance(50) ? 0 : pick(1, 2);
      int64_t spread = x.shape[d] + std::max<int64_t>(x.shape[d] - 1, 0) * interior[d];
      low[d] = pick(-2, 2);
      high[d] = pick(-2, 2);
      while (spread + low[d] + high[d] < 0)
        low[d] < 0 ? ++low[d] : ++high[d];
      to.shape[d] = spread + low[d] + high[d];
    }
    Val value{"", x.dtype, {}};
    if (chance(30)) {
      value = operand(x.dtype, &kScalar);
    } else {
      value.name = define("stablehlo.constant dense<" +
                              std::string(x.dtype == DType::Bool    ? "true"
                                          : core::is_float(x.dtype) ? "-1.5"
                                          : x.dtype == DType::UInt8 ? "7"
                                                                    : "-3") +
                              "> : " + type_of(value),
                          {value})[0];
      values_.back().read = true;
    }
    std::string types = " : (" + type_of(x) + ", " + type_of(value) + ") -> " + type_of(to);
    if (chance(50))
      define("stablehlo.pad " + x.name + ", " + value.name + ", low = " + ints(low, true) +
                 ", high = " + ints(high, true) + ", interior = " + ints(interior, true) + types,
             {to});
    else
      define("\"" + dialect() + "pad\"(" + x.name + ", " + value.name + ") {edge_padding_low = " +
                 ints(low, false) + ", edge_padding_high = " + ints(high, false) +
                 ", interior_padding = " + ints(interior, false) + "}" + types,
             {to});
  }

  // compare (without TOTALORDER, which only the interpreter runs), select,
  // clamp and iota.
  void selection() {
    const bool pretty = chance(50);
    switch (pick(0, 3)) {
    case 0: {
      Val x = operand(std::nullopt);
      Val y = operand(x.dtype, &x.shape);
      const char* directions[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
      std::string d = directions[pick(0, 5)];
      std::string type = core::is_float(x.dtype)                          ? "FLOAT"
                         : core::kind(x.dtype) == core::DTypeKind::Signed ? "SIGNED"
                                                                          : "UNSIGNED";
      bool written = chance(50);
      Val to{"", DType::Bool, x.shape};
      std::string types = " : (" + type_of(x) + ", " + type_of(x) + ") -> " + type_of(to);
      std::string generic = dialect(), name = generic.substr(0, generic.size() - 1);
      define(pretty
                 ? "stablehlo.compare " + d + ", " + x.name + ", " + y.name +
                       (written ? ", " + type : "") + types
                 : "\"" + generic + "compare\"(" + x.name + ", " + y.name +
                       ") {comparison_direction = #" + name + "<comparison_direction " + d + ">" +
                       (written ? ", compare_type = #" + name + "<comparison_type " + type + ">"
                                : "") +
                       "}" + types,
             {to});
      return;
    }
    case 1: {
      Val x = operand(std::nullopt);
      Val y = operand(x.dtype, &x.shape);
      Val p = operand(DType::Bool, chance(30) ? &kScalar : &x.shape);
      define((pretty ? std::string("stablehlo.select ") : "\"" + dialect() + "select\"(") + p.name +
                 ", " + x.name + ", " + y.name + (pretty ? "" : ")") + " : (" + type_of(p) + ", " +
                 type_of(x) + ", " + type_of(x) + ") -> " + type_of(x),
             {x});
      return;
    }
    case 2: {
      Val x = operand(number_dtype());
      Val lo = operand(x.dtype, chance(50) ? &kScalar : &x.shape);
      Val hi = operand(x.dtype, chance(50) ? &kScalar : &x.shape);
      define((pretty ? std::string("stablehlo.clamp ") : "\"" + dialect() + "clamp\"(") + lo.name +
                 ", " + x.name + ", " + hi.name + (pretty ? "" : ")") + " : (" + type_of(lo) +
                 ", " + type_of(x) + ", " + type_of(hi) + ") -> " + type_of(x),
             {x});
      return;
    }
    default: {
      Val to{"", number_dtype(), shape(1)};
      std::string d = std::to_string(pick(0, static_cast<int>(to.shape.size()) - 1));
      if (chance(25)) { // the dynamic form, its output shape a constant
        std::string shape = shape_constant(to.shape);
        define(pretty ? "stablehlo.dynamic_iota " + shape + ", dim = " + d + " : (" +
                            shape_type(to.shape) + ") -> " + type_of(to)
                      : "\"" + dialect() + "dynamic_iota\"(" + shape + ") {iota_dimension = " + d +
                            " : i64} : (" + shape_type(to.shape) + ") -> " + type_of(to),
               {to});
        return;
      }
      define(pretty ? "stablehlo.iota dim = " + d + " : " + type_of(to)
                    : "\"" + dialect() + "iota\"() {iota_dimension = " + d + " : i64} : () -> " +
                          type_of(to),
             {to});
      return;
    }
    }
  }

  // The other elementwise ops: float functions and roundings, sign,
  // is_finite, not, the logical and, or, xor of i1 values and the bitwise
  // ones of integers, the shifts, popcnt and count_leading_zeros.
  void elementwise() {
    const bool pretty = chance(50);
    auto unary = [&](const std::string& op, const Val& x, const Val& to) {
      define((pretty ? "stablehlo." + op + " " + x.name
                     : "\"" + dialect() + op + "\"(" + x.name + ")") +
                 " : (" + type_of(x) + ") -> " + type_of(to),
             {to});
    };
    auto binary = [&](const std::string& op, const Val& x, const Val& y) {
      define((pretty ? "stablehlo." + op + " " + x.name + ", " + y.name
                     : "\"" + dialect() + op + "\"(" + x.name + ", " + y.name + ")") +
                 " : (" + type_of(x) + ", " + type_of(x) + ") -> " + type_of(x),
             {x});
    };
    switch (pick(0, 6)) {
    case 4: { // and, or, xor of integers: every bit pattern of the inputs
      const char* ops[] = {"and", "or", "xor"};
      Val x = operand(one_of(kIntegerDTypes));
      return binary(ops[pick(0, 2)], x, operand(x.dtype, &x.shape));
    }
    case 5: { // amounts in and out of [0, width), negative ones too
      const char* ops[] = {"shift_left", "shift_right_arithmetic", "shift_right_logical"};
      Val x = operand(one_of(kIntegerDTypes));
      return binary(ops[pick(0, 2)], x, operand(x.dtype, &x.shape));
    }
    case 6: {
      Val x = operand(one_of(kIntegerDTypes));
      return unary(chance(50) ? "popcnt" : "count_leading_zeros", x, x);
    }
    case 0: {
      const char* ops[] = {"sine",
                           "cosine",
                           "tan",
                           "logistic",
                           "floor",
                           "ceil",
                           "sign",
                           "round_nearest_even",
                           "round_nearest_afz"};
      Val x = operand(float_dtype());
      return unary(ops[pick(0, 8)], x, x);
    }
    case 1: {
      Val x = operand(float_dtype());
      return unary("is_finite", x, Val{"", DType::Bool, x.shape});
    }
    case 2: {
      Val x = operand(chance(50) ? DType::Bool : one_of(kIntegerDTypes));
      return unary(chance(50) ? "not" : (x.dtype == DType::Bool ? "not" : "sign"), x, x);
    }
    default: {
      const char* ops[] = {"and", "or", "xor"};
      Val x = operand(DType::Bool);
      return binary(ops[pick(0, 2)], x, operand(DType::Bool, &x.shape));
    }
    }
  }

  static std::string axis(const Val& x) {
    return "axis = " + std::to_string(pick(0, static_cast<int>(x.shape.size()) - 1));
  }

  // layer_norm (trailing or chosen axes, 1 or 3 results) and l2_norm.
  void norm() {
    Val x = operand(float_dtype(), nullptr, 1);
    size_t first = static_cast<size_t>(pick(0, static_cast<int>(x.shape.size()) - 1));
    std::string eps =
        std::string("epsilon = ") + (chance(50) ? "1.0e-05" : "0.5") + " : f64" +
        (chance(50) ? std::string(", eps_outside_sqrt = ") + (chance(50) ? "true" : "false") : "");
    if (chance(30)) {
      define(custom_call("l2_norm", x.name, "axis = [" + std::to_string(first) + "], " + eps,
                         "(" + type_of(x) + ") -> " + type_of(x)),
             {x});
      return;
    }
    std::string list;
    core::Shape affine, kept = x.shape;
    for (size_t d = first; d < x.shape.size(); ++d)
      if (d == first || chance(70)) {
        list += (list.empty() ? "" : ", ") + std::to_string(d);
        affine.push_back(x.shape[d]);
        kept[d] = 1;
      }
    std::string gamma = operand(x.dtype, &affine).name, beta = operand(x.dtype, &affine).name;
    std::string attrs = "axis = [" + list + "], " + eps;
    std::string in =
        "(" + type_of(x) + ", " + type_of(x.dtype, affine) + ", " + type_of(x.dtype, affine) + ")";
    std::string operands = x.name + ", " + gamma + ", " + beta;
    if (chance(30)) {
      Val stat{"", x.dtype, kept};
      define(custom_call("layer_norm", operands, attrs,
                         in + " -> (" + type_of(x) + ", " + type_of(stat) + ", " + type_of(stat) +
                             ")"),
             {x, stat, stat});
      return;
    }
    define(custom_call("layer_norm", operands, attrs, in + " -> " + type_of(x)), {x});
  }

  // arg_max, arg_min (keep_dims, select_last_index, one or two results)
  // and top_k (k, sorted).
  void arg_or_top_k() {
    Val x = operand(number_dtype(), nullptr, 1);
    size_t at = static_cast<size_t>(pick(0, static_cast<int>(x.shape.size()) - 1));
    if (x.shape[at] == 0) // an index needs an element: a new argument instead
      x = argument(x.dtype, [&] {
        core::Shape s = x.shape;
        s[at] = pick(1, 4);
        return s;
      }());
    if (core::is_float(x.dtype) && chance(50)) {
      // Ties, as ReLU outputs and quantized values have: through int8 and
      // back, so equal extremes are common and their order matters.
      Val narrow = x;
      narrow.dtype = DType::Int8;
      std::string n =
          define(dialect() + "convert " + x.name + " : (" + type_of(x) + ") -> " + type_of(narrow),
                 {narrow})[0];
      values_.back().read = true;
      std::string back = define(
          dialect() + "convert " + n + " : (" + type_of(narrow) + ") -> " + type_of(x), {x})[0];
      values_.back().read = true;
      x.name = back;
    }
    DType index = chance(50) ? DType::Int64 : DType::Int32;
    Val out = x, idx = x;
    idx.dtype = index;
    std::string attrs, op;
    bool both = true;
    if (chance(30)) {
      op = "top_k";
      int64_t k = pick(1, static_cast<int>(x.shape[at]));
      out.shape[at] = idx.shape[at] = k;
      attrs = "axis = [" + std::to_string(at) + "], k = " + std::to_string(k) +
              " : i64, sorted = " + (chance(50) ? "true" : "false");
    } else {
      op = chance(50) ? "arg_max" : "arg_min";
      bool keep = chance(50);
      for (Val* v : {&out, &idx})
        keep ? void(v->shape[at] = 1)
             : void(v->shape.erase(v->shape.begin() + static_cast<std::ptrdiff_t>(at)));
      attrs = "axis = " + std::to_string(at) + " : i64, keep_dims = " + (keep ? "true" : "false") +
              ", select_last_index = " + (chance(50) ? "true" : "false");
      both = chance(50);
    }
    std::string in = "(" + type_of(x) + ") -> ";
    if (both)
      define(custom_call(op, x.name, attrs, in + "(" + type_of(out) + ", " + type_of(idx) + ")"),
             {out, idx});
    else
      define(custom_call(op, x.name, attrs, in + type_of(idx)), {idx});
  }

  // quantize a float value, or dequantize an integer one, per tensor or
  // per axis; scales and zero points are constants (scales on ties).
  void quantization() {
    bool quantize = chance(50);
    DType integer = one_of(std::vector<DType>{DType::Int8, DType::UInt8, DType::Int16});
    Val x = quantize ? operand(float_dtype()) : operand(integer);
    DType real = quantize ? x.dtype : float_dtype();
    bool per_axis = !x.shape.empty() && chance(50);
    size_t at = per_axis ? static_cast<size_t>(pick(0, static_cast<int>(x.shape.size()) - 1)) : 0;
    core::Shape channels = per_axis ? core::Shape{x.shape[at]} : core::Shape{};
    Val scale{"", real, channels}, zero{"", integer, channels};
    std::string s = define(dialect() + "constant dense<" + (chance(50) ? "5.000000e-01" : "0.1") +
                               "> : " + type_of(scale),
                           {scale})[0];
    std::string z =
        define(dialect() + "constant dense<" + std::to_string(pick(0, 3)) + "> : " + type_of(zero),
               {zero})[0];
    values_[values_.size() - 1].read = values_[values_.size() - 2].read = true;
    Val to = x;
    to.dtype = quantize ? integer : real;
    std::string attrs = per_axis ? "axis = " + std::to_string(at) + " : i64" : "";
    define(custom_call(quantize ? "quantize" : "dequantize", x.name + ", " + s + ", " + z, attrs,
                       "(" + type_of(x) + ", " + type_of(scale) + ", " + type_of(zero) + ") -> " +
                           type_of(to)),
           {to});
  }

  // triangular_solve of floats: a batch of square matrices (extents 0 to
  // 4), every side, triangle, diagonal and transposition.
  void triangular_solve() {
    DType t = float_dtype();
    core::Shape batch(static_cast<size_t>(pick(0, 1)), pick(1, 2));
    int64_t n = chance(8) ? 0 : pick(1, 4), k = chance(8) ? 0 : pick(1, 3);
    const bool left = chance(50);
    core::Shape as = batch, bs = batch;
    as.insert(as.end(), {n, n});
    bs.insert(bs.end(), {left ? n : k, left ? k : n});
    Val a = operand(t, &as), b = operand(t, &bs);
    const char* transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    std::string d = dialect();
    auto flag = [](bool v) { return v ? "true" : "false"; };
    define("\"" + d + "triangular_solve\"(" + a.name + ", " + b.name +
               ") {left_side = " + flag(left) + ", lower = " + flag(chance(50)) +
               ", unit_diagonal = " + flag(chance(30)) + ", transpose_a = #" +
               d.substr(0, d.size() - 1) + "<transpose " + transposes[pick(0, 2)] + ">} : (" +
               type_of(a) + ", " + type_of(b) + ") -> " + type_of(b),
           {b});
  }

  // dot_general (the generic form's #stablehlo.dot or #mhlo.dot, or the
  // pretty `batching_dims = [..] x [..]`) over operands whose batching,
  // contracting and free dimensions are in random places, sometimes with a
  // result type of its own; or dot of ranks 1 and 2; or triangular_solve.
  void contraction() {
    if (chance(15))
      return triangular_solve();
    DType t = number_dtype();
    DType out = t;
    if (chance(20))
      out = core::is_float(t) ? float_dtype() : one_of(kIntegerDTypes);
    const bool pretty = chance(50);
    auto extent = [] { return static_cast<int64_t>(chance(8) ? 0 : pick(1, 4)); };
    if (chance(25)) {
      int64_t k = extent();
      core::Shape ls{k}, rs{k};
      Val to{"", out, {}};
      if (chance(50)) {
        ls.insert(ls.begin(), extent());
        to.shape.push_back(ls[0]);
      }
      if (chance(50)) {
        rs.push_back(extent());
        to.shape.push_back(rs[1]);
      }
      Val a = operand(t, &ls), b = operand(t, &rs);
      std::string types = " : (" + type_of(a) + ", " + type_of(b) + ") -> " + type_of(to);
      define((pretty ? "stablehlo.dot " + a.name + ", " + b.name
                     : "\"" + dialect() + "dot\"(" + a.name + ", " + b.name + ")") +
                 types,
             {to});
      return;
    }
    // Roles: 0 batching, 1 contracting, 2 free.
    std::vector<int> lroles, rroles;
    std::vector<int64_t> batch(static_cast<size_t>(pick(0, 1))),
        contract(static_cast<size_t>(pick(0, 2)));
    for (int64_t& e : batch)
      e = extent();
    for (int64_t& e : contract)
      e = extent();
    auto side = [&](int free) {
      std::vector<std::pair<int, size_t>> dims; // role, which
      for (size_t i = 0; i < batch.size(); ++i)
        dims.push_back({0, i});
      for (size_t i = 0; i < contract.size(); ++i)
        dims.push_back({1, i});
      for (int i = 0; i < free; ++i)
        dims.push_back({2, static_cast<size_t>(i)});
      for (size_t i = dims.size(); i > 1; --i)
        std::swap(dims[i - 1], dims[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
      return dims;
    };
    auto ldims = side(pick(0, 2)), rdims = side(pick(0, 1));
    // The contracting dimensions pair up in a random order of their own.
    std::vector<size_t> order(contract.size());
    std::iota(order.begin(), order.end(), 0);
    if (order.size() == 2 && chance(50))
      std::swap(order[0], order[1]);
    Val to{"", out, {}};
    for (int64_t e : batch)
      to.shape.push_back(e);
    auto build = [&](const std::vector<std::pair<int, size_t>>& dims, std::vector<int64_t>& b,
                     std::vector<int64_t>& c) {
      core::Shape s;
      b.assign(batch.size(), 0);
      c.assign(contract.size(), 0);
      for (size_t d = 0; d < dims.size(); ++d) {
        auto [role, which] = dims[d];
        if (role == 0) {
          s.push_back(batch[which]);
          b[which] = static_cast<int64_t>(d);
        } else if (role == 1) {
          s.push_back(contract[which]);
          c[which] = static_cast<int64_t>(d);
        } else {
          s.push_back(extent());
          to.shape.push_back(s.back());
        }
      }
      std::vector<int64_t> ordered;
      for (size_t i : order)
        ordered.push_back(c[i]);
      c = ordered;
      return s;
    };
    std::vector<int64_t> lb, lc, rb, rc;
    core::Shape ls = build(ldims, lb, lc), rs = build(rdims, rb, rc);
    Val a = operand(t, &ls), b = operand(t, &rs);
    std::string types = " : (" + type_of(a) + ", " + type_of(b) + ") -> " + type_of(to);
    if (pretty) {
      std::string dims;
      if (!lb.empty() || chance(20))
        dims += ", batching_dims = " + ints(lb, true) + " x " + ints(rb, true);
      if (!lc.empty() || dims.empty())
        dims += ", contracting_dims = " + ints(lc, true) + " x " + ints(rc, true);
      define("stablehlo.dot_general " + a.name + ", " + b.name + dims +
                 (chance(50) ? ", precision = [DEFAULT, DEFAULT]" : "") + types,
             {to});
      return;
    }
    std::string numbers;
    auto list = [&](const char* name, const std::vector<int64_t>& v) {
      if (!v.empty() || chance(20))
        numbers += (numbers.empty() ? "" : ", ") + std::string(name) + " = " + ints(v, true);
    };
    list("lhs_batching_dimensions", lb);
    list("rhs_batching_dimensions", rb);
    list("lhs_contracting_dimensions", lc);
    list("rhs_contracting_dimensions", rc);
    std::string d = dialect();
    define("\"" + d + "dot_general\"(" + a.name + ", " + b.name + ") {dot_dimension_numbers = #" +
               d.substr(0, d.size() - 1) + ".dot<" + numbers + ">" +
               (chance(50) ? ", precision_config = [#" + d.substr(0, d.size() - 1) +
                                 "<precision DEFAULT>, #" + d.substr(0, d.size() - 1) +
                                 "<precision HIGHEST>]"
                           : "") +
               "}" + types,
           {to});
  }

  // reduce of one input over some of its dimensions (listed in any order)
  // with a body of add, multiply, maximum, minimum (any type but i1 for
  // add and multiply) or the logical and, or (i1), in the pretty `applies`
  // form or with the body as a region; the initial value a constant (the
  // body's identity, -0, infinities) or an argument.
  void reduction() {
    const bool logical = chance(15);
    Val x = logical ? operand(DType::Bool) : operand(chance(30) ? DType::Bool : number_dtype());
    std::vector<std::string> bodies = {"maximum", "minimum"};
    if (x.dtype == DType::Bool)
      bodies.insert(bodies.end(), {"and", "or"});
    else
      bodies.insert(bodies.end(), {"add", "multiply"});
    const std::string body = one_of(bodies);
    std::vector<int64_t> dims;
    Val to{"", x.dtype, {}};
    for (size_t d = 0; d < x.shape.size(); ++d)
      if (chance(50))
        dims.push_back(static_cast<int64_t>(d));
      else
        to.shape.push_back(x.shape[d]);
    for (size_t i = dims.size(); i > 1; --i)
      std::swap(dims[i - 1], dims[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
    Val init{"", x.dtype, {}};
    if (chance(30)) {
      init = operand(x.dtype, &kScalar);
    } else {
      std::string value = x.dtype == DType::Bool ? (body == "and" ? "true" : "false")
                          : core::is_float(x.dtype)
                              ? one_of(std::vector<std::string>{"0.0", "-0.0", "1.0", "0xFF800000",
                                                                "0x7F800000", "-2.5"})
                              : one_of(std::vector<std::string>{"0", "1", "-1"});
      if (value == "-1" && x.dtype == DType::UInt8)
        value = "255";
      if (value.starts_with("0x") && x.dtype != DType::Float32)
        value = value == "0xFF800000" ? "-1.0e+04" : "1.0e+04";
      init.name = define("stablehlo.constant dense<" + value + "> : " + type_of(init), {init})[0];
      values_.back().read = true;
    }
    std::string types = " : (" + type_of(x) + ", " + type_of(init) + ") -> " + type_of(to);
    std::string d = dialect(), scalar = type_of(x.dtype, {});
    bool swapped = chance(50);
    switch (pick(0, 2)) {
    case 0:
      define("stablehlo.reduce(" + x.name + " init: " + init.name + ") applies " + d + body +
                 " across dimensions = " + ints(dims, true) + types,
             {to});
      return;
    case 1:
      define("stablehlo.reduce(" + x.name + " init: " + init.name + ") across dimensions = " +
                 ints(dims, true) + types + "\n   reducer(%lhs: " + scalar + ", %rhs: " + scalar +
                 ") {\n    %r = stablehlo." + body + " " + (swapped ? "%rhs, %lhs" : "%lhs, %rhs") +
                 " : " + scalar + "\n    stablehlo.return %r : " + scalar + "\n  }",
             {to});
      return;
    default:
      break;
    }
    define("\"" + d + "reduce\"(" + x.name + ", " + init.name + ") ({\n  ^bb0(%lhs: " + scalar +
               ", %rhs: " + scalar + "):\n    %r = \"" + d + body + "\"(" +
               (swapped ? "%rhs, %lhs" : "%lhs, %rhs") + ") : (" + scalar + ", " + scalar +
               ") -> " + scalar + "\n    \"" + d + "return\"(%r) : (" + scalar +
               ") -> ()\n  }) {dimensions = " + ints(dims, false) + "}" + types,
           {to});
  }

  // resize by sizes or scales, nearest or linear, each coordinate mapping.
  void resize() {
    Val x = operand(number_dtype(), nullptr, 1);
    bool linear = core::is_float(x.dtype) && chance(50);
    const char* maps[] = {"asymmetric", "half_pixel", "pytorch_half_pixel", "align_corners"};
    bool sizes = chance(50);
    Val to = x;
    std::string target;
    for (size_t d = 0; d < x.shape.size(); ++d) {
      if (sizes) {
        to.shape[d] = x.shape[d] == 0 ? 0 : pick(1, 6);
        target += (d ? ", " : "") + std::to_string(to.shape[d]);
      } else {
        const char* scales[] = {"5.000000e-01", "1.000000e+00", "1.500000e+00", "2.000000e+00"};
        int which = pick(0, 3);
        to.shape[d] = x.shape[d] * (which + 1) / 2;
        target += (d ? ", " : "") + std::string(scales[which]);
      }
    }
    Val t{"", sizes ? DType::Int64 : DType::Float32, {static_cast<int64_t>(x.shape.size())}};
    std::string shape =
        define("stablehlo.constant dense<[" + target + "]> : " + type_of(t), {t})[0];
    values_.back().read = true;
    std::string attrs = std::string("coordinate_transformation_mode = \"") + maps[pick(0, 3)] +
                        "\", mode = \"" + (linear ? "linear" : "nearest") + "\", target_mode = \"" +
                        (sizes ? "size" : "scale") + "\"";
    define(custom_call("resize", x.name + ", " + shape, attrs,
                       "(" + type_of(x) + ", " + type_of(t) + ") -> " + type_of(to)),
           {to});
  }

  static inline const core::Shape kScalar{};
  Program& p_;
  std::vector<Val> values_;
  std::string body_;
  int next_ = 0;
};

} // namespace

rc::Gen<Program> mlir_program() {
  return rc::gen::exec([] {
    Program p;
    p.lang = "mlir";
    p.text = MlirBuilder(p).function();
    return p;
  });
}

} // namespace teval::verify
