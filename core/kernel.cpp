// The Kernel IR: operator table and checked constructors.
#include "core/kernel.h"

#include "core/error.h"
#include "core/tensor.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <utility>

#include <unistd.h>

namespace teval::core {

namespace {

struct OpRow {
  std::string_view spelling;
  int arity;
  OpRule rule;
};

constexpr OpRow kOps[] = {
#define TEVAL_OP(e, s, n, r) {s, n, OpRule::r},
#include "core/kernel_ops.def"
};

const OpRow& row(Op op) {
  return kOps[static_cast<int>(op)];
}

bool is_result_dtype_of_test(DType t) {
  return is_bool(t) || is_integer(t);
}

} // namespace

std::string_view spelling(Op op) {
  return row(op).spelling;
}
int arity(Op op) {
  return row(op).arity;
}
OpRule rule(Op op) {
  return row(op).rule;
}

const std::vector<Op>& named_functions() {
  static const std::vector<Op> functions = {
      Op::Exp,  Op::Log,     Op::Sqrt,    Op::Rsqrt, Op::Pow,  Op::Sin,   Op::Cos,
      Op::Tan,  Op::Asin,    Op::Acos,    Op::Atan,  Op::Sinh, Op::Cosh,  Op::Tanh,
      Op::Erf,  Op::NormCdf, Op::Sigmoid, Op::Abs,   Op::Max,  Op::Min,   Op::Floor,
      Op::Ceil, Op::RFloor,  Op::RCeil,   Op::Frac,  Op::Erfc, Op::Expm1, Op::Log1p,
      Op::Cbrt, Op::Asinh,   Op::Acosh,   Op::Atanh, Op::Atan2};
  return functions;
}

std::optional<Op> function_named(std::string_view name) {
  for (Op op : named_functions())
    if (spelling(op) == name)
      return op;
  return std::nullopt;
}

std::string function_name_list() {
  std::string out;
  for (Op op : named_functions())
    out += (out.empty() ? "" : ", ") + std::string(spelling(op));
  return out;
}

Expr make_const(Scalar value, Span span) {
  return std::make_shared<const ExprNode>(ExprNode{value.dtype, span, Const{value}});
}

Expr make_var(int var, DType dtype, Span span) {
  TEVAL_ASSERT(var >= 0, "negative variable number");
  return std::make_shared<const ExprNode>(ExprNode{dtype, span, VarRef{var}});
}

Expr make_load(int tensor, DType dtype, std::vector<Expr> index, Span span) {
  TEVAL_ASSERT(tensor >= 0, "negative tensor id");
  for (const Expr& e : index)
    TEVAL_ASSERT(is_integer(e->dtype), "tensor index of a non-integer dtype");
  return std::make_shared<const ExprNode>(ExprNode{dtype, span, Load{tensor, std::move(index)}});
}

Expr make_apply(Op op, std::vector<Expr> args, Span span, std::optional<DType> result,
                Overflow overflow) {
  TEVAL_ASSERT(static_cast<int>(args.size()) == arity(op),
               "wrong number of operands for " + std::string(spelling(op)));
  DType first = args.front()->dtype;
  DType type = first;
  switch (rule(op)) {
  case OpRule::Arith:
  case OpRule::Integer:
  case OpRule::Float:
    TEVAL_ASSERT(!result, "result dtype given for a same-type operator");
    for (const Expr& a : args)
      TEVAL_ASSERT(a->dtype == first, "operands of " + std::string(spelling(op)) + " differ");
    TEVAL_ASSERT(!is_bool(first), "arithmetic on bool");
    TEVAL_ASSERT(rule(op) != OpRule::Integer || is_integer(first), "integer operator on floats");
    TEVAL_ASSERT(rule(op) != OpRule::Float || is_float(first), "float operator on integers");
    break;
  case OpRule::Compare:
    for (const Expr& a : args)
      TEVAL_ASSERT(a->dtype == first, "operands of a comparison differ");
    TEVAL_ASSERT(result && is_result_dtype_of_test(*result), "comparison result dtype");
    type = *result;
    break;
  case OpRule::Logical:
    TEVAL_ASSERT(result && is_result_dtype_of_test(*result), "logical result dtype");
    type = *result;
    break;
  case OpRule::FloatToInt:
    TEVAL_ASSERT(is_float(first), "floor/ceil of an integer");
    TEVAL_ASSERT(result && is_integer(*result), "floor/ceil result dtype");
    type = *result;
    break;
  }
  return std::make_shared<const ExprNode>(
      ExprNode{type, span, Apply{op, std::move(args), overflow}});
}

Expr make_cast(Expr value, DType dtype, Span span) {
  return std::make_shared<const ExprNode>(ExprNode{dtype, span, Cast{std::move(value)}});
}

Expr make_select(Expr cond, Expr then, Expr otherwise, Span span) {
  TEVAL_ASSERT(!is_float(cond->dtype), "select condition of a floating dtype");
  TEVAL_ASSERT(then->dtype == otherwise->dtype, "select branches differ in dtype");
  DType t = then->dtype;
  return std::make_shared<const ExprNode>(
      ExprNode{t, span, Select{std::move(cond), std::move(then), std::move(otherwise)}});
}

bool next_point(const std::vector<IndexVar>& vars, std::vector<int64_t>& point) {
  for (size_t i = point.size(); i-- > 0;) {
    if (++point[i] < vars[i].end)
      return true;
    point[i] = vars[i].begin;
  }
  return false;
}

bool injective(const Statement& s) {
  std::vector<bool> used(s.vars.size(), false);
  for (const Expr& e : s.out_index) {
    const auto* v = std::get_if<VarRef>(&e->node);
    if (!v || used[v->var])
      return false;
    used[v->var] = true;
  }
  for (bool u : used)
    if (!u)
      return false;
  return true;
}

namespace {

// The range of index expression \p e over \p s's box, or nothing when it is
// not of the affine forms accesses_in_range reads.
std::optional<std::pair<__int128, __int128>> index_range(const Statement& s, const Expr& e) {
  using Range = std::pair<__int128, __int128>;
  if (const auto* c = std::get_if<Const>(&e->node))
    return is_integer(e->dtype) ? std::optional<Range>(Range{c->value.i, c->value.i})
                                : std::nullopt;
  if (const auto* v = std::get_if<VarRef>(&e->node)) {
    const IndexVar& var = s.vars[static_cast<size_t>(v->var)];
    if (var.end <= var.begin)
      return std::nullopt;
    return Range{var.begin, var.end - 1};
  }
  const auto* a = std::get_if<Apply>(&e->node);
  if (!a || (a->op != Op::Add && a->op != Op::Sub && a->op != Op::Mul && a->op != Op::Neg))
    return std::nullopt;
  std::vector<Range> r;
  for (const Expr& x : a->args) {
    std::optional<Range> one = index_range(s, x);
    if (!one)
      return std::nullopt;
    r.push_back(*one);
  }
  Range out;
  if (a->op == Op::Neg)
    out = {-r[0].second, -r[0].first};
  else if (a->op == Op::Add)
    out = {r[0].first + r[1].first, r[0].second + r[1].second};
  else if (a->op == Op::Sub)
    out = {r[0].first - r[1].second, r[0].second - r[1].first};
  else {
    const __int128 p[] = {r[0].first * r[1].first, r[0].first * r[1].second,
                          r[0].second * r[1].first, r[0].second * r[1].second};
    out = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
  }
  // Within the dtype: no wrapping, so the range is the values' range.
  const __int128 bits = 8 * static_cast<__int128>(size_bytes(e->dtype));
  const __int128 limit = bits >= 64 ? __int128{INT64_MAX} : (__int128{1} << (bits - 1)) - 1;
  if (out.first < -limit - 1 || out.second > limit)
    return std::nullopt;
  return out;
}

bool index_in_range(const Statement& s, const std::vector<Expr>& index, const Shape& shape) {
  for (size_t d = 0; d < index.size(); ++d) {
    std::optional<std::pair<__int128, __int128>> r = index_range(s, index[d]);
    if (!r || r->first < 0 || r->second >= shape[d])
      return false;
  }
  return true;
}

} // namespace

bool accesses_in_range(const Kernel& k, const Statement& s) {
  bool in = index_in_range(s, s.out_index, k.tensors[static_cast<size_t>(s.target)].shape);
  for_each_node(s.value, [&](const Expr& x) {
    if (const auto* l = std::get_if<Load>(&x->node))
      in = in && index_in_range(s, l->index, k.tensors[static_cast<size_t>(l->tensor)].shape);
  });
  return in;
}

void for_each_node(const Expr& e, const std::function<void(const Expr&)>& f) {
  f(e);
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Load>) {
          for (const Expr& i : n.index)
            for_each_node(i, f);
        } else if constexpr (std::is_same_v<T, Apply>) {
          for (const Expr& a : n.args)
            for_each_node(a, f);
        } else if constexpr (std::is_same_v<T, Cast>) {
          for_each_node(n.value, f);
        } else if constexpr (std::is_same_v<T, Select>) {
          for_each_node(n.cond, f);
          for_each_node(n.then, f);
          for_each_node(n.otherwise, f);
        }
      },
      e->node);
}

int Kernel::find(std::string_view name) const {
  for (size_t i = tensors.size(); i-- > 0;)
    if (tensors[i].name == name)
      return static_cast<int>(i);
  return -1;
}

namespace {

// The default budget, but at most half the machine's memory: past that, a
// program would meet the kernel's out-of-memory killer (Linux overcommits,
// so allocation itself rarely fails) rather than a diagnostic.
int64_t default_budget() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0)
    return kDefaultMemoryBudget;
  return std::min(kDefaultMemoryBudget, int64_t(pages) / 2 * int64_t(page));
}

std::atomic<int64_t> budget{default_budget()};

} // namespace

int64_t memory_budget() {
  return budget.load(std::memory_order_relaxed);
}

void set_memory_budget(int64_t bytes) {
  TEVAL_ASSERT(bytes > 0, "a memory budget must be positive");
  budget.store(bytes, std::memory_order_relaxed);
}

void check_memory(const Kernel& k) {
  const int64_t limit = memory_budget();
  int64_t total = 0;
  for (const TensorDecl& t : k.tensors) {
    // Each tensor is within kMaxTensorBytes (check_tensor_size), so the sum
    // of fewer than 2^29 of them cannot overflow.
    int64_t bytes = checked_numel(t.shape).value_or(0) * size_bytes(t.dtype);
    total += bytes;
    if (total > limit)
      throw Error(ErrorKind::Limit, t.span,
                  "the program's tensors take " + std::to_string(total) + " bytes in all with `" +
                      t.name + "` (" + std::to_string(bytes) +
                      " bytes), beyond the memory budget of " + std::to_string(limit) +
                      " bytes; --max-memory raises it");
  }
}

void check_statement_count(const Kernel& k, Span span) {
  if (k.statements.size() >= kMaxStatements)
    throw Error(ErrorKind::Limit, span,
                "the program has more than " + std::to_string(kMaxStatements) +
                    " statements; teval's limit is " + std::to_string(kMaxStatements));
}

void check_index_points(const std::vector<IndexVar>& vars, Span span) {
  if (vars.size() > kMaxIndexVars)
    throw Error(ErrorKind::Limit, span,
                "the statement has " + std::to_string(vars.size()) +
                    " index variables; teval's limit is " + std::to_string(kMaxIndexVars));
  int64_t points = 1;
  for (const IndexVar& v : vars) {
    int64_t extent = v.end > v.begin ? v.end - v.begin : 0;
    if (__builtin_mul_overflow(points, extent, &points) || points > kMaxIndexPoints)
      throw Error(ErrorKind::Limit, span,
                  "the statement walks more than 2^40 index points; teval does not attempt it");
  }
}

void check_tensor_size(DType dtype, const Shape& shape, Span span, std::string_view what) {
  if (shape.size() > kMaxRank)
    throw Error(ErrorKind::Limit, span,
                std::string(what) + " has rank " + std::to_string(shape.size()) +
                    "; teval's limit is " + std::to_string(kMaxRank));
  if (std::string why = size_limit_violation(what, dtype, shape); !why.empty())
    throw Error(ErrorKind::Limit, span, why);
}

void check_kernel_dtype(DType dtype, Span span, std::string_view what) {
  if (!kernel_dtype(dtype))
    throw Error(ErrorKind::Type, span,
                std::string(what) + " is given " + to_string(dtype) + " values" +
                    not_kernel_note(dtype));
}

Scalar aggregation_init(Aggregation a, DType t) {
  switch (a) {
  case Aggregation::Assign:
  case Aggregation::Sum:
  case Aggregation::Any:
    return constant(t, 0);
  case Aggregation::Product:
  case Aggregation::All:
    return constant(t, 1);
  case Aggregation::Max:
    return lowest(t);
  case Aggregation::Min:
    return highest(t);
  }
  TEVAL_UNREACHABLE("unknown aggregation");
}

std::string_view spelling(TensorRole r) {
  switch (r) {
  case TensorRole::Input:
    return "input";
  case TensorRole::Intermediate:
    return "intermediate";
  case TensorRole::Output:
    return "output";
  }
  TEVAL_UNREACHABLE("unknown tensor role");
}

std::string_view spelling(Aggregation a) {
  switch (a) {
  case Aggregation::Assign:
    return "assign";
  case Aggregation::Sum:
    return "sum";
  case Aggregation::Product:
    return "product";
  case Aggregation::Max:
    return "max";
  case Aggregation::Min:
    return "min";
  case Aggregation::All:
    return "all";
  case Aggregation::Any:
    return "any";
  }
  TEVAL_UNREACHABLE("unknown aggregation");
}

} // namespace teval::core
