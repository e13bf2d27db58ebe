// Vector variants of teval's math functions (see vector_math.h).
#include "jit/vector_math.h"

#include "core/tmath.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

namespace teval::jit::detail {

namespace {

// The widths offered to the vectorizer, which picks one by its cost model.
constexpr unsigned kWidths[] = {4, 8, 16};

std::string expf_variant(unsigned lanes) {
  return "teval_expf_v" + std::to_string(lanes);
}

constexpr const char* kExp2Table = "teval_expf.exp2_j32";

// teval_expf on \p lanes floats, operation for operation as exp_log.c
// computes it (with every lane's argument in range for the fast path,
// others' replaced by 0), then teval_expf itself for the lanes out of
// range or too near a rounding boundary.
llvm::Function* define_expf(llvm::Module& m, unsigned lanes, const std::string& cpu,
                            const std::string& features) {
  llvm::LLVMContext& c = m.getContext();
  llvm::IRBuilder<> b(c);
  auto* vf = llvm::FixedVectorType::get(b.getFloatTy(), lanes);
  auto* vd = llvm::FixedVectorType::get(b.getDoubleTy(), lanes);
  auto* vi32 = llvm::FixedVectorType::get(b.getInt32Ty(), lanes);
  auto* vi64 = llvm::FixedVectorType::get(b.getInt64Ty(), lanes);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(vf, {vf}, false),
                                   llvm::Function::InternalLinkage, expf_variant(lanes), m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr(llvm::Attribute::WillReturn);
  // Not inlined: a short row's loop is unrolled before the vectorizer's
  // call exists, and sixteen inlined copies took 38 ms to compile (the
  // call costs nothing measurable on 2048^2).
  f->addFnAttr(llvm::Attribute::NoInline);
  f->setDoesNotAccessMemory();
  if (!cpu.empty())
    f->addFnAttr("target-cpu", cpu);
  if (!features.empty())
    f->addFnAttr("target-features", features);

  const struct teval_expf_constants& k = teval_expf_constants;
  auto d = [&](double v) { return llvm::ConstantFP::get(vd, v); };
  auto i32 = [&](int32_t v) {
    return llvm::ConstantInt::get(vi32, static_cast<uint64_t>(v), true);
  };
  auto i64 = [&](uint64_t v) { return llvm::ConstantInt::get(vi64, v); };

  auto* entry = llvm::BasicBlock::Create(c, "entry", f);
  auto* head = llvm::BasicBlock::Create(c, "scalar.lane", f);
  auto* call = llvm::BasicBlock::Create(c, "scalar.call", f);
  auto* next = llvm::BasicBlock::Create(c, "scalar.next", f);
  auto* done = llvm::BasicBlock::Create(c, "done", f);
  b.SetInsertPoint(entry);
  llvm::Value* x = f->getArg(0);
  llvm::Value* in = b.CreateAnd(b.CreateFCmpOGT(x, llvm::ConstantFP::get(vf, -87.0)),
                                b.CreateFCmpOLT(x, llvm::ConstantFP::get(vf, 88.0)));
  llvm::Value* xd = b.CreateSelect(in, b.CreateFPExt(x, vd), d(0));
  // n = nearest_int(x * 32 / ln 2), ties away from zero.
  llvm::Value* scaled = b.CreateFMul(xd, d(k.inv_ln2_32));
  llvm::Value* n =
      b.CreateFPToSI(b.CreateSelect(b.CreateFCmpOGE(scaled, d(0)), b.CreateFAdd(scaled, d(0.5)),
                                    b.CreateFSub(scaled, d(0.5))),
                     vi32);
  llvm::Value* nd = b.CreateSIToFP(n, vd);
  llvm::Value* r = b.CreateFSub(b.CreateFSub(xd, b.CreateFMul(nd, d(k.ln2_hi_32))),
                                b.CreateFMul(nd, d(k.ln2_lo_32)));
  llvm::Value* r2 = b.CreateFMul(r, r);
  auto term = [&](double c0, double c1) { return b.CreateFAdd(d(c0), b.CreateFMul(r, d(c1))); };
  llvm::Value* a = term(1, k.taylor[0]);
  llvm::Value* bb = term(k.taylor[1], k.taylor[2]);
  llvm::Value* cc = term(k.taylor[3], k.taylor[4]);
  llvm::Value* em1 =
      b.CreateFMul(r, b.CreateFAdd(a, b.CreateFMul(r2, b.CreateFAdd(bb, b.CreateFMul(r2, cc)))));
  // 2^(j/32), j = n mod 32, from the table; 2^((n - j) / 32) from its bits.
  llvm::Value* j = b.CreateAnd(n, i32(31));
  llvm::GlobalVariable* table = m.getNamedGlobal(kExp2Table);
  if (!table)
    table = new llvm::GlobalVariable(
        m, llvm::ArrayType::get(b.getDoubleTy(), 32), true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantDataArray::get(c, llvm::ArrayRef<double>(k.exp2_j32, 32)), kExp2Table);
  llvm::Value* t = b.CreateMaskedGather(
      vd, b.CreateGEP(b.getDoubleTy(), table, b.CreateZExt(j, vi64)), llvm::Align(8));
  llvm::Value* power = b.CreateAdd(b.CreateAShr(b.CreateSub(n, j), i32(5)), i32(1023));
  llvm::Value* scale = b.CreateBitCast(b.CreateShl(b.CreateZExt(power, vi64), i64(52)), vd);
  llvm::Value* v = b.CreateFMul(b.CreateFAdd(t, b.CreateFMul(t, em1)), scale);
  // Within 16 of half a float's last place in the 29 bits rounding drops.
  llvm::Value* dropped = b.CreateAnd(b.CreateBitCast(v, vi64), i64((uint64_t{1} << 29) - 1));
  llvm::Value* near = b.CreateICmpULE(b.CreateSub(dropped, i64((uint64_t{1} << 28) - 16)), i64(32));
  llvm::Value* fast = b.CreateFPTrunc(v, vf);
  llvm::Value* scalar = b.CreateOr(b.CreateNot(in), near);
  llvm::Value* any =
      b.CreateICmpNE(b.CreateBitCast(scalar, b.getIntNTy(lanes)), b.getIntN(lanes, 0));
  b.CreateCondBr(any, head, done);

  // The lanes left to the scalar function, one by one.
  b.SetInsertPoint(head);
  llvm::PHINode* lane = b.CreatePHI(b.getInt32Ty(), 2);
  llvm::PHINode* acc = b.CreatePHI(vf, 2);
  lane->addIncoming(b.getInt32(0), entry);
  acc->addIncoming(fast, entry);
  b.CreateCondBr(b.CreateExtractElement(scalar, lane), call, next);
  b.SetInsertPoint(call);
  llvm::FunctionCallee expf = m.getOrInsertFunction(
      "teval_expf", llvm::FunctionType::get(b.getFloatTy(), {b.getFloatTy()}, false));
  llvm::CallInst* y = b.CreateCall(expf, {b.CreateExtractElement(x, lane)});
  mark_math_call(*y);
  llvm::Value* with = b.CreateInsertElement(acc, y, lane);
  b.CreateBr(next);
  b.SetInsertPoint(next);
  llvm::PHINode* merged = b.CreatePHI(vf, 2);
  merged->addIncoming(acc, head);
  merged->addIncoming(with, call);
  llvm::Value* following = b.CreateAdd(lane, b.getInt32(1));
  lane->addIncoming(following, next);
  acc->addIncoming(merged, next);
  b.CreateCondBr(b.CreateICmpEQ(following, b.getInt32(static_cast<int32_t>(lanes))), done, head);

  b.SetInsertPoint(done);
  llvm::PHINode* result = b.CreatePHI(vf, 2);
  result->addIncoming(fast, entry);
  result->addIncoming(merged, next);
  b.CreateRet(result);
  return f;
}

} // namespace

void mark_math_call(llvm::CallInst& call) {
  call.addFnAttr(llvm::Attribute::NoBuiltin);
  call.addFnAttr(llvm::Attribute::WillReturn);
  call.addFnAttr(llvm::Attribute::NoUnwind);
  call.setDoesNotAccessMemory();
}

void add_vector_variants_of_expf(llvm::CallInst& call, const std::string& cpu,
                                 const std::string& features) {
  llvm::Module& m = *call.getModule();
  std::string variants;
  for (unsigned lanes : kWidths) {
    if (!m.getFunction(expf_variant(lanes)))
      llvm::appendToCompilerUsed(m, {define_expf(m, lanes, cpu, features)});
    variants += (variants.empty() ? "" : ",") + std::string("_ZGV_LLVM_N") + std::to_string(lanes) +
                "v_teval_expf(" + expf_variant(lanes) + ")";
  }
  call.addFnAttr(llvm::Attribute::get(call.getContext(), "vector-function-abi-variant", variants));
}

void drop_unused_vector_variants(llvm::Module& m) {
  auto variant = [](const llvm::Function& f) { return f.getName().starts_with("teval_expf_v"); };
  llvm::removeFromUsedLists(m, [&](llvm::Constant* c) {
    const auto* f = llvm::dyn_cast<llvm::Function>(c->stripPointerCasts());
    return f && variant(*f);
  });
  for (llvm::Function& f : llvm::make_early_inc_range(m.functions())) {
    if (!variant(f))
      continue;
    f.removeDeadConstantUsers(); // the used list's old array
    if (f.use_empty())
      f.eraseFromParent();
  }
  if (llvm::GlobalVariable* table = m.getNamedGlobal(kExp2Table); table && table->use_empty())
    table->eraseFromParent();
}

} // namespace teval::jit::detail
