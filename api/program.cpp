// The public Program (include/teval/teval.h) over parser/, interp/ and
// oracle/, and the JIT when the teval::jit component is linked.
#include "api/control.h"
#include "api/jit_engine.h"
#include "api/values.h"
#include "core/lower.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "ops/decompose.h"
#include "ops/native.h"
#include "ops/split.h"
#include "oracle/bounds.h"
#include "oracle/evaluate.h"
#include "oracle/exact_eval.h"
#include "oracle/verdict.h"
#include "parser/antares/antares.h"
#include "parser/mlir/mlir.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"

#include <algorithm>
#include <mutex>
#include <regex>
#include <thread>

namespace teval {

namespace api {

/// A kernel the engines run: a program's, or an einstein_v2 decomposition
/// of an MLIR function's ops (of the whole function, or of one segment of
/// it: ops/split.h) with the constants it reads as inputs.
struct Part {
  std::shared_ptr<const core::SourceFile> decomposition;
  std::map<std::string, core::Tensor> constants;
  core::Kernel kernel;
  std::vector<int> input_ids; // kernel tensor ids, in interp::input_ids() order
  // Compiled on first use, once for each combination of the float
  // freedoms (any order: bit 1, fma: bit 0); a compiled program may run
  // concurrently.
  mutable std::unique_ptr<api::JitProgram> compiled[4];
};

} // namespace api

struct Program::Impl {
  std::shared_ptr<const core::SourceFile> file;
  // An MLIR function's op graph, which the interpreter evaluates with the
  // ops' native references (ops/native.h); `whole` is then the graph's
  // einstein_v2 decomposition, which the other engines and check()
  // evaluate. `unsupported` says why a graph has none (an op without one):
  // IREval and the JIT then run the graph cut into segments with
  // decompositions between the nodes the native references evaluate
  // (ops/split.h; `split` and `segments`, made on first use).
  std::optional<core::Graph> graph;
  std::optional<core::Error> unsupported;
  api::Part whole;
  std::vector<TensorInfo> inputs, outputs;
  mutable std::mutex mutex; // guards the compiled programs and the split
  mutable std::optional<ops::Split> split;
  mutable std::vector<api::Part> segments;
};

namespace {

using api::fail;

bool looks_like_mlir(const std::string& text) {
  static const std::regex function(R"((^|[^\w.])func\.func\s)");
  return std::regex_search(text, function);
}

bool looks_like_tile(const std::string& text) {
  static const std::regex function(R"((^|[^\w])(Tensor|def)\s+\w+\s*\()");
  return std::regex_search(text, function);
}

std::map<std::string, parser::InputType> given_types(const LoadOptions& o) {
  std::map<std::string, parser::InputType> types;
  for (const auto& [name, t] : o.inputs)
    types[name] = {api::internal(t.dtype), t.shape, {}};
  return types;
}

// Declared types agree with the given ones; the given ones fill the rest.
std::map<std::string, parser::InputType> merged(std::map<std::string, parser::InputType> declared,
                                                const LoadOptions& o) {
  for (const auto& [name, t] : o.inputs) {
    auto it = declared.find(name);
    if (it == declared.end()) {
      declared[name] = {api::internal(t.dtype), t.shape, {}};
      continue;
    }
    if (it->second.dtype != api::internal(t.dtype) || it->second.shape != t.shape)
      throw core::Error(core::ErrorKind::Shape, it->second.span,
                        "input `" + name + "` is declared " + core::to_string(it->second.dtype) +
                            core::to_string(it->second.shape) + ", not " +
                            core::to_string(api::internal(t.dtype)) + core::to_string(t.shape));
  }
  return declared;
}

core::Kernel elaborate(const core::SourceFile& file, const LoadOptions& o) {
  bool tile = o.notation == Notation::Tile ||
              (o.notation == Notation::Detect && looks_like_tile(file.text()));
  if (tile) {
    ast::Program program = parser::read_tile(file);
    std::map<std::string, parser::TileParam> params;
    for (const auto& [name, v] : o.ints)
      params[name] = {{v}, false};
    for (const auto& [name, v] : o.int_lists) {
      if (params.count(name))
        fail("parameter `" + name + "` is given twice");
      params[name] = {v, true};
    }
    return parser::elaborate_tile(program, o.entry, given_types(o), params);
  }
  if (!o.entry.empty() || !o.ints.empty() || !o.int_lists.empty())
    fail("an entry and integer parameters apply to Tile functions");
  parser::AntaresSource source = parser::read_antares(file);
  return parser::elaborate_antares(source, merged(parser::declared_inputs(source), o));
}

TensorInfo info(const core::TensorDecl& d) {
  return {d.name, api::public_dtype(d.dtype), d.shape};
}

TensorInfo info(const std::string& name, const core::ValueType& t) {
  return {name, api::public_dtype(t.dtype), t.shape};
}

// The kernel of decomposition \p d, its text named \p name.
api::Part make_part(ops::Decomposition d, const std::string& name) {
  api::Part p;
  p.decomposition = core::SourceFile::make(name, std::move(d.program));
  parser::AntaresSource source = parser::read_antares(*p.decomposition);
  p.kernel = parser::elaborate_antares(source, parser::declared_inputs(source));
  p.constants = std::move(d.constants);
  p.input_ids = interp::input_ids(p.kernel);
  return p;
}

// An MLIR function: its graph, and the graph's decomposition when every op
// has one.
void load_mlir(Program::Impl& p, const LoadOptions& o) {
  if (!o.ints.empty() || !o.int_lists.empty())
    fail("integer parameters apply to Tile functions");
  p.graph = parser::elaborate_mlir(parser::read_mlir(*p.file), o.entry, given_types(o));
  core::Graph& g = *p.graph;
  const size_t arguments = g.inputs.size(), results = g.outputs.size();
  for (const std::vector<std::string>* names : {&o.values, &o.given})
    for (size_t i = 0; i < names->size(); ++i)
      if (std::count(names->begin(), names->begin() + static_cast<std::ptrdiff_t>(i), (*names)[i]))
        fail("value `" + (*names)[i] +
             "` is named twice in LoadOptions::" + (names == &o.values ? "values" : "given"));
  for (const std::string& name : o.values) {
    int v = core::find_value(g, name);
    if (v < 0)
      fail("the function has no value `" + name +
           "` (its values are named as teval run --dump-values names them)");
    g.outputs.push_back(v);
  }
  for (const std::string& name : o.given)
    core::give_value(g, name, "given value " + name, ", an input already");
  for (size_t i = 0; i < g.inputs.size(); ++i)
    p.inputs.push_back(info(i < arguments ? core::graph_input_name(i) : o.given[i - arguments],
                            g.values[g.inputs[i]]));
  for (size_t i = 0; i < g.outputs.size(); ++i)
    p.outputs.push_back(info(i < results ? core::graph_output_name(i) : o.values[i - results],
                             g.values[g.outputs[i]]));
  try {
    p.whole = make_part(ops::decompose(g), "<decomposition of " + p.file->name() + ">");
  } catch (const core::Error& e) {
    if (e.kind() != core::ErrorKind::Unsupported && e.kind() != core::ErrorKind::Limit)
      throw;
    p.unsupported = e;
  }
}

std::string name_list(const std::vector<TensorInfo>& infos) {
  std::string s;
  for (size_t i = 0; i < infos.size(); ++i)
    s += (i ? ", " : "") + infos[i].name;
  return s.empty() ? "none" : s;
}

} // namespace

Program Program::load(std::string text, const LoadOptions& options) {
  try {
    auto impl = std::make_shared<Impl>();
    impl->file = core::SourceFile::make(options.name, std::move(text));
    if (options.notation == Notation::Mlir ||
        (options.notation == Notation::Detect && looks_like_mlir(impl->file->text()))) {
      load_mlir(*impl, options);
      return Program(std::move(impl));
    }
    if (!options.values.empty() || !options.given.empty())
      fail("values and given apply to MLIR functions, whose values have names");
    api::Part& whole = impl->whole;
    whole.kernel = elaborate(*impl->file, options);
    whole.input_ids = interp::input_ids(whole.kernel);
    for (int id : whole.input_ids)
      impl->inputs.push_back(info(whole.kernel.tensors[id]));
    for (int id : whole.kernel.outputs)
      impl->outputs.push_back(info(whole.kernel.tensors[id]));
    return Program(std::move(impl));
  } catch (const core::Error& e) {
    throw api::public_error(e);
  }
}

const std::vector<TensorInfo>& Program::inputs() const {
  return impl_->inputs;
}

const std::vector<TensorInfo>& Program::outputs() const {
  return impl_->outputs;
}

std::map<std::string, Tensor> Program::random_inputs(uint64_t seed) const {
  try {
    std::vector<core::Tensor> drawn;
    if (impl_->graph) // as `teval run FILE.mlir --seed` draws them
      for (size_t i = 0; i < impl_->inputs.size(); ++i)
        drawn.push_back(
            interp::random_value(impl_->graph->values[static_cast<size_t>(impl_->graph->inputs[i])],
                                 seed, impl_->inputs[i].name));
    else
      drawn = interp::make_inputs(impl_->whole.kernel, {}, seed);
    std::map<std::string, Tensor> out;
    for (size_t i = 0; i < drawn.size(); ++i)
      out.emplace(impl_->inputs[i].name, api::move_out(std::move(drawn[i])));
    return out;
  } catch (const core::Error& e) {
    throw api::public_error(e);
  }
}

namespace {

// The kernel the engines other than an MLIR function's interpreter run.
const core::Kernel& kernel(const Program::Impl& p) {
  if (p.unsupported)
    throw *p.unsupported;
  return p.whole.kernel;
}

} // namespace

std::string Program::lower() const {
  try {
    return core::to_string(core::lower(kernel(*impl_)));
  } catch (const core::Error& e) {
    throw api::public_error(e);
  }
}

namespace {

[[noreturn]] void no_jit(const std::string& what) {
  fail(what + " needs the JIT: link teval::jit (find_package(teval COMPONENTS jit))");
}

std::string emit(const Program::Impl& p, bool assembly) {
  if (!teval_api_emit_jit)
    no_jit(assembly ? "jit_asm()" : "jit_llvm()");
  try {
    return teval_api_emit_jit(core::lower(kernel(p)), assembly);
  } catch (const core::Error& e) {
    throw api::public_error(e);
  }
}

} // namespace

std::string Program::jit_llvm() const {
  return emit(*impl_, false);
}

std::string Program::jit_asm() const {
  return emit(*impl_, true);
}

namespace {

// The program's inputs from \p inputs, by name, checked.
std::vector<core::Tensor> named_inputs(const Program::Impl& p,
                                       const std::map<std::string, TensorRef>& inputs) {
  // By name, never by position: every input given once, nothing else.
  for (const auto& [name, ref] : inputs)
    if (std::none_of(p.inputs.begin(), p.inputs.end(),
                     [&](const TensorInfo& i) { return i.name == name; }))
      fail("the program has no input `" + name + "`; it reads: " + name_list(p.inputs));
  std::vector<core::Tensor> given;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    auto it = inputs.find(p.inputs[i].name);
    if (it == inputs.end())
      fail("input `" + p.inputs[i].name +
           "` is not given; the program reads: " + name_list(p.inputs));
    const TensorInfo& d = p.inputs[i];
    const bool carried = core::carrier(api::internal(d.dtype)) == api::internal(it->second.dtype);
    if ((it->second.dtype != d.dtype && !carried) || it->second.shape != d.shape)
      fail("input `" + d.name + "` is " + core::to_string(api::internal(d.dtype)) +
           core::to_string(d.shape) + ", not " + core::to_string(api::internal(it->second.dtype)) +
           core::to_string(it->second.shape));
    given.push_back(api::internal_tensor(it->second));
  }
  return given;
}

// The inputs of \p part, in interp::input_ids() order: views of \p given
// (the program's inputs, or a decomposition's arg0, arg1, ... in order)
// and of a decomposition's constants.
std::vector<core::Tensor> kernel_inputs(const api::Part& part,
                                        const std::vector<core::Tensor>& given) {
  auto view = [](const core::Tensor& t) {
    return core::Tensor::borrow(t.dtype(), t.shape(), t.bytes().data());
  };
  std::vector<core::Tensor> all;
  if (!part.decomposition) {
    for (const core::Tensor& t : given)
      all.push_back(view(t));
    return all;
  }
  // A decomposition names graph input i as core::graph_input_name does.
  for (int id : part.input_ids) {
    const std::string& name = part.kernel.tensors[static_cast<size_t>(id)].name;
    size_t i = 0;
    while (i < given.size() && core::graph_input_name(i) != name)
      ++i;
    all.push_back(view(i < given.size() ? given[i] : part.constants.at(name)));
  }
  return all;
}

// The outputs of \p part on \p given, computed by \p options' engine.
// \p in_place (one entry per output, or empty) offers memory the JIT may
// write an output into when the program cannot fail; such an output comes
// back as a view of it.
std::vector<core::Tensor> run_part(const Program::Impl& p, const api::Part& part,
                                   const std::vector<core::Tensor>& given,
                                   const RunOptions& options,
                                   std::span<std::byte* const> in_place = {}) {
  const std::vector<core::Tensor> inputs = kernel_inputs(part, given);
  switch (options.engine) {
  case Engine::Interpreter:
    return interp::run(part.kernel, inputs);
  case Engine::IREval:
    return interp::ireval(core::lower(part.kernel), inputs);
  case Engine::Exact:
    return oracle::run_exact(part.kernel, inputs);
  case Engine::Jit:
    break;
  }
  if (!teval_api_compile_jit)
    no_jit("Engine::Jit");
  const bool any_order = options.order == RunOptions::Order::Any;
  const api::JitProgram* compiled = nullptr;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    std::unique_ptr<api::JitProgram>& slot = part.compiled[any_order * 2 + options.fma];
    if (!slot)
      slot.reset(teval_api_compile_jit(core::lower(part.kernel), any_order, options.fma));
    compiled = slot.get();
  }
  const int threads = options.threads;
  return compiled->run(
      inputs,
      threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency())),
      compiled->cannot_fail() ? in_place : std::span<std::byte* const>{});
}

// An MLIR function without a decomposition of its whole: cut into
// segments (ops/split.h), each segment's kernel made once.
const ops::Split& split(const Program::Impl& p) {
  std::lock_guard<std::mutex> lock(p.mutex);
  if (!p.split) {
    ops::Split s = ops::split(*p.graph);
    std::vector<api::Part> segments;
    for (size_t k = 0; k < s.segments.size(); ++k)
      segments.push_back(make_part(std::move(s.segments[k].decomposition),
                                   "<decomposition of " + p.file->name() + ", segment " +
                                       std::to_string(k + 1) + " of " +
                                       std::to_string(s.segments.size()) + ">"));
    p.segments = std::move(segments);
    p.split = std::move(s);
  }
  return *p.split;
}

// The outputs of \p p on \p given, computed by \p engine (see run_part).
std::vector<core::Tensor> evaluate(const Program::Impl& p, const std::vector<core::Tensor>& given,
                                   const RunOptions& options,
                                   std::span<std::byte* const> in_place = {}) {
  const bool any_order = options.order == RunOptions::Order::Any;
  if ((any_order || options.fma) && options.engine != Engine::Jit)
    fail("RunOptions::order and fma apply to Engine::Jit: the other engines compute the "
         "sequential result");
  if (p.graph && options.engine == Engine::Interpreter)
    return ops::evaluate(*p.graph, given);
  if (p.graph && p.unsupported && options.engine != Engine::Exact) {
    const ops::Split& s = split(p);
    return ops::evaluate(*p.graph, given, s,
                         [&](size_t k, const std::vector<core::Tensor>& inputs) {
                           return run_part(p, p.segments[k], inputs, options);
                         });
  }
  kernel(p);
  return run_part(p, p.whole, given, options, in_place);
}

} // namespace

std::map<std::string, Tensor> Program::run(const std::map<std::string, TensorRef>& inputs,
                                           Engine engine) const {
  return run(inputs, RunOptions{engine});
}

std::map<std::string, Tensor> Program::run(const std::map<std::string, TensorRef>& inputs,
                                           const RunOptions& options) const {
  const Impl& p = *impl_;
  try {
    std::vector<core::Tensor> given = named_inputs(p, inputs);
    std::vector<core::Tensor> out;
    api::controlled(options.timeout, options.stop, [&] { out = evaluate(p, given, options); });
    std::map<std::string, Tensor> result;
    for (size_t o = 0; o < out.size(); ++o)
      result.emplace(p.outputs[o].name, api::move_out(std::move(out[o])));
    return result;
  } catch (const core::Error& e) {
    throw api::public_error(e);
  }
}

std::map<std::string, Tensor> Program::run_into(const std::map<std::string, TensorRef>& inputs,
                                                const std::map<std::string, TensorOut>& into,
                                                const RunOptions& options) const {
  const Impl& p = *impl_;
  try {
    std::vector<core::Tensor> given = named_inputs(p, inputs);
    // Output k's destination, or null; what the JIT may write in place.
    std::vector<const TensorOut*> destination(p.outputs.size(), nullptr);
    std::vector<std::byte*> in_place(p.outputs.size(), nullptr);
    std::vector<std::pair<std::string, const TensorOut*>> taken;
    for (const auto& [name, out] : into) {
      auto o = std::find_if(p.outputs.begin(), p.outputs.end(),
                            [&](const TensorInfo& i) { return i.name == name; });
      if (o == p.outputs.end())
        fail("the program has no output `" + name + "`; its outputs are: " + name_list(p.outputs));
      api::check_destination(name, out, *o);
      for (const auto& [other, given] : taken)
        if (api::share_memory(*given, out))
          fail("outputs `" + other + "` and `" + name + "` are given overlapping memory");
      taken.emplace_back(name, &out);
      api::Extent e = api::extent(out.data, out.dtype, out.shape, out.strides);
      const size_t k = static_cast<size_t>(o - p.outputs.begin());
      destination[k] = &out;
      bool reads_it = false;
      for (const auto& [_, ref] : inputs)
        reads_it |= e.overlaps(api::extent(ref.data, ref.dtype, ref.shape, ref.strides));
      if (api::in_place(out) && !reads_it)
        in_place[k] = static_cast<std::byte*>(out.data);
    }
    std::vector<core::Tensor> out;
    api::controlled(options.timeout, options.stop,
                    [&] { out = evaluate(p, given, options, in_place); });
    std::map<std::string, Tensor> rest;
    for (size_t o = 0; o < out.size(); ++o) {
      if (!destination[o]) {
        rest.emplace(p.outputs[o].name, api::move_out(std::move(out[o])));
        continue;
      }
      // An input returned as it is may lie where it is to be written.
      const core::Tensor& result = out[o];
      if (result.borrowed() &&
          result.bytes().data() != static_cast<const std::byte*>(destination[o]->data))
        out[o] = core::Tensor(result);
      api::write_out(out[o], *destination[o]);
    }
    return rest;
  } catch (const core::Error& e) {
    throw api::public_error(e);
  }
}

static_assert(static_cast<int>(CheckOptions::Rule::Tolerance) ==
              static_cast<int>(oracle::Rule::Tolerance));
static_assert(static_cast<int>(Verdict::Status::Mismatch) ==
              static_cast<int>(oracle::Status::Mismatch));
static_assert(static_cast<int>(Verdict::Status::Inconclusive) ==
              static_cast<int>(oracle::Status::Inconclusive));

namespace {

Verdict public_verdict(const oracle::OutputVerdict& v) {
  Verdict out;
  out.name = v.name;
  out.status = static_cast<Verdict::Status>(v.status);
  out.kind = v.kind;
  out.text = oracle::describe(v);
  out.elements = v.elements;
  out.mismatches = v.mismatches;
  out.unbounded = v.unbounded;
  out.inconclusive = v.inconclusive;
  out.max_ulps = v.max_ulps;
  out.max_fraction = v.max_fraction;
  if (v.worst)
    out.worst_index = v.worst->index;
  return out;
}

} // namespace

std::vector<Verdict> Program::check(const std::map<std::string, TensorRef>& inputs,
                                    const std::map<std::string, TensorRef>& candidates,
                                    const CheckOptions& options) const {
  const Impl& p = *impl_;
  if (candidates.empty()) // as `teval check` without --candidate
    fail("no candidate: give a candidate array for an output; the program's outputs are: " +
         name_list(p.outputs));
  for (const auto& [name, ref] : candidates)
    if (std::none_of(p.outputs.begin(), p.outputs.end(),
                     [&](const TensorInfo& o) { return o.name == name; }))
      fail("the program has no output `" + name + "`; its outputs are: " + name_list(p.outputs));
  try {
    oracle::CheckOptions rule;
    rule.rule = static_cast<oracle::Rule>(options.rule);
    rule.ulps = options.ulps;
    rule.rtol = options.rtol;
    rule.atol = options.atol;
    if (p.unsupported) { // no kernel: against the native references' values
      std::vector<core::Tensor> values;
      std::vector<core::Tensor> given = named_inputs(p, inputs);
      api::controlled(options.timeout, options.stop,
                      [&] { values = ops::evaluate(*p.graph, given); });
      std::vector<Verdict> verdicts;
      for (const auto& [name, ref] : candidates) {
        size_t o = 0;
        while (p.outputs[o].name != name)
          ++o;
        for (const oracle::OutputVerdict& v :
             oracle::judge_against_value(name, api::internal_tensor(ref), values[o], rule))
          verdicts.push_back(public_verdict(v));
      }
      return verdicts;
    }
    const core::Kernel& k = kernel(p);
    std::vector<core::Tensor> graph_inputs = named_inputs(p, inputs);
    std::vector<core::Tensor> given = kernel_inputs(p.whole, graph_inputs);
    oracle::Evaluation values;
    oracle::BoundOptions bound_options;
    bound_options.fma = options.fma;
    bound_options.excess_precision = options.excess_precision;
    bound_options.math_ulps = options.math_ulp;
    for (const auto& [name, ulps] : options.function_ulp)
      bound_options.function_ulps[oracle::math_function(name)] = ulps;
    api::controlled(options.timeout, options.stop,
                    [&] { values = oracle::evaluate(k, given, bound_options); });
    std::vector<Verdict> verdicts;
    for (const auto& [name, ref] : candidates) {
      size_t o = 0;
      while (p.outputs[o].name != name)
        ++o;
      oracle::OutputVerdict v = oracle::judge(name, api::internal_tensor(ref), values.sequential[o],
                                              values.exact[o], values.bounds[o], rule);
      oracle::explain(v, k, given, o);
      verdicts.push_back(public_verdict(v));
    }
    return verdicts;
  } catch (const core::Error& e) {
    throw api::public_error(e);
  }
}

std::map<std::string, Tensor> run(std::string text, const std::map<std::string, TensorRef>& inputs,
                                  const LoadOptions& options, Engine engine) {
  LoadOptions o = options;
  for (const auto& [name, ref] : inputs)
    o.inputs.emplace(name, TensorType{ref.dtype, ref.shape});
  return Program::load(std::move(text), o).run(inputs, engine);
}

} // namespace teval
