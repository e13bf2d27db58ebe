// LLVM IR generation for a loop nest (see codegen.h).
//
// Values live in registers by dtype: bool as i1, integers at their width,
// float32/float16/bfloat16 as float (float16 and bfloat16 values are exact
// floats), float64 as double. In memory bool is a byte and float16/bfloat16
// are their 16-bit encodings. Every operation computes what core::apply()
// computes: float arithmetic in double rounded once to the result dtype
// (float16/bfloat16 through the runtime's rounding), math functions through
// teval's math library (core/tmath.h), as the interpreter, integer division and
// shifts with their faults checked before the instruction so that no
// instruction ever has undefined behaviour.
//
// Poison flags (docs/SEMANTICS.md, "Compiled code"): a wrap flag, `exact`
// or `inbounds` is set only where the loop nest or a check that dominates
// the instruction proves it, because LLVM may assume it and delete code that
// contradicts it. There are exactly these: the loop increment is nsw (not
// nuw), address arithmetic after the range check is nsw nuw, trapping
// arithmetic core::proven_accesses proves cannot overflow is done in 64 bits
// nsw (nuw when unsigned), and its truncation to the dtype, like a loop
// counter's of constant bounds inside the dtype, is nsw (nuw). Integer
// operations of the program wrap (no flags) or are overflow-checked through
// intrinsics; divisions and shifts see operands made safe by a select;
// float-to-int conversions see in-range values; loop compares are signed,
// range checks unsigned (a negative index is a huge one).
#include "jit/codegen.h"

#include "core/transform.h"
#include "jit/codegen_impl.h"
#include "jit/llvm_support.h"

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace teval::jit {

namespace detail {

namespace {

// Marks in \p used every buffer \p s reads, writes, allocates or frees.
void buffers_in(const core::Stmt& s, std::vector<char>& used) {
  core::each_stmt(s, [&](const core::Stmt& st) {
    if (const auto* store = std::get_if<core::Store>(&st->node))
      used[store->buffer] = 1;
    else if (const auto* a = std::get_if<core::Allocate>(&st->node))
      used[a->buffer] = 1;
    else if (const auto* f = std::get_if<core::Free>(&st->node))
      used[f->buffer] = 1;
    for (const core::Expr& e : core::own_exprs(st))
      core::for_each_node(e, [&](const core::Expr& x) {
        if (const auto* l = std::get_if<core::Load>(&x->node))
          used[l->tensor] = 1;
      });
  });
}

// \p st's value when it is `target[i] = target[i] + term` (or *), the
// accumulation lowering emits for a reduction (the same index expressions),
// or null.
const core::ExprNode* accumulation(const core::Store& st) {
  const auto* a = std::get_if<core::Apply>(&st.value->node);
  if (!a || (a->op != Op::Add && a->op != Op::Mul) || a->args.size() != 2)
    return nullptr;
  const auto* l = std::get_if<core::Load>(&a->args[0]->node);
  return l && l->tensor == st.buffer && l->index == st.index ? st.value.get() : nullptr;
}

} // namespace

// Each buffer a function takes is its own noalias pointer, so the optimiser
// knows stores to outputs never change inputs. Functions are never inlined
// into one another: inlining turns each noalias parameter into alias-scope
// metadata on every access, quadratic in the number of buffers.
llvm::Function* Codegen::function(const std::string& name, const std::vector<int>& buffers,
                                  bool ranged) {
  llvm::Type* ptr = llvm::PointerType::get(c_, 0);
  std::vector<llvm::Type*> params(buffers.size() + 1, ptr);
  if (ranged)
    params.insert(params.end(), 2, b_.getInt64Ty());
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
  llvm::Function* f = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, m_);
  for (size_t i = 0; i < buffers.size(); ++i)
    f->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
  f->addFnAttr(llvm::Attribute::NoInline);
  set_target(f);
  return f;
}

void Codegen::body(llvm::Function* f, const std::vector<int>& buffers,
                   const std::vector<core::Stmt>& stmts) {
  f_ = f;
  entry_ = llvm::BasicBlock::Create(c_, "entry", f_);
  llvm::BasicBlock* start = llvm::BasicBlock::Create(c_, "start", f_);
  error_exit_ = llvm::BasicBlock::Create(c_, "error", f_);
  b_.SetInsertPoint(error_exit_);
  b_.CreateRet(b_.getInt32(1));
  buffers_.assign(n_.buffers.size(), nullptr);
  for (size_t i = 0; i < buffers.size(); ++i)
    buffers_[buffers[i]] = f_->getArg(static_cast<unsigned>(i));
  ctx_ = f_->getArg(static_cast<unsigned>(buffers.size()));
  ranged_loop_ = nullptr;
  if (f_->arg_size() == buffers.size() + 3) {
    TEVAL_ASSERT(stmts.size() == 1, "a ranged function of several statements");
    ranged_loop_ = &std::get<core::For>(stmts[0]->node);
    range_begin_ = f_->getArg(static_cast<unsigned>(buffers.size() + 1));
    range_end_ = f_->getArg(static_cast<unsigned>(buffers.size() + 2));
  }
  b_.SetInsertPoint(start);
  for (const core::Stmt& s : stmts)
    stmt(s);
  b_.CreateRet(b_.getInt32(0));
  b_.SetInsertPoint(entry_);
  b_.CreateBr(start);
}

llvm::Function* Codegen::parallel_chunk(const std::string& name, const core::Stmt& loop) {
  std::vector<int> ids = buffers_of({loop});
  llvm::Function* ranged = function(name + ".range", ids, true);
  body(ranged, ids, {loop});
  llvm::Type* ptr = llvm::PointerType::get(c_, 0);
  auto* type =
      llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr, b_.getInt64Ty(), b_.getInt64Ty()}, false);
  llvm::Function* chunk = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, m_);
  set_target(chunk);
  b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", chunk));
  std::vector<llvm::Value*> args;
  for (int id : ids)
    args.push_back(b_.CreateLoad(
        ptr, b_.CreateConstGEP1_64(ptr, chunk->getArg(0), static_cast<uint64_t>(id))));
  args.insert(args.end(), {chunk->getArg(1), chunk->getArg(2), chunk->getArg(3)});
  b_.CreateRet(b_.CreateCall(ranged, args));
  return chunk;
}

std::vector<Site> Codegen::run(const std::string& entry_name, const std::string& cpu,
                               const std::string& features) {
  dsp_ = cpu.rfind("hexagon", 0) == 0;
  cpu_ = cpu;
  features_ = features;
  // The entry point takes the array of buffer pointers and the context.
  llvm::Type* ptr = llvm::PointerType::get(c_, 0);
  auto* entry_type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr}, false);
  llvm::Function* entry =
      llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage, entry_name, m_);
  set_target(entry);
  llvm::BasicBlock* at = llvm::BasicBlock::Create(c_, "entry", entry);
  llvm::BasicBlock* failed = llvm::BasicBlock::Create(c_, "failed", entry);
  // Calls \p f with the buffers \p ids, unpacked from the array, and
  // continues in a new block when it returns 0.
  auto call = [&](llvm::Function* f, const std::vector<int>& ids) {
    b_.SetInsertPoint(at);
    std::vector<llvm::Value*> args;
    for (int id : ids)
      args.push_back(b_.CreateLoad(
          ptr, b_.CreateConstGEP1_64(ptr, entry->getArg(0), static_cast<uint64_t>(id))));
    args.push_back(entry->getArg(1));
    llvm::Value* status = b_.CreateCall(f, args);
    at = llvm::BasicBlock::Create(c_, "next", entry);
    b_.CreateCondBr(b_.CreateICmpEQ(status, b_.getInt32(0)), at, failed);
  };

  // A loop nest's top-level statements go into functions of at most
  // per_function_ each, each taking only the buffers it uses: LLVM's
  // optimisation of one function grows faster than linearly with its size
  // (and with its parameters), while a program of parts costs the sum of
  // its parts. The parts are independent loop nests that communicate only
  // through buffers, so nothing is lost by the split.
  // A parallel loop (on the host) is a part of its own, which the runtime
  // runs in chunks on several threads.
  const size_t per = std::max<size_t>(per_function_, 1);
  std::vector<core::Stmt> stmts = {n_.root};
  if (const auto* block = std::get_if<core::Block>(&n_.root->node))
    stmts = block->stmts;
  auto parallel = [&](const core::Stmt& s) {
    const auto* f = std::get_if<core::For>(&s->node);
    return !dsp_ && f && f->kind == core::LoopKind::Parallel;
  };
  // With pieces_, a kernel with a heavy statement (two vector loops or
  // more, such as a register tile's copies: each loop is vectorized and
  // unrolled on its own) among others puts each heavy statement and each
  // parallel one into a part and a module of its own, compiled on a
  // thread of its own.
  auto heavy = [&](const core::Stmt& s) {
    int vector_loops = 0;
    core::each_stmt(s, [&](const core::Stmt& st) {
      const auto* f = std::get_if<core::For>(&st->node);
      vector_loops += f && f->kind == core::LoopKind::Vectorized;
    });
    return vector_loops >= 2;
  };
  const bool split = pieces_ && stmts.size() >= 2 && std::any_of(stmts.begin(), stmts.end(), heavy);
  auto alone = [&](const core::Stmt& s) { return parallel(s) || (split && heavy(s)); };
  std::vector<std::vector<core::Stmt>> parts;
  for (const core::Stmt& s : stmts) {
    if (alone(s) || parts.empty() || parts.back().size() >= per || alone(parts.back()[0]))
      parts.emplace_back();
    parts.back().push_back(s);
  }
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::vector<core::Stmt>& part = parts[k];
    std::string name = parts.size() == 1 ? "teval_body" : "teval_part" + std::to_string(k);
    const bool chunked = parallel(part[0]);
    const std::vector<int> ids = chunked ? std::vector<int>{} : buffers_of(part);
    llvm::Function* f = nullptr;
    if (split && (heavy(part[0]) || chunked)) {
      f = piece(entry_name + "." + name, part, ids, chunked);
    } else if (chunked) {
      f = parallel_chunk(name, part[0]);
    } else {
      f = function(name, ids);
      body(f, ids, part);
    }
    if (!chunked) {
      call(f, ids);
      continue;
    }
    const auto& loop = std::get<core::For>(part[0]->node);
    b_.SetInsertPoint(at);
    llvm::Value* status =
        call_runtime("teval_rt_parallel_for", b_.getInt32Ty(),
                     {f, entry->getArg(0), entry->getArg(1), expr(loop.begin), expr(loop.end)});
    at = llvm::BasicBlock::Create(c_, "next", entry);
    b_.CreateCondBr(b_.CreateICmpEQ(status, b_.getInt32(0)), at, failed);
  }
  b_.SetInsertPoint(at);
  b_.CreateRet(b_.getInt32(0));
  b_.SetInsertPoint(failed);
  b_.CreateRet(b_.getInt32(1));

  verify(m_);
  return std::move(sites_);
}

llvm::Function* Codegen::piece(const std::string& name, const std::vector<core::Stmt>& part,
                               const std::vector<int>& ids, bool chunked) {
  Piece p;
  p.context = std::make_unique<llvm::LLVMContext>();
  p.module = std::make_unique<llvm::Module>("teval", *p.context);
  Codegen sub(*this, *p.context, *p.module);
  llvm::Function* defined = nullptr;
  if (chunked) {
    defined = sub.parallel_chunk(name, part[0]);
  } else {
    defined = sub.function(name, ids);
    sub.body(defined, ids, part);
  }
  defined->setLinkage(llvm::GlobalValue::ExternalLinkage);
  verify(*p.module);
  for (Site& site : sub.sites_)
    sites_.push_back(std::move(site));
  pieces_->push_back(std::move(p));
  // Its declaration here: a chunk's signature, or a part's buffers and context.
  llvm::Type* ptr = llvm::PointerType::get(c_, 0);
  std::vector<llvm::Type*> params(chunked ? 2 : ids.size() + 1, ptr);
  if (chunked)
    params.insert(params.end(), 2, b_.getInt64Ty());
  return llvm::Function::Create(llvm::FunctionType::get(b_.getInt32Ty(), params, false),
                                llvm::Function::ExternalLinkage, name, m_);
}

std::vector<int> Codegen::buffers_of(const std::vector<core::Stmt>& stmts) const {
  std::vector<char> used(n_.buffers.size(), 0);
  for (const core::Stmt& s : stmts)
    buffers_in(s, used);
  std::vector<int> ids;
  for (size_t i = 0; i < used.size(); ++i)
    if (used[i])
      ids.push_back(int(i));
  return ids;
}

void Codegen::verify(const llvm::Module& m) {
  std::string problems;
  llvm::raw_string_ostream os(problems);
  TEVAL_ASSERT(!llvm::verifyModule(m, &os), "generated code is malformed: " + problems);
}

void Codegen::set_target(llvm::Function* f) const {
  if (!cpu_.empty())
    f->addFnAttr("target-cpu", cpu_);
  if (!features_.empty())
    f->addFnAttr("target-features", features_);
  // The vectors the schedule sized its register tiles for.
  if (!dsp_)
    f->addFnAttr("prefer-vector-width", std::to_string(8 * x86_vector_registers(features_).bytes));
}

// --- the error channel ---------------------------------------------------

std::vector<int> Codegen::bound_points() const {
  std::vector<int> out;
  for (size_t v = 0; v < vars_.size(); ++v)
    if (vars_[v] && n_.vars[v].point)
      out.push_back(static_cast<int>(v));
  return out;
}

void Codegen::check(llvm::Value* bad, Site site, const std::vector<llvm::Value*>& values) {
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(c_, "fail", f_);
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(c_, "ok", f_);
  llvm::MDBuilder md(c_);
  b_.CreateCondBr(bad, fail, ok, md.createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(fail);
  report(std::move(site), values);
  b_.SetInsertPoint(ok);
}

void Codegen::report(Site site, const std::vector<llvm::Value*>& values) {
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
               {ctx_, b_.getInt32(static_cast<uint32_t>(site_base_ + sites_.size())), array,
                b_.getInt32(static_cast<uint32_t>(all.size()))});
  sites_.push_back(std::move(site));
  b_.CreateBr(error_exit_);
}

// --- statements ----------------------------------------------------------

void Codegen::stmt(const core::Stmt& s) {
  std::visit([&](const auto& n) { stmt_node(s, n); }, s->node);
}

void Codegen::stmt_node(const core::Stmt&, const core::For& f) {
  bool ranged = &f == ranged_loop_; // a chunk of a parallel loop
  llvm::Value* begin = ranged ? range_begin_ : expr(f.begin);
  llvm::Value* end = ranged ? range_end_ : expr(f.end);
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
  // With constant bounds inside the dtype, the truncation is exact (and
  // flagged so: the variable's arithmetic then widens back for free).
  const auto* first = std::get_if<core::Const>(&f.begin->node);
  const auto* last = std::get_if<core::Const>(&f.end->node);
  const bool exact = !core::is_float(t) && first && last && first->value.i >= core::int_min(t) &&
                     last->value.i - 1 <= core::int_max(t);
  vars_[f.var] = core::is_float(t) ? nullptr : exact ? narrow(i, t) : b_.CreateTrunc(i, reg(t));
  TEVAL_ASSERT(vars_[f.var], "a loop variable of a floating dtype");
  stmt(f.body);
  vars_[f.var] = nullptr;
  // nsw holds: the body runs only when i < end <= INT64_MAX. nuw does not:
  // a range may start below zero, and -1 + 1 wraps as unsigned (a nuw flag
  // there made the increment poison and the loop endless).
  // Fault 15 claims nuw as well.
  llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "", /*HasNUW=*/planted(15), /*HasNSW=*/true);
  i->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* back = b_.CreateBr(header);
  // Forcing the vectorizer also licenses it to reorder a floating-point
  // reduction (LLVM treats the hint like `#pragma clang loop
  // vectorize(enable)`): only a loop with no reduction across its
  // iterations is forced; on any other the cost model decides, under strict
  // floating-point rules.
  const bool force_vector = f.kind == core::LoopKind::Vectorized && core::iterations_separated(f);
  auto hint = [&](std::string_view name) {
    return llvm::MDNode::get(c_, {llvm::MDString::get(c_, name)});
  };
  std::vector<llvm::Metadata*> hints;
  if (f.kind == core::LoopKind::Unrolled)
    hints.push_back(hint("llvm.loop.unroll.full"));
  // The schedule says which loops are unrolled (core/schedule.h); on the
  // host, LLVM's own unrolling of the others (a padded copy's rows 14 at a
  // time, a fill's 32) made code no faster and cost compile time: the
  // 56-wide convolution's compile 45 -> 30 ms (docs/PERFORMANCE.md).
  if (!dsp_ && (f.kind == core::LoopKind::Serial || f.kind == core::LoopKind::Parallel))
    hints.push_back(hint("llvm.loop.unroll.disable"));
  if (force_vector) {
    hints.push_back(llvm::MDNode::get(c_, {llvm::MDString::get(c_, "llvm.loop.vectorize.enable"),
                                           llvm::ConstantAsMetadata::get(b_.getTrue())}));
    // Not unrolled before the vectorizer sees it (a short row was unrolled
    // into scalar code); the vector loop is then unrolled as usual.
    hints.push_back(hint("llvm.loop.unroll.disable"));
    hints.push_back(llvm::MDNode::get(
        c_, {llvm::MDString::get(c_, "llvm.loop.vectorize.followup_vectorized"),
             llvm::MDNode::get(c_, {llvm::MDString::get(c_, "llvm.loop.isvectorized"),
                                    llvm::ConstantAsMetadata::get(b_.getInt32(1))})}));
  }
  if (!hints.empty()) {
    hints.insert(hints.begin(), nullptr);
    llvm::MDNode* loop = llvm::MDNode::getDistinct(c_, hints);
    loop->replaceOperandWith(0, loop);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }
  b_.SetInsertPoint(exit);
}

llvm::Value* Codegen::address(int id, const std::vector<llvm::Value*>& index) {
  const core::Buffer& buf = n_.buffers[id];
  // Every caller has checked 0 <= index[d] < shape[d] on the path here, and
  // a buffer holds fewer than 2^63 elements, so each partial sum is in
  // [0, elements): neither signed nor unsigned overflow is possible. The
  // GEP is not inbounds: the planted fault 14 steps past the end on purpose
  // and the watermark check must see it, not the optimiser.
  // [x / n, x % n] in dimensions of extents m and n (unsigned divisions:
  // walked rows, core::coalesce_rows) is x in one of m * n, so that the
  // optimiser sees the address as affine in x.
  std::vector<llvm::Value*> at = index;
  std::vector<int64_t> extent(buf.shape.begin(), buf.shape.end());
  namespace pm = llvm::PatternMatch;
  for (size_t d = 0; d + 1 < at.size();) {
    llvm::Value* x = nullptr;
    const uint64_t n = static_cast<uint64_t>(extent[d + 1]);
    if (pm::match(at[d], pm::m_UDiv(pm::m_Value(x), pm::m_SpecificInt(n))) &&
        pm::match(at[d + 1], pm::m_URem(pm::m_Specific(x), pm::m_SpecificInt(n)))) {
      at[d] = x;
      extent[d] *= extent[d + 1];
      at.erase(at.begin() + static_cast<std::ptrdiff_t>(d) + 1);
      extent.erase(extent.begin() + static_cast<std::ptrdiff_t>(d) + 1);
    } else {
      ++d;
    }
  }
  llvm::Value* flat = b_.getInt64(0);
  for (size_t d = 0; d < at.size(); ++d)
    flat = b_.CreateAdd(b_.CreateMul(flat, b_.getInt64(extent[d]), "", /*HasNUW=*/true,
                                     /*HasNSW=*/true),
                        at[d], "", /*HasNUW=*/true, /*HasNSW=*/true);
  return b_.CreateGEP(mem(buf.dtype), buffers_[id], flat);
}

std::vector<llvm::Value*> Codegen::indices(const std::vector<Expr>& index) {
  std::vector<llvm::Value*> out;
  for (const Expr& i : index)
    out.push_back(to_i64(expr(i), i->dtype));
  return out;
}

llvm::Value* Codegen::outside(llvm::Value* i, int64_t extent) {
  return b_.CreateICmpUGE(i, b_.getInt64(extent));
}

void Codegen::stmt_node(const core::Stmt& s, const core::Store& st) {
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

void Codegen::unguarded_store(const core::Stmt& s, const core::Store& st) {
  const core::Buffer& buf = n_.buffers[st.buffer];
  TEVAL_ASSERT(buf.kind != core::BufferKind::Input, "a store to an input buffer");
  std::vector<llvm::Value*> index = indices(st.index);
  if (!index.empty() && !proven_.stores.count(s.get())) {
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
  accumulation_ = accumulation(st);
  llvm::Value* v = expr(st.value);
  accumulation_ = nullptr;
  llvm::Value* at = address(st.buffer, index);
  if (planted(14)) // fault: a store one element past its place
    at = b_.CreateGEP(mem(buf.dtype), at, b_.getInt64(1));
  b_.CreateStore(to_memory(v, buf.dtype), at);
}

void Codegen::stmt_node(const core::Stmt&, const core::Let& l) {
  vars_[l.var] = expr(l.value);
  stmt(l.body);
  vars_[l.var] = nullptr;
}

void Codegen::stmt_node(const core::Stmt&, const core::Cond& c) {
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

void Codegen::stmt_node(const core::Stmt&, const core::Block& b) {
  for (const core::Stmt& s : b.stmts)
    stmt(s);
}

void Codegen::stmt_node(const core::Stmt&, const core::Allocate& a) {
  if (!a.zeroed)
    return; // unspecified: the nest writes all of it first
  const core::Buffer& buf = n_.buffers[a.buffer];
  int64_t bytes = core::size_bytes(buf.dtype);
  for (int64_t e : buf.shape)
    bytes *= e;
  b_.CreateMemSet(buffers_[a.buffer], b_.getInt8(0), b_.getInt64(bytes), llvm::MaybeAlign(1));
}

void Codegen::stmt_node(const core::Stmt&, const core::Free&) {
  // The host owns temp storage for the whole run.
}

void Codegen::stmt_node(const core::Stmt& s, const core::Raise& r) {
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
} // namespace detail

Generated generate(const core::LoopNest& nest, const std::string& entry, llvm::LLVMContext& context,
                   const std::string& cpu, const std::string& features,
                   size_t statements_per_function, FloatFreedom freedom) {
  Generated g;
  g.module = std::make_unique<llvm::Module>("teval", context);
  g.sites = detail::Codegen(nest, context, *g.module, statements_per_function, freedom)
                .run(entry, cpu, features);
  return g;
}

GeneratedPieces generate_pieces(const core::LoopNest& nest, const std::string& entry,
                                const std::string& cpu, const std::string& features,
                                size_t statements_per_function, FloatFreedom freedom) {
  GeneratedPieces g;
  g.pieces.emplace_back();
  Piece& main = g.pieces.front();
  main.context = std::make_unique<llvm::LLVMContext>();
  main.module = std::make_unique<llvm::Module>("teval", *main.context);
  std::vector<Piece> more;
  detail::Codegen codegen(nest, *main.context, *main.module, statements_per_function, freedom);
  codegen.split_into(more);
  g.sites = codegen.run(entry, cpu, features);
  for (Piece& p : more)
    g.pieces.push_back(std::move(p));
  return g;
}

} // namespace teval::jit
