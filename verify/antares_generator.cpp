// The generator of random Antares programs (see generators.h).
//
// Every choice is a RapidCheck pick whose smallest value is the simplest
// program, so shrinking walks toward fewer statements, shallower
// expressions, smaller extents and float32.
#include "verify/generators.h"

#include "core/dtype.h"
#include "verify/choice.h"

#include <algorithm>
#include <map>
#include <optional>

namespace teval::verify {

namespace {

using core::DType;

struct Axis {
  std::string name;
  int64_t extent;
};

struct Value {
  std::string text;
  DType dtype;
};

struct Readable {
  std::string name;
  DType dtype;
  core::Shape shape;
};

// An index expression with the range of values it takes.
struct Index {
  std::string text;
  int64_t lo;
  int64_t hi;
};

class AntaresBuilder {
public:
  explicit AntaresBuilder(Program& p) : p_(p) {}

  void statement(int number, bool last) {
    axes_.clear();
    whole_.clear();
    // Real programs reduce to a scalar (a global max, a sum) and feed it
    // to later statements: an intermediate statement is often rank 0.
    int data = !last && chance(20) ? 0 : pick(0, 4);
    int reduce = pick(0, std::min(2, 4 - data));
    const char* data_names[] = {"N", "M", "P", "Q"};
    const char* reduce_names[] = {"K", "L"};
    for (int i = 0; i < data; ++i)
      axes_.push_back({data_names[i], pick(1, 4) - (chance(10) ? 1 : 0)});
    for (int i = 0; i < reduce; ++i)
      axes_.push_back({reduce_names[i], pick(1, 4) - (chance(10) ? 1 : 0)});

    // Often a contraction as real kernels have them (a product of reads,
    // maybe plus a bias); otherwise any expression.
    Value v;
    if (chance(40)) {
      Value x = access(), y = access();
      v = {"(" + x.text + " * " + y.text + ")", arithmetic(x, y)};
      if (chance(50)) {
        Value z = access();
        v = {"(" + v.text + " + " + z.text + ")", arithmetic(v, z)};
      }
    } else {
      v = expr(pick(1, 6));
    }
    std::string op = "=";
    if (reduce > 0 || chance(20)) {
      // Sums are the commonest reduction in real kernels; half are sums.
      const char* ops[] = {"+=!", ">=!", "<=!", "*=!", "&=!", "|=!"};
      op = chance(50) ? ops[pick(1, 5)] : ops[0];
    }
    // "Is it true everywhere / anywhere": a max or min of bools, whose
    // result is decided before every value is read (a compiler that stops
    // there also skips the reads' errors).
    if ((op == "<=!" || op == ">=!") && chance(30))
      v = {"(" + v.text + ").cast(`bool`)", DType::Bool};
    std::string name = "output" + std::to_string(number);
    std::string text = name + "[";
    core::Shape shape;
    for (int i = 0; i < data; ++i) {
      text += (i ? ", " : "") + axes_[static_cast<size_t>(i)].name;
      shape.push_back(axes_[static_cast<size_t>(i)].extent);
    }
    text += "] " + op + " " + v.text;
    // As in real programs, an axis indexing whole tensor dimensions of its
    // extent is often left to extent inference.
    std::string where;
    for (const Axis& a : axes_) {
      auto it = whole_.find(a.name);
      bool inferable = it != whole_.end() && std::all_of(it->second.begin(), it->second.end(),
                                                         [&](int64_t n) { return n == a.extent; });
      if (inferable && chance(50))
        continue;
      where += (where.empty() ? " where " : ", ") + a.name + " in " + std::to_string(a.extent);
    }
    text += where;
    p_.text += (p_.text.empty() ? "" : "; ") + text;
    DType out = v.dtype;
    if (out == DType::Bool && (op == "+=!" || op == "*=!"))
      out = DType::Int8;
    if (!last) {
      readable_.push_back({name, out, shape});
      // Most intermediate results are compared as extra outputs; the rest
      // stay temps, as in real programs (the maximum a softmax subtracts),
      // which compiled code keeps in buffers of its own.
      if (!chance(35))
        p_.extra_outputs.push_back(name);
    }
  }

private:
  Value expr(int depth) {
    // Kinds 0 to 6 are leaves; the rest have operands.
    int kinds = depth > 0 ? 26 : 7;
    switch (pick(0, kinds - 1)) {
    case 0:
    case 4:
    case 6:
      return access();
    case 1: {
      // Integer leaves: literals, with a dtype, and sizes (AXIS.val(),
      // t.val(d)). A literal is small, or (one time in five) near its
      // dtype's limits, so that sums and products wrap around: a backend
      // that saturates or traps there is wrong.
      int64_t k = pick(-3, 3);
      auto near_limit = [&](DType t) {
        int64_t lo = core::lowest(t).i, hi = core::highest(t).i;
        return chance(50) ? hi - pick(0, 8) : lo + pick(1, 8);
      };
      switch (pick(0, 4)) {
      case 1: {
        DType t = chance(50) ? DType::Int8 : DType::Int64;
        if (chance(20))
          k = near_limit(t);
        return {"const(" + std::to_string(k) + ", `" + dtype_name(t) + "`)", t};
      }
      case 2:
        if (const auto* in = some_input()) {
          if (in->second.dtype == DType::Bool || core::is_unsigned(in->second.dtype))
            break; // an unsigned dtype cannot hold k
          if (chance(20) && !core::is_float(in->second.dtype))
            k = near_limit(in->second.dtype);
          return {"const(" + std::to_string(k) + ", dtype=" + in->first + ".dtype())",
                  in->second.dtype};
        }
        break;
      case 3:
        if (!axes_.empty())
          return {one_of(axes_).name + ".val()", DType::Int32};
        break;
      case 4:
        if (const auto* in = some_input(); in && !in->second.shape.empty())
          return {in->first + ".val(" +
                      std::to_string(pick(0, static_cast<int>(in->second.shape.size()) - 1)) + ")",
                  DType::Int32};
        break;
      default:
        break;
      }
      if (chance(20))
        k = near_limit(DType::Int32);
      return {"const(" + std::to_string(k) + ")", DType::Int32};
    }
    case 2:
    case 5: {
      // Ordinary values, ties for rounding, and the special ones: NaN,
      // infinities, -0, subnormal, huge.
      const char* floats[] = {"const(0.5)",
                              "const(2.5)",
                              "const(-1.5)",
                              "const(0.7)",
                              "const(0.0)",
                              "const(-0.0)",
                              "const(1e-3)",
                              "(const(0.0) / const(0.0))",
                              "(const(1.0) / const(0.0))",
                              "(const(-1.0) / const(0.0))",
                              "const(1e-40)",
                              "const(3e38)"};
      int which = pick(0, 13);
      if (which < 12)
        return {floats[which], DType::Float32};
      // Data clamped in float64 to a value just past a float16 or bfloat16
      // tie (1 + 2^-11 + 2^-40, 1 + 2^-8 + 2^-40) and narrowed, which
      // rounding through float32 first gets wrong.
      Value x = number(access());
      const char* bound = which == 12 ? "1.0004882812509095" : "1.0039062500009095";
      const char* narrow = which == 12 ? "float16" : "bfloat16";
      return {x.text + ".cast(`float64`).call(`max`, [const(" + bound + ", `float64`)]).cast(`" +
                  narrow + "`)",
              which == 12 ? DType::Float16 : DType::BFloat16};
    }
    case 3:
      if (axes_.empty())
        return {"const(1)", DType::Int32};
      return {"(" + one_of(axes_).name + ")", DType::Int32};
    case 14: {
      Value x = expr(depth - 1);
      DType t = float32_or_any_dtype();
      return {x.text + ".cast(`" + dtype_name(t) + "`)", t};
    }
    case 13:
    case 25: { // + - * of each dtype
      Value x = expr(depth - 1), y = expr(depth - 1);
      one_dtype(x, y, kDTypes, 60);
      const char* ops[] = {"+", "-", "*"};
      return {"(" + x.text + " " + ops[pick(0, 2)] + " " + y.text + ")", arithmetic(x, y)};
    }
    case 15: {
      // A multiply-add, the heart of matmuls and convolutions.
      Value x = expr(depth - 1), y = expr(depth - 1), z = expr(depth - 1);
      Value xy{"(" + x.text + " * " + y.text + ")", arithmetic(x, y)};
      return {"(" + xy.text + (chance(50) ? " - " : " + ") + z.text + ")", arithmetic(xy, z)};
    }
    case 7: {
      Value x = expr(depth - 1);
      one_dtype(x, x, kDTypes, 50);
      x = number(x);
      if (chance(50))
        return {"(-" + x.text + ")", x.dtype};
      return {x.text + ".call(`abs`)", x.dtype};
    }
    case 8:
    case 19: // math functions are where libraries differ most, and 22 of
    case 20: // them on four dtypes are many: common
    case 22:
    case 23:
      return math(depth);
    case 9:
    case 18: // comparisons of each dtype are many: common
    case 24: {
      Value x = expr(depth - 1), y = expr(depth - 1);
      one_dtype(x, y, kDTypes, 95);
      const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
      return {"(" + x.text + " " + ops[pick(0, 5)] + " " + y.text + ")", DType::Int8};
    }
    case 10:
    case 21: { // logical operators of each dtype: common too
      Value x = logical_operand(depth - 1);
      if (chance(40))
        return {"(~" + x.text + ")", DType::Int8};
      Value y = logical_operand(depth - 1);
      return {"(" + x.text + (chance(50) ? " & " : " | ") + y.text + ")", DType::Int8};
    }
    case 11:
      return division(depth);
    case 12: {
      // Every spelling real programs use: a list or a single argument,
      // f_op, and an output dtype (`.call(`max`, [y], input0.dtype())`).
      Value x = expr(depth - 1), y = expr(depth - 1);
      one_dtype(x, y, kDTypes, 60);
      const char* fn = chance(50) ? "max" : "min";
      // Unsigned values past the signed range (wrapped below zero) are
      // where signed and unsigned comparison differ.
      // Quantized kernels clamp uint8 values: integers made uint8 (those
      // below zero wrap) are common too.
      bool unsigned_pair = chance(30);
      const DType u = chance(50) ? DType::UInt8 : chance(50) ? DType::UInt16 : DType::UInt32;
      for (Value* v : {&x, &y}) {
        if (unsigned_pair && core::is_integer(v->dtype) && !core::is_unsigned(v->dtype))
          *v = {v->text + ".cast(`" + dtype_name(u) + "`)", u};
        if (core::is_unsigned(v->dtype) && chance(50))
          *v = {"(" + v->text + " - const(5).cast(`" + dtype_name(v->dtype) + "`))", v->dtype};
      }
      DType t = arithmetic(x, y);
      std::string out_dtype;
      if (chance(25)) {
        t = float32_or_any_dtype();
        out_dtype = ", " + dtype_of(x, t);
      }
      switch (pick(0, 3)) {
      case 1:
        return {x.text + ".call(`" + fn + "`, " + y.text + out_dtype + ")", t};
      case 2:
        if (out_dtype.empty())
          return {"f_op(`" + std::string(fn) + "`, " + x.text + ", " + y.text + ")", t};
        return {x.text + ".call(`" + fn + "`, others=[" + y.text +
                    "], output_dtype=" + out_dtype.substr(2) + ")",
                t};
      default:
        return {x.text + ".call(`" + fn + "`, [" + y.text + "]" + out_dtype + ")", t};
      }
    }
    case 16:
      return shift(depth);
    default:
      return guarded(depth);
    }
  }

  // The dtype of x op y for + - * / %: promoted; bool arithmetic in int8.
  static DType arithmetic(const Value& x, const Value& y) {
    DType t = core::promote(x.dtype, y.dtype);
    return t == DType::Bool ? DType::Int8 : t;
  }

  static Value number(Value x) {
    if (x.dtype == DType::Bool)
      return {x.text + ".cast(`int8`)", DType::Int8};
    return x;
  }

  // In \p percent of calls \p x and \p y (which may be one value) cast to one
  // dtype of \p among: an operator meets each dtype it takes (comparisons of
  // bools and uint8, shifts of int16, exp of bfloat16) instead of only
  // those two reads happen to share.
  static void one_dtype(Value& x, Value& y, const std::vector<DType>& among, int percent) {
    if (!chance(percent))
      return;
    DType t = one_of(among);
    x = {x.text + ".cast(`" + dtype_name(t) + "`)", t};
    if (&x != &y)
      y = {y.text + ".cast(`" + dtype_name(t) + "`)", t};
  }

  // An operand of ~, & and |, which take any dtype (nonzero is true):
  // mostly a condition, sometimes a float or a bool as it is.
  Value logical_operand(int depth) {
    if (chance(60)) {
      if (chance(60)) { // of a given dtype
        Value x = expr(depth);
        one_dtype(x, x, kDTypes, 100);
        return x;
      }
      Value x = expr(depth);
      return chance(50) ? x : Value{x.text + ".cast(`bool`)", DType::Bool};
    }
    return condition(depth);
  }

  Value condition(int depth) {
    Value x = expr(depth);
    if (core::is_float(x.dtype))
      return {"(" + x.text + " != 0)", DType::Int8};
    return x;
  }

  Value math(int depth) {
    Value x = expr(depth - 1);
    if (!core::is_float(x.dtype)) {
      const DType floats[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16};
      DType t = floats[pick(0, 3)];
      // Integers scaled to fractions half the time: fractional parts,
      // roundings and signs differ there.
      std::string v = chance(50) ? "(" + x.text + ".cast(`float32`) * const(0.37))" : x.text;
      x = {v + ".cast(`" + dtype_name(t) + "`)", t};
    }
    one_dtype(x, x, kFloatDTypes, 85);
    const char* unary[] = {"exp",     "log",     "sqrt",   "rsqrt", "sin",       "cos",   "tan",
                           "asin",    "acos",    "atan",   "sinh",  "cosh",      "tanh",  "erf",
                           "normcdf", "sigmoid", "rfloor", "rceil", "remainder", "expm1", "log1p",
                           "cbrt",    "asinh",   "acosh",  "atanh", "erfc"};
    // Now and then one of those whose implementations differ in more than
    // rounding (floor against trunc, 1/sqrt against sqrt(1/x), the form
    // of sigmoid), else any: 26 is pow, 27 and 28 floor and ceil, 29 atan2.
    const int tricky[] = {3, 15, 16, 17, 18, 26, 27, 28};
    int which = chance(15) ? tricky[pick(0, 7)] : pick(0, 29);
    if (which < 26)
      return {x.text + ".call(`" + unary[which] + "`)", x.dtype};
    if (which == 26 || which == 29) {
      Value y = expr(depth - 1);
      if (!core::is_float(y.dtype))
        y = {y.text + ".cast(`float32`)", DType::Float32};
      // pow on each float dtype, not only on the wider one; atan2 mostly
      // of two values of one type, as programs write it
      if (chance(which == 26 ? 30 : 70))
        y = {y.text + ".cast(`" + dtype_name(x.dtype) + "`)", x.dtype};
      return {x.text + ".call(`" + (which == 26 ? "pow" : "atan2") + "`, [" + y.text + "])",
              core::promote(x.dtype, y.dtype)};
    }
    return {x.text + ".call(`" + (which == 27 ? "floor" : "ceil") + "`)", DType::Int32};
  }

  // `/` and `%`; integer divisors are mostly nonzero constants.
  Value division(int depth) {
    // Integer dividends are common: quantized kernels divide integers.
    const DType ints[] = {DType::Int32, DType::Int8,   DType::Int64, DType::Int16,
                          DType::UInt8, DType::UInt16, DType::UInt32};
    Value x = chance(30) ? access(ints[pick(0, 6)]) : expr(depth - 1);
    Value y;
    if (!core::is_float(x.dtype) && !chance(35)) {
      const char* divisors[] = {"2", "3", "-2", "1", "7"};
      y = {divisors[pick(0, 4)], DType::Int32};
      // An unsigned dividend keeps its dtype (an int32 literal would
      // promote it): the divisor is cast to it (-2 wrapping to a large one).
      if (core::is_unsigned(x.dtype))
        y = {"(" + y.text + ").cast(`" + dtype_name(x.dtype) + "`)", x.dtype};
    } else if (!core::is_float(x.dtype) && x.dtype != DType::Bool && chance(50)) {
      // A divisor read from a tensor of the dividend's dtype (values -10
      // to 10): zero at some points, an error every backend must report.
      y = access(x.dtype);
    } else {
      y = expr(depth - 1);
    }
    // Signed dividends below zero are where floor and truncating division
    // differ, unsigned ones wrapped past the signed range where a signed
    // division would differ: make them common.
    if (!core::is_float(x.dtype) && x.dtype != DType::Bool && chance(50))
      x = {"(" + x.text + " - " + "const(5).cast(`" + dtype_name(x.dtype) + "`))", x.dtype};
    // Both operands of one dtype now and then: division of each dtype,
    // not only of those the reads and the literals promote to.
    if (chance(50)) {
      DType t = chance(50) ? one_of(kIntegerDTypes) : one_of(kFloatDTypes);
      x = {"(" + x.text + ").cast(`" + dtype_name(t) + "`)", t};
      y = {"(" + y.text + ").cast(`" + dtype_name(t) + "`)", t};
    }
    const char* op = chance(50) ? " % " : (chance(50) ? " // " : " / ");
    return {"(" + x.text + op + y.text + ")", arithmetic(x, y)};
  }

  Value shift(int depth) {
    Value x = expr(depth - 1);
    if (core::is_float(x.dtype) || x.dtype == DType::Bool)
      x = {x.text + ".cast(`int32`)", DType::Int32};
    one_dtype(x, x, kIntegerDTypes, 50);
    // Quantized kernels shift signed products; make negative operands common.
    if (chance(50) && !core::is_unsigned(x.dtype))
      x = {"(" + x.text + " - " + "const(5).cast(`" + dtype_name(x.dtype) + "`))", x.dtype};
    // Mostly constant amounts; sometimes one from the data, -1 to 2, so
    // that a negative amount (an error) is drawn too.
    std::string amount = std::to_string(pick(0, 3));
    if (chance(20)) {
      Value a = expr(depth - 1);
      std::string t = dtype_name(x.dtype);
      amount = "(" + a.text + ".cast(`" + t + "`) % const(4).cast(`" + t + "`) - const(1).cast(`" +
               t + "`))";
    }
    return {"(" + x.text + (chance(50) ? " << " : " >> ") + amount + ")", x.dtype};
  }

  // x.when([cond], y): y only where cond is false.
  Value guarded(int depth) {
    Value x = expr(depth - 1);
    Value c = condition(depth - 1);
    Value y = expr(depth - 1);
    std::string merge = chance(20) ? ", merge_op=`any`" : "";
    return {x.text + ".when([" + c.text + "], " + y.text + ".cast(" + dtype_of(x, x.dtype) + ")" +
                merge + ")",
            x.dtype};
  }

  // A dtype argument naming \p t: a string, or `.dtype()` of \p x (when it
  // has dtype t) or of a tensor of dtype t, on its bare name as Antares'
  // op generators write it.
  std::string dtype_of(const Value& x, DType t) {
    switch (pick(0, 2)) {
    case 1:
      if (x.dtype == t)
        return "(" + x.text + ").dtype()";
      break;
    case 2:
      for (const auto& [name, type] : p_.inputs)
        if (type.dtype == t)
          return name + ".dtype()";
      break;
    default:
      break;
    }
    return "`" + dtype_name(t) + "`";
  }

  // An input made so far, or null.
  const std::pair<std::string, parser::InputType>* some_input() {
    if (p_.inputs.empty())
      return nullptr;
    return &one_of(p_.inputs);
  }

  // An index expression over the statement's axes.
  Index index_expr(bool gathers) {
    if (axes_.empty()) {
      int64_t c = pick(0, 2);
      return {std::to_string(c), c, c};
    }
    const Axis& a = one_of(axes_);
    int64_t hi = std::max<int64_t>(a.extent - 1, 0);
    switch (pick(0, gathers ? 8 : 7)) {
    case 0:
      return {a.name, 0, hi};
    case 1: {
      int64_t c = pick(0, 2);
      return {std::to_string(c), c, c};
    }
    case 2: {
      int64_t c = pick(-2, 2);
      return {a.name + (c < 0 ? " - " : " + ") + std::to_string(std::abs(c)), c, hi + c};
    }
    case 3: {
      int64_t c = pick(0, 3);
      return {a.name + " * " + std::to_string(c), 0, hi * c};
    }
    case 4: {
      int64_t c = pick(1, 3);
      return {a.name + " // " + std::to_string(c), 0, hi / c};
    }
    case 5: {
      int64_t c = pick(1, 3);
      return {a.name + " % " + std::to_string(c), 0, std::min(hi, c - 1)};
    }
    case 6: {
      int64_t c = pick(0, 4);
      return {std::to_string(c) + " - " + a.name, c - hi, c};
    }
    case 7: {
      const Axis& b = one_of(axes_);
      return {a.name + " + " + b.name, 0, hi + std::max<int64_t>(b.extent - 1, 0)};
    }
    default: {
      // A gather: its values are drawn inside the dimension they index.
      std::string g = new_input(DType::Int32, {a.extent});
      return {g + "[" + a.name + "]", -1, -1};
    }
    }
  }

  std::string new_input(DType t, core::Shape shape) {
    std::string name = "input" + std::to_string(inputs_++);
    p_.inputs.push_back({name, {t, shape, {}}});
    return name;
  }

  // A read of a new input or of an earlier output, maybe out of range,
  // maybe guarded with .when.
  Value access(std::optional<DType> dtype = std::nullopt) {
    bool earlier = !readable_.empty() && !dtype && chance(40);
    Readable r;
    std::vector<Index> index;
    if (earlier) {
      r = one_of(readable_);
      for (size_t d = 0; d < r.shape.size(); ++d)
        index.push_back(index_expr(false));
    } else {
      // Ranks 5 and 6 now and then (teval's kMaxRank is far above them).
      int rank = chance(4) ? pick(5, 6) : pick(0, 4);
      for (int d = 0; d < rank; ++d) {
        index.push_back(index_expr(true));
        const Index& i = index.back();
        // Gathers (lo < 0 marks them) get a dimension of their own values'
        // range, chosen by the random inputs; others cover their range,
        // sometimes one short.
        int64_t size = i.lo == -1 && i.hi == -1 ? pick(1, 4) : std::max<int64_t>(i.hi + 1, 1);
        if (size > 1 && chance(10))
          --size;
        r.shape.push_back(size);
      }
      r.dtype = dtype ? *dtype : float32_or_any_dtype();
      r.name = new_input(r.dtype, r.shape);
    }
    for (size_t d = 0; d < index.size(); ++d)
      for (const Axis& a : axes_)
        if (index[d].text == a.name || index[d].text == a.name + " + 0" ||
            index[d].text == a.name + " * 1")
          whole_[a.name].push_back(r.shape[d]);
    std::string text = r.name + "[";
    std::vector<std::string> risks;
    for (size_t d = 0; d < index.size(); ++d) {
      text += (d ? ", " : "") + index[d].text;
      bool gather = index[d].lo == -1 && index[d].hi == -1;
      if (gather)
        continue;
      if (index[d].lo < 0)
        risks.push_back(index[d].text + " >= 0");
      if (index[d].hi >= r.shape[d])
        risks.push_back(index[d].text + " < " + std::to_string(r.shape[d]));
    }
    text += "]";
    if (!risks.empty() && !chance(8)) {
      std::string cond;
      for (size_t i = 0; i < risks.size(); ++i)
        cond += (i ? ", " : "") + risks[i];
      text += ".when([" + cond + "], const(0).cast(`" + dtype_name(r.dtype) + "`))";
    }
    // Random integer inputs are small, so sums of them never leave their
    // dtype's range: one fresh integer read in six is scaled to about an
    // eighth of the range, and sums and products of such reads wrap (a
    // backend that saturates or traps there is wrong).
    if (!earlier && core::is_integer(r.dtype) && r.dtype != DType::Bool && chance(17))
      text = "(" + text + " * const(" + std::to_string(core::int_max(r.dtype) / 8) +
             ", dtype=" + r.name + ".dtype()))";
    return {text, r.dtype};
  }

  Program& p_;
  std::vector<Axis> axes_;
  // The sizes of the dimensions each axis of the statement indexes whole
  // (`N`, `N + 0`, `N * 1`), which extent inference reads.
  std::map<std::string, std::vector<int64_t>> whole_;
  std::vector<Readable> readable_;
  int inputs_ = 0;
};

} // namespace

rc::Gen<Program> antares_program() {
  return rc::gen::exec([] {
    Program p;
    p.lang = "antares";
    AntaresBuilder b(p);
    int statements = pick(1, 4);
    for (int s = 0; s < statements; ++s)
      b.statement(s, s + 1 == statements);
    return p;
  });
}

} // namespace teval::verify
