// Ops files and graph evaluation (see htp_ops.h).
#include "rules/htp_ops.h"

#include "core/error.h"
#include "core/format.h"
#include "interp/interpreter.h"
#include "parser/antares/antares.h"
#include "parser/antares/antares_source.h"
#include "rules/htp_eval.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <regex>

namespace teval::rules {

namespace {

using core::Error;
using core::ErrorKind;

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

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

// Integer arithmetic of a `$(...)` field: + - * / (truncating) and
// parentheses over integer literals, with the usual precedence.
class Arithmetic {
public:
  Arithmetic(std::string_view text, const std::string& op) : text_(text), op_(op) {}
  int64_t run() {
    int64_t v = sum();
    skip();
    if (at_ != text_.size())
      fail();
    return v;
  }

private:
  [[noreturn]] void fail() {
    throw IllTyped{op_ + "'s definition has a malformed $(...) field: $(" + std::string(text_) +
                   ")"};
  }
  void skip() {
    while (at_ < text_.size() && text_[at_] == ' ')
      ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  [[noreturn]] void overflow() {
    throw IllTyped{op_ + "'s definition overflows in $(" + std::string(text_) + ")"};
  }
  int64_t sum() {
    int64_t v = product();
    for (;;) {
      if (eat('+')) {
        if (__builtin_add_overflow(v, product(), &v))
          overflow();
      } else if (eat('-')) {
        if (__builtin_sub_overflow(v, product(), &v))
          overflow();
      } else {
        return v;
      }
    }
  }
  int64_t product() {
    int64_t v = atom();
    for (;;) {
      if (eat('*')) {
        if (__builtin_mul_overflow(v, atom(), &v))
          overflow();
      } else if (eat('/')) {
        int64_t d = atom();
        if (d == 0 || (d == -1 && v == INT64_MIN))
          throw IllTyped{op_ + "'s definition divides by zero in $(" + std::string(text_) + ")"};
        v /= d;
      } else {
        return v;
      }
    }
  }
  int64_t atom() {
    // Brackets and signs nest; as in every grammar, 256 deep at most.
    if (++depth_ > 256)
      throw IllTyped{op_ + "'s definition nests a $(...) field more than 256 deep"};
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    if (eat('(')) {
      int64_t v = sum();
      if (!eat(')'))
        fail();
      return v;
    }
    if (eat('-')) {
      int64_t v = atom();
      if (v == INT64_MIN)
        overflow();
      return -v;
    }
    skip();
    size_t b = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])) &&
           at_ - b < 12)
      ++at_;
    if (at_ == b)
      fail();
    return std::stoll(std::string(text_.substr(b, at_ - b)));
  }
  std::string_view text_;
  const std::string& op_;
  size_t at_ = 0;
  int depth_ = 0;
};

// `$(expr)` fields of \p text evaluated.
std::string evaluate_arithmetic(const std::string& text, const std::string& op) {
  std::string out;
  size_t last = 0;
  for (size_t at = text.find("$("); at != std::string::npos; at = text.find("$(", last)) {
    size_t depth = 0, end = at + 1;
    for (; end < text.size(); ++end) {
      depth += text[end] == '(';
      if (text[end] == ')' && --depth == 0)
        break;
    }
    if (end == text.size())
      throw IllTyped{op + "'s definition has an unclosed $(...) field"};
    out += text.substr(last, at - last);
    out +=
        std::to_string(Arithmetic(std::string_view(text).substr(at + 2, end - at - 2), op).run());
    last = end + 1;
  }
  return out + text.substr(last);
}

// A definition's $ fields: $inK[d], $inK.zero, .step, .dtype, .rank, and
// the same of $out0.
const std::regex& field_pattern() {
  static const std::regex field(R"(\$(in|out)(\d+)(?:\[(\d+)\]|\.(zero|step|dtype|rank)))");
  return field;
}

// The number a field's digits spell; past size_t's range it saturates, an
// operand or an axis no node has.
size_t field_number(const std::ssub_match& digits) {
  std::string text = digits.str();
  size_t value = 0;
  if (std::from_chars(text.data(), text.data() + text.size(), value).ec != std::errc())
    return std::numeric_limits<size_t>::max();
  return value;
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
      program =
          evaluate_arithmetic(std::regex_replace(def.program, field_pattern(), extent), def.name);
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

// The definition's program with its $ fields replaced for one node.
std::string instantiate(const OpDef& def, const std::vector<const TensorType*>& in,
                        const TensorType* out) {
  std::string result;
  std::string text = def.program;
  auto begin = std::sregex_iterator(text.begin(), text.end(), field_pattern());
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    result += text.substr(last, m.position() - last);
    last = m.position() + m.length();
    bool is_in = m[1] == "in";
    size_t k = field_number(m[2]);
    const TensorType* t = nullptr;
    if (is_in && k < in.size())
      t = in[k];
    if (!is_in && k == 0)
      t = out;
    if (!t)
      throw IllTyped{def.name + "'s definition uses " + m.str() + ", but the node has " +
                     (is_in ? std::to_string(in.size()) + " input(s)" : "no known output type")};
    if (m[3].matched) {
      size_t d = field_number(m[3]);
      if (d >= t->shape.size())
        throw IllTyped{def.name + "'s definition uses " + m.str() + " of a rank-" +
                       std::to_string(t->shape.size()) + " tensor"};
      result += std::to_string(t->shape[d]);
    } else if (m[4] == "zero") {
      result += std::to_string(t->zero_offset);
    } else if (m[4] == "step") {
      result += core::format_scalar(core::Scalar::of_float(core::DType::Float32, t->step));
    } else if (m[4] == "rank") {
      result += std::to_string(t->shape.size());
    } else {
      result += std::string(core::name(storage(t->dtype)));
    }
  }
  return evaluate_arithmetic(result + text.substr(last), def.name);
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

} // namespace

OpSet OpSet::read(std::shared_ptr<const core::SourceFile> source) {
  OpSet set;
  set.source_ = source;
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
    if (colon == std::string::npos || t[colon] != ':')
      throw Error(ErrorKind::Syntax, span, "expected ':' after the op name");
    std::string program = trim(t.substr(colon + 1));
    if (program.empty())
      throw Error(ErrorKind::Syntax, span, "op " + name + " has no program");
    if (set.defs_.count(name))
      throw Error(ErrorKind::Name, span, "op " + name + " is defined twice")
          .note(set.defs_[name].span, "first defined here");
    set.defs_[name] = OpDef{name, program, span};
    check_definition(set.defs_[name]);
  }
  return set;
}

const OpDef* OpSet::find(const std::string& op) const {
  auto it = defs_.find(op);
  return it == defs_.end() ? nullptr : &it->second;
}

bool OpSet::knows(const std::string& op) const {
  return find(op) || op == "Concat" || op == "$Out";
}

TensorType infer_type(const OpSet& ops, const Graph& g, const std::string& op,
                      const std::vector<int>& inputs, std::optional<TensorType> quant) {
  const OpDef* def = ops.find(op);
  if (!def && op == "Concat")
    return concat_type(g, inputs);
  if (!def)
    throw IllTyped{"op " + op + " has no definition"};
  std::optional<HtpType> like;
  if (!inputs.empty())
    like = g.nodes[inputs[0]].type.dtype;
  // An op whose definition does not read its output's quantization keeps
  // its first input's: it computes in that encoding.
  bool own_quant = def->program.find("$out0.zero") != std::string::npos ||
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
    auto check = [&](const core::Tensor& t) {
      if (t.dtype() != storage(n.type.dtype) || t.shape() != n.type.shape)
        throw IllTyped{n.name + " = " + n.op + "(...) computes " +
                       std::string(core::name(t.dtype())) + core::to_string(t.shape()) +
                       ", but its output is declared " + to_string(n.type)};
    };
    if (n.op == "Concat" && !ops.find("Concat")) {
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
    const OpDef* def = ops.find(n.op);
    if (!def)
      throw NotEvaluable{{}, "op " + n.op + " has no definition in the ops file"};
    Elaborated el = elaborate(*def, g, n.inputs, &n.type);
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
