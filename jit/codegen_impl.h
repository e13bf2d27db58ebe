// The LLVM IR generator of loop nests: its one class, shared by the
// statement half (codegen.cpp) and the expression half (codegen_expr.cpp).
// Internal to jit/.
#pragma once

#include "core/bounds.h"
#include "core/fault.h"
#include "jit/codegen.h"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace teval::jit::detail {

using core::DType;
using core::Expr;
using core::Op;

/// Bool and the unsigned integers compare, divide, shift and widen as
/// unsigned.
inline bool unsigned_bits(DType t) {
  return t == DType::Bool || core::is_unsigned(t);
}

/// Generates one loop nest's kernel into a module; see codegen.cpp for the
/// value representation.
class Codegen {
public:
  Codegen(const core::LoopNest& n, llvm::LLVMContext& c, llvm::Module& m,
          size_t statements_per_function, FloatFreedom freedom)
      : n_(n), proven_(core::proven_accesses(n)), c_(c), m_(m), b_(c),
        vars_(n.vars.size(), nullptr), per_function_(statements_per_function), freedom_(freedom) {}

  std::vector<Site> run(const std::string& entry_name, const std::string& cpu,
                        const std::string& features);

  /// run() puts each heavy part of a kernel of several into a piece of its
  /// own, appended to \p pieces (generate_pieces).
  void split_into(std::vector<Piece>& pieces) { pieces_ = &pieces; }

private:
  // A generator of one part in its own module and context, numbering its
  // error sites after \p parent's.
  Codegen(const Codegen& parent, llvm::LLVMContext& c, llvm::Module& m)
      : dsp_(parent.dsp_), cpu_(parent.cpu_), features_(parent.features_), n_(parent.n_),
        proven_(parent.proven_), c_(c), m_(m), b_(c), vars_(parent.n_.vars.size(), nullptr),
        per_function_(parent.per_function_), freedom_(parent.freedom_),
        site_base_(parent.site_base_ + parent.sites_.size()) {}
  // The function of \p part (statements, or a parallel loop \p chunked) in
  // a piece of its own, under the external \p name; its declaration here.
  llvm::Function* piece(const std::string& name, const std::vector<core::Stmt>& part,
                        const std::vector<int>& ids, bool chunked);
  // The buffers \p stmts read, write, allocate or free, by id.
  std::vector<int> buffers_of(const std::vector<core::Stmt>& stmts) const;
  static void verify(const llvm::Module& m);

  /// Code for the Hexagon DSP (where fault 39 is planted).
  bool dsp_ = false;
  /// The target's function attributes, which set_target gives a function:
  /// what the optimiser and the vectorizers see.
  std::string cpu_, features_;
  void set_target(llvm::Function* f) const;
  // A function taking \p buffers (noalias pointers, by id) and the context,
  // and with \p ranged two int64s: the range of a parallel loop's iterations.
  llvm::Function* function(const std::string& name, const std::vector<int>& buffers,
                           bool ranged = false);
  // Emits \p stmts as the body of \p f, made by function() with \p buffers;
  // it returns 0, or 1 after a fault. A ranged function's one statement is
  // its parallel loop, run over the range it is given.
  void body(llvm::Function* f, const std::vector<int>& buffers,
            const std::vector<core::Stmt>& stmts);
  // A chunk of parallel loop \p loop as the runtime calls it on each thread:
  // i32 (ptr buffers, ptr context, i64 begin, i64 end), calling a ranged
  // function of the loop with the buffers it uses.
  llvm::Function* parallel_chunk(const std::string& name, const core::Stmt& loop);
  // The parallel loop being emitted over a given range, and that range.
  const core::For* ranged_loop_ = nullptr;
  llvm::Value* range_begin_ = nullptr;
  llvm::Value* range_end_ = nullptr;

  // --- types and conversions ---------------------------------------------

  llvm::Type* reg(DType t);

  llvm::Type* mem(DType t);

  llvm::Value* from_memory(llvm::Value* v, DType t);

  // Float16/bfloat16 registers hold representable values, so these
  // conversions are exact.
  llvm::Value* to_memory(llvm::Value* v, DType t);

  llvm::Value* to_i64(llvm::Value* v, DType t);

  // \p wide (i64) truncated to integer dtype \p t, which holds its value
  // (flagged nsw or nuw); to_i64 of the result is \p wide again.
  llvm::Value* narrow(llvm::Value* wide, DType t);
  std::unordered_map<llvm::Value*, llvm::Value*> widened_;

  llvm::Value* to_double(llvm::Value* v);

  // A double, already the exact result of an operation, rounded to t.
  llvm::Value* round_to(llvm::Value* d, DType t);

  llvm::Value* truthy(llvm::Value* v, DType t);

  // An i1 as a test result of dtype t (bool, or an integer 0/1).
  llvm::Value* test_result(llvm::Value* bit, DType t);

  llvm::Value* call_runtime(const char* name, llvm::Type* result, std::vector<llvm::Value*> args);

  // A function of teval's math library, called as an opaque function: the
  // optimiser may not replace it by its own idea of the function or fold it.
  llvm::Value* call_libm(const std::string& name, std::vector<llvm::Value*> args);

  llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args);

  // --- the error channel ---------------------------------------------------

  std::vector<int> bound_points() const;

  // When \p bad holds, reports \p site with \p values (of \p dtypes) and the
  // bound point variables, and leaves the kernel.
  void check(llvm::Value* bad, Site site, const std::vector<llvm::Value*>& values);

  void report(Site site, const std::vector<llvm::Value*>& values);

  // --- statements ----------------------------------------------------------

  void stmt(const core::Stmt& s);

  void stmt_node(const core::Stmt&, const core::For& f);

  // The address of element index... of buffer \p id; the indices must be in
  // range.
  llvm::Value* address(int id, const std::vector<llvm::Value*>& index);

  std::vector<llvm::Value*> indices(const std::vector<Expr>& index);

  llvm::Value* outside(llvm::Value* i, int64_t extent);

  void stmt_node(const core::Stmt& s, const core::Store& st);

  void unguarded_store(const core::Stmt& s, const core::Store& st);

  void stmt_node(const core::Stmt&, const core::Let& l);

  void stmt_node(const core::Stmt&, const core::Cond& c);

  void stmt_node(const core::Stmt&, const core::Block& b);

  void stmt_node(const core::Stmt&, const core::Allocate& a);

  void stmt_node(const core::Stmt&, const core::Free&);

  void stmt_node(const core::Stmt& s, const core::Raise& r);

  // --- expressions ---------------------------------------------------------

  llvm::Value* expr(const Expr& e);

  llvm::Value* expr_node(const Expr& e, const core::Const& c);

  llvm::Value* expr_node(const Expr& e, const core::VarRef& v);

  llvm::Value* expr_node(const Expr& e, const core::Load& l);

  llvm::Value* expr_node(const Expr& e, const core::Cast& c);

  // Lazy: only the chosen branch runs.
  llvm::Value* expr_node(const Expr& e, const core::Select& s);

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

  llvm::Value* expr_node(const Expr& e, const core::Apply& a);

  llvm::Value* compare(Op op, llvm::Value* x, llvm::Value* y, DType t);

  // NaN if either is NaN; +0 above -0 (core's float_max / float_min).
  llvm::Value* float_extreme(bool max, llvm::Value* x, llvm::Value* y);

  // \p accumulates: the operation is a reduction's accumulation.
  llvm::Value* float_op(Op op, DType t, const std::vector<llvm::Value*>& args,
                        bool accumulates = false);

  llvm::Value* constant(DType t, int64_t v);

  void fault_site(const Expr& e, const std::vector<llvm::Value*>& args, llvm::Value* bad,
                  SiteKind kind = SiteKind::Apply);

  // An overflow-checked add, sub or mul when the operation traps.
  llvm::Value* checked(const Expr& e, Op op, DType t, llvm::Value* x, llvm::Value* y,
                       const std::vector<llvm::Value*>& args);

  llvm::Value* int_op(const Expr& e, const core::Apply& a, DType t,
                      const std::vector<llvm::Value*>& args);

  // Truncating, flooring and exact division. The divisor the instruction
  // sees is never 0 or -1, so no instruction can overflow.
  llvm::Value* division(const Expr& e, const core::Apply& a, DType t,
                        const std::vector<llvm::Value*>& args);

  // core::float_to_int of the double \p d (already floored, ceiled or not
  // yet truncated) into integer dtype \p t; faults when it has no value.
  llvm::Value* float_to_int(const Expr& e, llvm::Value* d, const std::vector<llvm::Value*>& args,
                            DType t, SiteKind kind = SiteKind::Apply);

  llvm::Value* int_to_float(llvm::Value* v, DType from, DType to);

  llvm::Value* convert(const Expr& e, llvm::Value* v, DType from, DType to);

  const core::LoopNest& n_;
  // The range checks proved unable to fail, which are left out.
  core::ProvenAccesses proven_;
  llvm::LLVMContext& c_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  llvm::Function* f_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::BasicBlock* error_exit_ = nullptr;
  llvm::Value* ctx_ = nullptr;
  std::vector<llvm::Value*> buffers_;
  std::vector<llvm::Value*> vars_;
  size_t per_function_;
  FloatFreedom freedom_;
  // The value of the store being emitted when it is a reduction's
  // accumulation, `target[i] = target[i] + term` (or *), as lowering builds
  // it: the one operation any_order may reassociate.
  const core::ExprNode* accumulation_ = nullptr;
  std::vector<Site> sites_;
  std::vector<Piece>* pieces_ = nullptr;
  // The error sites numbered before this generator's (in other pieces).
  size_t site_base_ = 0;
};

} // namespace teval::jit::detail
