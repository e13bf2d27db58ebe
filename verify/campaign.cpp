// A differential campaign outside the test runner (see campaign.h).
#include "verify/campaign.h"

#include "core/error.h"
#include "verify/generators.h"
#include "verify/shrink.h"

#include <chrono>

namespace teval::verify {

namespace {

using Case = std::pair<Program, uint32_t>;

rc::Gen<Case> case_generator(const std::string& lang) {
  TEVAL_ASSERT(lang == "antares" || lang == "tile" || lang == "mlir", "no generator for " + lang);
  return rc::gen::pair(lang == "tile"   ? tile_program()
                       : lang == "mlir" ? mlir_program()
                                        : antares_program(),
                       rc::gen::arbitrary<uint32_t>());
}

} // namespace

CampaignResult run_campaign(const CampaignOptions& options,
                            const std::vector<core::Backend*>& backends,
                            const std::function<void(const Mismatch&)>& report) {
  CampaignResult result;
  rc::Gen<Case> gen = case_generator(options.lang);
  auto start = std::chrono::steady_clock::now();
  rc::Random random(options.seed);
  for (int i = 0; i < options.cases; ++i) {
    rc::Random r = random.split();
    rc::Shrinkable<Case> shrinkable = gen(r, i % 100);
    Case c = shrinkable.value();
    ++result.cases;
    bool skipped = false;
    std::optional<Disagreement> what = disagreement(c.first, c.second, backends, nullptr, &skipped);
    result.unsupported += skipped;
    if (!what)
      continue;
    // Shrink: take the first simpler case that still disagrees, until none does.
    Mismatch m{c.first, c.second, *what, 0};
    for (bool smaller = true; smaller;) {
      smaller = false;
      rc::Seq<rc::Shrinkable<Case>> shrinks = shrinkable.shrinks();
      while (rc::Maybe<rc::Shrinkable<Case>> next = shrinks.next()) {
        Case candidate = next->value();
        // A shrunk case counts only when it fails the same way.
        std::optional<Disagreement> w = disagreement(candidate.first, candidate.second, backends);
        if (w && w->kind == m.disagreement.kind && w->backend == m.disagreement.backend) {
          shrinkable = *next;
          m = {candidate.first, candidate.second, *w, m.shrinks + 1};
          smaller = true;
          break;
        }
      }
    }
    // Then the program itself: statements, expressions, numbers, shapes.
    ShrinkResult smaller = shrink(m.program, [&](const Program& candidate) {
      std::optional<Disagreement> w = disagreement(candidate, m.input_seed, backends);
      return w && w->kind == m.disagreement.kind && w->backend == m.disagreement.backend;
    });
    if (smaller.steps > 0) {
      m.program = smaller.program;
      if (std::optional<Disagreement> w = disagreement(m.program, m.input_seed, backends))
        m.disagreement = *w;
      m.shrinks += smaller.steps;
    }
    report(m);
    result.mismatches.push_back(std::move(m));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace teval::verify
