// `teval run`, `teval lower` and `teval jit`: evaluate a program, or print
// its loop nest or compiled code (an MLIR function's run:
// tools/teval/run_mlir.cpp).
#include "tools/teval/run_command.h"

#include "core/error.h"
#include "core/files.h"
#include "core/format.h"
#include "core/interrupt.h"
#include "core/kernel.h"
#include "core/kernel_json.h"
#include "core/lower.h"
#include "core/npy.h"
#include "core/progress.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "jit/hexagon/hexagon.h"
#include "jit/jit.h"
#include "ops/decompose.h"
#include "oracle/exact_eval.h"
#include "parser/antares/antares.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"
#include "tools/teval/array_print.h"
#include "tools/teval/cli_support.h"
#include "tools/teval/run_inputs.h"
#include "tools/teval/run_options.h"
#include "tools/teval/run_program.h"
#include "verify/emit_c.h"
#include "verify/emit_halide.h"
#include "verify/emit_mlir.h"
#include "verify/emit_torchscript.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <unistd.h>

namespace teval::tools {

namespace run_detail {

// The compiler options of \p o's float freedoms.
jit::JitOptions compiler_options(const Options& o) {
  jit::JitOptions options;
  options.any_order = o.any_order;
  options.fma = o.fma;
  return options;
}

bool ends_with(const std::optional<std::string>& file, std::string_view suffix) {
  return file && file->size() > suffix.size() &&
         file->compare(file->size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_tile(const Options& o) {
  return o.lang.empty() ? ends_with(o.file, ".tile") : o.lang == "tile";
}

bool is_mlir(const Options& o) {
  return o.lang.empty() ? ends_with(o.file, ".mlir") : o.lang == "mlir";
}

std::shared_ptr<const core::SourceFile> source_file(const Options& o) {
  return o.file ? core::SourceFile::make(*o.file, read_source(*o.file))
                : core::SourceFile::make("<command line>", *o.text);
}

// Every -i must name an input of the program, \p names: a misspelt name
// would otherwise run the program on random data for the input it meant.
void check_input_names(const Options& o, const std::set<std::string>& names) {
  for (const InputArg& in : o.inputs) {
    if (names.count(in.name))
      continue;
    std::string list;
    for (const std::string& n : names)
      list += (list.empty() ? "" : ", ") + n;
    throw core::Error(core::ErrorKind::Name, "-i " + in.name + "=" + in.value,
                      "the program has no input `" + in.name +
                          "`; its inputs are: " + (list.empty() ? std::string("none") : list));
  }
}

core::Kernel elaborate(const Options& o, Sources& sources,
                       std::map<std::string, core::Tensor>& given,
                       const std::vector<std::string>& values = {},
                       std::vector<std::string>* found = nullptr) {
  sources.file = source_file(o);
  if (is_mlir(o))
    return decomposition_kernel(graph_with_values(o, sources, given, values, found), sources,
                                given);
  // The inputs a name may be given for: those the program reads, and those
  // it declares (an input_dict entry, a function's parameter) without
  // reading them.
  std::set<std::string> names;
  core::Kernel kernel;
  if (is_tile(o)) {
    ast::Program program = parser::read_tile(*sources.file);
    for (const ast::StmtPtr& s : program.statements)
      if (const auto* f = std::get_if<ast::Function>(&s->node))
        for (const ast::Param& p : f->params)
          names.insert(p.name);
    kernel = parser::elaborate_tile(program, o.entry, input_types(o.inputs, {}, given), o.params);
  } else {
    if (!o.entry.empty() || !o.params.empty())
      throw UsageError{"--entry and -p apply to Tile and MLIR functions"};
    parser::AntaresSource source = parser::read_antares(*sources.file);
    std::map<std::string, parser::InputType> declared = parser::declared_inputs(source);
    for (const auto& [name, type] : declared)
      names.insert(name);
    kernel = parser::elaborate_antares(source, input_types(o.inputs, declared, given));
  }
  for (const core::TensorDecl& t : kernel.tensors)
    if (t.role == core::TensorRole::Input)
      names.insert(t.name);
  check_input_names(o, names);
  return kernel;
}

// `teval lower` and `teval jit`: print what a program becomes.
int show(const Options& o, Command command) {
  if (o.out_dir || o.save_inputs || o.dump_values || o.print || o.dump_kernel ||
      o.engine != "interp" || o.exact || o.seed != 0 || o.timeout > 0 || o.threads > 0 ||
      o.no_cache || (command == Command::Lower && (!o.emit.empty() || o.target != "host")) ||
      (command != Command::Lower && (o.schedule || o.json)) || (o.json && o.schedule) ||
      (command != Command::Jit && (o.any_order || o.fma)) ||
      (command != Command::Emit && (!o.to.empty() || o.input_dir || o.output_dir || o.vectorize)))
    throw UsageError{"this command takes the program options only (FILE or -e, --lang, "
                     "--entry, -p, -i, --max-memory)" +
                     std::string(command == Command::Jit ? " and --target, --emit, --order, --fma"
                                 : command == Command::Emit ? " and --to"
                                                            : " and --schedule or --json")};
  if (command == Command::Emit && o.to != "c" && o.to != "mlir" && o.to != "torchscript" &&
      o.to != "halide")
    throw UsageError{o.to.empty() ? "give the language with --to c, --to mlir, --to torchscript "
                                    "or --to halide"
                                  : "unknown --to '" + o.to +
                                        "'; teval emit writes: c, mlir, torchscript, halide"};
  if ((o.input_dir || o.output_dir || o.vectorize) && o.to != "mlir")
    throw UsageError{"--input-dir, --output-dir and --vectorize apply to teval emit --to mlir"};
  if (o.emit == "obj" && isatty(STDOUT_FILENO))
    throw UsageError{"--emit obj writes an object file to standard output: redirect it to a file"};
  Sources sources;
  std::map<std::string, core::Tensor> given;
  if (o.json || command == Command::Emit) {
    core::Kernel kernel = elaborate(o, sources, given);
    // What remains of the given inputs once the user's are taken out is the
    // program's own constants (an MLIR function's).
    for (const InputArg& a : o.inputs)
      given.erase(a.name);
    if (o.json) {
      std::cout << core::kernel_json(kernel, given);
    } else if (o.to == "mlir") {
      verify::MlirOptions m{o.input_dir.value_or("."), o.output_dir.value_or("."), o.vectorize};
      try {
        std::cout << verify::emit_mlir(kernel, sources.file->name(), m, given);
      } catch (const verify::Inexpressible& e) {
        std::cerr << "teval emit: cannot be expressed in MLIR's linalg: " << e.what() << "\n";
        return 3;
      }
    } else if (o.to == "torchscript") {
      try {
        std::cout << verify::emit_torchscript(kernel, sources.file->name(), given);
      } catch (const verify::Inexpressible& e) {
        std::cerr << "teval emit: cannot be expressed in TorchScript: " << e.what() << "\n";
        return 3;
      }
    } else if (o.to == "halide") {
      try {
        std::cout << verify::emit_halide(kernel, sources.file->name(), given);
      } catch (const verify::Inexpressible& e) {
        std::cerr << "teval emit: cannot be expressed in Halide: " << e.what() << "\n";
        return 3;
      }
    } else {
      std::cout << verify::emit_c(kernel, sources.file->name(), given);
    }
    return 0;
  }
  if (command == Command::Lower && is_mlir(o)) {
    sources.file = source_file(o);
    std::cout << ops::decompose(elaborate_graph(o, *sources.file, given)).program;
    return 0;
  }
  core::Kernel kernel = elaborate(o, sources, given);
  core::LoopNest nest = core::lower(kernel);
  if (command == Command::Lower && o.schedule) {
    std::string steps;
    core::LoopNest scheduled = jit::Jit(compiler_options(o)).schedule(nest, &steps);
    std::istringstream lines(steps);
    for (std::string line; std::getline(lines, line);)
      std::cout << "// " << line << "\n";
    std::cout << core::to_string(scheduled);
    return 0;
  }
  if (command == Command::Lower) {
    std::cout << core::to_string(nest);
    return 0;
  }
  if (o.target == "hexagon") {
    jit::HexagonCompiler dsp(compiler_options(o));
    std::cout << (o.emit == "asm"   ? dsp.emit_asm(nest)
                  : o.emit == "obj" ? dsp.emit_obj(nest)
                                    : dsp.emit_llvm(nest));
    return 0;
  }
  jit::Jit jit(compiler_options(o));
  std::cout << (o.emit == "asm"   ? jit.emit_asm(nest)
                : o.emit == "obj" ? jit.emit_obj(nest)
                                  : jit.emit_llvm(nest));
  return 0;
}

std::vector<core::Tensor> evaluate(const Options& o, const core::Kernel& kernel,
                                   const std::vector<core::Tensor>& inputs) {
  if (o.exact)
    return oracle::run_exact(kernel, inputs);
  if (o.engine == "ireval")
    return interp::ireval(core::lower(kernel), inputs);
  if (o.engine == "jit") {
    // The user's path: every core unless told, and no watermark copies
    // (the tests run with them).
    jit::JitOptions options = compiler_options(o);
    options.threads = o.threads > 0
                          ? o.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    options.watermarks = false;
    options.cache = !o.no_cache; // a CI run compiles each kernel once
    return jit::Jit(options).compile(core::lower(kernel))->run(inputs);
  }
  if (o.engine == "hexagon") {
    // The simulator gets the run's time budget (60 s without --timeout).
    auto budget = std::chrono::milliseconds(o.timeout > 0 ? static_cast<int64_t>(o.timeout * 1000)
                                                          : int64_t{60000});
    return jit::HexagonCompiler(compiler_options(o))
        .compile(core::lower(kernel), o.file ? *o.file : "<command line>")
        ->run(inputs, budget);
  }
  if (o.engine == "interp-definitional")
    return interp::run(kernel, inputs, {.blocks = false});
  return interp::run(kernel, inputs);
}

// Runs \p f, within --timeout when one is given; on a terminal, a long
// evaluation shows how far it has come.
void evaluate_within(const Options& o, const core::SourceFile& file,
                     const std::function<void()>& f) {
  core::Progress progress;
  core::ProgressScope progress_scope(progress);
  std::optional<core::ProgressLine> progress_line;
  if (!o.no_progress)
    progress_line.emplace(progress, "teval run");
  if (o.timeout <= 0)
    return f();
  auto budget = std::chrono::milliseconds(static_cast<int64_t>(o.timeout * 1000));
  if (!core::run_within(budget, f))
    throw core::Error(core::ErrorKind::Limit, file.name(),
                      "the evaluation did not finish within --timeout " + o.timeout_text +
                          " s; nothing was written");
}

int run(const Options& o) {
  if (!o.emit.empty() || o.target != "host")
    throw UsageError{"--emit and --target apply to teval jit"};
  if (!o.to.empty())
    throw UsageError{"--to applies to teval emit"};
  if (o.input_dir || o.output_dir || o.vectorize)
    throw UsageError{"--input-dir, --output-dir and --vectorize apply to teval emit --to mlir"};
  if (o.schedule || o.json)
    throw UsageError{std::string(o.schedule ? "--schedule" : "--json") + " applies to teval lower"};
  if (o.threads > 0 && o.engine != "jit")
    throw UsageError{"--threads applies to --engine jit"};
  if (o.no_cache && o.engine != "jit")
    throw UsageError{"--no-cache applies to --engine jit"};
  if ((o.any_order || o.fma) && o.engine != "jit" && o.engine != "hexagon")
    throw UsageError{"--order any and --fma apply to the compiled engines (--engine jit or "
                     "hexagon): the interpreter's order is the sequential one"};
  if (o.exact && o.engine != "interp")
    throw UsageError{"--exact is a mode of the interpreter; it takes no --engine"};
  if (is_mlir(o))
    return run_mlir(o);
  if (o.dump_values)
    throw UsageError{"--dump-values applies to MLIR functions"};
  Sources sources;
  std::map<std::string, core::Tensor> given;
  core::Kernel kernel = elaborate(o, sources, given);
  if (o.dump_kernel)
    std::cout << core::to_string(kernel);

  // Asked by role, not by kernel.find(): a scatter's result shares the name
  // of the input it starts from.
  auto reads = [&](const std::string& name) {
    return std::any_of(kernel.tensors.begin(), kernel.tensors.end(), [&](const auto& t) {
      return t.name == name && t.role == core::TensorRole::Input;
    });
  };
  for (const InputArg& in : o.inputs) {
    if (!reads(in.name))
      std::cerr << "teval run: warning: the program does not read input `" << in.name
                << "` given with -i\n";
  }
  std::vector<core::Tensor> inputs = interp::make_inputs(kernel, given, o.seed);
  std::vector<core::Tensor> outputs;
  evaluate_within(o, *sources.file, [&] { outputs = evaluate(o, kernel, inputs); });
  // Every file is written, or none (core::OutputSet).
  core::OutputSet files;
  std::deque<core::Tensor> widened; // none: kernels have no minifloats
  if (o.out_dir)
    for (size_t i = 0; i < outputs.size(); ++i)
      add_npy(files, *o.out_dir, kernel.tensors[kernel.outputs[i]].name, outputs[i], widened);
  std::vector<int> ids = interp::input_ids(kernel);
  if (o.save_inputs)
    for (size_t i = 0; i < inputs.size(); ++i)
      add_npy(files, *o.save_inputs, kernel.tensors[static_cast<size_t>(ids[i])].name, inputs[i],
              widened);
  files.commit();
  if (o.print || !o.out_dir)
    for (size_t i = 0; i < outputs.size(); ++i)
      std::cout << kernel.tensors[kernel.outputs[i]].name << " = " << format_array(outputs[i])
                << "\n";
  return 0;
}

} // namespace run_detail

using namespace run_detail;

LoadedProgram load_program(const std::vector<std::string>& args, const std::string& command,
                           const std::vector<std::string>& values,
                           const std::vector<std::pair<std::string, core::Tensor>>& givens) {
  Options o = parse_options(args);
  only_program_options(args, command);
  if (o.max_memory)
    core::set_memory_budget(o.max_memory);
  LoadedProgram p;
  std::map<std::string, core::Tensor> given;
  Sources sources;
  std::vector<std::string> found;
  p.graph_values = is_mlir(o);
  if (p.graph_values) {
    sources.file = source_file(o);
    core::Graph g = graph_with_values(o, sources, given, values, &found);
    for (const auto& [name, t] : givens)
      give_value(g, given, name, t);
    try {
      p.kernel = decomposition_kernel(g, sources, given);
    } catch (const core::Error& e) {
      if (e.kind() != core::ErrorKind::Unsupported && e.kind() != core::ErrorKind::Limit)
        throw;
      // No kernel: the native references are the function's meaning.
      p.native_reason = e.message();
      p.inputs = graph_inputs(g, given, o.seed);
      p.native = std::move(g);
    }
  } else {
    if (!givens.empty())
      throw UsageError{"--given applies to MLIR functions, whose values have names"};
    p.kernel = elaborate(o, sources, given, values, &found);
  }
  // The values that became outputs, after the function's own.
  size_t first = (p.native ? p.native->outputs.size() : p.kernel.outputs.size()) - found.size();
  for (const std::string& name : found)
    p.values.emplace(name, first++);
  p.file = sources.file;
  p.decomposition = sources.decomposition;
  if (p.native) // elaborate_graph checked the input names
    return p;
  for (const InputArg& in : o.inputs)
    if (std::none_of(p.kernel.tensors.begin(), p.kernel.tensors.end(), [&](const auto& t) {
          return t.name == in.name && t.role == core::TensorRole::Input;
        }))
      std::cerr << command << ": warning: the program does not read input `" << in.name
                << "` given with -i\n";
  p.inputs = interp::make_inputs(p.kernel, given, o.seed);
  return p;
}

int run_command(const std::vector<std::string>& args, Command command) {
  const char* name = command == Command::Run     ? "teval run"
                     : command == Command::Lower ? "teval lower"
                     : command == Command::Emit  ? "teval emit"
                                                 : "teval jit";
  Options o;
  try {
    o = parse_options(args);
  } catch (const UsageError& e) {
    std::cerr << name << ": " << e.message << "\n(see " << name << " --help)\n";
    return 2;
  }
  if (o.help) {
    std::cout << (command == Command::Run     ? kRunHelp
                  : command == Command::Lower ? kLowerHelp
                  : command == Command::Emit  ? kEmitHelp
                                              : kJitHelp);
    return 0;
  }
  if (o.max_memory)
    core::set_memory_budget(o.max_memory);
  try {
    return command == Command::Run ? run(o) : show(o, command);
  } catch (const std::bad_alloc&) {
    // Allocation is checked against the budget before it is attempted;
    // this is the machine refusing less than the budget allows.
    std::cout.flush();
    std::cerr << name
              << ": error: out of memory; the machine has less free than the memory "
                 "budget allows (--max-memory lowers it)\n";
    return 1;
  } catch (const UsageError& e) {
    std::cerr << name << ": " << e.message << "\n(see " << name << " --help)\n";
    return 2;
  } catch (const core::Error& e) {
    std::cout.flush();
    std::cerr << e.render();
    return 1;
  }
}

} // namespace teval::tools
