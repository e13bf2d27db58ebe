// What the host JIT and the Hexagon target share (see llvm_support.h).
#include "jit/llvm_support.h"

#include "jit/vector_math.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

namespace teval::jit {

namespace {

llvm::OptimizationLevel level(int n) {
  switch (n) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 3:
    return llvm::OptimizationLevel::O3;
  default:
    return llvm::OptimizationLevel::O2;
  }
}

} // namespace

namespace {

// LLVM's warnings and remarks ("loop not vectorized" where a schedule
// asked for vector code and the loop has control flow) are not the user's
// business: the code computes the same either way. Errors keep LLVM's
// handling.
struct QuietDiagnostics : llvm::DiagnosticHandler {
  bool handleDiagnostics(const llvm::DiagnosticInfo& d) override {
    return d.getSeverity() != llvm::DS_Error;
  }
};

} // namespace

VectorRegisters x86_vector_registers(const std::string& features) {
  auto has = [&](const std::string& f) {
    return ("," + features + ",").find("," + f + ",") != std::string::npos;
  };
  if (has("+avx512f"))
    return {64, 32};
  if (has("+avx"))
    return {32, 16};
  return {16, 16};
}

void optimize(llvm::Module& m, llvm::TargetMachine& target, int opt_level, bool vectorize,
              bool slp) {
  m.getContext().setDiagnosticHandler(std::make_unique<QuietDiagnostics>());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = vectorize && opt_level >= 2;
  tuning.SLPVectorization = vectorize && slp && opt_level >= 2;
  llvm::PassBuilder pb(&target, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = opt_level == 0
                                    ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                    : pb.buildPerModuleDefaultPipeline(level(opt_level));
  if (vectorize && opt_level >= 2) {
    // Register tiles (core/schedule.h) leave their accumulators' loads and
    // stores in the reduction loops, through addresses the unroller
    // computes twice; common subexpressions first, then LICM keeps them in
    // registers across the loops.
    auto err = pb.parsePassPipeline(mpm, "function(early-cse<memssa>,loop-mssa(licm))");
    TEVAL_ASSERT(!err, "a pass pipeline that does not parse");
  }
  mpm.run(m, mam);
  detail::drop_unused_vector_variants(m);
}

bool slp_is_sound(const core::LoopNest& nest) {
  for (const core::Buffer& b : nest.buffers)
    if (!core::is_float(b.dtype))
      return false;
  bool sound = true;
  core::each_stmt(nest.root, [&](const core::Stmt& s) {
    for (const core::Expr& e : core::own_exprs(s))
      core::for_each_node(e, [&](const core::Expr& n) {
        const auto* cast = std::get_if<core::Cast>(&n->node);
        if (core::is_unsigned(n->dtype) ||
            (cast && core::is_float(cast->value->dtype) != core::is_float(n->dtype)))
          sound = false;
      });
  });
  return sound;
}

std::string emit_file(llvm::Module& m, llvm::TargetMachine& target, llvm::CodeGenFileType type) {
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  TEVAL_ASSERT(!target.addPassesToEmitFile(pm, os, nullptr, type),
               "the target cannot emit this kind of file");
  pm.run(m);
  return std::string(bytes.str());
}

std::string print_module(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return text;
}

} // namespace teval::jit
