// `teval run FILE.mlir` and the loading of MLIR functions: the graph, its
// decomposition (whole, or in segments between the ops without one), the
// values --dump-values writes (see run_program.h).
#include "tools/teval/run_program.h"

#include "core/error.h"
#include "core/files.h"
#include "core/format.h"
#include "core/json.h"
#include "core/kernel.h"
#include "core/npy.h"
#include "interp/random_inputs.h"
#include "ops/decompose.h"
#include "ops/native.h"
#include "ops/split.h"
#include "parser/antares/antares.h"
#include "parser/mlir/mlir.h"
#include "tools/teval/array_print.h"
#include "tools/teval/cli_support.h"
#include "tools/teval/run_inputs.h"
#include "tools/teval/run_options.h"

#include <algorithm>
#include <deque>
#include <iostream>
#include <map>
#include <optional>
#include <set>

namespace teval::tools::run_detail {

// The op graph of the MLIR function the options name; fills \p given with
// the inputs read from .npy files.
core::Graph elaborate_graph(const Options& o, const core::SourceFile& file,
                            std::map<std::string, core::Tensor>& given) {
  if (!o.params.empty())
    throw UsageError{"-p applies to Tile functions"};
  ast::Program program = parser::read_mlir(file);
  std::set<std::string> names;
  for (const parser::MlirArgument& a : parser::mlir_arguments(program, o.entry))
    names.insert(a.name);
  // The graph's inputs: the arguments, then what infeeds read.
  std::optional<core::Graph> g;
  try {
    g = parser::elaborate_mlir(program, o.entry, input_types(o.inputs, {}, given));
  } catch (const core::Error&) {
    check_input_names(o, names); // a misspelt -i first
    throw;
  }
  for (size_t i = 0; i < g->inputs.size(); ++i)
    names.insert(core::graph_input_name(i));
  check_input_names(o, names);
  for (const core::Diagnostic& w : g->warnings)
    std::cerr << core::render(w);
  return std::move(*g);
}

// One tensor per graph input: given, or seeded random data.
std::vector<core::Tensor> graph_inputs(const core::Graph& g,
                                       const std::map<std::string, core::Tensor>& given,
                                       uint64_t seed) {
  std::vector<core::Tensor> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    std::string name = core::graph_input_name(i);
    const core::ValueType& t = g.values[static_cast<size_t>(g.inputs[i])];
    auto it = given.find(name);
    inputs.push_back(it != given.end() ? it->second : interp::random_value(t, seed, name));
  }
  return inputs;
}

// The kernel of einstein_v2 decomposition \p d, its text named \p name
// (kept in \p text), its constants added to \p given.
core::Kernel decomposition_kernel(ops::Decomposition d, const std::string& name,
                                  std::shared_ptr<const core::SourceFile>& text,
                                  std::map<std::string, core::Tensor>& given) {
  text = core::SourceFile::make(name, std::move(d.program));
  parser::AntaresSource source = parser::read_antares(*text);
  for (auto& [constant, t] : d.constants)
    given.emplace(constant, std::move(t));
  return parser::elaborate_antares(source, parser::declared_inputs(source));
}

// The kernel of the graph's einstein_v2 decomposition, its constants added
// to \p given.
core::Kernel decomposition_kernel(const core::Graph& g, Sources& sources,
                                  std::map<std::string, core::Tensor>& given) {
  return decomposition_kernel(ops::decompose(g), "<decomposition of " + sources.file->name() + ">",
                              sources.decomposition, given);
}

// The graph of the MLIR function the options name, the values named in
// \p values (core::find_value) appended to its outputs in order; \p found
// gets their names.
core::Graph graph_with_values(const Options& o, Sources& sources,
                              std::map<std::string, core::Tensor>& given,
                              const std::vector<std::string>& values,
                              std::vector<std::string>* found) {
  core::Graph g = elaborate_graph(o, *sources.file, given);
  for (const std::string& name : values) {
    if (int v = core::find_value(g, name); v >= 0) {
      g.outputs.push_back(v);
      if (found)
        found->push_back(name);
    }
  }
  return g;
}

// `teval check --given NAME=PATH`: the value \p name of \p g becomes a
// new input holding \p t (in \p given); what follows is computed from \p t.
void give_value(core::Graph& g, std::map<std::string, core::Tensor>& given, const std::string& name,
                core::Tensor t) {
  const std::string where = "--given " + name;
  const core::ValueType& type =
      g.values[static_cast<size_t>(core::give_value(g, name, where, ": give it with -i"))];
  if (t.dtype() != type.dtype || t.shape() != type.shape)
    throw core::Error(core::ErrorKind::Shape, where,
                      "`" + name + "` is " + core::to_string(type.dtype) + " of shape " +
                          core::to_string(type.shape) + ", but the array given is " +
                          core::to_string(t.dtype()) + " of shape " + core::to_string(t.shape()));
  given[core::graph_input_name(g.inputs.size() - 1)] = std::move(t);
}

// `dir/name.npy` holding \p t, its elements written from the tensor itself:
// \p t must outlive files.commit(); a minifloat's float32 form is kept in
// \p widened until then.
void add_npy(core::OutputSet& files, const std::string& dir, const std::string& name,
             const core::Tensor& t, std::deque<core::Tensor>& widened) {
  const core::Tensor* held = &t;
  if (core::carrier(t.dtype()) != t.dtype() &&
      core::size_bytes(core::carrier(t.dtype())) != core::size_bytes(t.dtype()))
    held = &widened.emplace_back(core::npy_form(t));
  files.add(dir, name + ".npy", core::npy_header(held->dtype(), held->shape()), held->bytes());
}

// `DIR/values.json` for --dump-values: every value of \p g, in order of
// definition, with the file \p files names it by (null for a value the run
// did not compute: a branch not taken), where and by what op it is
// defined, its type, and the input or outputs it is.
std::string values_json(const core::Graph& g, const std::vector<std::string>& files) {
  std::vector<std::string> names = core::value_path_names(g);
  std::vector<std::string> op(g.values.size(), "argument");
  std::vector<core::Span> where(g.values.size());
  for (size_t i = 0; i < g.inputs.size(); ++i)
    where[static_cast<size_t>(g.inputs[i])] = g.input_spans[i];
  core::for_each_node(g, [&](const core::GraphNode& n) {
    for (int r : n.results) {
      op[static_cast<size_t>(r)] = core::graph_op_name(n.op);
      where[static_cast<size_t>(r)] = n.span;
    }
    for (const core::GraphRegion& region : n.regions)
      for (int p : region.params) {
        op[static_cast<size_t>(p)] = "block argument";
        where[static_cast<size_t>(p)] = n.span;
      }
  });
  std::string s = "{\"schema\": \"teval.values/1\", \"values\": [";
  for (size_t v = 0; v < g.values.size(); ++v) {
    const core::ValueType& t = g.values[v];
    std::string shape;
    for (size_t d = 0; d < t.shape.size(); ++d)
      shape += (d ? ", " : "") + std::to_string(t.shape[d]);
    s += std::string(v ? "," : "") + "\n  {\"name\": " + core::json_string(names[v]) +
         ", \"file\": " + (files[v].empty() ? "null" : core::json_string(files[v])) +
         ", \"op\": " + core::json_string(op[v]);
    if (where[v].valid()) {
      auto at = where[v].file->location(where[v].begin);
      s += ", \"line\": " + std::to_string(at.line) + ", \"column\": " + std::to_string(at.column);
    }
    s += ", \"dtype\": " + core::json_string(core::name(t.dtype)) + ", \"shape\": [" + shape + "]";
    for (size_t i = 0; i < g.inputs.size(); ++i)
      if (g.inputs[i] == static_cast<int>(v))
        s += ", \"input\": " + core::json_string(core::graph_input_name(i));
    std::string outputs;
    for (size_t i = 0; i < g.outputs.size(); ++i)
      if (g.outputs[i] == static_cast<int>(v))
        outputs += (outputs.empty() ? "" : ", ") + core::json_string(core::graph_output_name(i));
    if (!outputs.empty())
      s += ", \"outputs\": [" + outputs + "]";
    s += "}";
  }
  return s + "\n]}\n";
}

// The kernel of \p g's decomposition as a whole, its constants added to
// \p given; nothing when \p g has none (an op without one, or past the
// Kernel IR's limit), \p why then saying why.
std::optional<core::Kernel> whole_decomposition(const core::Graph& g, Sources& sources,
                                                std::map<std::string, core::Tensor>& given,
                                                std::optional<core::Error>& why) {
  try {
    return decomposition_kernel(g, sources, given);
  } catch (const core::Error& e) {
    if (e.kind() != core::ErrorKind::Unsupported && e.kind() != core::ErrorKind::Limit)
      throw;
    why = e;
    return std::nullopt;
  }
}

// \p g on \p inputs, cut into segments (ops/split.h) that --engine runs
// between the nodes the native references evaluate.
std::vector<core::Tensor> evaluate_split(const Options& o, const core::Graph& g,
                                         const Sources& sources,
                                         const std::vector<core::Tensor>& inputs) {
  ops::Split split = ops::split(g);
  std::vector<core::Kernel> kernels(split.segments.size());
  std::vector<std::map<std::string, core::Tensor>> constants(split.segments.size());
  std::vector<std::shared_ptr<const core::SourceFile>> texts(split.segments.size());
  for (size_t k = 0; k < split.segments.size(); ++k)
    kernels[k] = decomposition_kernel(std::move(split.segments[k].decomposition),
                                      "<decomposition of " + sources.file->name() + ", segment " +
                                          std::to_string(k + 1) + " of " +
                                          std::to_string(split.segments.size()) + ">",
                                      texts[k], constants[k]);
  return ops::evaluate(g, inputs, split, [&](size_t k, const std::vector<core::Tensor>& in) {
    auto view = [](const core::Tensor& t) {
      return core::Tensor::borrow(t.dtype(), t.shape(), t.bytes().data());
    };
    std::map<std::string, core::Tensor> all;
    for (const auto& [name, t] : constants[k])
      all.emplace(name, view(t));
    for (size_t i = 0; i < in.size(); ++i)
      all.emplace(core::graph_input_name(i), view(in[i]));
    return evaluate(o, kernels[k], interp::make_inputs(kernels[k], all, o.seed));
  });
}

// `teval run FILE.mlir`: the native references on the interpreter, the
// decomposition on the other engines and --exact.
int run_mlir(const Options& o) {
  Sources sources;
  sources.file = source_file(o);
  std::map<std::string, core::Tensor> given;
  core::Graph g = elaborate_graph(o, *sources.file, given);
  if (o.dump_kernel)
    std::cout << core::to_string(g);
  std::vector<core::Tensor> inputs = graph_inputs(g, given, o.seed);
  // --dump-values: every value is an output, after the function's own (the
  // same evaluation on every engine, the decomposition's included).
  const size_t results = g.outputs.size();
  const core::Graph function = g;
  if (o.dump_values)
    for (size_t v = 0; v < g.values.size(); ++v)
      g.outputs.push_back(static_cast<int>(v));
  std::vector<core::Tensor> outputs;
  if (o.engine == "interp" && !o.exact) {
    evaluate_within(o, *sources.file, [&] { outputs = ops::evaluate(g, inputs); });
  } else {
    std::map<std::string, core::Tensor> all;
    for (size_t i = 0; i < inputs.size(); ++i)
      all.emplace(core::graph_input_name(i), inputs[i]);
    std::optional<core::Error> why;
    if (std::optional<core::Kernel> kernel = whole_decomposition(g, sources, all, why)) {
      std::vector<core::Tensor> kernel_inputs = interp::make_inputs(*kernel, all, o.seed);
      evaluate_within(o, *sources.file, [&] { outputs = evaluate(o, *kernel, kernel_inputs); });
    } else if (o.exact) { // exact evaluation needs the function as one kernel
      throw *why;
    } else { // the ops without a decomposition natively, the segments between them compiled
      evaluate_within(o, *sources.file, [&] { outputs = evaluate_split(o, g, sources, inputs); });
    }
  }
  core::OutputSet files;
  std::deque<core::Tensor> widened;
  if (o.out_dir)
    for (size_t i = 0; i < results; ++i)
      add_npy(files, *o.out_dir, core::graph_output_name(i), outputs[i], widened);
  if (o.save_inputs)
    for (size_t i = 0; i < inputs.size(); ++i)
      add_npy(files, *o.save_inputs, core::graph_input_name(i), inputs[i], widened);
  std::string manifest;
  if (o.dump_values) {
    // DIR/0.npy for %0, DIR/2/0.npy for %0 of the call defining %2 (a
    // name of dots, `%..`, keeps its `%`: the files stay inside DIR).
    std::vector<std::string> paths = core::value_path_names(function), names;
    for (size_t v = 0; v < paths.size(); ++v) {
      std::string file;
      for (size_t begin = 0; begin < paths[v].size();) {
        size_t end = std::min(paths[v].find('/', begin), paths[v].size());
        std::string part = paths[v].substr(begin, end - begin);
        if (part.starts_with('%') && part.find_first_not_of('.', 1) != std::string::npos)
          part.erase(0, 1);
        file += (begin ? "/" : "") + part;
        begin = end + 1;
      }
      // A value of a branch not taken (or a loop body never run) has none.
      const core::Tensor& t = outputs[results + v];
      if (t.dtype() != function.values[v].dtype || t.shape() != function.values[v].shape) {
        names.emplace_back();
        continue;
      }
      names.push_back(file + ".npy");
      size_t slash = file.rfind('/');
      add_npy(files,
              *o.dump_values + (slash == std::string::npos ? "" : "/" + file.substr(0, slash)),
              file.substr(slash + 1), outputs[results + v], widened);
    }
    manifest = values_json(function, names);
    files.add(*o.dump_values, "values.json", manifest);
  }
  files.commit();
  if (o.print || !o.out_dir)
    for (size_t i = 0; i < results; ++i)
      std::cout << core::graph_output_name(i) << " = " << format_array(outputs[i]) << "\n";
  return 0;
}

} // namespace teval::tools::run_detail
