// One case of a campaign and its sandboxed check (see fuzz_case.h).
#include "verify/fuzz_case.h"

#include "core/error.h"
#include "core/format.h"
#include "core/npy.h"
#include "interp/backends.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "jit/hexagon/hexagon.h"
#include "jit/jit.h"
#include "oracle/bounds.h"
#include "oracle/evaluate.h"
#include "oracle/verdict.h"
#include "parser/antares/antares.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"
#include "verify/generators.h"
#include "verify/sandbox.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace teval::verify {

namespace fs = std::filesystem;

namespace {

// SplitMix64's finaliser: the stream of case i of a seed.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The outcome of one backend as files: NAME.npy per output, or error.txt.
void save_outcome(const fs::path& dir, const core::Kernel& k, const core::Outcome& o) {
  fs::create_directories(dir);
  if (o.hang) {
    write_text_file((dir / "hang.txt").string(), "stopped: it ran past its time budget\n");
    return;
  }
  if (!o.error.empty()) {
    write_text_file((dir / "error.txt").string(), o.error);
    return;
  }
  for (size_t i = 0; i < o.outputs.size() && i < k.outputs.size(); ++i)
    core::write_npy(o.outputs[i], (dir / (k.tensors[k.outputs[i]].name + ".npy")).string());
}

std::unique_ptr<core::Backend> make_engine(const std::string& name) {
  if (name == "ireval")
    return interp::ireval_backend();
  if (name == "jit")
    return jit::jit_backend();
  if (name == "hexagon")
    return jit::hexagon_backend();
  TEVAL_ASSERT(false, "unknown engine " + name);
  return nullptr;
}

std::string serialize(const CaseResult& r) {
  std::string s = std::to_string(r.reference_error) + std::to_string(r.external_skipped) +
                  std::to_string(r.engine_unsupported) + std::to_string(r.external_declined) + "\n";
  if (r.disagreement)
    s += r.disagreement->kind + "\n" + r.disagreement->backend + "\n" + r.disagreement->what;
  return s;
}

CaseResult deserialize(const std::string& s) {
  CaseResult r;
  r.reference_error = s.size() > 0 && s[0] == '1';
  r.external_skipped = s.size() > 1 && s[1] == '1';
  r.engine_unsupported = s.size() > 2 && s[2] == '1';
  r.external_declined = s.size() > 3 && s[3] == '1';
  size_t a = s.find('\n');
  if (a == std::string::npos || a + 1 >= s.size())
    return r;
  size_t b = s.find('\n', a + 1);
  size_t c = s.find('\n', b + 1);
  r.disagreement = Disagreement{s.substr(a + 1, b - a - 1), s.substr(b + 1, c - b - 1),
                                c == std::string::npos ? "" : s.substr(c + 1)};
  return r;
}

// A temporary directory below \p parent, removed with the object unless
// kept.
class WorkDir {
public:
  WorkDir(const std::string& fixed, const std::string& parent) {
    if (!fixed.empty()) {
      path_ = fixed;
      keep_ = true;
      fs::create_directories(path_);
      return;
    }
    fs::create_directories(parent);
    std::string pattern = (fs::path(parent) / "teval-case-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw core::Error(core::ErrorKind::Input, parent, "cannot make a directory here");
    path_ = pattern;
  }
  ~WorkDir() {
    std::error_code ec;
    if (!keep_)
      fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

private:
  fs::path path_;
  bool keep_ = false;
};

// Judges the external backend's outputs against the interpreter's.
std::optional<Disagreement> judge_external(const core::Kernel& k,
                                           std::span<const core::Tensor> inputs,
                                           const core::Outcome& reference,
                                           const std::map<std::string, core::Tensor>& got,
                                           Target::Compare compare, bool fma) {
  std::vector<core::Tensor> exact;
  std::vector<oracle::BoundTensor> bound;
  std::string fallback;
  if (compare == Target::Compare::Check) {
    try {
      oracle::Evaluation values = oracle::evaluate(k, inputs, {.fma = fma});
      exact = std::move(values.exact);
      bound = std::move(values.bounds);
    } catch (const core::Error& e) {
      // A program the oracle cannot bound (an exact product too long) is
      // judged bit for bit.
      fallback =
          "(judged bit for bit: the oracle cannot bound this program: " + e.message() + ")\n";
      compare = Target::Compare::Bits;
    }
  }
  for (size_t i = 0; i < k.outputs.size(); ++i) {
    const std::string& name = k.tensors[k.outputs[i]].name;
    const core::Tensor& want = reference.outputs[i];
    const core::Tensor& have = got.at(name);
    if (have.dtype() != want.dtype())
      return Disagreement{"dtype", "external",
                          fallback + "output " + name + " is " +
                              std::string(core::name(have.dtype())) + ", the program's is " +
                              std::string(core::name(want.dtype()))};
    if (have.shape() != want.shape())
      return Disagreement{"shape", "external",
                          fallback + "output " + name + " has shape " +
                              core::to_string(have.shape()) + ", the program's is " +
                              core::to_string(want.shape())};
    if (compare == Target::Compare::Check) {
      oracle::OutputVerdict v = oracle::judge(name, have, want, exact[i], bound[i], {});
      if (v.status != oracle::Status::Mismatch)
        continue;
      oracle::explain(v, k, inputs, i);
      return Disagreement{v.kind, "external", oracle::describe(v)};
    }
    int64_t at = core::first_difference(want, have);
    if (at < 0)
      continue;
    return Disagreement{"value", "external",
                        fallback + "output " + name +
                            " differs from the interpreter's at flat index " + std::to_string(at) +
                            ": " + core::format_element(have, at) +
                            " where the interpreter gives " + core::format_element(want, at)};
  }
  return std::nullopt;
}

const char* external_kind(ExternalRun::End e) {
  switch (e) {
  case ExternalRun::End::Ok:
    return "";
  case ExternalRun::End::Crash:
    return "crash";
  case ExternalRun::End::Exit:
    return "exit";
  case ExternalRun::End::Hang:
    return "hang";
  case ExternalRun::End::Memory:
    return "memory";
  case ExternalRun::End::Missing:
    return "missing-output";
  case ExternalRun::End::Unreadable:
    return "unreadable-output";
  case ExternalRun::End::Declined:
    return "";
  }
  return "";
}

// The body of the sandboxed check.
CaseResult check_in_child(const Program& p, uint64_t input_seed, const Target& target,
                          const std::string& save_dir, Stage& stage) {
  CaseResult result;
  stage.begin("interp", target.stage_budget);
  const fs::path save = save_dir;
  Elaborated elaborated;
  if (!save_dir.empty())
    write_program_files(p, save_dir);
  try {
    elaborated = elaborate_file(p, program_file_name(p));
  } catch (const core::Error& e) {
    result.disagreement = Disagreement{"elaboration", "interp",
                                       "the generated program does not elaborate:\n" + e.render()};
    return result;
  }
  const core::Kernel& kernel = elaborated.kernel;
  std::vector<core::Tensor> inputs = interp::make_inputs(kernel, elaborated.constants, input_seed);
  std::vector<std::string> input_names, output_names;
  for (int id : interp::input_ids(kernel))
    input_names.push_back(kernel.tensors[id].name);
  for (int id : kernel.outputs)
    output_names.push_back(kernel.tensors[id].name);
  if (!save_dir.empty())
    fs::create_directories(save / "inputs");
  if (!save_dir.empty())
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!elaborated.constants.count(input_names[i])) // an MLIR constant is in the program
        core::write_npy(inputs[i], (save / "inputs" / (input_names[i] + ".npy")).string());
  auto interp = interp::interpreter_backend();
  core::Outcome reference = core::evaluate(*interp, kernel, inputs);
  result.reference_error = !reference.error.empty();
  if (!save_dir.empty())
    save_outcome(save / "expected", kernel, reference);
  if ((result.disagreement = native_disagreement(elaborated, inputs, reference)))
    return result;

  for (const std::string& engine : target.engines) {
    std::chrono::milliseconds budget = core::hang_budget(reference.seconds);
    stage.begin(engine, target.stage_budget + budget);
    auto backend = make_engine(engine);
    core::Outcome o = core::evaluate(*backend, kernel, inputs, budget);
    if (o.unsupported) { // no verdict, counted
      result.engine_unsupported = true;
      continue;
    }
    if (!save_dir.empty())
      save_outcome(save / "outputs" / engine, kernel, o);
    result.disagreement = compare_outcomes(kernel, "interp", reference, engine, o, budget);
    if (result.disagreement)
      return result;
  }

  if (!target.external)
    return result;
  if (result.reference_error && !target.expect_errors) {
    result.external_skipped = true;
    return result;
  }
  const ExternalBackend& ext = *target.external;
  stage.begin("external", ext.timeout + std::chrono::milliseconds(5000));
  WorkDir work(save_dir.empty() ? "" : (save / "outputs" / "external").string(),
               target.scratch_dir);
  write_program_files(p, work.path().string());
  fs::create_directories(work.path() / "inputs");
  fs::create_directories(work.path() / "out");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!elaborated.constants.count(input_names[i])) // an MLIR constant is in the program
      core::write_npy(inputs[i], (work.path() / "inputs" / (input_names[i] + ".npy")).string());
  const fs::path at = fs::absolute(work.path());
  std::map<std::string, std::string> placeholders{{"program", (at / program_file_name(p)).string()},
                                                  {"inputs", (at / "inputs").string()},
                                                  {"outdir", (at / "out").string()},
                                                  {"lang", p.lang},
                                                  {"entry", p.entry}};
  ExternalRun run = run_external(ext, work.path().string(), placeholders, output_names);
  if (run.end == ExternalRun::End::Declined) { // no verdict, counted
    result.external_declined = true;
    return result;
  }
  if (result.reference_error) {
    if (run.end == ExternalRun::End::Exit)
      return result; // it failed, as it should
    if (run.end == ExternalRun::End::Ok || run.end == ExternalRun::End::Missing ||
        run.end == ExternalRun::End::Unreadable) {
      result.disagreement =
          Disagreement{"no-error", "external",
                       "the command exited 0 where the program is an error:\n" + reference.error};
      return result;
    }
  }
  if (run.end != ExternalRun::End::Ok) {
    result.disagreement = Disagreement{external_kind(run.end), "external", run.detail};
    return result;
  }
  result.disagreement =
      judge_external(kernel, inputs, reference, run.outputs, target.compare, target.fma);
  return result;
}

} // namespace

std::string case_lang(const CaseSpace& space, uint64_t index) {
  if (space.lang == "all")
    return index % 2 == 0 ? "antares" : "tile";
  return space.lang;
}

Case make_case(const CaseSpace& space, uint64_t index) {
  std::string lang = case_lang(space, index);
  TEVAL_ASSERT(lang == "antares" || lang == "tile" || lang == "mlir", "no generator for " + lang);
  rc::Gen<Program> gen = lang == "tile"   ? tile_program()
                         : lang == "mlir" ? mlir_program()
                                          : antares_program();
  Case c;
  c.index = index;
  const bool choose = !space.profile.empty() || space.valid_only;
  for (int attempt = 0; attempt < (choose ? kProfileAttempts : 1); ++attempt) {
    // Attempt 0 is the case without a profile.
    rc::Random random(mix(space.seed ^ mix(index) ^ (attempt ? mix(~uint64_t(attempt)) : 0)));
    c.program = gen(random.split(), static_cast<int>(index % 100)).value();
    c.input_seed = random.next() & 0xffffffffu;
    if (!choose)
      break;
    try {
      Elaborated e = elaborate_program(c.program);
      if (!admits(space.profile, e.kernel))
        continue;
      if (!space.valid_only)
        break;
      auto interp = interp::interpreter_backend();
      std::vector<core::Tensor> inputs = interp::make_inputs(e.kernel, e.constants, c.input_seed);
      if (core::evaluate(*interp, e.kernel, inputs).error.empty())
        break;
    } catch (const core::Error&) { // a program that does not elaborate: another
    }
  }
  return c;
}

std::string program_file_name(const Program& p) {
  return "program." + p.lang;
}

void write_text_file(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush())
    throw core::Error(core::ErrorKind::Input, path, "cannot write this file");
}

std::string program_file_text(const Program& p) {
  return p.lang == "antares" ? compute_v1_value(p) + "\n" : p.text;
}

Elaborated elaborate_file(const Program& p, const std::string& name) {
  return elaborate_program(p, name, program_file_text(p));
}

void write_program_files(const Program& p, const std::string& dir) {
  fs::path d = dir;
  write_text_file((d / program_file_name(p)).string(), program_file_text(p));
  if (p.lang == "antares")
    write_text_file((d / "compute_v1.txt").string(), compute_v1_line(p) + "\n");
}

bool known_engine(const std::string& name) {
  return name == "ireval" || name == "jit" || name == "hexagon";
}

CaseResult check_case(const Program& p, uint64_t input_seed, const Target& target,
                      const std::string& save_dir) {
  ChildResult c = run_in_child(
      [&](Stage& stage) {
        return serialize(check_in_child(p, input_seed, target, save_dir, stage));
      },
      target.stage_budget);
  if (c.end == ChildResult::End::Returned)
    return deserialize(c.payload);
  CaseResult r;
  std::string backend = c.stage.empty() ? "interp" : c.stage;
  bool hang = c.end == ChildResult::End::Hung;
  r.disagreement = Disagreement{
      hang ? "hang" : "crash", backend,
      (backend == "external" ? "the case's check around the command " : backend + " ") +
          (hang ? "hung: " : "crashed: ") + c.detail};
  return r;
}

} // namespace teval::verify
