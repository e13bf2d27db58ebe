// Generated test programs and the differential check (see program.h).
#include "verify/program.h"

#include "core/error.h"
#include "core/format.h"
#include "core/lower.h"
#include "interp/random_inputs.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"

namespace teval::verify {

namespace {

// The text with every single quote escaped for a POSIX shell.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string describe(const std::vector<core::Tensor>& out, size_t i) {
  if (i >= out.size())
    return "(missing)";
  std::string s;
  for (int64_t k = 0; k < out[i].numel() && k < 16; ++k)
    s += (k ? ", " : "") + core::format_scalar(out[i].get(k));
  return s + (out[i].numel() > 16 ? ", ..." : "");
}

} // namespace

void showValue(const Program& p, std::ostream& os) {
  os << p.lang << " program:\n  " << p.text << "\ninputs:";
  for (const std::string& o : p.extra_outputs)
    os << " (extra output " << o << ")";
  for (const auto& [name, type] : p.inputs)
    os << " " << name << "=" << core::name(type.dtype) << core::to_string(type.shape);
  os << "\n";
}

std::string source(const Program& p) {
  if (p.lang != "antares" || p.extra_outputs.empty())
    return p.text;
  std::string s = "- einstein_v2(\"" + p.text + "\", input_dict={";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const auto& [name, type] = p.inputs[i];
    s += (i ? ", \"" : "\"") + name + "\": {\"dtype\": \"" + std::string(core::name(type.dtype)) +
         "\", \"shape\": [";
    for (size_t d = 0; d < type.shape.size(); ++d)
      s += (d ? ", " : "") + std::to_string(type.shape[d]);
    s += "]}";
  }
  s += "}, extra_outputs=[";
  for (size_t i = 0; i < p.extra_outputs.size(); ++i)
    s += (i ? ", \"" : "\"") + p.extra_outputs[i] + "\"";
  return s + "])";
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

core::Kernel elaborate(const Program& p, std::shared_ptr<const core::SourceFile>& keep) {
  keep = core::SourceFile::make("<generated>", source(p));
  std::map<std::string, parser::InputType> types(p.inputs.begin(), p.inputs.end());
  if (p.lang == "tile")
    return parser::elaborate_tile(parser::read_tile(*keep), p.entry, types, {});
  return parser::elaborate_antares(parser::read_antares(*keep), types);
}

std::optional<std::string> disagreement(const Program& p, uint64_t seed,
                                        const std::vector<core::Backend*>& backends,
                                        std::string* outcome) {
  std::shared_ptr<const core::SourceFile> keep;
  core::Kernel kernel;
  try {
    kernel = elaborate(p, keep);
  } catch (const core::Error& e) {
    return "the generated program does not elaborate:\n" + e.render();
  }
  std::vector<core::Tensor> inputs = interp::make_inputs(kernel, {}, seed);
  std::vector<core::Tensor> reference;
  std::string reference_error;
  for (size_t b = 0; b < backends.size(); ++b) {
    std::vector<core::Tensor> out;
    std::string error;
    try {
      out = backends[b]->prepare(kernel)->run(inputs);
    } catch (const core::Error& e) {
      error = e.render();
    }
    if (b == 0) {
      reference = std::move(out);
      reference_error = error;
      if (outcome)
        *outcome = error;
      continue;
    }
    std::string who = backends[b]->name() + " and " + backends[0]->name();
    if (error != reference_error)
      return who + " disagree on the error:\n" + backends[0]->name() + ": " +
             (reference_error.empty() ? "no error\n" : reference_error) + backends[b]->name() +
             ": " + (error.empty() ? "no error\n" : error);
    if (!error.empty())
      continue;
    for (size_t i = 0; i < reference.size(); ++i) {
      if (i < out.size() && core::identical(reference[i], out[i]))
        continue;
      const std::string& name = kernel.tensors[kernel.outputs[i]].name;
      int64_t first = -1;
      for (int64_t k = 0; i < out.size() && k < reference[i].numel() && first < 0; ++k)
        if (!core::identical(reference[i].get(k), out[i].get(k)))
          first = k;
      return who + " disagree on output " + name +
             (first >= 0 ? " at flat index " + std::to_string(first) + ": " +
                               core::format_scalar(reference[i].get(first)) + " vs " +
                               core::format_scalar(out[i].get(first))
                         : std::string()) +
             "\n" + backends[0]->name() + ": " + describe(reference, i) + "\n" +
             backends[b]->name() + ": " + describe(out, i) + "\nloop nest:\n" +
             core::to_string(core::lower(kernel));
    }
  }
  return std::nullopt;
}

} // namespace teval::verify
