// Ops files and graph evaluation (see htp_ops.h).
#include "rules/htp_ops.h"

#include "core/error.h"
#include "interp/interpreter.h"
#include "parser/antares/antares.h"
#include "parser/antares/antares_source.h"
#include "rules/htp_eval.h"
#include "rules/htp_ops_text.h"

#include <map>
#include <regex>

namespace teval::rules {

namespace {

using detail::evaluate_arithmetic;
using detail::expand_functions;
using detail::field_pattern;
using detail::instantiate;

using core::Error;
using core::ErrorKind;

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The rank of each input `inK` as \p program first indexes it (the
// number of indices inside its brackets).
std::map<std::string, size_t> input_ranks(const std::string& program) {
  static const std::regex access(R"(\b(in[0-9]+)\s*\[)");
  std::map<std::string, size_t> ranks;
  for (auto it = std::sregex_iterator(program.begin(), program.end(), access);
       it != std::sregex_iterator(); ++it) {
    if (ranks.count((*it)[1].str()))
      continue;
    size_t rank = 1;
    int depth = 0;
    for (size_t i = size_t(it->position() + it->length()); i < program.size(); ++i) {
      char c = program[i];
      if (c == '[' || c == '(')
        ++depth;
      else if ((c == ']' || c == ')') && depth-- == 0)
        break;
      else if (c == ',' && depth == 0)
        ++rank;
    }
    ranks[(*it)[1].str()] = rank;
  }
  return ranks;
}

// A definition's mistakes that do not depend on the node it describes are
// errors of the ops file, at the definition: a malformed or unclosed
// `$(...)` field, a program that does not parse, and an axis whose extent
// no input can give (it never indexes a whole dimension: no node's
// extents can help). (Checked with every `$` field a small extent; what
// depends on the node's types is found when a node is evaluated.)
void check_definition(const OpDef& def) {
  // Two sets of extents: a division by zero under both is the
  // definition's own, under one it may depend on the node.
  std::string program;
  int divisions_by_zero = 0;
  std::string why;
  for (const char* extent : {"7", "11"}) {
    try {
      program = evaluate_arithmetic(
          std::regex_replace(expand_functions(def.program, true), field_pattern(), extent),
          def.name);
    } catch (const IllTyped& e) {
      if (e.message.find("divides by zero") == std::string::npos)
        throw Error(ErrorKind::Syntax, def.span, e.message);
      ++divisions_by_zero;
      why = e.message;
    }
  }
  if (divisions_by_zero == 2)
    throw Error(ErrorKind::Arithmetic, def.span, why);
  if (divisions_by_zero)
    return;
  auto file = core::SourceFile::make(def.name, program);
  parser::AntaresSource source;
  try {
    source = parser::read_antares(*file);
  } catch (const Error& e) {
    throw Error(ErrorKind::Syntax, def.span,
                "the program of " + def.name + " does not parse: " + e.message());
  }
  std::map<std::string, parser::InputType> types;
  for (const auto& [name, rank] : input_ranks(program))
    types[name] = parser::InputType{core::DType::Float32, core::Shape(rank, 7), {}};
  try {
    parser::elaborate_antares(source, types);
  } catch (const Error& e) {
    // Other errors may depend on the node (its ranks and extents).
    if (e.message().starts_with("cannot infer the extent of axis"))
      throw Error(ErrorKind::Shape, def.span, "in the program of " + def.name + ": " + e.message());
  }
}

struct Elaborated {
  core::Kernel kernel;
  std::shared_ptr<const core::SourceFile> text;
};

Elaborated elaborate(const OpDef& def, const Graph& g, const std::vector<int>& inputs,
                     const TensorType* out) {
  std::vector<const TensorType*> in;
  for (int i : inputs)
    in.push_back(&g.nodes[i].type);
  std::string program = instantiate(def, in, out);
  auto at = def.span.file->location(def.span.begin);
  auto file = core::SourceFile::make(
      def.span.file->name() + ":" + std::to_string(at.line) + " (" + def.name + ")", program);
  std::map<std::string, parser::InputType> types;
  for (size_t k = 0; k < inputs.size(); ++k)
    types["in" + std::to_string(k)] = parser::InputType{storage(in[k]->dtype), in[k]->shape, {}};
  try {
    core::Kernel kernel = parser::elaborate_antares(parser::read_antares(*file), types);
    for (int id : interp::input_ids(kernel)) {
      const std::string& name = kernel.tensors[id].name;
      size_t k = std::stoul(name.substr(2));
      if (g.nodes[inputs[k]].kind == Node::Kind::Shape)
        throw IllTyped{def.name + " reads the data of its input " + std::to_string(k) +
                       ", a shape (it has none)"};
    }
    return {std::move(kernel), file};
  } catch (const Error& e) {
    throw IllTyped{def.name + "'s definition does not accept these inputs: " + e.message()};
  }
}

int out0(const core::Kernel& k, const OpDef& def) {
  for (int id : k.outputs)
    if (k.tensors[id].name == "out0")
      return id;
  throw IllTyped{def.name + "'s definition has no output out0"};
}

// The output type of the built-in Concat(axis, t...): the tensors agree in
// dtype, rank and every extent but the axis one, which adds up.
TensorType concat_type(const Graph& g, const std::vector<int>& inputs) {
  if (inputs.size() < 2 || g.nodes[inputs[0]].kind != Node::Kind::Const)
    throw IllTyped{"Concat takes a constant axis and one or more tensors"};
  int64_t axis = g.nodes[inputs[0]].value->get(0).i;
  TensorType out = g.nodes[inputs[1]].type;
  if (axis < 0 || axis >= int64_t(out.shape.size()))
    throw IllTyped{"Concat axis " + std::to_string(axis) + " of rank-" +
                   std::to_string(out.shape.size()) + " tensors"};
  out.shape[axis] = 0;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const TensorType& t = g.nodes[inputs[i]].type;
    bool agree = t.dtype == out.dtype && t.shape.size() == out.shape.size();
    for (size_t d = 0; agree && d < t.shape.size(); ++d)
      agree = int64_t(d) == axis || t.shape[d] == out.shape[d];
    if (!agree)
      throw IllTyped{"Concat of " + to_string(g.nodes[inputs[1]].type) + " and " + to_string(t) +
                     " along axis " + std::to_string(axis)};
    out.shape[axis] += t.shape[axis];
  }
  return out;
}

// " for 2 inputs of QUInt8": the inputs a definition was looked up for.
std::string for_inputs(const Graph& g, const std::vector<int>& inputs) {
  return inputs.empty()
             ? " without inputs"
             : " for " + std::to_string(inputs.size()) + " input" +
                   (inputs.size() == 1 ? "" : "s") + " of " + tag(g.nodes[inputs[0]].type.dtype);
}

} // namespace

std::optional<HtpType> htp_type_of_storage(core::DType t, std::optional<HtpType> like) {
  if (like && storage(*like) == t)
    return like;
  switch (t) {
  case core::DType::Float32:
    return HtpType::Float32;
  case core::DType::Float16:
    return HtpType::Float16;
  case core::DType::UInt8:
    return HtpType::QUInt8;
  case core::DType::Int8:
    return HtpType::QInt8;
  case core::DType::Int16:
    return HtpType::QInt16;
  case core::DType::Int32:
    return HtpType::Int32;
  default:
    return std::nullopt;
  }
}

OpSet OpSet::read(std::shared_ptr<const core::SourceFile> source, const OpSet* base) {
  OpSet set;
  if (base)
    set.sources_ = base->sources_;
  set.sources_.push_back(source);
  std::map<std::string, std::vector<OpDef>> own;
  const std::string& text = source->text();
  for (size_t b = 0; b < text.size();) {
    size_t e = std::min(text.find('\n', b), text.size());
    size_t line_begin = b;
    std::string line = text.substr(b, e - b);
    // A trailing backslash continues the line.
    while (!trim(line).empty() && trim(line).back() == '\\' && e < text.size()) {
      line = trim(line);
      line.pop_back();
      size_t e2 = std::min(text.find('\n', e + 1), text.size());
      line += " " + text.substr(e + 1, e2 - e - 1);
      e = e2;
    }
    b = e + 1;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#')
      continue;
    uint32_t at = uint32_t(line_begin + line.find_first_not_of(" \t"));
    core::Span span{source.get(), at, uint32_t(at + 1)};
    size_t close = t.size() > 1 && t[0] == '"' ? t.find('"', 1) : std::string::npos;
    if (close == std::string::npos || close == 1)
      throw Error(ErrorKind::Syntax, span, "expected \"OpName\": <einstein_v2 program>");
    std::string name = t.substr(1, close - 1);
    span.end = uint32_t(at + close + 1);
    size_t colon = t.find_first_not_of(" \t", close + 1);
    // "Op"[selector]: the definition for inputs of one dtype or class, or
    // of one count, or both ("Op"[float, 2 inputs]).
    std::string selector;
    int arity = -1;
    if (colon != std::string::npos && t[colon] == '[') {
      size_t end = t.find(']', colon);
      core::Span sel{source.get(), uint32_t(at + colon), uint32_t(at + colon + 1)};
      if (end == std::string::npos || t.find(':', colon) < end)
        throw Error(ErrorKind::Syntax, sel, "expected ']' after the selector");
      sel.end = uint32_t(at + end + 1);
      std::string list = t.substr(colon + 1, end - colon - 1);
      for (size_t b = 0; b <= list.size();) {
        size_t comma = std::min(list.find(',', b), list.size());
        std::string item = trim(list.substr(b, comma - b));
        b = comma + 1;
        static const std::regex count(R"(([0-9]{1,3}) inputs?)");
        std::smatch m;
        if (std::regex_match(item, m, count) && arity < 0) {
          arity = std::stoi(m[1].str());
        } else if ((item == "float" || item == "quantized") && selector.empty()) {
          selector = item;
        } else if (htp_type_from_name(item) && selector.empty()) {
          selector = tag(*htp_type_from_name(item));
        } else {
          throw Error(ErrorKind::Syntax, sel,
                      "malformed selector item '" + item +
                          "': expected one dtype (float32, quint8, ...), float or quantized, "
                          "and one count ('2 inputs')");
        }
      }
      span.end = sel.end;
      colon = t.find_first_not_of(" \t", end + 1);
    }
    if (colon == std::string::npos || t[colon] != ':')
      throw Error(ErrorKind::Syntax, span, "expected ':' after the op name");
    std::string program = trim(t.substr(colon + 1));
    if (program.empty())
      throw Error(ErrorKind::Syntax, span, "op " + name + " has no program");
    try {
      expand_functions(program, true);
    } catch (const std::string& why) {
      throw Error(ErrorKind::Syntax, span, "in the program of " + name + ": " + why);
    }
    std::vector<OpDef>& defs = own[name];
    for (const OpDef& d : defs)
      if (d.selector == selector && d.inputs == arity)
        throw Error(ErrorKind::Name, span, "op " + t.substr(0, span.end - at) + " is defined twice")
            .note(d.span, "first defined here");
    defs.push_back(OpDef{name, selector, arity, program, span});
    check_definition(defs.back());
  }
  if (base)
    set.defs_ = base->defs_;
  for (auto& [name, defs] : own)
    set.defs_[name] = std::move(defs);
  return set;
}

const OpSet& OpSet::standard() {
  static const OpSet set = read(core::SourceFile::make("<standard ops>", standard_text()));
  return set;
}

const OpDef* OpSet::find(const std::string& op, std::optional<HtpType> first, size_t inputs) const {
  auto it = defs_.find(op);
  if (it == defs_.end())
    return nullptr;
  // The definition that holds and says the most: a dtype over a class over
  // any dtype, then a count over any count.
  const OpDef* best = nullptr;
  int best_score = -1;
  for (const OpDef& d : it->second) {
    int score = 0;
    if (d.inputs >= 0 && size_t(d.inputs) != inputs)
      continue;
    if (!d.selector.empty()) {
      if (!first)
        continue;
      if (d.selector == tag(*first))
        score = 4;
      else if (*first != HtpType::Int32 &&
               d.selector == (quantized(*first) ? "quantized" : "float"))
        score = 2;
      else
        continue;
    }
    score += d.inputs >= 0;
    if (score > best_score) {
      best = &d;
      best_score = score;
    }
  }
  return best;
}

bool OpSet::knows(const std::string& op) const {
  return defs_.count(op) || op == "Concat" || op == "$Out";
}

TensorType infer_type(const OpSet& ops, const Graph& g, const std::string& op,
                      const std::vector<int>& inputs, std::optional<TensorType> quant) {
  if (op == "Concat" && !ops.definitions().count(op))
    return concat_type(g, inputs);
  std::optional<HtpType> like;
  if (!inputs.empty())
    like = g.nodes[inputs[0]].type.dtype;
  const OpDef* def = ops.find(op, like, inputs.size());
  if (!def)
    throw IllTyped{"op " + op + " has no definition" + for_inputs(g, inputs)};
  // An op whose definition does not read its output's quantization keeps
  // its first input's: it computes in that encoding.
  bool own_quant = def->program.find("$quantize(") != std::string::npos ||
                   def->program.find("$encode(") != std::string::npos ||
                   def->program.find("$out0.zero") != std::string::npos ||
                   def->program.find("$out0.step") != std::string::npos;
  if (!own_quant)
    quant.reset();
  TensorType out = quant ? *quant : inputs.empty() ? TensorType{} : g.nodes[inputs[0]].type;
  Elaborated el = elaborate(*def, g, inputs, &out);
  const core::TensorDecl& o = el.kernel.tensors[out0(el.kernel, *def)];
  std::optional<HtpType> t = htp_type_of_storage(o.dtype, quant ? quant->dtype : like);
  if (!t)
    throw IllTyped{op + " computes " + std::string(core::name(o.dtype)) +
                   ", which no HTP type stores"};
  out.dtype = *t;
  out.shape = o.shape;
  if (!quantized(out.dtype)) {
    out.zero_offset = 0;
    out.step = 1.0f;
  }
  return out;
}

core::Kernel op_kernel(const OpSet& ops, const std::string& op,
                       const std::vector<TensorType>& inputs, const TensorType& out,
                       const OpDef** def) {
  Graph g;
  std::vector<int> ids;
  for (const TensorType& t : inputs) {
    Node n;
    n.kind = Node::Kind::Input;
    n.op = "*Input";
    n.type = t;
    ids.push_back(g.add(std::move(n)));
  }
  const OpDef* d =
      ops.find(op, inputs.empty() ? std::nullopt : std::optional(inputs[0].dtype), inputs.size());
  if (!d)
    throw IllTyped{"op " + op + " has no definition" + for_inputs(g, ids)};
  if (def)
    *def = d;
  return elaborate(*d, g, ids, &out).kernel;
}

core::Tensor evaluate(const Graph& g, const OpSet& ops, const std::map<int, core::Tensor>& inputs) {
  std::map<int, std::vector<core::Tensor>> values;
  for (int id : g.live()) {
    const Node& n = g.nodes[id];
    std::vector<core::Tensor>& out = values[id];
    switch (n.kind) {
    case Node::Kind::Input:
      out.push_back(inputs.at(id));
      continue;
    case Node::Kind::Const:
      out.push_back(*n.value);
      continue;
    case Node::Kind::Shape:
      out.push_back(core::Tensor(core::DType::Int32, {0}));
      continue;
    case Node::Kind::Op:
      break;
    }
    auto check_type = [&](core::DType dtype, const core::Shape& shape) {
      if (dtype != storage(n.type.dtype) || shape != n.type.shape)
        throw IllTyped{n.name + " = " + n.op + "(...) computes " + std::string(core::name(dtype)) +
                       core::to_string(shape) + ", but its output is declared " +
                       to_string(n.type)};
    };
    auto check = [&](const core::Tensor& t) { check_type(t.dtype(), t.shape()); };
    if (n.op == "Concat" && !ops.definitions().count(n.op)) {
      core::Shape shape = concat_type(g, n.inputs).shape;
      int64_t axis = g.nodes[n.inputs[0]].value->get(0).i;
      const core::Tensor& first = values[n.inputs[1]][0];
      core::Tensor result(first.dtype(), shape);
      // Row-major: each outer index copies one run of every input in turn.
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < axis; ++d)
        outer *= shape[d];
      for (size_t d = axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
      int64_t at = 0;
      for (int64_t o = 0; o < outer; ++o)
        for (size_t i = 1; i < n.inputs.size(); ++i) {
          const core::Tensor& t = values[n.inputs[i]][0];
          int64_t run = t.shape()[axis] * inner;
          for (int64_t j = 0; j < run; ++j)
            result.set(at++, t.get(o * run + j));
        }
      check(result);
      out.push_back(std::move(result));
      continue;
    }
    if (n.op == "$Out") {
      if (n.inputs.size() != 2 || g.nodes[n.inputs[1]].kind != Node::Kind::Shape ||
          g.nodes[n.inputs[1]].type.shape.size() != 4)
        throw IllTyped{n.name + ": $Out takes an op and gen_Shape(0, 0, n_out, outno)"};
      int64_t k = g.nodes[n.inputs[1]].type.shape[3];
      const std::vector<core::Tensor>& from = values[n.inputs[0]];
      if (k < 0 || k >= int64_t(from.size()))
        throw NotEvaluable{{},
                           n.name + ": output " + std::to_string(k) + " of " +
                               g.nodes[n.inputs[0]].name + " is not modelled"};
      check(from[k]);
      out.push_back(from[k]);
      continue;
    }
    const OpDef* def = ops.find(
        n.op, n.inputs.empty() ? std::nullopt : std::optional(g.nodes[n.inputs[0]].type.dtype),
        n.inputs.size());
    // An op defined for other inputs is ill-typed here (HTP registers ops
    // per dtype); one defined for none cannot be evaluated.
    if (!def && ops.definitions().count(n.op))
      throw IllTyped{n.name + " = " + n.op + "(...): op " + n.op + " has no definition" +
                     for_inputs(g, n.inputs)};
    if (!def)
      throw NotEvaluable{{}, "op " + n.op + " has no definition" + for_inputs(g, n.inputs)};
    Elaborated el = elaborate(*def, g, n.inputs, &n.type);
    // Typed before it runs: an output unlike the declared one is ill-typed
    // even where running it would fault first.
    const core::TensorDecl& declared = el.kernel.tensors[out0(el.kernel, *def)];
    check_type(declared.dtype, declared.shape);
    std::vector<core::Tensor> args;
    for (int tid : interp::input_ids(el.kernel)) {
      size_t k = std::stoul(el.kernel.tensors[tid].name.substr(2));
      args.push_back(values[n.inputs[k]][0]);
    }
    std::vector<core::Tensor> results = interp::run(el.kernel, args);
    int o = out0(el.kernel, *def);
    for (size_t i = 0; i < el.kernel.outputs.size(); ++i)
      if (el.kernel.outputs[i] == o) {
        check(results[i]);
        out.push_back(std::move(results[i]));
      }
  }
  return values[g.output][0];
}

} // namespace teval::rules
