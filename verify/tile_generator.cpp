// The generator of random Tile contractions (see generators.h).
//
// Every index variable is bounded by construction: each takes one index
// position of its own (an output or input dimension) in which it appears
// either whole or in a compound affine expression (`2 * j - i + 1`,
// `-j + 3`) over variables bound before it, so its range follows from
// validity alone and may start below zero. Every other position is free:
// strided, offset, summed and exactly divided indices, constraints,
// outputs larger or smaller than the index range, extents of zero (empty
// ranges), and every aggregation, `=` included (two writes to one location
// are then an error every backend must report alike).
#include "verify/generators.h"

#include "core/dtype.h"
#include "verify/choice.h"

namespace teval::verify {

namespace {

using core::DType;

struct Tensor {
  std::string name;
  std::vector<std::string> dims; // dimension names (bound) or expressions
};

class TileBuilder {
public:
  explicit TileBuilder(Program& p) : p_(p) {}

  std::string function() {
    DType t = pick_dtype();
    int inputs = pick(1, 2);
    std::string params, binds, dim_names;
    std::vector<Tensor> ins;
    for (int i = 0; i < inputs; ++i) {
      Tensor in{std::string(1, static_cast<char>('A' + i)), {}};
      int rank = pick(1, 3);
      core::Shape shape;
      binds += "  " + in.name + ".bind_dims(";
      for (int d = 0; d < rank; ++d) {
        std::string dim = "D" + in.name + std::to_string(d);
        in.dims.push_back(dim);
        shape.push_back(chance(10) ? 0 : pick(1, 5));
        binds += (d ? ", " : "") + dim;
        dim_names += (dim_names.empty() ? "" : ", ") + dim;
      }
      binds += ");\n";
      params += (i ? ", " : "") + std::string("const Tensor& ") + in.name;
      p_.inputs.push_back({in.name, {t, shape, {}}});
      ins.push_back(in);
    }
    // At most as many variables as there are index positions: each one
    // takes a position of its own.
    int slots = 0;
    for (const Tensor& in : ins)
      slots += static_cast<int>(in.dims.size());
    int out_rank = pick(0, 3);
    int vars = pick(1, std::min(4, slots + out_rank));
    for (int v = 0; v < vars; ++v)
      vars_.push_back(std::string(1, static_cast<char>('i' + v)));

    std::string body = "Tensor f(" + params + ") {\n  TensorDim " + dim_names + ";\n  TensorIndex ";
    for (int v = 0; v < vars; ++v)
      body += (v ? ", " : "") + vars_[static_cast<size_t>(v)];
    body += ";\n" + binds;

    // Positions: output dimensions (tensor -1) and input dimensions. Each
    // variable in turn binds one, whole or compound over earlier ones; the
    // rest get random indices over all variables.
    std::vector<std::string> out_index(static_cast<size_t>(out_rank)), out_dims;
    for (int d = 0; d < out_rank; ++d)
      out_dims.push_back(dim_expr(ins));
    std::vector<std::vector<std::string>> access(ins.size());
    std::vector<std::pair<int, size_t>> free;
    for (int d = 0; d < out_rank; ++d)
      free.emplace_back(-1, static_cast<size_t>(d));
    for (size_t i = 0; i < ins.size(); ++i) {
      access[i].resize(ins[i].dims.size());
      for (size_t d = 0; d < ins[i].dims.size(); ++d)
        free.emplace_back(static_cast<int>(i), d);
    }
    for (int v = 0; v < vars; ++v) {
      size_t k = static_cast<size_t>(pick(0, static_cast<int>(free.size()) - 1));
      std::string& at = free[k].first < 0
                            ? out_index[free[k].second]
                            : access[static_cast<size_t>(free[k].first)][free[k].second];
      at = chance(50) ? vars_[static_cast<size_t>(v)] : binding(v);
      free.erase(free.begin() + static_cast<long>(k));
    }
    for (const auto& [t, d] : free)
      (t < 0 ? out_index[d] : access[static_cast<size_t>(t)][d]) = index_expr();

    const char* aggs[] = {"+=", ">=", "<=", "*=", "="};
    int which = chance(50) ? pick(1, 4) : 0;
    std::string agg = aggs[which];
    std::string value = read(ins[0], access[0]);
    DType out = t;
    if (ins.size() > 1) {
      // == gives bool: a bool sum or product accumulates in int8.
      const char* ops[] = {" * ", " + ", " == "};
      int op = chance(15) ? 2 : pick(0, 1);
      value += ops[op] + read(ins[1], access[1]);
      if (op == 2)
        out = agg == std::string("+=") || agg == std::string("*=") ? DType::Int8 : DType::Bool;
    }
    // A quarter in the later eDSL's builder spelling, which means the same.
    bool builder = chance(25);
    if (builder) {
      const char* methods[] = {"sum", "max", "min", "product", "assign"};
      body += "  auto O = Contraction().outShape(" + join(out_dims) + ").outAccess(" +
              join(out_index) + ")." + methods[which] + "(" + value + ")";
    } else {
      body += "  auto O = TensorOutput(" + join(out_dims) + ");\n";
      body += "  O(" + join(out_index) + ") " + agg + " " + value + ";\n";
    }
    if (chance(45)) {
      // A constant bound, or a dimension as real kernels have (`i + j <
      // N` at a padding edge), which an index reaches at its range's end.
      std::string bound = std::to_string(pick(1, 5));
      if (chance(50)) {
        const Tensor& in = one_of(ins);
        bound = one_of(in.dims);
        if (chance(50))
          bound += " - " + std::to_string(pick(1, 2));
      }
      constraints_.push_back(constraint_expr() + " < " + bound);
    }
    for (const std::string& c : constraints_)
      body += builder ? ".add_constraint(" + c + ")" : "  O.add_constraint(" + c + ");\n";
    if (builder)
      body += ";\n";
    if (chance(40) || (out_rank == 0 && chance(50))) {
      // An elementwise epilogue on the contraction's result, as real
      // kernels have one (a bias, an activation, a comparison). A scalar
      // result (a global max or sum, a temp of rank 0) is often broadcast
      // against the inputs, as a softmax subtracts its maximum.
      scalar_result_ = out_rank == 0;
      input_dtype_ = t;
      // One input: two of them need not broadcast against each other.
      broadcast_input_ = one_of(ins).name;
      Ew o{"O", out, false};
      Ew e = elementwise(o, ins, pick(1, 3));
      if (e.weak) // a literal or dimension alone is not a tensor
        e = arithmetic("(" + e.text + " + O)", e, o);
      return body + "  auto E = " + e.text + ";\n  return E;\n}\n";
    }
    return body + "  return O;\n}\n";
  }

private:
  // An elementwise value: its text, dtype, and whether it is a weak
  // scalar (a literal or a dimension, taking the other operand's dtype).
  struct Ew {
    std::string text;
    DType dtype;
    bool weak;
  };

  // The dtype of arithmetic on a and b (docs/SEMANTICS.md, Elementwise
  // statements).
  static Ew arithmetic(const std::string& text, const Ew& a, const Ew& b) {
    if (a.weak && b.weak)
      return {text,
              core::is_float(a.dtype) || core::is_float(b.dtype) ? DType::Float64 : DType::Int64,
              true};
    if (a.weak || b.weak) {
      const Ew& strong = a.weak ? b : a;
      const Ew& weak = a.weak ? a : b;
      if (core::is_float(weak.dtype) && !core::is_float(strong.dtype))
        return {text, DType::Float32, false};
      return {text, strong.dtype, false};
    }
    DType t = core::promote(a.dtype, b.dtype);
    return {text, t == DType::Bool ? DType::Int8 : t, false};
  }

  // A number from a condition: select(c, x, -x).
  static Ew number(const Ew& x, const Ew& other) {
    if (x.dtype != DType::Bool)
      return x;
    return arithmetic("select(" + x.text + ", " + other.text + ", -" + other.text + ")", other,
                      other);
  }

  // An elementwise expression over the contraction's result \p o, literals
  // and dimensions: arithmetic (integer / and % by values that may be
  // zero), comparisons, select, negation and math functions.
  Ew elementwise(const Ew& o, const std::vector<Tensor>& ins, int depth) {
    if (depth == 0) {
      switch (pick(0, 5)) {
      case 0:
      case 1:
        return o;
      case 2:
        return {std::to_string(pick(-2, 3)), DType::Int64, true};
      case 3: {
        const char* floats[] = {"0.5", "1.5", "-0.25", "2.0"};
        return {floats[pick(0, 3)], DType::Float64, true};
      }
      case 4: {
        const Tensor& t = one_of(ins);
        return {one_of(t.dims), DType::Int64, true};
      }
      default:
        if (scalar_result_ && chance(70)) // broadcast against an input
          return {broadcast_input_, input_dtype_, false};
        return o;
      }
    }
    Ew x = elementwise(o, ins, depth - 1);
    switch (pick(0, 5)) {
    case 0: {
      Ew y = elementwise(o, ins, depth - 1);
      const char* ops[] = {" + ", " - ", " * ", " / ", " % "};
      Ew a = number(x, o), b = number(y, o);
      int op = pick(0, 4);
      // Between scalars this is dimension arithmetic, done while the
      // program is read, where a zero extent divides by zero.
      if (op >= 3 && a.weak && b.weak)
        a = o;
      return arithmetic("(" + a.text + ops[op] + b.text + ")", a, b);
    }
    case 1: {
      Ew y = elementwise(o, ins, depth - 1);
      const char* ops[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
      Ew a = number(x, o), b = number(y, o);
      if (a.weak && b.weak) // between scalars, a comparison is a constraint
        a = o;
      return {"(" + a.text + ops[pick(0, 5)] + b.text + ")", DType::Bool, false};
    }
    case 2: {
      Ew c = elementwise(o, ins, depth - 1);
      if (c.weak)
        c = o;
      Ew y = number(elementwise(o, ins, depth - 1), o);
      Ew a = number(x, o);
      return arithmetic("select(" + c.text + ", " + a.text + ", " + y.text + ")", a, y);
    }
    case 3: {
      return arithmetic(x.text[0] == '-' ? "(-(" + x.text + "))" : "(-" + x.text + ")", x, x);
    }
    default: {
      // Math functions take floats: an integer operand is made one.
      Ew a = number(x, o);
      if (!core::is_float(a.dtype) || a.weak)
        a = arithmetic("(" + a.text + " * 1.0)", a, {"1.0", DType::Float64, true});
      const char* fns[] = {"remainder", "exp", "sqrt", "rsqrt",  "sigmoid",
                           "tanh",      "log", "sin",  "rfloor", "rceil"};
      return {std::string(fns[pick(0, 9)]) + "(" + a.text + ")", a.dtype, a.weak};
    }
    }
  }

  static DType pick_dtype() {
    const DType types[] = {DType::Float32, DType::Int32, DType::Float16, DType::Float64,
                           DType::Int8};
    return chance(50) ? types[pick(1, 4)] : DType::Float32;
  }

  static std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
      out += (i ? ", " : "") + parts[i];
    return out;
  }

  static std::string read(const Tensor& t, const std::vector<std::string>& index) {
    return t.name + "(" + join(index) + ")";
  }

  std::string var() { return one_of(vars_); }

  // A constraint's expression: mostly over two variables (`i + j`, `i - j
  // + 1`), as a convolution's padding edges are. Over one variable a
  // constraint only narrows the loop box; over two the box holds points
  // it excludes, and each point is checked.
  std::string constraint_expr() {
    if (vars_.size() < 2 || chance(25))
      return index_expr();
    size_t a = static_cast<size_t>(pick(0, static_cast<int>(vars_.size()) - 1));
    size_t b =
        (a + static_cast<size_t>(pick(1, static_cast<int>(vars_.size()) - 1))) % vars_.size();
    switch (pick(0, 2)) {
    case 0:
      return vars_[a] + " + " + vars_[b];
    case 1:
      return vars_[a] + " - " + vars_[b] + " + " + std::to_string(pick(0, 2));
    default:
      return "2 * " + vars_[a] + " + " + vars_[b];
    }
  }

  // A compound index that bounds variable v given variables 0..v-1: a
  // nonzero multiple of v (negative ones too) plus earlier variables and
  // an offset, e.g. `2 * k - i + 1` or `-j + 3`.
  std::string binding(int v) {
    const int coefficients[] = {1, -1, 2, -2, 3};
    int c = coefficients[pick(0, 4)];
    std::string out = (c < 0 ? "-" : "") +
                      (std::abs(c) == 1 ? "" : std::to_string(std::abs(c)) + " * ") +
                      vars_[static_cast<size_t>(v)];
    for (int u = 0; u < v; ++u)
      if (chance(40))
        out += (chance(50) ? " + " : " - ") + vars_[static_cast<size_t>(u)];
    if (int offset = pick(-2, 3); offset != 0)
      out += (offset < 0 ? " - " : " + ") + std::to_string(std::abs(offset));
    return out;
  }

  // An affine (or exactly divided) index over the variables.
  std::string index_expr() {
    switch (pick(0, 6)) {
    case 0:
      return var();
    case 1:
      return var() + " + " + std::to_string(pick(1, 2));
    case 2:
      return var() + " - " + std::to_string(pick(1, 2));
    case 3:
      return std::to_string(pick(2, 3)) + " * " + var();
    case 4:
      return var() + " + " + var();
    case 5:
      // Exact division: points where it is fractional are not valid.
      return "(" + var() + " - " + std::to_string(pick(0, 1)) + ") / " + std::to_string(pick(2, 3));
    default:
      return std::to_string(pick(0, 2));
    }
  }

  // An output dimension: an input dimension, adjusted, or a constant.
  static std::string dim_expr(const std::vector<Tensor>& ins) {
    const Tensor& t = one_of(ins);
    const std::string& d = one_of(t.dims);
    switch (pick(0, 4)) {
    case 0:
      return d;
    case 1:
      return d + " + 1";
    case 2:
      return "(" + d + " + 1) / 2";
    case 3:
      return "2 * " + d;
    default:
      return std::to_string(pick(1, 4));
    }
  }

  Program& p_;
  std::vector<std::string> vars_;
  std::vector<std::string> constraints_;
  // The epilogue's: whether the contraction's result is a scalar, which
  // then broadcasts against input broadcast_input_ (of dtype input_dtype_).
  bool scalar_result_ = false;
  std::string broadcast_input_;
  DType input_dtype_ = DType::Float32;
};

} // namespace

rc::Gen<Program> tile_program() {
  return rc::gen::exec([] {
    Program p;
    p.lang = "tile";
    p.entry = "f";
    p.text = TileBuilder(p).function();
    return p;
  });
}

} // namespace teval::verify
