// `teval gen`: a corpus of generated cases (see corpus.h).
#include "verify/corpus.h"

#include "core/error.h"
#include "core/files.h"
#include "core/format.h"
#include "core/json.h"
#include "core/npy.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "oracle/bounds.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace teval::verify {

namespace fs = std::filesystem;

namespace {

std::string json_shape(const core::Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string json_tensor(const std::string& name, const core::Tensor& t, const std::string& path) {
  return "{\"name\": " + core::json_string(name) +
         ", \"dtype\": " + core::json_string(core::name(t.dtype())) +
         ", \"shape\": " + json_shape(t.shape()) + ", \"path\": " + core::json_string(path);
}

// The bound of one output as files, and its manifest keys.
std::string export_bound(const oracle::BoundTensor& b, const core::Tensor& sequential,
                         const fs::path& dir, const std::string& rel, const std::string& name) {
  bool exact = true, any_nan = false;
  int64_t unbounded = 0;
  core::Tensor lo(b.dtype, b.shape), hi(b.dtype, b.shape), nan(core::DType::Bool, b.shape);
  for (int64_t k = 0; k < sequential.numel(); ++k) {
    const oracle::Interval& e = b.elements[static_cast<size_t>(k)];
    oracle::Interval all = e.any ? oracle::Interval::everything(b.dtype) : e;
    exact = exact && !e.any && e.singleton() && core::identical(e.lo, sequential.get(k));
    if (e.any || (e.nan && !e.no_number()))
      exact = false;
    if (e.no_number()) {
      // Only NaN: the range is empty; lo > hi says so.
      lo.set(k, core::Scalar::of_float(b.dtype, 1));
      hi.set(k, core::Scalar::of_float(b.dtype, 0));
    } else {
      lo.set(k, all.lo);
      hi.set(k, all.hi);
    }
    nan.set(k, core::Scalar::of_int(core::DType::Bool, all.nan));
    any_nan = any_nan || all.nan;
    double l = all.lo.as_double(), h = all.hi.as_double();
    if (e.any || std::isinf(l) || std::isinf(h))
      ++unbounded;
  }
  if (exact)
    return ", \"claim\": \"exact\"";
  fs::create_directories(dir / "bound");
  core::write_npy(lo, (dir / "bound" / (name + ".lo.npy")).string());
  core::write_npy(hi, (dir / "bound" / (name + ".hi.npy")).string());
  std::string s =
      ", \"claim\": \"bound\", \"lo\": " + core::json_string(rel + "/bound/" + name + ".lo.npy") +
      ", \"hi\": " + core::json_string(rel + "/bound/" + name + ".hi.npy");
  if (any_nan) {
    core::write_npy(nan, (dir / "bound" / (name + ".nan.npy")).string());
    s += ", \"nan\": " + core::json_string(rel + "/bound/" + name + ".nan.npy");
  } else {
    s += ", \"nan\": null";
  }
  return s + ", \"unbounded\": " + std::to_string(unbounded);
}

} // namespace

std::string case_id(uint64_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "case-%06llu", static_cast<unsigned long long>(index));
  return buf;
}

std::string export_case(const Case& c, const std::string& root) {
  const std::string id = case_id(c.index);
  const fs::path dir = fs::path(root) / id;
  const Program& p = c.program;
  write_program_files(p, dir.string());
  fs::create_directories(dir / "inputs");
  fs::create_directories(dir / "expected");
  // A generated program elaborates by construction: an error here is the
  // generator's and ends the command.
  Elaborated e = elaborate_file(p, program_file_name(p));
  const core::Kernel& k = e.kernel;
  std::vector<core::Tensor> inputs = interp::make_inputs(k, e.constants, c.input_seed);

  std::string entry = "{\"id\": " + core::json_string(id) +
                      ", \"index\": " + std::to_string(c.index) +
                      ", \"lang\": " + core::json_string(p.lang) +
                      ", \"program\": " + core::json_string(id + "/" + program_file_name(p));
  entry += ", \"compute_v1\": " +
           (p.lang == "antares" ? core::json_string(id + "/compute_v1.txt") : std::string("null"));
  entry += ", \"entry\": " + (p.entry.empty() ? std::string("null") : core::json_string(p.entry));
  entry += ", \"input_seed\": " + std::to_string(c.input_seed) + ", \"inputs\": [";
  std::vector<int> ids = interp::input_ids(k);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& name = k.tensors[ids[i]].name;
    std::string rel = id + "/inputs/" + name + ".npy";
    core::write_npy(inputs[i], (fs::path(root) / rel).string());
    entry += (i ? ", " : "") + json_tensor(name, inputs[i], rel) + "}";
  }
  entry += "]";

  std::vector<core::Tensor> outputs;
  try {
    outputs = interp::run(k, inputs);
  } catch (const core::Error& e) {
    std::string rendered = e.render();
    write_text_file((dir / "expected" / "error.txt").string(), rendered);
    const core::Diagnostic& d = e.diagnostic();
    std::string line = "null", column = "null";
    if (d.span.valid()) {
      core::SourceFile::Location at = d.span.file->location(d.span.begin);
      line = std::to_string(at.line);
      column = std::to_string(at.column);
    }
    return entry + ", \"expect\": \"error\", \"outputs\": [], \"error\": {\"message\": " +
           core::json_string(d.message) + ", \"line\": " + line + ", \"column\": " + column +
           ", \"rendered\": " + core::json_string(rendered) +
           ", \"path\": " + core::json_string(id + "/expected/error.txt") + "}}";
  }
  std::vector<oracle::BoundTensor> bounds = oracle::bounds(k, inputs);
  entry += ", \"expect\": \"outputs\", \"outputs\": [";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = k.tensors[k.outputs[i]].name;
    std::string rel = id + "/expected/" + name + ".npy";
    core::write_npy(outputs[i], (fs::path(root) / rel).string());
    entry += (i ? ", " : "") + json_tensor(name, outputs[i], rel) +
             export_bound(bounds[i], outputs[i], dir, id, name) + "}";
  }
  return entry + "], \"error\": null}";
}

void write_corpus(const CorpusOptions& options, const std::string& root,
                  const std::function<void(uint64_t)>& progress) {
  fs::create_directories(root);
  std::string manifest =
      "{\"schema\": \"teval.gen/1\", \"lang\": " + core::json_string(options.space.lang) +
      ", \"seed\": " + std::to_string(options.space.seed) +
      ", \"shard\": {\"index\": " + std::to_string(options.shard_index) +
      ", \"count\": " + std::to_string(options.shard_count) + "}" + ", \"cases\": [";
  for (uint64_t k = 0; k < options.cases; ++k) {
    uint64_t index = options.shard_index + options.shard_count * k;
    manifest += (k ? ",\n  " : "\n  ") + export_case(make_case(options.space, index), root);
    if (progress)
      progress(k + 1);
  }
  manifest += options.cases ? "\n]}\n" : "]}\n";
  // The manifest last, through a temporary: a reader never sees half of it.
  fs::path tmp = fs::path(root) / "manifest.json.tmp";
  write_text_file(tmp.string(), manifest);
  fs::rename(tmp, fs::path(root) / "manifest.json");
}

} // namespace teval::verify
