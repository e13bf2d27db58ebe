// LLVM IR generation for expressions: the arithmetic of the ground truth,
// operator by operator, with every fault tested before the instruction
// that would have it (see codegen.cpp).
#include "jit/codegen_impl.h"

namespace teval::jit::detail {

// --- expressions ---------------------------------------------------------

llvm::Value* Codegen::expr(const Expr& e) {
  return std::visit([&](const auto& n) { return expr_node(e, n); }, e->node);
}

llvm::Value* Codegen::expr_node(const Expr& e, const core::Const& c) {
  if (core::is_float(e->dtype))
    return llvm::ConstantFP::get(reg(e->dtype), c.value.f);
  return llvm::ConstantInt::get(reg(e->dtype), static_cast<uint64_t>(c.value.i),
                                !unsigned_bits(e->dtype));
}

llvm::Value* Codegen::expr_node(const Expr& e, const core::VarRef& v) {
  TEVAL_ASSERT(vars_[v.var], "variable `" + n_.vars[v.var].name + "` used unbound");
  TEVAL_ASSERT(n_.vars[v.var].dtype == e->dtype, "variable read with another dtype");
  return vars_[v.var];
}

llvm::Value* Codegen::expr_node(const Expr& e, const core::Load& l) {
  const core::Buffer& buf = n_.buffers[l.tensor];
  std::vector<llvm::Value*> index = indices(l.index);
  if (!index.empty() && !proven_.loads.count(e.get()) && !planted(3)) { // fault 3: unchecked
    llvm::Value* bad = b_.getFalse();
    for (size_t d = 0; d < index.size(); ++d)
      bad = b_.CreateOr(bad, outside(index[d], buf.shape[d]));
    Site site{SiteKind::Read, e, nullptr, std::vector<DType>(index.size(), DType::Int64), {}};
    check(bad, std::move(site), index);
  }
  llvm::Value* v = b_.CreateLoad(mem(buf.dtype), address(l.tensor, index));
  return from_memory(v, buf.dtype);
}

llvm::Value* Codegen::expr_node(const Expr& e, const core::Cast& c) {
  llvm::Value* v = expr(c.value);
  return convert(e, v, c.value->dtype, e->dtype);
}

llvm::Value* Codegen::expr_node(const Expr& e, const core::Select& s) {
  llvm::Value* cond = truthy(expr(s.cond), s.cond->dtype);
  if (planted(9)) // fault: both branches evaluated, guards no longer protect
    return b_.CreateSelect(cond, expr(s.then), expr(s.otherwise));
  return branches(
      cond, [&] { return expr(s.then); }, [&] { return expr(s.otherwise); }, reg(e->dtype));
}

llvm::Value* Codegen::expr_node(const Expr& e, const core::Apply& a) {
  DType t = e->dtype;
  switch (a.op) {
  case Op::And:
  case Op::Or: {
    llvm::Value* first = truthy(expr(a.args[0]), a.args[0]->dtype);
    auto second = [&] { return truthy(expr(a.args[1]), a.args[1]->dtype); };
    auto constant = [&] { return a.op == Op::And ? b_.getFalse() : b_.getTrue(); };
    llvm::Value* bit = a.op == Op::And ? branches(first, second, constant, b_.getInt1Ty())
                                       : branches(first, constant, second, b_.getInt1Ty());
    return test_result(bit, t);
  }
  case Op::Not:
    return test_result(b_.CreateNot(truthy(expr(a.args[0]), a.args[0]->dtype)), t);
  default:
    break;
  }
  std::vector<llvm::Value*> args;
  for (const Expr& x : a.args)
    args.push_back(expr(x));
  DType operand = a.args[0]->dtype;
  switch (core::rule(a.op)) {
  case core::OpRule::Compare:
    return test_result(compare(a.op, args[0], args[1], operand), t);
  case core::OpRule::FloatToInt: {
    llvm::Value* d = to_double(args[0]);
    d = intrinsic(a.op == Op::Floor ? llvm::Intrinsic::floor : llvm::Intrinsic::ceil, {d});
    return float_to_int(e, d, args, t);
  }
  case core::OpRule::Logical:
    TEVAL_UNREACHABLE("logical operators are handled above");
  case core::OpRule::Arith:
  case core::OpRule::Integer:
  case core::OpRule::Float:
    break;
  }
  if (core::is_float(t))
    return float_op(a.op, t, args, e.get() == accumulation_);
  return int_op(e, a, t, args);
}

llvm::Value* Codegen::compare(Op op, llvm::Value* x, llvm::Value* y, DType t) {
  if (core::is_float(t)) {
    switch (op) {
    case Op::Lt:
      return b_.CreateFCmpOLT(x, y);
    case Op::Le:
      return b_.CreateFCmpOLE(x, y);
    case Op::Gt:
      return b_.CreateFCmpOGT(x, y);
    case Op::Ge:
      return b_.CreateFCmpOGE(x, y);
    case Op::Eq:
      return b_.CreateFCmpOEQ(x, y);
    case Op::Ne:
      if (planted(16)) // fault: ordered, so NaN != x is false
        return b_.CreateFCmpONE(x, y);
      return b_.CreateFCmpUNE(x, y);
    case Op::Same: {
      llvm::Value* both_nan = b_.CreateAnd(b_.CreateFCmpUNO(x, x), b_.CreateFCmpUNO(y, y));
      llvm::Type* bits = b_.getIntNTy(x->getType()->getPrimitiveSizeInBits());
      return b_.CreateOr(both_nan,
                         b_.CreateICmpEQ(b_.CreateBitCast(x, bits), b_.CreateBitCast(y, bits)));
    }
    default:
      break;
    }
    TEVAL_UNREACHABLE("not a comparison");
  }
  bool u = unsigned_bits(t) || planted(8); // fault 8: signed compared as unsigned
  switch (op) {
  case Op::Lt:
    return u ? b_.CreateICmpULT(x, y) : b_.CreateICmpSLT(x, y);
  case Op::Le:
    return u ? b_.CreateICmpULE(x, y) : b_.CreateICmpSLE(x, y);
  case Op::Gt:
    return u ? b_.CreateICmpUGT(x, y) : b_.CreateICmpSGT(x, y);
  case Op::Ge:
    return u ? b_.CreateICmpUGE(x, y) : b_.CreateICmpSGE(x, y);
  case Op::Eq:
  case Op::Same:
    return b_.CreateICmpEQ(x, y);
  case Op::Ne:
    return b_.CreateICmpNE(x, y);
  default:
    break;
  }
  TEVAL_UNREACHABLE("not a comparison");
}

llvm::Value* Codegen::float_extreme(bool max, llvm::Value* x, llvm::Value* y) {
  // llvm.maximum/minimum are IEEE 754-2019 maximum/minimum: NaN when
  // either operand is NaN, -0 below +0, as core's float_max/float_min. (An
  // open-coded compare-and-select form was miscompiled by LLVM 19's
  // InstCombine: max(abs(x), 0) became x >= 0 ? abs(x) : 0.)
  if (planted(7)) // fault: NaN does not propagate (maxnum/minnum)
    return intrinsic(max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, {x, y});
  return intrinsic(max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, {x, y});
}

llvm::Value* Codegen::float_op(Op op, DType t, const std::vector<llvm::Value*>& args,
                               bool accumulates) {
  llvm::Value* x = args[0];
  switch (op) {
  case Op::Neg:
    return b_.CreateFNeg(x);
  case Op::Abs:
    return intrinsic(llvm::Intrinsic::fabs, {x});
  case Op::Max:
  case Op::Min:
    // float16 and bfloat16 go through the runtime's rounding, a no-op on
    // the exact result that stops InstCombine from narrowing the float
    // operation to a half one: LLVM 19's x86 llvm.minimum.v2f16 gave -0
    // for minimum(NaN, -0).
    if (t == DType::Float16 || t == DType::BFloat16)
      return round_to(to_double(float_extreme(op == Op::Max, x, args[1])), t);
    return float_extreme(op == Op::Max, x, args[1]);
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Div: {
    // In the sequential order float32 operations are computed in double
    // and rounded, which gives the float operation's bits. With a freedom
    // to take, float32 and float64 operations are emitted in their own
    // type, flagged: a fused multiply-add contracts an fmul and the fadd it
    // feeds only when both allow it, and the vectorizer reorders a sum only
    // when its accumulation allows reassociation.
    llvm::FastMathFlags freedom;
    freedom.setAllowContract(freedom_.fma && op != Op::Div);
    freedom.setAllowReassoc(freedom_.any_order && accumulates);
    bool native = (t == DType::Float32 || t == DType::Float64) && freedom.any();
    llvm::IRBuilderBase::FastMathFlagGuard keep(b_);
    b_.setFastMathFlags(freedom);
    llvm::Value* a = native ? x : to_double(x);
    llvm::Value* b = native ? args[1] : to_double(args[1]);
    llvm::Value* r = op == Op::Add   ? b_.CreateFAdd(a, b)
                     : op == Op::Sub ? (planted(4) ? b_.CreateFSub(b, a) : b_.CreateFSub(a, b))
                     : op == Op::Mul ? b_.CreateFMul(a, b)
                                     : b_.CreateFDiv(a, b);
    return native ? r : round_to(r, t);
  }
  case Op::Mod: {
    llvm::Value* a = to_double(x);
    llvm::Value* b = to_double(args[1]);
    llvm::Value* r = call_libm("teval_fmod", {a, b});
    if (planted(23)) // fault: the remainder takes the dividend's sign
      return round_to(r, t);
    llvm::Value* zero = llvm::ConstantFP::get(b_.getDoubleTy(), 0.0);
    llvm::Value* adjust =
        b_.CreateAnd(b_.CreateFCmpUNE(r, zero),
                     b_.CreateXor(b_.CreateFCmpOLT(r, zero), b_.CreateFCmpOLT(b, zero)));
    return round_to(b_.CreateSelect(adjust, b_.CreateFAdd(r, b), r), t);
  }
  default:
    break;
  }
  // teval's math function (core/tmath.h) in the precision the interpreter
  // uses: double for float64, float for the others, then rounded to the
  // dtype.
  bool wide = t == DType::Float64;
  llvm::Type* ty = wide ? b_.getDoubleTy() : b_.getFloatTy();
  auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  // A division in the function's precision, computed in double and rounded
  // (the same bits as a float division: double's 53 bits hold any float
  // quotient's rounding), so that no target divides floats its own way.
  auto divide = [&](llvm::Value* a, llvm::Value* b) {
    llvm::Value* q = b_.CreateFDiv(to_double(a), to_double(b));
    return wide ? q : b_.CreateFPTrunc(q, ty);
  };
  auto fn = [&](const char* name, std::vector<llvm::Value*> a) {
    return call_libm(std::string("teval_") + name + (wide ? "" : "f"), std::move(a));
  };
  llvm::Value* r = nullptr;
  switch (op) {
  case Op::Exp:
    r = fn("exp", {x});
    break;
  case Op::Log:
    r = fn("log", {x});
    break;
  case Op::Sqrt:
    r = intrinsic(llvm::Intrinsic::sqrt, {x});
    break;
  case Op::Rsqrt:
    if (planted(19)) // fault: sqrt(1 / x), rounded differently
      r = intrinsic(llvm::Intrinsic::sqrt, {divide(c(1), x)});
    else
      r = divide(c(1), intrinsic(llvm::Intrinsic::sqrt, {x}));
    break;
  case Op::Sin:
    r = fn("sin", {x});
    break;
  case Op::Cos:
    r = fn("cos", {x});
    break;
  case Op::Tan:
    r = fn("tan", {x});
    break;
  case Op::Asin:
    r = fn("asin", {x});
    break;
  case Op::Acos:
    r = fn("acos", {x});
    break;
  case Op::Atan:
    r = fn("atan", {x});
    break;
  case Op::Sinh:
    r = fn("sinh", {x});
    break;
  case Op::Cosh:
    r = fn("cosh", {x});
    break;
  case Op::Tanh:
    r = fn("tanh", {x});
    break;
  case Op::Erf:
    r = fn("erf", {x});
    break;
  case Op::Erfc:
    r = fn("erfc", {x});
    break;
  case Op::Expm1:
    r = fn("expm1", {x});
    break;
  case Op::Log1p:
    r = fn("log1p", {x});
    break;
  case Op::Cbrt:
    r = fn("cbrt", {x});
    break;
  case Op::Asinh:
    r = fn("asinh", {x});
    break;
  case Op::Acosh:
    r = fn("acosh", {x});
    break;
  case Op::Atanh:
    r = fn("atanh", {x});
    break;
  case Op::NormCdf:
    r = b_.CreateFMul(
        c(wide ? 0.5 : 0.5f),
        fn("erfc", {b_.CreateFMul(b_.CreateFNeg(x),
                                  c(wide ? 0.70710678118654752440
                                         : static_cast<double>(0.70710678118654752440f)))}));
    break;
  case Op::Sigmoid:
    if (planted(20)) { // fault: exp(x) / (1 + exp(x)), NaN where exp(x) overflows
      llvm::Value* ex = fn("exp", {x});
      r = divide(ex, b_.CreateFAdd(c(1), ex));
    } else {
      r = divide(c(1), b_.CreateFAdd(c(1), fn("exp", {b_.CreateFNeg(x)})));
    }
    break;
  case Op::Frac: // fault 18: x - trunc(x)
    r = b_.CreateFSub(
        x, intrinsic(planted(18) ? llvm::Intrinsic::trunc : llvm::Intrinsic::floor, {x}));
    break;
  case Op::RFloor:
    r = intrinsic(llvm::Intrinsic::floor, {x});
    break;
  case Op::RCeil:
    r = intrinsic(llvm::Intrinsic::ceil, {x});
    break;
  case Op::Pow:
    r = fn("pow", {x, args[1]});
    break;
  case Op::Atan2:
    r = fn("atan2", {x, args[1]});
    break;
  default:
    TEVAL_UNREACHABLE("not a float operator: " + std::string(core::spelling(op)));
  }
  if (t == DType::Float16 || t == DType::BFloat16)
    return round_to(to_double(r), t);
  return r;
}

llvm::Value* Codegen::constant(DType t, int64_t v) {
  return llvm::ConstantInt::get(reg(t), static_cast<uint64_t>(v), true);
}

void Codegen::fault_site(const Expr& e, const std::vector<llvm::Value*>& args, llvm::Value* bad,
                         SiteKind kind) {
  Site site{kind, e, nullptr, {}, {}};
  if (kind == SiteKind::Cast) {
    const auto& c = std::get<core::Cast>(e->node);
    site.dtypes.push_back(c.value->dtype);
  } else {
    for (const Expr& a : std::get<core::Apply>(e->node).args)
      site.dtypes.push_back(a->dtype);
  }
  check(bad, std::move(site), args);
}

llvm::Value* Codegen::checked(const Expr& e, Op op, DType t, llvm::Value* x, llvm::Value* y,
                              const std::vector<llvm::Value*>& args) {
  bool u = unsigned_bits(t);
  if (proven_.arithmetic.count(e.get())) {
    // Proved never to overflow (core::proven_accesses): the plain
    // operation, flagged as not wrapping, which lets the optimiser see
    // index arithmetic on a parallel loop's variable (whose chunk bounds it
    // does not know) as affine, and vectorize the loops around it.
    // Computed in 64 bits (exactly: the result fits the dtype) and
    // narrowed: an index widened again takes the 64-bit value itself, so it
    // stays one 64-bit expression for the optimiser, not a widened narrow
    // one the vectorizer must check for wrapping at run time.
    llvm::Value* xw = to_i64(x, t);
    llvm::Value* yw = to_i64(y, t);
    llvm::Value* r = op == Op::Add   ? b_.CreateAdd(xw, yw, "", u, !u)
                     : op == Op::Sub ? b_.CreateSub(xw, yw, "", u, !u)
                                     : b_.CreateMul(xw, yw, "", u, !u);
    return narrow(r, t);
  }
  llvm::Intrinsic::ID id =
      op == Op::Add
          ? (u ? llvm::Intrinsic::uadd_with_overflow : llvm::Intrinsic::sadd_with_overflow)
      : op == Op::Sub
          ? (u ? llvm::Intrinsic::usub_with_overflow : llvm::Intrinsic::ssub_with_overflow)
          : (u ? llvm::Intrinsic::umul_with_overflow : llvm::Intrinsic::smul_with_overflow);
  llvm::Value* pair = intrinsic(id, {x, y});
  fault_site(e, args, b_.CreateExtractValue(pair, 1));
  return b_.CreateExtractValue(pair, 0);
}

llvm::Value* Codegen::int_op(const Expr& e, const core::Apply& a, DType t,
                             const std::vector<llvm::Value*>& args) {
  bool trap = a.overflow == core::Overflow::Trap;
  bool u = unsigned_bits(t);
  llvm::Value* x = args[0];
  llvm::Value* zero = constant(t, 0);
  switch (a.op) {
  case Op::Neg:
    return trap ? checked(e, Op::Sub, t, zero, x, args) : b_.CreateSub(zero, x);
  case Op::Abs: {
    if (u)
      return x;
    llvm::Value* negated = trap ? checked(e, Op::Sub, t, zero, x, args) : b_.CreateSub(zero, x);
    // A trapping abs faults only for negative operands: the check above
    // fires for the minimum alone, which is negative.
    return b_.CreateSelect(b_.CreateICmpSLT(x, zero), negated, x);
  }
  default:
    break;
  }
  llvm::Value* y = args[1];
  switch (a.op) {
  case Op::Add:
    if (planted(39) && dsp_ && !trap) // fault: saturating, on the DSP
      return intrinsic(unsigned_bits(t) ? llvm::Intrinsic::uadd_sat : llvm::Intrinsic::sadd_sat,
                       {x, y});
    return trap ? checked(e, Op::Add, t, x, y, args) : b_.CreateAdd(x, y);
  case Op::Sub:
    if (planted(4)) // fault: swapped operands
      return b_.CreateSub(y, x);
    return trap ? checked(e, Op::Sub, t, x, y, args) : b_.CreateSub(x, y);
  case Op::Mul:
    return trap ? checked(e, Op::Mul, t, x, y, args) : b_.CreateMul(x, y);
  case Op::Max: // fault 22: unsigned compared as signed
    return intrinsic(u && !planted(22) ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, {x, y});
  case Op::Min:
    return intrinsic(u && !planted(22) ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, {x, y});
  case Op::Shl:
  case Op::Shr: {
    int width = core::bit_width(t);
    if (planted(21)) { // fault 21: amounts masked to the width as x86 does, not checked
      y = b_.CreateAnd(y, constant(t, width - 1));
    } else {
      llvm::Value* bad =
          u ? b_.CreateICmpUGE(y, constant(t, width))
            : b_.CreateOr(b_.CreateICmpSLT(y, zero), b_.CreateICmpSGE(y, constant(t, width)));
      fault_site(e, args, bad);
    }
    if (a.op == Op::Shl)
      return b_.CreateShl(x, y);
    return u || planted(10) ? b_.CreateLShr(x, y) : b_.CreateAShr(x, y); // fault 10
  }
  case Op::Div:
  case Op::Mod:
  case Op::ExactDiv:
    return division(e, a, t, args);
  default:
    break;
  }
  TEVAL_UNREACHABLE("not an integer operator: " + std::string(core::spelling(a.op)));
}

llvm::Value* Codegen::division(const Expr& e, const core::Apply& a, DType t,
                               const std::vector<llvm::Value*>& args) {
  llvm::Value* x = args[0];
  llvm::Value* y = args[1];
  if (a.op != Op::ExactDiv && proven_.natural_divisions.count(e.get()))
    // x >= 0, y >= 1 (core::proven_accesses): truncating and floored are
    // the unsigned quotient and remainder, which cannot fail.
    return a.op == Op::Div ? b_.CreateUDiv(x, y) : b_.CreateURem(x, y);
  llvm::Value* zero = constant(t, 0);
  llvm::Value* y_zero = b_.CreateICmpEQ(y, zero);
  if (unsigned_bits(t)) {
    fault_site(e, args, y_zero);
    llvm::Value* safe = b_.CreateSelect(y_zero, constant(t, 1), y);
    llvm::Value* q = b_.CreateUDiv(x, safe);
    if (a.op == Op::Mod)
      return b_.CreateURem(x, safe);
    if (a.op == Op::ExactDiv)
      fault_site(e, args, b_.CreateICmpNE(b_.CreateMul(q, safe), x));
    return q;
  }
  llvm::Value* minus_one = b_.CreateICmpEQ(y, constant(t, -1));
  llvm::Value* safe = b_.CreateSelect(b_.CreateOr(y_zero, minus_one), constant(t, 1), y);
  llvm::Value* bad = y_zero;
  if (a.overflow == core::Overflow::Trap && a.op != Op::Mod) {
    llvm::Value* min = constant(t, core::int_min(t));
    bad = b_.CreateOr(bad, b_.CreateAnd(minus_one, b_.CreateICmpEQ(x, min)));
  }
  if (a.op == Op::Mod) {
    if (!planted(17)) // fault 17: modulo by zero is not an error
      fault_site(e, args, bad);
    llvm::Value* m = b_.CreateSRem(x, safe); // 0 when y is -1, as it should be
    if (planted(6))                          // fault: the remainder takes the dividend's sign
      return m;
    llvm::Value* adjust =
        b_.CreateAnd(b_.CreateICmpNE(m, zero),
                     b_.CreateXor(b_.CreateICmpSLT(m, zero), b_.CreateICmpSLT(y, zero)));
    return b_.CreateSelect(adjust, b_.CreateAdd(m, y), m);
  }
  llvm::Value* q = b_.CreateSelect(minus_one, b_.CreateSub(zero, x), b_.CreateSDiv(x, safe));
  if (a.op == Op::ExactDiv)
    bad = b_.CreateOr(
        bad, b_.CreateAnd(b_.CreateNot(minus_one), b_.CreateICmpNE(b_.CreateMul(q, safe), x)));
  fault_site(e, args, bad);
  return q;
}

llvm::Value* Codegen::float_to_int(const Expr& e, llvm::Value* d,
                                   const std::vector<llvm::Value*>& args, DType t, SiteKind kind) {
  if (t == DType::Bool)
    return b_.CreateFCmpUNE(d, llvm::ConstantFP::get(b_.getDoubleTy(), 0.0));
  // Fault 5 rounds to nearest instead of truncating.
  llvm::Value* truncated =
      intrinsic(planted(5) ? llvm::Intrinsic::round : llvm::Intrinsic::trunc, {d});
  auto dbl = [&](double v) { return llvm::ConstantFP::get(b_.getDoubleTy(), v); };
  llvm::Value* bad;
  if (t == DType::Int64)
    bad = b_.CreateOr(b_.CreateFCmpULT(truncated, dbl(-0x1p63)),
                      b_.CreateFCmpUGE(truncated, dbl(0x1p63)));
  else
    bad = b_.CreateOr(b_.CreateFCmpULT(truncated, dbl(static_cast<double>(core::int_min(t)))),
                      b_.CreateFCmpUGT(truncated, dbl(static_cast<double>(core::int_max(t)))));
  fault_site(e, args, bad, kind);
  // In range now, so the conversion is exact and defined.
  llvm::Value* safe = b_.CreateSelect(bad, dbl(0), truncated);
  return b_.CreateTrunc(b_.CreateFPToSI(safe, b_.getInt64Ty()), reg(t));
}

llvm::Value* Codegen::int_to_float(llvm::Value* v, DType from, DType to) {
  if (from == DType::Int64) {
    switch (to) {
    case DType::Float64:
      return b_.CreateSIToFP(v, b_.getDoubleTy());
    case DType::Float32:
      return b_.CreateSIToFP(v, b_.getFloatTy());
    case DType::Float16:
      return call_runtime("teval_rt_i64_to_f16", b_.getFloatTy(), {v});
    default:
      return call_runtime("teval_rt_i64_to_bf16", b_.getFloatTy(), {v});
    }
  }
  // Narrower integers are exact in double; one rounding follows.
  llvm::Value* d = unsigned_bits(from) ? b_.CreateUIToFP(v, b_.getDoubleTy())
                                       : b_.CreateSIToFP(v, b_.getDoubleTy());
  return round_to(d, to);
}

llvm::Value* Codegen::convert(const Expr& e, llvm::Value* v, DType from, DType to) {
  if (from == to)
    return v;
  if (to == DType::Bool)
    return truthy(v, from);
  if (core::is_float(to)) {
    if (!core::is_float(from))
      return int_to_float(v, from, to);
    if (to == DType::Float32 && from != DType::Float64)
      return v; // float16 and bfloat16 registers already hold floats
    return round_to(to_double(v), to);
  }
  if (core::is_float(from))
    return float_to_int(e, to_double(v), {v}, to, SiteKind::Cast);
  unsigned want = reg(to)->getIntegerBitWidth();
  unsigned have = v->getType()->getIntegerBitWidth();
  if (want < have)
    return b_.CreateTrunc(v, reg(to));
  if (want == have)
    return v;
  return unsigned_bits(from) ? b_.CreateZExt(v, reg(to)) : b_.CreateSExt(v, reg(to));
}
} // namespace teval::jit::detail
