// The differential properties: on random programs and inputs, every
// backend computes what the interpreter computes, errors included.
#include "interp/backends.h"
#include "jit/hexagon/hexagon.h"
#include "jit/jit.h"
#include "verify/campaign.h"
#include "verify/generators.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace teval::verify {
namespace {

struct Backends {
  std::unique_ptr<core::Backend> interp = interp::interpreter_backend();
  std::unique_ptr<core::Backend> definitional = interp::interpreter_backend({.blocks = false});
  std::unique_ptr<core::Backend> ireval = interp::ireval_backend();
  std::unique_ptr<core::Backend> jit = jit::jit_backend();
  // Every top-level statement of the loop nest in a function of its own, so
  // the calls between the parts of a long program are drawn too.
  std::unique_ptr<core::Backend> jit_split = jit::jit_backend({.statements_per_function = 1});
  // The Hexagon DSP under qemu-hexagon; a program calling what its runtime
  // does not define would be tagged, not compared.
  std::unique_ptr<core::Backend> dsp = jit::hexagon_backend();
};

Backends& backends() {
  static Backends b;
  return b;
}

void check(const Program& p, uint64_t seed, std::vector<core::Backend*> which) {
  RC_LOG() << "program: " << p.text << "\nrerun: " << command_line(p, seed) << "\n";
  std::string outcome;
  bool skipped = false;
  std::optional<Disagreement> d = disagreement(p, seed, which, &outcome, &skipped);
  // The kind of outcome, for the distribution RapidCheck prints.
  std::string kind = "ok";
  if (size_t at = outcome.find("error: "); at != std::string::npos)
    kind = outcome.substr(at + 7, outcome.find_first_of(":(", at + 7) - at - 7);
  RC_TAG(skipped ? "not run by " + which.back()->name() : kind);
  if (d)
    RC_FAIL("[" + d->kind + "] " + d->what);
}

RC_GTEST_PROP(Differential, InterpreterBlocksEqualTheDefinitionalWalk, ()) {
  Program p = *antares_program();
  check(p, *rc::gen::arbitrary<uint32_t>(),
        {backends().definitional.get(), backends().interp.get()});
}

RC_GTEST_PROP(Differential, InterpreterEqualsIREvalOfTheLoweredNest, ()) {
  Program p = *antares_program();
  check(p, *rc::gen::arbitrary<uint32_t>(), {backends().interp.get(), backends().ireval.get()});
}

RC_GTEST_PROP(Differential, IREvalEqualsTheJit, ()) {
  Program p = *antares_program();
  check(p, *rc::gen::arbitrary<uint32_t>(), {backends().ireval.get(), backends().jit.get()});
}

RC_GTEST_PROP(Differential, IREvalEqualsTheJitSplitIntoFunctions, ()) {
  Program p = *antares_program();
  check(p, *rc::gen::arbitrary<uint32_t>(), {backends().ireval.get(), backends().jit_split.get()});
}

RC_GTEST_PROP(Differential, TileContractionsAgreeOnEveryBackend, ()) {
  Program p = *tile_program();
  check(p, *rc::gen::arbitrary<uint32_t>(),
        {backends().interp.get(), backends().definitional.get(), backends().ireval.get(),
         backends().jit.get()});
}

// MLIR functions of ByteIR ops: the native reference gives the
// decomposition's results (or an error where it has one), and every engine
// the decomposition's.
RC_GTEST_PROP(Differential, ByteirFunctionsAgreeNativelyAndOnEveryBackend, ()) {
  Program p = *mlir_program();
  check(p, *rc::gen::arbitrary<uint32_t>(),
        {backends().interp.get(), backends().ireval.get(), backends().jit.get()});
}

RC_GTEST_PROP(Differential, TheDspEqualsTheInterpreter, ()) {
  Program p = *antares_program();
  check(p, *rc::gen::arbitrary<uint32_t>(), {backends().interp.get(), backends().dsp.get()});
}

RC_GTEST_PROP(Differential, TheDspEqualsTheInterpreterOnTileContractions, ()) {
  Program p = *tile_program();
  check(p, *rc::gen::arbitrary<uint32_t>(), {backends().interp.get(), backends().dsp.get()});
}

// ByteIR functions on the DSP through `teval diff --lang mlir --engine
// hexagon`'s own campaign: 30 cases (a case costs a simulator run).
TEST(Differential, TheDspEqualsTheInterpreterOnByteirFunctions) {
  CampaignResult r = run_campaign({.cases = 30, .seed = 4, .lang = "mlir"},
                                  {backends().interp.get(), backends().dsp.get()},
                                  [](const Mismatch& m) { ADD_FAILURE() << m.disagreement.what; });
  EXPECT_EQ(r.cases, 30);
  EXPECT_TRUE(r.mismatches.empty());
}

} // namespace
} // namespace teval::verify
