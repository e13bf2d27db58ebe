// LLVM IR generation for a loop nest: values in registers and in memory,
// conversions, and calls of the runtime and the math library (see
// codegen.cpp for the value representation).
#include "jit/codegen_impl.h"
#include "jit/vector_math.h"

namespace teval::jit::detail {

// --- types and conversions ---------------------------------------------

llvm::Type* Codegen::reg(DType t) {
  switch (t) {
  case DType::Bool:
    return b_.getInt1Ty();
  case DType::Int8:
  case DType::UInt8:
  case DType::Int2:
  case DType::Int4:
  case DType::UInt2:
  case DType::UInt4: // kernels have none (kernel_dtype)
    return b_.getInt8Ty();
  case DType::Int16:
  case DType::UInt16:
    return b_.getInt16Ty();
  case DType::Int32:
  case DType::UInt32:
    return b_.getInt32Ty();
  case DType::Int64:
  case DType::UInt64:
    return b_.getInt64Ty();
  case DType::Float16:
  case DType::BFloat16:
  case DType::Float32:
  TEVAL_MINIFLOAT_CASES:
    return b_.getFloatTy(); // the minifloats: kernels have none (kernel_dtype)
  case DType::Float64:
    return b_.getDoubleTy();
  TEVAL_COMPLEX_CASES:
    break;
  }
  TEVAL_UNREACHABLE("kernels have no complex values (kernel_dtype)");
}

llvm::Type* Codegen::mem(DType t) {
  if (t == DType::Bool)
    return b_.getInt8Ty();
  if (t == DType::Float16 || t == DType::BFloat16)
    return b_.getInt16Ty();
  return reg(t);
}

llvm::Value* Codegen::from_memory(llvm::Value* v, DType t) {
  switch (t) {
  case DType::Bool:
    return b_.CreateICmpNE(v, b_.getInt8(0));
  case DType::Float16:
    // LLVM 19's Hexagon code generator cannot lower every use of `half`
    // (an `&=!` of float16 values ends it): the DSP runtime converts.
    if (dsp_)
      return call_runtime("teval_rt_f16_to_float", b_.getFloatTy(),
                          {b_.CreateZExt(v, b_.getInt32Ty())});
    return b_.CreateFPExt(b_.CreateBitCast(v, b_.getHalfTy()), b_.getFloatTy());
  case DType::BFloat16:
    return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
  default:
    return v;
  }
}

llvm::Value* Codegen::to_memory(llvm::Value* v, DType t) {
  switch (t) {
  case DType::Bool: // fault 28: true stored as 0xff
    return planted(28) ? b_.CreateSExt(v, b_.getInt8Ty()) : b_.CreateZExt(v, b_.getInt8Ty());
  case DType::Float16:
    if (dsp_)
      return b_.CreateTrunc(call_runtime("teval_rt_float_to_f16", b_.getInt32Ty(), {v}),
                            b_.getInt16Ty());
    return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
  case DType::BFloat16:
    return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16), b_.getInt16Ty());
  default:
    return v;
  }
}

llvm::Value* Codegen::to_i64(llvm::Value* v, DType t) {
  if (core::is_float(t))
    return b_.CreateBitCast(to_double(v), b_.getInt64Ty());
  if (auto w = widened_.find(v); w != widened_.end() && !planted(29))
    return w->second; // an exact truncation of this 64-bit value
  // Fault 29 zero-extends signed integers.
  return unsigned_bits(t) || planted(29) ? b_.CreateZExt(v, b_.getInt64Ty())
                                         : b_.CreateSExt(v, b_.getInt64Ty());
}

llvm::Value* Codegen::narrow(llvm::Value* wide, DType t) {
  bool u = unsigned_bits(t);
  llvm::Value* v = b_.CreateTrunc(wide, reg(t), "", u, !u);
  if (v != wide && llvm::isa<llvm::Instruction>(v))
    widened_[v] = wide;
  return v;
}

llvm::Value* Codegen::to_double(llvm::Value* v) {
  return v->getType()->isDoubleTy() ? v : b_.CreateFPExt(v, b_.getDoubleTy());
}

llvm::Value* Codegen::round_to(llvm::Value* d, DType t) {
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

llvm::Value* Codegen::truthy(llvm::Value* v, DType t) {
  if (t == DType::Bool)
    return v;
  if (core::is_float(t))
    return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
  return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
}

llvm::Value* Codegen::test_result(llvm::Value* bit, DType t) {
  return t == DType::Bool ? bit : b_.CreateZExt(bit, reg(t));
}

llvm::Value* Codegen::call_runtime(const char* name, llvm::Type* result,
                                   std::vector<llvm::Value*> args) {
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : args)
    types.push_back(a->getType());
  llvm::FunctionCallee f =
      m_.getOrInsertFunction(name, llvm::FunctionType::get(result, types, false));
  return b_.CreateCall(f, args);
}

llvm::Value* Codegen::call_libm(const std::string& name, std::vector<llvm::Value*> args) {
  llvm::Type* result = args[0]->getType();
  auto* call = llvm::cast<llvm::CallInst>(call_runtime(name.c_str(), result, std::move(args)));
  mark_math_call(*call);
  // The DSP's vectors hold no doubles: its loops call the scalar function.
  if (name == "teval_expf" && !dsp_)
    add_vector_variants_of_expf(*call, cpu_, features_);
  return call;
}

llvm::Value* Codegen::intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args) {
  return b_.CreateIntrinsic(id, {args[0]->getType()}, args);
}

} // namespace teval::jit::detail
