// HTP graphs and their text format (see htp_graph.h).
#include "rules/htp_graph.h"

#include "core/error.h"
#include "core/format.h"

#include <cctype>
#include <cmath>
#include <set>

namespace teval::rules {

namespace {

using core::Error;
using core::ErrorKind;

struct TypeRow {
  HtpType type;
  const char* tag;
  core::DType storage;
  int size;
};

const TypeRow kTypes[] = {
    {HtpType::Float32, "Float32", core::DType::Float32, 4},
    {HtpType::Float16, "Float16", core::DType::Float16, 2},
    {HtpType::QUInt8, "QUInt8", core::DType::UInt8, 1},
    {HtpType::QInt8, "QInt8", core::DType::Int8, 1},
    {HtpType::QUInt16, "QUInt16", core::DType::Int32, 2},
    {HtpType::QInt16, "QInt16", core::DType::Int16, 2},
    {HtpType::QInt32, "QInt32", core::DType::Int32, 4},
    {HtpType::Int32, "Int32", core::DType::Int32, 4},
};

const TypeRow& row(HtpType t) {
  return kTypes[static_cast<int>(t)];
}

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool op_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == '*' || c == '#' || c == ':';
}

bool name_char(char c) {
  return op_char(c) && c != ':';
}

// A line-oriented tokenizer over one source line.
class Line {
public:
  Line(const core::SourceFile& file, uint32_t begin, uint32_t end)
      : file_(file), at_(begin), end_(end) {}

  bool done() {
    skip();
    return at_ >= end_;
  }
  core::Span here(uint32_t width = 1) {
    skip();
    return core::Span{&file_, at_, std::min(at_ + width, std::max(end_, at_ + width))};
  }
  [[noreturn]] void fail(const std::string& expected) {
    skip();
    uint32_t w = at_ < end_ ? token_width() : 0;
    throw Error(ErrorKind::Syntax, here(w),
                "expected " + expected + (at_ < end_ ? "" : " before end of line"));
  }
  /// The next token's span.
  core::Span token() {
    skip();
    return core::Span{&file_, at_, at_ + (at_ < end_ ? token_width() : 0)};
  }
  bool at(char c) {
    skip();
    return at_ < end_ && text()[at_] == c;
  }
  bool accept(char c) {
    skip();
    if (at_ < end_ && text()[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c))
      fail(std::string("'") + c + "'");
  }
  // A word of op characters, or a double-quoted string.
  std::string word(const char* what, core::Span* span = nullptr, bool opstring = false) {
    skip();
    uint32_t b = at_;
    if (at_ < end_ && text()[at_] == '"') {
      size_t close = text().find('"', at_ + 1);
      if (close == std::string::npos || close >= end_)
        fail("a closing '\"'");
      at_ = uint32_t(close + 1);
      if (span)
        *span = core::Span{&file_, b, at_};
      return std::string(text().substr(b + 1, close - b - 1));
    }
    while (at_ < end_ && (opstring ? op_char(text()[at_]) : name_char(text()[at_])))
      ++at_;
    if (at_ == b)
      fail(what);
    if (span)
      *span = core::Span{&file_, b, at_};
    return std::string(text().substr(b, at_ - b));
  }
  double number(const char* what) {
    skip();
    const char* b = text().data() + at_;
    char* e = nullptr;
    double v = std::strtod(b, &e);
    if (e == b || e > text().data() + end_)
      fail(what);
    at_ += uint32_t(e - b);
    return v;
  }
  int64_t integer(const char* what) { return integer(what, -(int64_t{1} << 50), int64_t{1} << 50); }
  // An integer in [lo, hi]: out of range is an error, never a wrap.
  int64_t integer(const char* what, int64_t lo, int64_t hi) {
    skip();
    core::Span s = here(token_width());
    double v = number(what);
    if (v != std::floor(v) || std::fabs(v) > 1e15)
      throw Error(ErrorKind::Syntax, s, std::string("expected ") + what);
    if (v < double(lo) || v > double(hi))
      throw Error(ErrorKind::Range, s,
                  std::string(what) + " must be in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "], not " + std::to_string(int64_t(v)));
    return int64_t(v);
  }

private:
  std::string_view text() const { return file_.text(); }
  void skip() {
    while (at_ < end_ && (text()[at_] == ' ' || text()[at_] == '\t' || text()[at_] == '\r'))
      ++at_;
    if (at_ < end_ && text()[at_] == '#')
      at_ = end_;
  }
  uint32_t token_width() const {
    uint32_t e = at_;
    while (e < end_ && name_char(text()[e]))
      ++e;
    return std::max<uint32_t>(e - at_, 1);
  }
  const core::SourceFile& file_;
  uint32_t at_;
  uint32_t end_;
};

// `[d0, d1, ...]`.
core::Shape read_dims(Line& line) {
  core::Shape shape;
  line.expect('[');
  if (line.accept(']'))
    return shape;
  do {
    core::Span at = line.token();
    int64_t d = line.integer("a dimension");
    if (d < 0 || d > (int64_t{1} << 31))
      throw Error(ErrorKind::Limit, at, "dimension " + std::to_string(d) + " is beyond 2^31");
    shape.push_back(d);
  } while (line.accept(','));
  line.expect(']');
  return shape;
}

// `[v0, v1, ...]`: the row-major values of a constant of type \p t.
core::Tensor read_values(Line& line, const TensorType& t) {
  core::Span at = line.here();
  std::vector<double> values;
  line.expect('[');
  if (!line.accept(']')) {
    do
      values.push_back(line.number("a value"));
    while (line.accept(','));
    line.expect(']');
  }
  // Counted before anything is allocated: the values are all there is.
  std::optional<int64_t> numel = core::checked_numel(t.shape);
  if (!numel || int64_t(values.size()) != *numel)
    throw Error(ErrorKind::Shape, at,
                std::to_string(values.size()) + " values for " +
                    (numel ? std::to_string(*numel) : "too many") + " elements");
  core::Tensor value(storage(t.dtype), t.shape);
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    if (core::is_float(value.dtype())) {
      value.set(int64_t(i), core::Scalar::of_float(value.dtype(), v));
      continue;
    }
    if (v != std::floor(v) || std::fabs(v) > 2147483647.0)
      throw Error(ErrorKind::Type, at,
                  "value " + std::to_string(v) + " is not an integer of " + to_string(t));
    value.set(int64_t(i), core::Scalar::of_int(value.dtype(), int64_t(v)));
  }
  return value;
}

TensorType read_type(Line& line, int* outputs = nullptr) {
  core::Span at;
  std::string dt = line.word("a dtype such as float32 or quint8", &at);
  std::optional<HtpType> t = htp_type_from_name(dt);
  if (!t)
    throw Error(ErrorKind::Type, at, "unknown dtype '" + dt + "'");
  TensorType type;
  type.dtype = *t;
  type.shape = read_dims(line);
  while (!line.done() && !line.at('=')) {
    core::Span s;
    std::string key = line.word("zero or step", &s);
    if ((key == "zero" || key == "step") && !quantized(type.dtype))
      throw Error(ErrorKind::Type, s,
                  lower(tag(type.dtype)) + " is not quantized: it has no " + key);
    if (key == "zero") {
      int64_t z = line.integer("an integer zero offset", INT32_MIN, INT32_MAX);
      type.zero_offset = int32_t(z);
    } else if (key == "step") {
      type.step = float(line.number("a step size"));
    } else if (key == "outputs" && outputs) {
      *outputs = int(line.integer("a number of outputs", INT32_MIN, INT32_MAX));
    } else {
      throw Error(ErrorKind::Syntax, s,
                  "unexpected '" + key + "'; expected zero, step" + (outputs ? " or outputs" : ""));
    }
  }
  return type;
}

} // namespace

const char* tag(HtpType t) {
  return row(t).tag;
}
core::DType storage(HtpType t) {
  return row(t).storage;
}
int element_size(HtpType t) {
  return row(t).size;
}
bool quantized(HtpType t) {
  return t != HtpType::Float32 && t != HtpType::Float16 && t != HtpType::Int32;
}

std::pair<int64_t, int64_t> code_range(HtpType t) {
  switch (t) {
  case HtpType::QUInt8:
    return {0, 255};
  case HtpType::QInt8:
    return {-128, 127};
  case HtpType::QUInt16:
    return {0, 65535};
  case HtpType::QInt16:
    return {-32768, 32767};
  default:
    return {INT32_MIN, INT32_MAX};
  }
}

std::optional<HtpType> htp_type_from_name(const std::string& name) {
  for (const TypeRow& r : kTypes)
    if (name == r.tag || name == lower(r.tag))
      return r.type;
  return std::nullopt;
}

std::string to_string(const TensorType& t) {
  std::string out = lower(tag(t.dtype)) + core::to_string(t.shape);
  if (quantized(t.dtype))
    out += " zero " + std::to_string(t.zero_offset) + " step " +
           core::format_scalar(core::Scalar::of_float(core::DType::Float32, t.step));
  return out;
}

int Graph::add(Node n) {
  int id = int(nodes.size());
  if (n.name.empty())
    n.name = "t" + std::to_string(id);
  nodes.push_back(std::move(n));
  return id;
}

std::vector<int> Graph::live() const {
  std::vector<int> order;
  std::vector<char> state(nodes.size(), 0);
  // Iterative post-order from the output.
  std::vector<std::pair<int, size_t>> stack;
  if (output >= 0)
    stack.push_back({output, 0});
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    if (next == 0 && state[id]) {
      stack.pop_back();
      continue;
    }
    state[id] = 1;
    if (next < nodes[id].inputs.size()) {
      int in = nodes[id].inputs[next++];
      if (!state[in])
        stack.push_back({in, 0});
      continue;
    }
    if (state[id] == 1) {
      state[id] = 2;
      order.push_back(id);
    }
    stack.pop_back();
  }
  return order;
}

void Graph::replace_uses(int from, int to) {
  for (Node& n : nodes)
    for (int& in : n.inputs)
      if (in == from)
        in = to;
  if (output == from)
    output = to;
}

Graph Graph::compacted() const {
  Graph g;
  g.options = options;
  std::vector<int> id(nodes.size(), -1);
  for (int old : live()) {
    Node n = nodes[old];
    for (int& in : n.inputs)
      in = id[in];
    id[old] = g.add(std::move(n));
  }
  g.output = output >= 0 ? id[output] : -1;
  return g;
}

Graph read_graph(const core::SourceFile& file) {
  Graph g;
  std::map<std::string, int> names;
  const std::string& text = file.text();
  core::Span output_span;
  for (uint32_t b = 0; b <= text.size();) {
    uint32_t e = uint32_t(std::min(text.find('\n', b), text.size()));
    Line line(file, b, e);
    b = e + 1;
    if (line.done())
      continue;
    core::Span name_span;
    std::string first =
        line.word("input, const, shape, option, output or NAME = OP(...)", &name_span);
    auto define = [&](Node n, core::Span at) {
      if (names.count(n.name))
        throw Error(ErrorKind::Name, at, "'" + n.name + "' is already defined");
      std::string name = n.name;
      names[name] = g.add(std::move(n));
    };
    if (first == "output") {
      std::string name = line.word("a node name", &output_span);
      if (!names.count(name))
        throw Error(ErrorKind::Name, output_span, "unknown node '" + name + "'");
      g.output = names[name];
    } else if (first == "option") {
      std::string name = line.word("an option name");
      line.expect('=');
      g.options[name] = line.number("a number");
    } else if (first == "input" || first == "const" || first == "shape") {
      Node n;
      n.kind = first == "input"   ? Node::Kind::Input
               : first == "const" ? Node::Kind::Const
                                  : Node::Kind::Shape;
      n.op = first == "input" ? "*Input" : first == "const" ? "$Const" : "$Shape";
      n.name = line.word("a node name", &name_span);
      if (n.kind == Node::Kind::Shape) {
        line.expect('=');
        n.type.dtype = HtpType::Int32;
        n.type.shape = read_dims(line);
      } else {
        line.expect(':');
        n.type = read_type(line);
        if (n.kind == Node::Kind::Const) {
          line.expect('=');
          n.value = read_values(line, n.type);
        }
      }
      if (!line.done())
        line.fail("end of line");
      define(std::move(n), name_span);
    } else {
      Node n;
      n.name = first;
      line.expect('=');
      n.op = line.word("an opstring", nullptr, true);
      line.expect('(');
      if (!line.accept(')')) {
        do {
          core::Span s;
          std::string in = line.word("an input name", &s);
          if (!names.count(in))
            throw Error(ErrorKind::Name, s, "unknown node '" + in + "'");
          n.inputs.push_back(names[in]);
        } while (line.accept(','));
        line.expect(')');
      }
      line.expect(':');
      n.type = read_type(line, &n.outputs);
      if (n.outputs < 1 || n.outputs > 1024)
        throw Error(ErrorKind::Range, name_span, "an op has 1 to 1024 outputs");
      define(std::move(n), name_span);
    }
  }
  if (g.output < 0)
    throw Error(ErrorKind::Input, file.name(), "the graph has no `output NAME` line");
  return g;
}

std::string to_text(const Graph& g) {
  std::string out;
  for (const auto& [name, value] : g.options)
    out += "option " + name + " = " +
           core::format_scalar(core::Scalar::of_float(core::DType::Float64, value)) + "\n";
  auto quoted = [](const std::string& op) {
    for (char c : op)
      if (!op_char(c))
        return "\"" + op + "\"";
    return op;
  };
  for (int id : g.live()) {
    const Node& n = g.nodes[id];
    switch (n.kind) {
    case Node::Kind::Input:
      out += "input " + n.name + ": " + to_string(n.type) + "\n";
      break;
    case Node::Kind::Shape:
      out += "shape " + n.name + " = " + core::to_string(n.type.shape) + "\n";
      break;
    case Node::Kind::Const: {
      out += "const " + n.name + ": " + to_string(n.type) + " = [";
      for (int64_t i = 0; i < n.value->numel(); ++i)
        out += (i ? ", " : "") + core::format_scalar(n.value->get(i));
      out += "]\n";
      break;
    }
    case Node::Kind::Op: {
      out += n.name + " = " + quoted(n.op) + "(";
      for (size_t i = 0; i < n.inputs.size(); ++i)
        out += (i ? ", " : "") + g.nodes[n.inputs[i]].name;
      out += "): " + to_string(n.type);
      if (n.outputs != 1)
        out += " outputs " + std::to_string(n.outputs);
      out += "\n";
      break;
    }
    }
  }
  out += "output " + g.nodes[g.output].name + "\n";
  return out;
}

} // namespace teval::rules
