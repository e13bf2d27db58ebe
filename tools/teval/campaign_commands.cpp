// `teval gen` and `teval fuzz`: campaigns for other compilers.
#include "tools/teval/campaign_commands.h"

#include "core/error.h"
#include "tools/teval/builtin_backends.h"
#include "tools/teval/cli_support.h"
#include "tools/teval/mpi_fuzz.h"
#include "verify/census.h"
#include "verify/corpus.h"
#include "verify/fuzz.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace teval::tools {

const char* const kGenHelp =
    R"(usage: teval gen [--lang antares|tile|all] [--cases N] [--seed S] -o DIR [--shard I/N]
       teval gen --census [--lang antares|tile|all|mlir] [--cases N] [--seed S]

Writes a corpus of generated programs that another compiler's test harness
can consume without linking teval: per case a directory DIR/case-NNNNNN/
with the program (program.antares, a COMPUTE_V1 value declaring its inputs,
and compute_v1.txt, the line an Antares build takes; or program.tile), its
inputs as inputs/NAME.npy, the interpreter's outputs as expected/NAME.npy
(or expected/error.txt when the program is meant to fail), and for each
output either the claim that the result is exact or its rigorous bound as
bound/NAME.lo.npy and bound/NAME.hi.npy (and NAME.nan.npy where NaN is
legal); DIR/manifest.json lists every case (schema teval.gen/1,
docs/CAMPAIGNS.md). The same options give the same bytes.

With --census it writes nothing: it prints how many of the cases' kernels
have each construct of docs/SEMANTICS.md that the census lists (dtypes,
ranks, every operator on every dtype it takes, aggregations, index forms,
guarded reads, temps of rank 0, ...; docs/TESTING.md), as a Markdown
table, the constructs never drawn first. With --lang mlir it counts the
generated MLIR functions' ops, ByteIR attribute values, result counts and
element types instead.

options:
  --lang L       antares (default), tile, all (alternating), or mlir
                 (ByteIR op graphs; with --census only)
  --cases N      how many cases (default 100)
  --seed S       the seed (default 0)
  -o DIR         where to write (created)
  --shard I/N    write shard I of N: case k of it is case I + N*k of the
                 seed, so N machines never write the same case
  --profile P, --dtypes LIST, --ops LIST, --no-gather
                 only programs a compiler supports, as for teval fuzz
  --census       print the census of the cases' constructs instead
  -h, --help     this text

exit status: 0 written; 1 a file could not be written; 2 a usage error.
)";

const char* const kFuzzHelp =
    R"(usage: teval fuzz --out DIR [--lang antares|tile|all|mlir] [--seed S]
                  [--cases N | --time DURATION] [--jobs J] [--shard I/N]
                  [--engine ireval|jit|hexagon|all|none]...
                  [--backend-cmd 'COMMAND {program} {inputs} {outdir}']
                  [--compare check|bits] [--fma] [--expect-errors]
                  [--backend-timeout DURATION] [--backend-memory SIZE]
                  [--shrink-time DURATION] [--stop-after N] [--quiet] [--mpi]
       teval fuzz --merge DIR... --out MERGED

A differential campaign: generated programs with random inputs, run by
the ground-truth interpreter and by each backend under test; every
disagreement, crash or hang is a finding, shrunk to a small program,
grouped by signature and saved at once in DIR/findings/SIGNATURE/ (the
program and inputs, every backend's outputs, the shrunk case, and
reproduce.sh). DIR/report.json (schema teval.fuzz/1) and DIR/junit.xml
are kept current. Running the command again on DIR resumes the campaign
(a larger --cases continues the count); SIGINT and SIGTERM stop it with
its summary. See docs/CAMPAIGNS.md.

options:
  --out DIR              the campaign's directory (created, or resumed)
  --lang L               antares (default), tile, all, or mlir (functions
                         of ByteIR ops: the native reference is checked
                         against the decomposition the engines run)
  --seed S               the campaign's seed (default 0)
  --cases N              run this shard's cases 0 .. N-1 (default 1000
                         without --time)
  --time DURATION        stop after this long: 90, 90s, 10m, 1.5h
  --jobs J               worker processes (default 1)
  --shard I/N            run shard I of N (case k is case I + N*k)
  --profile P            generate only what a compiler supports:
                         float32-dense (float32 values, no gathers),
                         float-dense (every float dtype, no gathers) or
                         linalg (what MLIR's linalg expresses: teval emit
                         --to mlir declines none)
  --dtypes LIST          only these dtypes for tensors and values (index
                         arithmetic excepted): float32,float16,...
  --ops LIST             only these operators on values, by the names of
                         docs/KERNEL_JSON.md: add,mul,max,exp,...
  --no-gather            no read at an index computed from another read
  --engine E             teval's own engines to test, bit for bit against
                         the interpreter: ireval, jit, hexagon (the DSP under
                         qemu-hexagon; a kernel calling what its runtime
                         does not define gives no verdict), all (ireval and
                         jit), none; repeatable. Default: all, or none with
                         --backend-cmd
  --backend NAME         a built-in backend: cc:gcc or cc:clang (the case as C,
                         teval emit --to c, compiled at -O3 -march=native and
                         run; fused multiply-adds allowed, as with --fma);
                         mlir:loops, mlir:affine or mlir:vector (the case as
                         linalg, teval emit --to mlir, lowered by MLIR 19's
                         loops pipeline, affine fusion, scalar replacement and
                         super-vectorization, or tiling and linalg
                         vectorization, and run by mlir-cpu-runner-19;
                         bfloat16 left out of the profile unless one is given);
                         torchscript or torchscript:nofuse (the case as a
                         TorchScript function, teval emit --to torchscript,
                         run by python3 and torch with the NNC fuser on, or
                         with no fuser); halide (the case as a Halide 14
                         pipeline, teval emit --to halide, with a schedule
                         drawn from the program's seed and printed in
                         stdout.txt; bfloat16 left out of the profile)
  --backend-cmd CMD      another compiler as a backend: a shell command with
                         {program} (the program file: a COMPUTE_V1 value, or
                         a .tile file), {inputs} (a directory of NAME.npy),
                         {outdir} (where it writes NAME.npy per output),
                         {lang} and {entry} (the Tile function); exit status
                         77 declines a program the compiler does not support
                         (counted as unsupported, never a finding)
  --compare check|bits   judge its outputs by teval check's rigorous verdict
                         (default) or bit for bit against the interpreter
  --fma                  with --compare check: it may fuse a product into the
                         sum or addition it feeds (as teval check --fma)
  --expect-errors        give it programs the interpreter rejects too, and
                         expect it to exit non-zero on them (without it, each
                         case is a program the interpreter accepts)
  --backend-timeout D    its time budget per case (default 60s)
  --backend-env NAME     an environment variable the command reads
                         (repeatable): its value now is recorded in
                         campaign.txt, set for every run of the command,
                         also when resumed, and exported by reproduce.sh
  --backend-memory SIZE  its resident-memory budget, its processes killed past
                         it (default 4G; 0: none)
  --shrink-time D        the time budget of shrinking one finding (default 120s)
  --stop-after N         stop once N cases of this run have findings
  --quiet                no progress and no finding lines on stderr
  --mpi                  run as the ranks of an MPI job (mpirun -n R teval
                         fuzz --mpi ...): rank R runs its shard in
                         DIR/rank-R, rank 0 gathers and merges them into DIR
  --merge DIR...         merge campaign directories (shards) into --out
  -h, --help             this text

exit status: 0 no finding; 1 some finding (or a campaign error); 2 usage.
)";

namespace {

// The generator-profile options --profile NAME, --dtypes LIST, --ops LIST
// and --no-gather, added to \p words (Profile::parse's form); false when
// \p a is none of them. \p value gives the option's value.
template <class Value> bool profile_option(const std::string& a, Value value, std::string& words) {
  auto add = [&](const std::string& w) { words += (words.empty() ? "" : " ") + w; };
  if (a == "--no-gather") {
    add("no-gather");
  } else if (a == "--dtypes") {
    add("dtypes=" + value());
  } else if (a == "--ops") {
    add("ops=" + value());
  } else if (a == "--profile") {
    const std::string& name = value();
    std::optional<verify::Profile> p = verify::Profile::named(name);
    if (!p)
      throw UsageError{"unknown --profile '" + name + "'; teval knows: " + verify::profile_names()};
    add(p->text());
  } else {
    return false;
  }
  return true;
}

verify::Profile parse_profile(const std::string& words) {
  std::string why;
  std::optional<verify::Profile> p = verify::Profile::parse(words, &why);
  if (!p)
    throw UsageError{why};
  return *p;
}

int gen(const std::vector<std::string>& args) {
  verify::CorpusOptions o;
  std::string out, profile;
  bool census = false;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "-h" || a == "--help") {
        std::cout << kGenHelp;
        return 0;
      }
      if (a == "--census") {
        census = true;
        continue;
      }
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size())
          throw UsageError{"option " + a + " needs a value"};
        return args[++i];
      };
      if (profile_option(a, value, profile))
        continue;
      if (i + 1 >= args.size())
        throw UsageError{a.starts_with("-") ? "option " + a + " needs a value"
                                            : "unknown argument '" + a + "'"};
      const std::string& v = args[++i];
      if (a == "--lang") {
        if (v != "antares" && v != "tile" && v != "all" && v != "mlir")
          throw UsageError{"unknown --lang '" + v + "'; teval gen writes: antares, tile, all " +
                           "(and mlir, for --census)"};
        o.space.lang = v;
      } else if (a == "--cases") {
        o.cases = parse_count(a, v, 100'000'000);
      } else if (a == "--seed") {
        o.space.seed = parse_count(a, v);
      } else if (a == "-o" || a == "--out") {
        out = v;
      } else if (a == "--shard") {
        std::tie(o.shard_index, o.shard_count) = parse_shard(a, v);
      } else {
        throw UsageError{"unknown argument '" + a + "'"};
      }
    }
    o.space.profile = parse_profile(profile);
    if (census && (!out.empty() || o.shard_count != 1))
      throw UsageError{"--census writes nothing: it takes no -o or --shard"};
    if (out.empty() && !census)
      throw UsageError{"give the corpus's directory with -o DIR"};
    if (o.space.lang == "mlir" && !census)
      throw UsageError{"--lang mlir is for --census; corpora are of antares and tile programs"};
  } catch (const UsageError& e) {
    std::cerr << "teval gen: " << e.message << "\n(see teval gen --help)\n";
    return 2;
  }
  if (census) {
    verify::Census c = verify::take_census(o.space, o.cases);
    std::cout << "teval gen --census: " << c.kernels << " kernels of " << o.cases << " cases ("
              << o.space.lang << ", seed " << o.space.seed << ")";
    if (c.unreadable)
      std::cout << "; " << c.unreadable << " did not elaborate";
    std::cout << "\n\n" << verify::census_table(c);
    return c.unreadable ? 1 : 0;
  }
  try {
    verify::write_corpus(o, out);
  } catch (const core::Error& e) {
    std::cerr << e.render();
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "teval gen: error: " << e.what() << "\n";
    return 1;
  }
  std::cout << "teval gen: " << o.cases << " cases in " << out << " (manifest " << out
            << "/manifest.json)\n";
  return 0;
}

struct FuzzArgs {
  std::string out;
  std::vector<std::string> merge;
  std::optional<std::string> lang;
  std::optional<uint64_t> seed;
  std::optional<std::pair<uint64_t, uint64_t>> shard;
  std::optional<std::string> profile; // Profile::parse's words
  std::vector<std::string> engines;
  bool engines_given = false;
  std::optional<std::string> backend_cmd;
  std::optional<std::string> compare;
  bool expect_errors = false;
  bool fma = false;
  std::optional<double> backend_timeout;
  std::optional<int64_t> backend_memory;
  std::map<std::string, std::string> backend_env; // --backend-env, from this environment
  bool mpi = false;
  bool builtin = false; // --backend NAME: a built-in command
  std::string backend_name;
  verify::FuzzRun run;
};

FuzzArgs parse_fuzz(const std::vector<std::string>& args) {
  FuzzArgs f;
  bool merging = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size())
        throw UsageError{"option " + a + " needs a value"};
      return args[++i];
    };
    std::string profile_words = f.profile.value_or("");
    if (profile_option(a, value, profile_words)) {
      f.profile = profile_words;
      merging = false;
    } else if (a == "--merge") {
      merging = true;
    } else if (merging && !a.starts_with("-")) {
      f.merge.push_back(a);
    } else if (a == "--out" || a == "-o") {
      f.out = value();
      merging = false;
    } else if (a == "--lang") {
      const std::string& v = value();
      if (v != "antares" && v != "tile" && v != "all" && v != "mlir")
        throw UsageError{"unknown --lang '" + v +
                         "'; teval fuzz generates: antares, tile, all, mlir"};
      f.lang = v;
    } else if (a == "--seed") {
      f.seed = parse_count(a, value());
    } else if (a == "--cases") {
      f.run.cases = parse_count(a, value(), uint64_t{1} << 40);
    } else if (a == "--time") {
      f.run.time =
          std::chrono::milliseconds(static_cast<int64_t>(parse_duration(a, value()) * 1000));
    } else if (a == "--jobs" || a == "-j") {
      f.run.jobs = static_cast<int>(parse_count(a, value(), 256));
      if (f.run.jobs == 0)
        throw UsageError{"--jobs is at least 1"};
    } else if (a == "--shard") {
      f.shard = parse_shard(a, value());
    } else if (a == "--engine") {
      const std::string& v = value();
      f.engines_given = true;
      if (v == "all") {
        f.engines = {"ireval", "jit"};
      } else if (v == "none") {
        f.engines.clear();
      } else if (verify::known_engine(v)) {
        if (std::find(f.engines.begin(), f.engines.end(), v) == f.engines.end())
          f.engines.push_back(v);
      } else {
        throw UsageError{"unknown --engine '" + v +
                         "'; teval fuzz tests: ireval, jit, hexagon, all, none"};
      }
    } else if (a == "--backend") {
      const std::string& name = value();
      std::string command = builtin_backend(name);
      if (command.empty())
        throw UsageError{"unknown --backend '" + name +
                         "'; teval fuzz has: cc:gcc, cc:clang, mlir:loops, mlir:affine, "
                         "mlir:vector, torchscript, torchscript:nofuse, halide"};
      if (f.backend_cmd && !f.builtin)
        throw UsageError{"give --backend or --backend-cmd, not both"};
      f.backend_cmd = command;
      f.builtin = true;
      f.backend_name = name;
    } else if (a == "--backend-cmd") {
      if (f.builtin)
        throw UsageError{"give --backend or --backend-cmd, not both"};
      f.backend_cmd = value();
      if (f.backend_cmd->empty())
        throw UsageError{"--backend-cmd takes a command"};
      for (size_t b = f.backend_cmd->find('{'); b != std::string::npos;
           b = f.backend_cmd->find('{', b + 1)) {
        size_t e = f.backend_cmd->find('}', b);
        std::string word = e == std::string::npos ? "" : f.backend_cmd->substr(b + 1, e - b - 1);
        if (!word.empty() && word.find_first_of(" \t'\"{") == std::string::npos &&
            !verify::known_placeholder(word))
          throw UsageError{"--backend-cmd: unknown placeholder {" + word +
                           "}; use {program}, {inputs}, {outdir}, {lang}, {entry}"};
      }
    } else if (a == "--compare") {
      const std::string& v = value();
      if (v != "check" && v != "bits")
        throw UsageError{"--compare takes check or bits, not '" + v + "'"};
      f.compare = v;
    } else if (a == "--expect-errors") {
      f.expect_errors = true;
    } else if (a == "--fma") {
      f.fma = true;
    } else if (a == "--backend-timeout") {
      f.backend_timeout = parse_duration(a, value());
    } else if (a == "--backend-memory") {
      const std::string& v = value();
      f.backend_memory = v == "0" ? 0 : parse_bytes(a, v);
    } else if (a == "--backend-env") {
      const std::string& name = value();
      const char* v = std::getenv(name.c_str());
      if (name.empty() || name.find_first_of("= \t\n") != std::string::npos)
        throw UsageError{"--backend-env takes the name of an environment variable"};
      if (!v)
        throw UsageError{"--backend-env " + name + ": it is not set in this environment"};
      f.backend_env[name] = v;
    } else if (a == "--shrink-time") {
      f.run.shrink.max_time =
          std::chrono::milliseconds(static_cast<int64_t>(parse_duration(a, value()) * 1000));
    } else if (a == "--stop-after") {
      f.run.stop_after = parse_count(a, value());
      if (f.run.stop_after == 0)
        throw UsageError{"--stop-after is at least 1"};
    } else if (a == "--mpi") {
      f.mpi = true;
    } else if (a == "--quiet") {
      f.run.verbose = false;
    } else {
      throw UsageError{"unknown argument '" + a + "'"};
    }
  }
  if (f.out.empty())
    throw UsageError{"give the campaign's directory with --out DIR"};
  if (!f.merge.empty() || merging) {
    if (f.merge.empty())
      throw UsageError{"--merge takes the campaign directories to merge"};
    return f;
  }
  bool backend_options = f.compare || f.expect_errors || f.fma || f.backend_timeout ||
                         f.backend_memory || !f.backend_env.empty();
  if (backend_options && !f.backend_cmd)
    throw UsageError{"--compare, --fma, --expect-errors, --backend-timeout, --backend-memory and "
                     "--backend-env are options of --backend-cmd"};
  // C compilers contract a * b + c into fused multiply-adds by default
  // (GCC in GNU mode, Clang within expressions): the built-in backends
  // allow it, as teval check --fma does.
  if (f.builtin && f.backend_name.starts_with("cc:") && f.compare != "bits")
    f.fma = true;
  if (f.builtin && !f.profile)
    f.profile = backend_profile(f.backend_name);
  if (f.fma && f.compare == "bits")
    throw UsageError{"--fma is a freedom of --compare check, not of --compare bits"};
  return f;
}

// The settings of a new campaign from the command line.
verify::CampaignSettings settings_of(const FuzzArgs& f) {
  verify::CampaignSettings s;
  s.space.lang = f.lang.value_or("antares");
  s.space.seed = f.seed.value_or(0);
  s.space.profile = parse_profile(f.profile.value_or(""));
  // A compiler not asked about errors is given no program the interpreter
  // rejects: no case is wasted.
  s.space.valid_only = f.backend_cmd && !f.expect_errors;
  if (f.shard)
    std::tie(s.shard_index, s.shard_count) = *f.shard;
  s.target.engines = f.engines_given ? f.engines
                     : f.backend_cmd ? std::vector<std::string>{}
                                     : std::vector<std::string>{"ireval", "jit"};
  if (f.backend_cmd) {
    verify::ExternalBackend b;
    b.command = *f.backend_cmd;
    if (f.backend_timeout)
      b.timeout = std::chrono::milliseconds(static_cast<int64_t>(*f.backend_timeout * 1000));
    if (f.backend_memory)
      b.memory = *f.backend_memory;
    b.environment = f.backend_env;
    s.target.external = b;
    s.target.compare = f.compare.value_or("check") == "bits" ? verify::Target::Compare::Bits
                                                             : verify::Target::Compare::Check;
    s.target.expect_errors = f.expect_errors;
    s.target.fma = f.fma;
  }
  return s;
}

// A resumed campaign keeps its saved settings; options that would change
// them are a usage error.
verify::CampaignSettings resumed_settings(const FuzzArgs& f, const verify::CampaignSettings& saved,
                                          const std::string& dir) {
  auto differs = [&](const std::string& option) {
    return UsageError{dir + " holds a campaign with other " + option +
                      "; resume it without the option, or use another --out"};
  };
  if (f.lang && *f.lang != saved.space.lang)
    throw differs("--lang");
  if (f.seed && *f.seed != saved.space.seed)
    throw differs("--seed");
  if (f.profile && parse_profile(*f.profile).text() != saved.space.profile.text())
    throw differs("--profile, --dtypes, --ops or --no-gather");
  if (f.shard && (f.shard->first != saved.shard_index || f.shard->second != saved.shard_count))
    throw differs("--shard");
  verify::CampaignSettings given = settings_of(f);
  if (f.engines_given && given.target.engines != saved.target.engines)
    throw differs("--engine");
  if (f.backend_cmd && (!saved.target.external || saved.target.external->command != *f.backend_cmd))
    throw differs("--backend-cmd");
  if (f.fma && !saved.target.fma)
    throw differs("--fma");
  if (!f.backend_env.empty() &&
      (!saved.target.external || saved.target.external->environment != f.backend_env))
    throw differs("--backend-env (or values of its variables)");
  return saved;
}

int fuzz(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") {
      std::cout << kFuzzHelp;
      return 0;
    }
  FuzzArgs f;
  verify::CampaignSettings settings;
  MpiRank me;
  std::string out; // with --mpi, the directory of the merged campaign
  try {
    f = parse_fuzz(args);
    if (!f.merge.empty()) {
      verify::FuzzSummary s = verify::merge_campaigns(f.merge, f.out);
      std::cout << verify::summary_text(s, f.out) << std::flush;
      return s.findings.empty() ? 0 : 1;
    }
    if (f.mpi) {
      if (!mpi_available())
        throw UsageError{"--mpi: this teval was built without MPI (install libopenmpi-dev)"};
      me = mpi_rank();
      // Rank R of S runs shard I*S + R of N*S, in its own directory.
      auto [i, n] = f.shard.value_or(std::pair<uint64_t, uint64_t>{0, 1});
      f.shard = {i * me.size + me.rank, n * me.size};
      out = f.out;
      f.out = (std::filesystem::path(out) / ("rank-" + std::to_string(me.rank))).string();
      if (me.rank != 0)
        f.run.verbose = false;
    }
    std::optional<verify::CampaignSettings> saved = verify::load_settings(f.out);
    settings = saved ? resumed_settings(f, *saved, f.out) : settings_of(f);
    if (!f.run.cases && !f.run.time)
      f.run.cases = 1000;
  } catch (const UsageError& e) {
    std::cerr << "teval fuzz: " << e.message << "\n(see teval fuzz --help)\n";
    return 2;
  } catch (const core::Error& e) {
    std::cerr << e.render();
    return 1;
  }
  if (settings.target.engines.empty() && !settings.target.external) {
    std::cerr << "teval fuzz: nothing to test: --engine none and no --backend-cmd\n"
                 "(see teval fuzz --help)\n";
    return 2;
  }
  settings.target.scratch_dir =
      std::filesystem::absolute(std::filesystem::path(f.out) / "tmp").string();
  // Reproduce commands name this teval by its path, so they run as pasted.
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    f.run.teval = self.string();
  try {
    verify::FuzzSummary s = verify::run_fuzz(f.out, settings, f.run);
    int status = s.findings.empty() ? 0 : 1;
    if (f.mpi)
      return mpi_gather(me, f.out, out, s);
    std::cout << verify::summary_text(s, f.out) << std::flush;
    return status;
  } catch (const core::Error& e) {
    std::cerr << e.render();
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "teval fuzz: error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace

int gen_command(const std::vector<std::string>& args) {
  return gen(args);
}

int fuzz_command(const std::vector<std::string>& args) {
  return fuzz(args);
}

} // namespace teval::tools
