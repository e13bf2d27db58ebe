// `teval diff`: a differential campaign from the command line.
#include "tools/teval/diff_command.h"

#include "interp/backends.h"
#include "jit/hexagon/hexagon.h"
#include "jit/jit.h"
#include "tools/teval/cli_support.h"
#include "verify/campaign.h"

#include <cstdio>
#include <iostream>

namespace teval::tools {

const char* const kDiffHelp = R"(usage: teval diff [--cases N] [--seed S] [--lang antares|tile|mlir]
                  [--engine all|hexagon]

Generates random, well-typed programs with random inputs and runs each on
every backend: the interpreter (block and definitional evaluation), IREval
of the lowered loop nest, and the JIT (`--engine all`, the default), or on
the interpreter and the Hexagon DSP under qemu-hexagon (`--engine hexagon`;
a kernel calling a function its runtime does not define is counted, not
compared). Every backend must give the interpreter's outputs bit for bit, or its exact error. Each disagreement is
shrunk to a minimal program and printed with the `teval run` command that
reproduces it.

options:
  --cases N     how many programs (default 1000)
  --seed S      the campaign's seed (default 0); the same seed gives the
                same programs
  --lang L      the notation of the programs: antares (the default), tile
                (contractions with constraints and skipped invalid points)
                or mlir (functions of ByteIR ops, whose native reference
                must give the einstein_v2 decomposition's results, or an
                error where it has one, before every engine runs it)
  --engine E    all (the default) or hexagon
  -h, --help    this text

exit status: 0 all agreed; 1 some program disagreed; 2 a usage error.
)";

int diff_command(const std::vector<std::string>& args) {
  verify::CampaignOptions o;
  std::string engine = "all";
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "-h" || a == "--help") {
        std::cout << kDiffHelp;
        return 0;
      }
      if (i + 1 >= args.size() &&
          (a == "--cases" || a == "--seed" || a == "--lang" || a == "--engine"))
        throw UsageError{"option " + a + " needs a value"};
      if (a == "--cases") {
        uint64_t n = parse_count(a, args[++i]);
        if (n > 100'000'000)
          throw UsageError{"--cases is at most 100000000"};
        o.cases = static_cast<int>(n);
      } else if (a == "--seed") {
        o.seed = parse_count(a, args[++i]);
      } else if (a == "--lang") {
        o.lang = args[++i];
        if (o.lang != "antares" && o.lang != "tile" && o.lang != "mlir")
          throw UsageError{"unknown --lang '" + o.lang +
                           "'; teval diff generates: antares, tile, mlir"};
      } else if (a == "--engine") {
        engine = args[++i];
        if (engine != "all" && engine != "hexagon")
          throw UsageError{"unknown --engine '" + engine + "'; teval diff has: all, hexagon"};
      } else {
        throw UsageError{"unknown argument '" + a + "'"};
      }
    }
  } catch (const UsageError& e) {
    std::cerr << "teval diff: " << e.message << "\n(see teval diff --help)\n";
    return 2;
  }

  auto interp = interp::interpreter_backend();
  auto definitional = interp::interpreter_backend({.blocks = false});
  auto ireval = interp::ireval_backend();
  auto jit = jit::jit_backend();
  auto dsp = jit::hexagon_backend();
  std::vector<core::Backend*> backends{interp.get(), definitional.get(), ireval.get(), jit.get()};
  if (engine == "hexagon")
    backends = {interp.get(), dsp.get()};
  verify::CampaignResult r = verify::run_campaign(o, backends, [](const verify::Mismatch& m) {
    const verify::Disagreement& d = m.disagreement;
    std::cout << "mismatch [" << d.kind << "] (shrunk " << m.shrinks << " times):\n  "
              << m.program.text << "\n"
              << d.what << "\n";
    if (!d.backend.empty())
      std::cout << "reproduce: " << verify::command_line(m.program, m.input_seed) << " --engine "
                << d.backend << "\n  against: " << verify::command_line(m.program, m.input_seed)
                << " --engine interp\n";
    std::cout << "\n" << std::flush;
  });
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f", r.seconds > 0 ? r.cases / r.seconds : 0.0);
  std::cout << r.cases << " cases in " << r.seconds << " s (" << rate << " cases/s), "
            << r.mismatches.size() << " mismatches";
  if (engine == "hexagon")
    std::cout << "; " << r.unsupported << " cases the DSP runtime cannot run";
  std::cout << "\n";
  return r.mismatches.empty() ? 0 : 1;
}

} // namespace teval::tools
