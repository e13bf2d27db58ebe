// LLVM IR generation for a loop nest (see codegen.h).
//
// Values live in registers by dtype: bool as i1, integers at their width,
// float32/float16/bfloat16 as float (float16 and bfloat16 values are exact
// floats), float64 as double. In memory bool is a byte and float16/bfloat16
// are their 16-bit encodings. Every operation computes what core::apply()
// computes: float arithmetic in double rounded once to the result dtype
// (float16/bfloat16 through the runtime's rounding), math functions through
// the same libm functions the interpreter calls, integer division and
// shifts with their faults checked before the instruction so that no
// instruction ever has undefined behaviour.
#include "jit/codegen.h"

#include "core/fault.h"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <limits>

namespace teval::jit {

using core::DType;
using core::Expr;
using core::Op;

namespace {

bool is_unsigned(DType t) {
  return t == DType::Bool || t == DType::UInt8;
}

class Codegen {
public:
  Codegen(const core::LoopNest& n, llvm::LLVMContext& c, llvm::Module& m)
      : n_(n), c_(c), m_(m), b_(c), vars_(n.vars.size(), nullptr) {}

  std::vector<Site> run(const std::string& entry_name, const std::string& cpu,
                        const std::string& features) {
    llvm::Type* ptr = llvm::PointerType::get(c_, 0);
    // The body takes every buffer as its own noalias pointer, so the
    // optimiser knows stores to outputs never change inputs.
    std::vector<llvm::Type*> params(n_.buffers.size(), ptr);
    params.push_back(ptr);
    auto* body_type = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
    f_ = llvm::Function::Create(body_type, llvm::Function::InternalLinkage, "teval_body", m_);
    f_->addFnAttr(llvm::Attribute::AlwaysInline);
    for (size_t i = 0; i < n_.buffers.size(); ++i)
      f_->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    set_target(f_, cpu, features);

    entry_ = llvm::BasicBlock::Create(c_, "entry", f_);
    llvm::BasicBlock* start = llvm::BasicBlock::Create(c_, "start", f_);
    error_exit_ = llvm::BasicBlock::Create(c_, "error", f_);
    b_.SetInsertPoint(error_exit_);
    b_.CreateRet(b_.getInt32(1));
    for (size_t i = 0; i < n_.buffers.size(); ++i)
      buffers_.push_back(f_->getArg(static_cast<unsigned>(i)));
    ctx_ = f_->getArg(static_cast<unsigned>(n_.buffers.size()));
    b_.SetInsertPoint(start);
    stmt(n_.root);
    b_.CreateRet(b_.getInt32(0));
    b_.SetInsertPoint(entry_);
    b_.CreateBr(start);

    // The entry point unpacks the buffer array.
    auto* entry_type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr}, false);
    llvm::Function* entry =
        llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage, entry_name, m_);
    set_target(entry, cpu, features);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", entry));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < n_.buffers.size(); ++i)
      args.push_back(b_.CreateLoad(
          ptr, b_.CreateConstGEP1_64(ptr, entry->getArg(0), static_cast<uint64_t>(i))));
    args.push_back(entry->getArg(1));
    b_.CreateRet(b_.CreateCall(f_, args));

    std::string problems;
    llvm::raw_string_ostream os(problems);
    TEVAL_ASSERT(!llvm::verifyModule(m_, &os), "generated code is malformed: " + problems);
    return std::move(sites_);
  }

private:
  static void set_target(llvm::Function* f, const std::string& cpu, const std::string& features) {
    if (!cpu.empty())
      f->addFnAttr("target-cpu", cpu);
    if (!features.empty())
      f->addFnAttr("target-features", features);
  }

  // --- types and conversions ---------------------------------------------

  llvm::Type* reg(DType t) {
    switch (t) {
    case DType::Bool:
      return b_.getInt1Ty();
    case DType::Int8:
    case DType::UInt8:
      return b_.getInt8Ty();
    case DType::Int16:
      return b_.getInt16Ty();
    case DType::Int32:
      return b_.getInt32Ty();
    case DType::Int64:
      return b_.getInt64Ty();
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
      return b_.getFloatTy();
    case DType::Float64:
      return b_.getDoubleTy();
    }
    TEVAL_UNREACHABLE("unknown dtype");
  }

  llvm::Type* mem(DType t) {
    if (t == DType::Bool)
      return b_.getInt8Ty();
    if (t == DType::Float16 || t == DType::BFloat16)
      return b_.getInt16Ty();
    return reg(t);
  }

  llvm::Value* from_memory(llvm::Value* v, DType t) {
    switch (t) {
    case DType::Bool:
      return b_.CreateICmpNE(v, b_.getInt8(0));
    case DType::Float16:
      return b_.CreateFPExt(b_.CreateBitCast(v, b_.getHalfTy()), b_.getFloatTy());
    case DType::BFloat16:
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
    default:
      return v;
    }
  }

  // Float16/bfloat16 registers hold representable values, so these
  // conversions are exact.
  llvm::Value* to_memory(llvm::Value* v, DType t) {
    switch (t) {
    case DType::Bool:
      return b_.CreateZExt(v, b_.getInt8Ty());
    case DType::Float16:
      return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
    case DType::BFloat16:
      return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16),
                            b_.getInt16Ty());
    default:
      return v;
    }
  }

  llvm::Value* to_i64(llvm::Value* v, DType t) {
    if (core::is_float(t))
      return b_.CreateBitCast(to_double(v), b_.getInt64Ty());
    return is_unsigned(t) ? b_.CreateZExt(v, b_.getInt64Ty()) : b_.CreateSExt(v, b_.getInt64Ty());
  }

  llvm::Value* to_double(llvm::Value* v) {
    return v->getType()->isDoubleTy() ? v : b_.CreateFPExt(v, b_.getDoubleTy());
  }

  // A double, already the exact result of an operation, rounded to t.
  llvm::Value* round_to(llvm::Value* d, DType t) {
    switch (t) {
    case DType::Float64:
      return d;
    case DType::Float32:
      return b_.CreateFPTrunc(d, b_.getFloatTy());
    case DType::Float16:
      return call_runtime("teval_rt_round_f16", b_.getFloatTy(), {d});
    case DType::BFloat16:
      return call_runtime("teval_rt_round_bf16", b_.getFloatTy(), {d});
    default:
      break;
    }
    TEVAL_UNREACHABLE("rounding to a non-float dtype");
  }

  llvm::Value* truthy(llvm::Value* v, DType t) {
    if (t == DType::Bool)
      return v;
    if (core::is_float(t))
      return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }

  // An i1 as a test result of dtype t (bool, or an integer 0/1).
  llvm::Value* test_result(llvm::Value* bit, DType t) {
    return t == DType::Bool ? bit : b_.CreateZExt(bit, reg(t));
  }

  llvm::Value* call_runtime(const char* name, llvm::Type* result, std::vector<llvm::Value*> args) {
    std::vector<llvm::Type*> types;
    for (llvm::Value* a : args)
      types.push_back(a->getType());
    llvm::FunctionCallee f =
        m_.getOrInsertFunction(name, llvm::FunctionType::get(result, types, false));
    return b_.CreateCall(f, args);
  }

  // A C library function, called as an opaque function: the optimiser may
  // not replace it by its own idea of the function or fold it.
  llvm::Value* call_libm(const std::string& name, std::vector<llvm::Value*> args) {
    llvm::Type* result = args[0]->getType();
    auto* call = llvm::cast<llvm::CallInst>(call_runtime(name.c_str(), result, std::move(args)));
    call->addFnAttr(llvm::Attribute::NoBuiltin);
    call->addFnAttr(llvm::Attribute::WillReturn);
    call->addFnAttr(llvm::Attribute::NoUnwind);
    return call;
  }

  llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args) {
    return b_.CreateIntrinsic(id, {args[0]->getType()}, args);
  }

  // --- the error channel ---------------------------------------------------

  std::vector<int> bound_points() const {
    std::vector<int> out;
    for (size_t v = 0; v < vars_.size(); ++v)
      if (vars_[v] && n_.vars[v].point)
        out.push_back(static_cast<int>(v));
    return out;
  }

  // When \p bad holds, reports \p site with \p values (of \p dtypes) and the
  // bound point variables, and leaves the kernel.
  void check(llvm::Value* bad, Site site, const std::vector<llvm::Value*>& values) {
    llvm::BasicBlock* fail = llvm::BasicBlock::Create(c_, "fail", f_);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(c_, "ok", f_);
    llvm::MDBuilder md(c_);
    b_.CreateCondBr(bad, fail, ok, md.createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(fail);
    report(std::move(site), values);
    b_.SetInsertPoint(ok);
  }

  void report(Site site, const std::vector<llvm::Value*>& values) {
    std::vector<llvm::Value*> all;
    for (size_t i = 0; i < values.size(); ++i)
      all.push_back(to_i64(values[i], site.dtypes[i]));
    site.points = bound_points();
    for (int v : site.points) {
      all.push_back(to_i64(vars_[v], n_.vars[v].dtype));
      site.dtypes.push_back(n_.vars[v].dtype);
    }
    llvm::IRBuilder<> at_entry(entry_, entry_->begin());
    llvm::Value* array = at_entry.CreateAlloca(
        b_.getInt64Ty(), b_.getInt32(static_cast<uint32_t>(std::max<size_t>(all.size(), 1))));
    for (size_t i = 0; i < all.size(); ++i)
      b_.CreateStore(all[i], b_.CreateConstGEP1_64(b_.getInt64Ty(), array, i));
    call_runtime("teval_rt_fail", b_.getVoidTy(),
                 {ctx_, b_.getInt32(static_cast<uint32_t>(sites_.size())), array,
                  b_.getInt32(static_cast<uint32_t>(all.size()))});
    sites_.push_back(std::move(site));
    b_.CreateBr(error_exit_);
  }

  // --- statements ----------------------------------------------------------

  void stmt(const core::Stmt& s) {
    std::visit([&](const auto& n) { stmt_node(s, n); }, s->node);
  }

  void stmt_node(const core::Stmt&, const core::For& f) {
    llvm::Value* begin = expr(f.begin);
    llvm::Value* end = expr(f.end);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(c_, n_.vars[f.var].name + ".loop", f_);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(c_, n_.vars[f.var].name + ".body", f_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(c_, n_.vars[f.var].name + ".exit", f_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, n_.vars[f.var].name);
    i->addIncoming(begin, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), body, exit);
    b_.SetInsertPoint(body);
    DType t = n_.vars[f.var].dtype;
    vars_[f.var] = core::is_float(t) ? nullptr : b_.CreateTrunc(i, reg(t));
    TEVAL_ASSERT(vars_[f.var], "a loop variable of a floating dtype");
    stmt(f.body);
    vars_[f.var] = nullptr;
    llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "", true, true);
    i->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* back = b_.CreateBr(header);
    if (f.kind != core::LoopKind::Serial) {
      llvm::Metadata* hint =
          f.kind == core::LoopKind::Unrolled
              ? llvm::MDNode::get(c_, {llvm::MDString::get(c_, "llvm.loop.unroll.full")})
              : llvm::MDNode::get(c_, {llvm::MDString::get(c_, "llvm.loop.vectorize.enable"),
                                       llvm::ConstantAsMetadata::get(b_.getTrue())});
      llvm::MDNode* loop = llvm::MDNode::getDistinct(c_, {nullptr, hint});
      loop->replaceOperandWith(0, loop);
      back->setMetadata(llvm::LLVMContext::MD_loop, loop);
    }
    b_.SetInsertPoint(exit);
  }

  // The address of element index... of buffer \p id; the indices must be in
  // range.
  llvm::Value* address(int id, const std::vector<llvm::Value*>& index) {
    const core::Buffer& buf = n_.buffers[id];
    llvm::Value* flat = b_.getInt64(0);
    for (size_t d = 0; d < index.size(); ++d)
      flat = b_.CreateAdd(b_.CreateMul(flat, b_.getInt64(buf.shape[d]), "", true, true), index[d],
                          "", true, true);
    return b_.CreateGEP(mem(buf.dtype), buffers_[id], flat);
  }

  std::vector<llvm::Value*> indices(const std::vector<Expr>& index) {
    std::vector<llvm::Value*> out;
    for (const Expr& i : index)
      out.push_back(to_i64(expr(i), i->dtype));
    return out;
  }

  llvm::Value* outside(llvm::Value* i, int64_t extent) {
    return b_.CreateICmpUGE(i, b_.getInt64(extent));
  }

  void stmt_node(const core::Stmt& s, const core::Store& st) {
    if (st.guard) {
      llvm::BasicBlock* store = llvm::BasicBlock::Create(c_, "store", f_);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(c_, "stored", f_);
      b_.CreateCondBr(truthy(expr(st.guard), st.guard->dtype), store, done);
      b_.SetInsertPoint(store);
      unguarded_store(s, st);
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      return;
    }
    unguarded_store(s, st);
  }

  void unguarded_store(const core::Stmt& s, const core::Store& st) {
    const core::Buffer& buf = n_.buffers[st.buffer];
    TEVAL_ASSERT(buf.kind != core::BufferKind::Input, "a store to an input buffer");
    std::vector<llvm::Value*> index = indices(st.index);
    if (!index.empty()) {
      // The first dimension out of range, or -1.
      llvm::Value* first = b_.getInt64(-1);
      for (size_t d = index.size(); d-- > 0;)
        first = b_.CreateSelect(outside(index[d], buf.shape[d]), b_.getInt64(d), first);
      Site site{SiteKind::Write, nullptr, s.get(), {}, {}};
      site.dtypes.assign(index.size() + 1, DType::Int64);
      std::vector<llvm::Value*> values{first};
      values.insert(values.end(), index.begin(), index.end());
      check(b_.CreateICmpSGE(first, b_.getInt64(0)), std::move(site), values);
    }
    llvm::Value* v = expr(st.value);
    llvm::Value* at = address(st.buffer, index);
    if (planted(14)) // fault: a store one element past its place
      at = b_.CreateGEP(mem(buf.dtype), at, b_.getInt64(1));
    b_.CreateStore(to_memory(v, buf.dtype), at);
  }

  void stmt_node(const core::Stmt&, const core::Let& l) {
    vars_[l.var] = expr(l.value);
    stmt(l.body);
    vars_[l.var] = nullptr;
  }

  void stmt_node(const core::Stmt&, const core::Cond& c) {
    llvm::Value* cond = truthy(expr(c.cond), c.cond->dtype);
    llvm::BasicBlock* then = llvm::BasicBlock::Create(c_, "then", f_);
    llvm::BasicBlock* otherwise = c.otherwise ? llvm::BasicBlock::Create(c_, "else", f_) : nullptr;
    llvm::BasicBlock* merge = llvm::BasicBlock::Create(c_, "endif", f_);
    b_.CreateCondBr(cond, then, otherwise ? otherwise : merge);
    b_.SetInsertPoint(then);
    stmt(c.then);
    b_.CreateBr(merge);
    if (otherwise) {
      b_.SetInsertPoint(otherwise);
      stmt(c.otherwise);
      b_.CreateBr(merge);
    }
    b_.SetInsertPoint(merge);
  }

  void stmt_node(const core::Stmt&, const core::Block& b) {
    for (const core::Stmt& s : b.stmts)
      stmt(s);
  }

  void stmt_node(const core::Stmt&, const core::Allocate& a) {
    const core::Buffer& buf = n_.buffers[a.buffer];
    int64_t bytes = core::size_bytes(buf.dtype);
    for (int64_t e : buf.shape)
      bytes *= e;
    b_.CreateMemSet(buffers_[a.buffer], b_.getInt8(0), b_.getInt64(bytes), llvm::MaybeAlign(1));
  }

  void stmt_node(const core::Stmt&, const core::Free&) {
    // The host owns temp storage for the whole run.
  }

  void stmt_node(const core::Stmt& s, const core::Raise& r) {
    Site site{SiteKind::Raise, nullptr, s.get(), {}, {}};
    std::vector<llvm::Value*> values;
    for (const Expr& a : r.args) {
      values.push_back(expr(a));
      site.dtypes.push_back(a->dtype);
    }
    report(std::move(site), values);
    // Code after a raise is unreachable; it goes into a block of its own.
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "after.raise", f_));
  }

  // --- expressions ---------------------------------------------------------

  llvm::Value* expr(const Expr& e) {
    return std::visit([&](const auto& n) { return expr_node(e, n); }, e->node);
  }

  llvm::Value* expr_node(const Expr& e, const core::Const& c) {
    if (core::is_float(e->dtype))
      return llvm::ConstantFP::get(reg(e->dtype), c.value.f);
    return llvm::ConstantInt::get(reg(e->dtype), static_cast<uint64_t>(c.value.i),
                                  !is_unsigned(e->dtype));
  }

  llvm::Value* expr_node(const Expr& e, const core::VarRef& v) {
    TEVAL_ASSERT(vars_[v.var], "variable `" + n_.vars[v.var].name + "` used unbound");
    TEVAL_ASSERT(n_.vars[v.var].dtype == e->dtype, "variable read with another dtype");
    return vars_[v.var];
  }

  llvm::Value* expr_node(const Expr& e, const core::Load& l) {
    const core::Buffer& buf = n_.buffers[l.tensor];
    std::vector<llvm::Value*> index = indices(l.index);
    if (!index.empty() && !planted(3)) { // fault 3: reads unchecked
      llvm::Value* bad = b_.getFalse();
      for (size_t d = 0; d < index.size(); ++d)
        bad = b_.CreateOr(bad, outside(index[d], buf.shape[d]));
      Site site{SiteKind::Read, e, nullptr, std::vector<DType>(index.size(), DType::Int64), {}};
      check(bad, std::move(site), index);
    }
    llvm::Value* v = b_.CreateLoad(mem(buf.dtype), address(l.tensor, index));
    return from_memory(v, buf.dtype);
  }

  llvm::Value* expr_node(const Expr& e, const core::Cast& c) {
    llvm::Value* v = expr(c.value);
    return convert(e, v, c.value->dtype, e->dtype);
  }

  // Lazy: only the chosen branch runs.
  llvm::Value* expr_node(const Expr& e, const core::Select& s) {
    llvm::Value* cond = truthy(expr(s.cond), s.cond->dtype);
    if (planted(9)) // fault: both branches evaluated, guards no longer protect
      return b_.CreateSelect(cond, expr(s.then), expr(s.otherwise));
    return branches(
        cond, [&] { return expr(s.then); }, [&] { return expr(s.otherwise); }, reg(e->dtype));
  }

  template <class Then, class Else>
  llvm::Value* branches(llvm::Value* cond, Then then_value, Else else_value, llvm::Type* type) {
    llvm::BasicBlock* then = llvm::BasicBlock::Create(c_, "sel.then", f_);
    llvm::BasicBlock* otherwise = llvm::BasicBlock::Create(c_, "sel.else", f_);
    llvm::BasicBlock* merge = llvm::BasicBlock::Create(c_, "sel.end", f_);
    b_.CreateCondBr(cond, then, otherwise);
    b_.SetInsertPoint(then);
    llvm::Value* a = then_value();
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(otherwise);
    llvm::Value* b = else_value();
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode* phi = b_.CreatePHI(type, 2);
    phi->addIncoming(a, then_end);
    phi->addIncoming(b, else_end);
    return phi;
  }

  llvm::Value* expr_node(const Expr& e, const core::Apply& a) {
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
      return float_op(a.op, t, args);
    return int_op(e, a, t, args);
  }

  llvm::Value* compare(Op op, llvm::Value* x, llvm::Value* y, DType t) {
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
    bool u = is_unsigned(t) || planted(8); // fault 8: signed compared as unsigned
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

  // NaN if either is NaN; +0 above -0 (core's float_max / float_min).
  llvm::Value* float_extreme(bool max, llvm::Value* x, llvm::Value* y) {
    llvm::Type* ty = x->getType();
    llvm::Type* bits = b_.getIntNTy(ty->getPrimitiveSizeInBits());
    llvm::Value* x_negative =
        b_.CreateICmpSLT(b_.CreateBitCast(x, bits), llvm::ConstantInt::get(bits, 0));
    llvm::Value* on_tie =
        max ? b_.CreateSelect(x_negative, y, x) : b_.CreateSelect(x_negative, x, y);
    llvm::Value* x_wins = max ? b_.CreateFCmpOGT(x, y) : b_.CreateFCmpOLT(x, y);
    llvm::Value* r = b_.CreateSelect(b_.CreateFCmpOEQ(x, y), on_tie, b_.CreateSelect(x_wins, x, y));
    if (planted(7)) // fault: NaN does not propagate
      return r;
    llvm::Value* nan = llvm::ConstantFP::get(ty, std::numeric_limits<double>::quiet_NaN());
    return b_.CreateSelect(b_.CreateFCmpUNO(x, y), nan, r);
  }

  llvm::Value* float_op(Op op, DType t, const std::vector<llvm::Value*>& args) {
    llvm::Value* x = args[0];
    switch (op) {
    case Op::Neg:
      return b_.CreateFNeg(x);
    case Op::Abs:
      return intrinsic(llvm::Intrinsic::fabs, {x});
    case Op::Max:
    case Op::Min:
      return float_extreme(op == Op::Max, x, args[1]);
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div: {
      llvm::Value* a = to_double(x);
      llvm::Value* b = to_double(args[1]);
      llvm::Value* r = op == Op::Add   ? b_.CreateFAdd(a, b)
                       : op == Op::Sub ? (planted(4) ? b_.CreateFSub(b, a) : b_.CreateFSub(a, b))
                       : op == Op::Mul ? b_.CreateFMul(a, b)
                                       : b_.CreateFDiv(a, b);
      return round_to(r, t);
    }
    case Op::Mod: {
      llvm::Value* a = to_double(x);
      llvm::Value* b = to_double(args[1]);
      llvm::Value* r = call_libm("fmod", {a, b});
      llvm::Value* zero = llvm::ConstantFP::get(b_.getDoubleTy(), 0.0);
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateFCmpUNE(r, zero),
                       b_.CreateXor(b_.CreateFCmpOLT(r, zero), b_.CreateFCmpOLT(b, zero)));
      return round_to(b_.CreateSelect(adjust, b_.CreateFAdd(r, b), r), t);
    }
    default:
      break;
    }
    // A math function in the precision the interpreter uses: double for
    // float64, float for the others, then rounded to the dtype.
    bool wide = t == DType::Float64;
    llvm::Type* ty = wide ? b_.getDoubleTy() : b_.getFloatTy();
    auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
    auto fn = [&](const char* name, std::vector<llvm::Value*> a) {
      return call_libm(wide ? name : std::string(name) + "f", std::move(a));
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
      r = b_.CreateFDiv(c(1), intrinsic(llvm::Intrinsic::sqrt, {x}));
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
    case Op::NormCdf:
      r = b_.CreateFMul(
          c(wide ? 0.5 : 0.5f),
          fn("erfc", {b_.CreateFMul(b_.CreateFNeg(x),
                                    c(wide ? 0.70710678118654752440
                                           : static_cast<double>(0.70710678118654752440f)))}));
      break;
    case Op::Sigmoid:
      r = b_.CreateFDiv(c(1), b_.CreateFAdd(c(1), fn("exp", {b_.CreateFNeg(x)})));
      break;
    case Op::Frac:
      r = b_.CreateFSub(x, intrinsic(llvm::Intrinsic::floor, {x}));
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
    default:
      TEVAL_UNREACHABLE("not a float operator: " + std::string(core::spelling(op)));
    }
    if (t == DType::Float16 || t == DType::BFloat16)
      return round_to(to_double(r), t);
    return r;
  }

  llvm::Value* constant(DType t, int64_t v) {
    return llvm::ConstantInt::get(reg(t), static_cast<uint64_t>(v), true);
  }

  llvm::Value* fault_site(const Expr& e, const std::vector<llvm::Value*>& args, llvm::Value* bad,
                          SiteKind kind = SiteKind::Apply) {
    Site site{kind, e, nullptr, {}, {}};
    if (kind == SiteKind::Cast) {
      const auto& c = std::get<core::Cast>(e->node);
      site.dtypes.push_back(c.value->dtype);
    } else {
      for (const Expr& a : std::get<core::Apply>(e->node).args)
        site.dtypes.push_back(a->dtype);
    }
    check(bad, std::move(site), args);
    return nullptr;
  }

  // An overflow-checked add, sub or mul when the operation traps.
  llvm::Value* checked(const Expr& e, Op op, DType t, llvm::Value* x, llvm::Value* y,
                       const std::vector<llvm::Value*>& args) {
    bool u = is_unsigned(t);
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

  llvm::Value* int_op(const Expr& e, const core::Apply& a, DType t,
                      const std::vector<llvm::Value*>& args) {
    bool trap = a.overflow == core::Overflow::Trap;
    bool u = is_unsigned(t);
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
      return trap ? checked(e, Op::Add, t, x, y, args) : b_.CreateAdd(x, y);
    case Op::Sub:
      if (planted(4)) // fault: swapped operands
        return b_.CreateSub(y, x);
      return trap ? checked(e, Op::Sub, t, x, y, args) : b_.CreateSub(x, y);
    case Op::Mul:
      return trap ? checked(e, Op::Mul, t, x, y, args) : b_.CreateMul(x, y);
    case Op::Max:
      return intrinsic(u ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, {x, y});
    case Op::Min:
      return intrinsic(u ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, {x, y});
    case Op::Shl:
    case Op::Shr: {
      int width = core::bit_width(t);
      llvm::Value* bad =
          u ? b_.CreateICmpUGE(y, constant(t, width))
            : b_.CreateOr(b_.CreateICmpSLT(y, zero), b_.CreateICmpSGE(y, constant(t, width)));
      fault_site(e, args, bad);
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

  // Truncating, flooring and exact division. The divisor the instruction
  // sees is never 0 or -1, so no instruction can overflow.
  llvm::Value* division(const Expr& e, const core::Apply& a, DType t,
                        const std::vector<llvm::Value*>& args) {
    llvm::Value* x = args[0];
    llvm::Value* y = args[1];
    llvm::Value* zero = constant(t, 0);
    llvm::Value* y_zero = b_.CreateICmpEQ(y, zero);
    if (is_unsigned(t)) {
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

  // core::float_to_int of the double \p d (already floored, ceiled or not
  // yet truncated) into integer dtype \p t; faults when it has no value.
  llvm::Value* float_to_int(const Expr& e, llvm::Value* d, const std::vector<llvm::Value*>& args,
                            DType t, SiteKind kind = SiteKind::Apply) {
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

  llvm::Value* int_to_float(llvm::Value* v, DType from, DType to) {
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
    llvm::Value* d = is_unsigned(from) ? b_.CreateUIToFP(v, b_.getDoubleTy())
                                       : b_.CreateSIToFP(v, b_.getDoubleTy());
    return round_to(d, to);
  }

  llvm::Value* convert(const Expr& e, llvm::Value* v, DType from, DType to) {
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
    return is_unsigned(from) ? b_.CreateZExt(v, reg(to)) : b_.CreateSExt(v, reg(to));
  }

  const core::LoopNest& n_;
  llvm::LLVMContext& c_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  llvm::Function* f_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::BasicBlock* error_exit_ = nullptr;
  llvm::Value* ctx_ = nullptr;
  std::vector<llvm::Value*> buffers_;
  std::vector<llvm::Value*> vars_;
  std::vector<Site> sites_;
};

} // namespace

Generated generate(const core::LoopNest& nest, const std::string& entry, llvm::LLVMContext& context,
                   const std::string& cpu, const std::string& features) {
  Generated g;
  g.module = std::make_unique<llvm::Module>("teval", context);
  g.sites = Codegen(nest, context, *g.module).run(entry, cpu, features);
  return g;
}

} // namespace teval::jit
