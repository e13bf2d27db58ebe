// Generated test programs and the differential check (see program.h).
#include "verify/program.h"

#include "core/error.h"
#include "core/format.h"
#include "core/lower.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "ops/decompose.h"
#include "ops/native.h"
#include "parser/mlir/mlir.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace teval::verify {

namespace {

std::string describe(const std::vector<core::Tensor>& out, size_t i) {
  if (i >= out.size())
    return "(missing)";
  std::string s;
  for (int64_t k = 0; k < out[i].numel() && k < 16; ++k)
    s += (k ? ", " : "") + core::format_scalar(out[i].get(k));
  return s + (out[i].numel() > 16 ? ", ..." : "");
}

} // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void showValue(const Program& p, std::ostream& os) {
  os << p.lang << " program:\n  " << p.text << "\ninputs:";
  for (const std::string& o : p.extra_outputs)
    os << " (extra output " << o << ")";
  for (const auto& [name, type] : p.inputs)
    os << " " << name << "=" << core::name(type.dtype) << core::to_string(type.shape);
  os << "\n";
}

std::string compute_v1_value(const Program& p) {
  if (p.lang != "antares")
    return "";
  std::string s = "- einstein_v2(\"" + p.text + "\", input_dict={";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const auto& [name, type] = p.inputs[i];
    s += (i ? ", \"" : "\"") + name + "\": {\"dtype\": \"" + std::string(core::name(type.dtype)) +
         "\", \"shape\": [";
    for (size_t d = 0; d < type.shape.size(); ++d)
      s += (d ? ", " : "") + std::to_string(type.shape[d]);
    s += "]}";
  }
  s += "}";
  if (!p.extra_outputs.empty()) {
    s += ", extra_outputs=[";
    for (size_t i = 0; i < p.extra_outputs.size(); ++i)
      s += (i ? ", \"" : "\"") + p.extra_outputs[i] + "\"";
    s += "]";
  }
  return s + ")";
}

std::string compute_v1_line(const Program& p) {
  return "COMPUTE_V1=" + shell_quote(compute_v1_value(p)) + " make";
}

std::string source(const Program& p) {
  if (p.lang != "antares" || p.extra_outputs.empty())
    return p.text;
  return compute_v1_value(p);
}

std::string command_line(const Program& p, uint64_t seed) {
  std::string cmd = "teval run --lang " + p.lang + " -e " + shell_quote(source(p));
  if (!p.entry.empty())
    cmd += " --entry " + p.entry;
  for (const auto& [name, type] : p.inputs) {
    cmd += " -i " + name + "=" + std::string(core::name(type.dtype)) + "[";
    for (size_t d = 0; d < type.shape.size(); ++d)
      cmd += (d ? "," : "") + std::to_string(type.shape[d]);
    cmd += "]";
  }
  return cmd + " --seed " + std::to_string(seed);
}

Elaborated elaborate_program(const Program& p, const std::string& name,
                             const std::optional<std::string>& text) {
  Elaborated e;
  std::map<std::string, parser::InputType> types(p.inputs.begin(), p.inputs.end());
  if (p.lang == "mlir") {
    e.graph_source = core::SourceFile::make(name, text.value_or(p.text));
    e.graph = parser::elaborate_mlir(parser::read_mlir(*e.graph_source), "", types);
    ops::Decomposition d = ops::decompose(*e.graph);
    e.constants = std::move(d.constants);
    e.source = core::SourceFile::make(name + " (decomposition)", d.program);
    parser::AntaresSource source = parser::read_antares(*e.source);
    e.kernel = parser::elaborate_antares(source, parser::declared_inputs(source));
    return e;
  }
  e.source = core::SourceFile::make(name, text.value_or(source(p)));
  if (p.lang == "tile")
    e.kernel = parser::elaborate_tile(parser::read_tile(*e.source), p.entry, types, {});
  else
    e.kernel = parser::elaborate_antares(parser::read_antares(*e.source), types);
  return e;
}

core::Kernel elaborate(const Program& p, std::shared_ptr<const core::SourceFile>& keep) {
  Elaborated e = elaborate_program(p);
  keep = e.source;
  return std::move(e.kernel);
}

std::optional<Disagreement> native_disagreement(const Elaborated& e,
                                                const std::vector<core::Tensor>& inputs,
                                                const core::Outcome& decomposition) {
  if (!e.graph)
    return std::nullopt;
  std::vector<int> ids = interp::input_ids(e.kernel);
  std::vector<core::Tensor> args;
  for (size_t i = 0; i < e.graph->inputs.size(); ++i) {
    auto at = std::find(ids.begin(), ids.end(), e.kernel.find(core::graph_input_name(i)));
    // An argument nothing reads is not an input of the decomposition.
    const core::ValueType& t = e.graph->values[static_cast<size_t>(e.graph->inputs[i])];
    args.push_back(at == ids.end() ? core::Tensor(t.dtype, t.shape)
                                   : inputs[static_cast<size_t>(at - ids.begin())]);
  }
  core::Outcome native;
  try {
    native.outputs = ops::evaluate(*e.graph, args);
  } catch (const core::Error& error) {
    native.error = error.render();
  }
  if (native.error.empty() != decomposition.error.empty())
    return Disagreement{
        "error", "native",
        "the native reference and the decomposition disagree on the error:\n"
        "native: " +
            (native.error.empty() ? "no error\n" : native.error) +
            "decomposition: " + (decomposition.error.empty() ? "no error\n" : decomposition.error)};
  if (!native.error.empty())
    return std::nullopt;
  return compare_outcomes(e.kernel, "native", native, "interp", decomposition,
                          std::chrono::milliseconds(0));
}

std::optional<Disagreement> disagreement(const Program& p, uint64_t seed,
                                         const std::vector<core::Backend*>& backends,
                                         std::string* outcome, bool* skipped) {
  Elaborated e;
  try {
    e = elaborate_program(p);
  } catch (const core::Error& error) {
    return Disagreement{"elaboration", "",
                        "the generated program does not elaborate:\n" + error.render()};
  }
  const core::Kernel& kernel = e.kernel;
  std::vector<core::Tensor> inputs = interp::make_inputs(kernel, e.constants, seed);
  core::Outcome reference = core::evaluate(*backends.at(0), kernel, inputs);
  if (outcome)
    *outcome = reference.error;
  if (std::optional<Disagreement> d = native_disagreement(e, inputs, reference))
    return d;
  const std::string first = backends[0]->name();
  for (size_t b = 1; b < backends.size(); ++b) {
    std::chrono::milliseconds budget = core::hang_budget(reference.seconds);
    core::Outcome o = core::evaluate(*backends[b], kernel, inputs, budget);
    if (o.unsupported) {
      if (skipped)
        *skipped = true;
      continue;
    }
    if (auto d = compare_outcomes(kernel, first, reference, backends[b]->name(), o, budget))
      return d;
  }
  return std::nullopt;
}

std::optional<Disagreement> compare_outcomes(const core::Kernel& kernel, const std::string& first,
                                             const core::Outcome& reference,
                                             const std::string& name, const core::Outcome& o,
                                             std::chrono::milliseconds budget) {
  std::string who = name + " and " + first;
  if (o.hang) {
    char took[64];
    std::snprintf(took, sizeof took, "%.3f", reference.seconds * 1000);
    return Disagreement{"hang", name,
                        name + " ran past its budget of " + std::to_string(budget.count()) +
                            " ms (" + first + " took " + took + " ms)\nloop nest:\n" +
                            core::to_string(core::lower(kernel))};
  }
  if (o.error != reference.error)
    return Disagreement{"error", name,
                        who + " disagree on the error:\n" + first + ": " +
                            (reference.error.empty() ? "no error\n" : reference.error) + name +
                            ": " + (o.error.empty() ? "no error\n" : o.error)};
  if (!o.error.empty())
    return std::nullopt;
  for (size_t i = 0; i < reference.outputs.size(); ++i) {
    const std::vector<core::Tensor>& ref = reference.outputs;
    const std::vector<core::Tensor>& out = o.outputs;
    if (i < out.size() && core::identical(ref[i], out[i]))
      continue;
    const std::string& tensor = kernel.tensors[kernel.outputs[i]].name;
    int64_t at = -1;
    if (i < out.size() && ref[i].dtype() == out[i].dtype() && ref[i].shape() == out[i].shape())
      at = core::first_difference(ref[i], out[i]);
    return Disagreement{"outputs", name,
                        who + " disagree on output " + tensor +
                            (at >= 0 ? " at flat index " + std::to_string(at) + ": " +
                                           core::format_element(ref[i], at) + " vs " +
                                           core::format_element(out[i], at)
                                     : std::string()) +
                            "\n" + first + ": " + describe(ref, i) + "\n" + name + ": " +
                            describe(out, i) + "\nloop nest:\n" +
                            core::to_string(core::lower(kernel))};
  }
  return std::nullopt;
}

} // namespace teval::verify
