// The Spirit X3 grammar of MLIR text (see mlir_grammar.h for the AST it
// builds and x3_support.hpp for the machinery).
#include "parser/mlir/mlir_grammar.h"

#include "parser/x3_support.hpp"

#include <cstdlib>
#include <iterator>

namespace teval::parser {

namespace {

using namespace x3support;

// ---------------------------------------------------------------------------
// What the rules build before it becomes AST

struct Block {
  std::vector<ast::Param> args;
  std::vector<ast::StmtPtr> body;
};
using Region = std::vector<Block>;
using Statements = std::vector<ast::StmtPtr>;
using Keywords = std::vector<ast::Keyword>;
using Nodes = std::vector<Node>;

/// An operation as it is read: name, operands (and positional
/// attributes), keywords, regions, type.
struct Operation {
  It begin = nullptr;
  It end = nullptr;
  std::string name;
  Span name_span;
  std::vector<ast::ExprPtr> args;
  Keywords keywords;
  std::vector<Region> regions;
  Node type;
  /// A pretty while's iteration arguments (`%arg0 = %init`): the names
  /// its regions' blocks take.
  std::vector<std::pair<std::string, Span>> iteration;
};

/// The values an operation defines: `%0`, `%0:2`, `%a, %b`.
struct Results {
  std::vector<Node> names;
};

struct FunctionParts {
  It begin = nullptr;
  std::string name;
  std::vector<ast::Param> params;
  Nodes results;
  bool has_body = false;
  Region body;
};

// ---------------------------------------------------------------------------
// Tokens

auto const skipper = x3::space | (x3::lit("//") >> *(x3::char_ - x3::eol));

auto const quoted = x3::lexeme['"' >> *((x3::lit('\\') >> x3::char_) | (x3::char_ - '"')) > '"'];

// `loc(...)`, with parentheses and strings balanced inside.
x3::rule<class balanced_class> const balanced = "location";
auto const balanced_def = *(quoted | ('(' >> balanced >> ')') | (x3::char_ - x3::char_("()\"")));
auto const location = x3::lexeme[x3::lit("loc") >> '(' >> balanced >> ')'];
auto const loc_opt = -location;

// `<...>` with nesting and strings, as in `#stablehlo<comparison_direction GT>`;
// an arrow inside closes nothing (`#stablehlo.conv<[b, f]x[i, o]->[b, f]>`).
x3::rule<class angled_class> const angled = "`<...>`";
auto const angled_def = '<' >>
                        *(quoted | angled | x3::lit("->") | (x3::char_ - x3::char_("<>\""))) >> '>';

auto const id_char = x3::alnum | x3::char_("_$.");
x3::rule<class bare_id_class, std::string> const bare_id = "identifier";
auto const bare_id_def = x3::lexeme[(x3::alpha | x3::char_('_')) >> *id_char];

x3::rule<class value_def_class, std::string> const value_def_name = "value name";
auto const value_def_name_def = x3::raw[x3::lexeme['%' >> +(x3::alnum | x3::char_("_$.-"))]];
x3::rule<class value_use_class, std::string> const value_use_name = "value";
auto const value_use_name_def =
    x3::raw[x3::lexeme['%' >> +(x3::alnum | x3::char_("_$.-")) >> -('#' >> +x3::digit)]];

x3::rule<class symbol_class, std::string> const symbol = "symbol (`@name`)";
auto const symbol_def = x3::raw[x3::lexeme['@' >> ((+id_char) | quoted)]];

// `#alias`, `#dialect<...>`, `!dialect.type<...>`, `affine_map<...>`,
// `complex<f32>`: kept as written.
x3::rule<class opaque_class, std::string> const opaque = "attribute";
auto const opaque_def =
    x3::raw[x3::lexeme[x3::char_("#!") >> +(x3::alnum | x3::char_("_$.-")) >> -angled]] |
    x3::raw[x3::lexeme[(x3::alpha | x3::char_('_')) >> *id_char >> angled]];

// The pretty forms' bare `<...>` attribute, kept as written.
x3::rule<class bare_angled_class, std::string> const bare_angled = "attribute";
auto const bare_angled_def = x3::raw[x3::lexeme[angled]];

x3::rule<class string_class, std::string> const string_text = "string";
auto const string_text_def = x3::raw[quoted];

x3::rule<class float_class, std::string> const float_text = "number";
auto const float_text_def =
    x3::raw[x3::lexeme[-x3::char_("-+") >> +x3::digit >> '.' >> *x3::digit >>
                       -(x3::char_("eE") >> -x3::char_("-+") >> +x3::digit)]];

x3::rule<class int_class, std::string> const int_text = "integer";
auto const int_text_def =
    x3::raw[x3::lexeme[-x3::char_("-+") >> ((x3::lit("0x") >> +x3::xdigit) | +x3::digit) >>
                       !(x3::alnum | '_' | '.')]];

// MLIR's string escapes: \" \\ \n \t and two hex digits.
std::string decode_mlir_string(std::string_view raw) {
  std::string out;
  for (size_t i = 1; i + 1 < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    char c = raw[++i];
    if (c == 'n') {
      out += '\n';
    } else if (c == 't') {
      out += '\t';
    } else if (std::isxdigit(static_cast<unsigned char>(c)) && i + 2 < raw.size() &&
               std::isxdigit(static_cast<unsigned char>(raw[i + 1]))) {
      out += static_cast<char>(std::stoi(std::string(raw.substr(i, 2)), nullptr, 16));
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Actions

template <class Ctx> Span span_of(const Ctx& ctx, It b, It e) {
  return state(ctx).span(b, e);
}

Node name_node(Span span, std::string id) {
  return make(span, ast::Name{std::move(id)});
}

auto const mk_string = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) = make(span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a)),
                       ast::StringLit{decode_mlir_string(fusion::at_c<1>(a)), false});
};

// A number's sign is a Unary around the literal, as in the other notations.
template <class Ctx> Node signed_number(const Ctx& ctx, It at, It end, const std::string& text) {
  bool negative = text[0] == '-';
  size_t skip = text[0] == '-' || text[0] == '+' ? 1 : 0;
  std::string digits = text.substr(skip);
  Span span = span_of(ctx, at + skip, end);
  Node literal;
  if (digits.find_first_of(".") != std::string::npos) {
    literal = make(span, ast::FloatLit{std::strtod(digits.c_str(), nullptr), digits});
  } else {
    bool hex = digits.size() > 2 && digits[1] == 'x';
    uint64_t value = 0;
    for (size_t i = hex ? 2 : 0; i < digits.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(std::tolower(digits[i]));
      uint64_t digit = std::isdigit(c) ? c - '0' : c - 'a' + 10;
      if (__builtin_mul_overflow(value, hex ? 16 : 10, &value) ||
          __builtin_add_overflow(value, digit, &value))
        throw Error(ErrorKind::Syntax, span, "integer does not fit in 64 bits");
    }
    literal = make(span, ast::IntLit{value, digits});
  }
  if (!skip)
    return literal;
  return make(span_of(ctx, at, end),
              ast::Unary{negative ? ast::UnaryOp::Neg : ast::UnaryOp::Plus, literal});
}

auto const mk_number = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) = signed_number(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a), fusion::at_c<1>(a));
};

auto const push = [](auto& ctx) { x3::_val(ctx).push_back(x3::_attr(ctx)); };

// `tensor<4x?xf32>`: the dimensions' text, then the element type.
auto const mk_tensor = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  It dims_at = fusion::at_c<1>(a);
  const std::string& dims = fusion::at_c<2>(a);
  Node element = fusion::at_c<3>(a);
  ast::Call call{"tensor", span_of(ctx, at, at + 6), {}, {}, false};
  size_t start = 0;
  while (start < dims.size()) {
    size_t x = dims.find('x', start);
    std::string d = dims.substr(start, x - start);
    Span span = span_of(ctx, dims_at + start, dims_at + x);
    if (d == "?") {
      call.args.push_back(name_node(span, d));
    } else {
      uint64_t value = 0;
      for (char c : d)
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, uint64_t(c - '0'), &value))
          throw Error(ErrorKind::Syntax, span, "dimension does not fit in 64 bits");
      call.args.push_back(make(span, ast::IntLit{value, d}));
    }
    start = x + 1;
  }
  call.args.push_back(element);
  x3::_val(ctx) = make(span_of(ctx, at, fusion::at_c<4>(a)), std::move(call));
};

Node tuple_node(Span span, const Nodes& items) {
  return make(span, ast::Tuple{constify(items)});
}

Node colon_call(Span span, Span colon, Node value, Node type) {
  return make(span, ast::Call{":", colon, {value, type}, {}, false});
}

// `(A, B) -> C` and `(A) -> (B, C)`.
auto const mk_function_type = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  const Nodes& ins = fusion::at_c<1>(a);
  It arrow = fusion::at_c<2>(a);
  const Nodes& outs = fusion::at_c<3>(a);
  It end = fusion::at_c<4>(a);
  x3::_val(ctx) =
      make(span_of(ctx, at, end), ast::Call{"->",
                                            span_of(ctx, arrow, arrow + 2),
                                            {tuple_node(span_of(ctx, at, arrow), ins),
                                             tuple_node(span_of(ctx, arrow + 2, end), outs)},
                                            {},
                                            false});
};

auto const mk_name_at = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) =
      name_node(span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a)), fusion::at_c<1>(a));
};

// `VALUE : TYPE`: the Call ":".
auto const mk_typed = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It colon = fusion::at_c<0>(a);
  Node type = fusion::at_c<1>(a);
  Node value = x3::_val(ctx);
  x3::_val(ctx) =
      colon_call(value->span.to(type->span), span_of(ctx, colon, colon + 1), value, type);
};

// `dense<...>` and `array<T: ...>`: a Call of the word.
auto const mk_dense = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  std::vector<ast::ExprPtr> args;
  if (auto& content = fusion::at_c<1>(a))
    args.push_back(*content);
  x3::_val(ctx) = make(span_of(ctx, at, fusion::at_c<2>(a)),
                       ast::Call{"dense", span_of(ctx, at, at + 5), std::move(args), {}, false});
};

auto const mk_array = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  std::vector<ast::ExprPtr> args{fusion::at_c<1>(a)};
  for (const Node& n : fusion::at_c<2>(a))
    args.push_back(n);
  x3::_val(ctx) = make(span_of(ctx, at, fusion::at_c<3>(a)),
                       ast::Call{"array", span_of(ctx, at, at + 5), std::move(args), {}, false});
};

auto const mk_list = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) = make(span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a)),
                       ast::List{constify(fusion::at_c<1>(a))});
};

// `(1.0, -2.5)`, a complex element: the Tuple of its real and imaginary
// parts.
auto const mk_complex = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) = tuple_node(span_of(ctx, fusion::at_c<0>(a), fusion::at_c<3>(a)),
                             {fusion::at_c<1>(a), fusion::at_c<2>(a)});
};

auto const mk_dict = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  ast::Dict dict;
  for (const ast::Keyword& k : fusion::at_c<1>(a))
    dict.items.emplace_back(name_node(k.span, k.name), k.value);
  x3::_val(ctx) = make(span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a)), std::move(dict));
};

// `name = value`, or `name` alone (a unit attribute). A quoted name is
// decoded.
auto const mk_entry = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  std::string name = fusion::at_c<1>(a);
  It end = fusion::at_c<2>(a);
  if (!name.empty() && name[0] == '"')
    name = decode_mlir_string(name);
  Span span = span_of(ctx, at, end);
  Node value = fusion::at_c<3>(a) ? *fusion::at_c<3>(a) : name_node(span, "unit");
  x3::_val(ctx) = ast::Keyword{std::move(name), value, span};
};

// `name = attribute` among a pretty op's items.
auto const push_item_keyword = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx).keywords.push_back(ast::Keyword{fusion::at_c<1>(a), fusion::at_c<3>(a), span});
};
// `name = [lhs] x [rhs]` (dot_general's dimension numbers): the List of
// the two.
auto const push_pair_keyword = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<5>(a));
  Nodes pair{fusion::at_c<3>(a), fusion::at_c<4>(a)};
  x3::_val(ctx).keywords.push_back(
      ast::Keyword{fusion::at_c<1>(a), make(span, ast::List{constify(pair)}), span});
};
auto const push_keywords = [](auto& ctx) {
  for (ast::Keyword& k : x3::_attr(ctx))
    x3::_val(ctx).keywords.push_back(std::move(k));
};
auto const push_arg_node = [](auto& ctx) { x3::_val(ctx).args.push_back(x3::_attr(ctx)); };
auto const push_region = [](auto& ctx) { x3::_val(ctx).regions.push_back(x3::_attr(ctx)); };
auto const set_type = [](auto& ctx) { x3::_val(ctx).type = x3::_attr(ctx); };
auto const set_end = [](auto& ctx) { x3::_val(ctx).end = x3::_attr(ctx); };

auto const set_op_name = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Operation& op = x3::_val(ctx);
  op.begin = fusion::at_c<0>(a);
  op.name = fusion::at_c<1>(a);
  op.name_span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  if (!op.name.empty() && op.name[0] == '"')
    op.name = decode_mlir_string(op.name);
};

// `[1:3, 4:8:2]` after the operand of a pretty slice: its start_indices,
// limit_indices and strides (1 where a range has no third number).
auto const push_slice = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  std::string text = fusion::at_c<1>(a);
  Nodes parts[3];
  size_t from = 1; // past '['
  while (from < text.size()) {
    size_t end = text.find_first_of(",]", from);
    std::string range = text.substr(from, end - from);
    std::vector<std::string> numbers;
    for (size_t at = 0; at <= range.size();) {
      size_t colon = range.find(':', at);
      if (colon == std::string::npos)
        colon = range.size();
      std::string n = range.substr(at, colon - at);
      n.erase(std::remove_if(n.begin(), n.end(), [](char c) { return std::isspace(uint8_t(c)); }),
              n.end());
      numbers.push_back(n);
      at = colon + 1;
    }
    if (numbers.size() == 2)
      numbers.push_back("1");
    for (size_t k = 0; k < 3; ++k) {
      uint64_t value = 0;
      for (char c : numbers[k])
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, uint64_t(c - '0'), &value))
          throw Error(ErrorKind::Syntax, span, "a slice bound does not fit in 64 bits");
      parts[k].push_back(make(span, ast::IntLit{value, numbers[k]}));
    }
    from = end + 1;
  }
  static const char* const kNames[] = {"start_indices", "limit_indices", "strides"};
  for (size_t k = 0; k < 3; ++k)
    x3::_val(ctx).keywords.push_back(
        ast::Keyword{kNames[k], make(span, ast::List{constify(parts[k])}), span});
};

// `%t[1]` of a pretty get_tuple_element: the keyword `index`.
auto const push_tuple_index = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  const uint64_t i = fusion::at_c<1>(a);
  x3::_val(ctx).keywords.push_back(
      ast::Keyword{"index", make(span, ast::IntLit{i, std::to_string(i)}), span});
};

// `applies stablehlo.add` and `dimensions = [1]` of a pretty reduce: the
// keywords `applies` (the op's name) and `dimensions`.
auto const push_applies = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx).keywords.push_back(
      ast::Keyword{"applies", name_node(span, fusion::at_c<1>(a)), span});
};
auto const push_dimensions = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx).keywords.push_back(ast::Keyword{"dimensions", fusion::at_c<1>(a), span});
};

// `@byteir.top_k(...)` in a pretty custom call: the target as the generic
// form spells it.
auto const set_target = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  std::string name = fusion::at_c<1>(a).substr(1);
  if (!name.empty() && name[0] == '"')
    name = decode_mlir_string(name);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx).keywords.push_back(
      ast::Keyword{"call_target_name", make(span, ast::StringLit{std::move(name), false}), span});
};

// The types after a pretty op's `:`: one type, or a Tuple of several.
auto const set_types = [](auto& ctx) {
  Nodes& types = x3::_attr(ctx);
  x3::_val(ctx).type =
      types.size() == 1 ? types[0] : tuple_node(types[0]->span.to(types.back()->span), types);
};

auto const push_unlabeled_block = [](auto& ctx) {
  x3::_val(ctx).push_back(Block{{}, x3::_attr(ctx)});
};
auto const push_block_arg = [](auto& ctx) { x3::_val(ctx).args.push_back(x3::_attr(ctx)); };
auto const push_statements = [](auto& ctx) {
  for (const ast::StmtPtr& s : x3::_attr(ctx))
    x3::_val(ctx).body.push_back(s);
};
auto const append_statements = [](auto& ctx) {
  for (const ast::StmtPtr& s : x3::_attr(ctx))
    x3::_val(ctx).push_back(s);
};

auto const mk_param = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Node type = fusion::at_c<3>(a);
  x3::_val(ctx) = ast::Param{std::string(type->span.text()), fusion::at_c<1>(a),
                             span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a)), type};
};

// `%0`, `%0:2` (the names %0#0, %0#1).
auto const push_result = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<3>(a));
  const std::string& name = fusion::at_c<1>(a);
  auto& count = fusion::at_c<2>(a);
  Results& r = x3::_val(ctx);
  if (!count) {
    r.names.push_back(name_node(span, name));
    return;
  }
  if (*count == 0 || *count > 4096)
    throw Error(ErrorKind::Syntax, span,
                "a result group of " + std::to_string(*count) +
                    " values; teval reads groups of 1 to 4096");
  for (unsigned i = 0; i < *count; ++i)
    r.names.push_back(name_node(span, name + "#" + std::to_string(i)));
};

Node op_value(const Operation& op, Span span) {
  ast::Call c{op.name, op.name_span, op.args, op.keywords, false};
  for (const Region& r : op.regions) {
    if (r.size() != 1)
      throw Error(ErrorKind::Unsupported, op.name_span,
                  "`" + op.name + "` has a region of " + std::to_string(r.size()) +
                      " blocks; teval reads regions of one block");
    auto body = std::make_shared<ast::Function>();
    body->params = r[0].args;
    body->body = r[0].body;
    c.regions.push_back(body);
  }
  Node call = make(span, std::move(c));
  if (!op.type)
    return call;
  return colon_call(span, op.type->span, call, op.type);
}

const Block& single_block(const Operation& op, const std::string& what) {
  if (op.regions.size() != 1 || op.regions[0].size() != 1)
    throw Error(ErrorKind::Unsupported, op.name_span,
                what + " with " + std::to_string(op.regions.size()) +
                    " regions or blocks; teval reads one region of one block");
  return op.regions[0][0];
}

// A keyword of a generic op by name, or null.
const ast::Keyword* keyword(const Operation& op, std::string_view name) {
  for (const ast::Keyword& k : op.keywords)
    if (k.name == name)
      return &k;
  return nullptr;
}

// The statements an operation stands for: a function, a return, the
// contents of a module, or the operation itself.
template <class Ctx>
Statements op_statements(const Ctx& ctx, const Operation& op, const Results* results, It begin,
                         It end) {
  Span span = span_of(ctx, begin, end);
  if (op.name == "builtin.module" && !results)
    return single_block(op, "a module").body;
  if (op.name == "func.return" && !results) {
    Nodes types;
    if (const auto* fn = op.type ? ast::as_call(*op.type) : nullptr; fn && fn->callee == "->")
      for (const ast::ExprPtr& t : std::get<ast::Tuple>(fn->args[0]->node).items)
        types.push_back(std::const_pointer_cast<ast::Expr>(t));
    Nodes values;
    for (const ast::ExprPtr& v : op.args)
      values.push_back(std::const_pointer_cast<ast::Expr>(v));
    return {stmt(span, ast::Return{colon_call(span, op.name_span, tuple_node(span, values),
                                              tuple_node(span, types))})};
  }
  if (op.name == "func.func" && !results) {
    const ast::Keyword* name = keyword(op, "sym_name");
    const ast::Keyword* type = keyword(op, "function_type");
    const ast::Call* fn = type ? ast::as_call(*type->value) : nullptr;
    if (!name || !ast::as_string(*name->value) || !fn || fn->callee != "->")
      throw Error(ErrorKind::Syntax, op.name_span,
                  "a generic func.func needs the properties sym_name (a string) and function_type");
    ast::Function f;
    f.name = ast::as_string(*name->value)->value;
    const Block& body = single_block(op, "a function");
    f.params = body.args;
    f.body = body.body;
    f.result_type = fn->args[1];
    return {stmt(span, std::move(f))};
  }
  Node value = op_value(op, span);
  if (!results)
    return {stmt(span, ast::ExprStmt{value})};
  Node target =
      results->names.size() == 1
          ? results->names[0]
          : tuple_node(results->names[0]->span.to(results->names.back()->span), results->names);
  return {stmt(span, ast::Assign{target, "=", target->span, value, {}})};
}

auto const mk_op_statement = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  auto& results = fusion::at_c<1>(a);
  const Operation& op = fusion::at_c<2>(a);
  x3::_val(ctx) =
      op_statements(ctx, op, results ? &*results : nullptr, fusion::at_c<0>(a), fusion::at_c<3>(a));
};

auto const mk_return = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  It end = fusion::at_c<3>(a);
  Span span = span_of(ctx, at, end);
  x3::_val(ctx) = Statements{
      stmt(span, ast::Return{colon_call(span, span_of(ctx, at, at + 6),
                                        tuple_node(span, fusion::at_c<1>(a).value_or(Nodes{})),
                                        tuple_node(span, fusion::at_c<2>(a).value_or(Nodes{})))})};
};

auto const set_function_name = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  FunctionParts& f = x3::_val(ctx);
  f.begin = fusion::at_c<0>(a);
  f.name = fusion::at_c<1>(a).substr(1);
  if (!f.name.empty() && f.name[0] == '"')
    f.name = decode_mlir_string(f.name);
};
auto const push_param = [](auto& ctx) { x3::_val(ctx).params.push_back(x3::_attr(ctx)); };
auto const push_result_type = [](auto& ctx) { x3::_val(ctx).results.push_back(x3::_attr(ctx)); };
auto const set_body = [](auto& ctx) {
  x3::_val(ctx).has_body = true;
  x3::_val(ctx).body = x3::_attr(ctx);
};

auto const mk_function = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  FunctionParts& parts = fusion::at_c<0>(a);
  It end = fusion::at_c<1>(a);
  Span span = span_of(ctx, parts.begin, end);
  ast::Function f;
  f.name = parts.name;
  f.params = parts.params;
  f.result_type = tuple_node(span, parts.results);
  if (parts.has_body) {
    if (parts.body.size() != 1)
      throw Error(ErrorKind::Unsupported, span,
                  "function @" + parts.name + " has " + std::to_string(parts.body.size()) +
                      " blocks; teval reads functions of one block");
    if (!parts.body[0].args.empty())
      throw Error(ErrorKind::Syntax, span,
                  "the entry block of a function in this form takes no arguments");
    f.body = parts.body[0].body;
  }
  x3::_val(ctx) = Statements{stmt(span, std::move(f))};
};

// ---------------------------------------------------------------------------
// Rules

x3::rule<class type_class, Node> const type = "type";
x3::rule<class tensor_type_class, Node> const tensor_type = "tensor type";
x3::rule<class scalar_type_class, Node> const scalar_type = "type";
x3::rule<class type_list_class, Nodes> const type_list = "type list";
x3::rule<class result_types_class, Nodes> const result_types = "result types";
x3::rule<class function_type_class, Node> const function_type = "function type";
x3::rule<class attr_class, Node> const attribute = "attribute";
x3::rule<class plain_attr_class, Node> const plain_attr = "attribute";
x3::rule<class attr_list_class, Nodes> const attr_list = "attributes";
x3::rule<class dims_class, std::string> const dims_text = "dimensions";
x3::rule<class attr_name_class, std::string> const attr_name = "attribute name";
x3::rule<class type_word_class, std::string> const type_word = "type";
x3::rule<class number_text_class, std::string> const number_text = "number";
x3::rule<class number_class, Node> const number = "number";
x3::rule<class word_attr_class, std::string> const word_attr = "attribute";
x3::rule<class operation_class, Operation> const operation = "operation";
x3::rule<class array_items_class, Nodes> const array_items = "array elements";
x3::rule<class types_class, Nodes> const types = "types";
x3::rule<class func_arg_class, ast::Param> const func_arg = "function argument";
x3::rule<class entry_class, ast::Keyword> const entry = "attribute entry";
x3::rule<class entries_class, Keywords> const entries = "attribute dictionary";
x3::rule<class operand_class, Node> const operand = "value";
x3::rule<class operands_class, Nodes> const operands = "values";
x3::rule<class generic_op_class, Operation> const generic_op = "operation";
x3::rule<class pretty_op_class, Operation> const pretty_op = "operation";
x3::rule<class reduce_applies_class, Operation> const reduce_applies = "reduce";
x3::rule<class reducer_class, Block> const reducer = "reducer";
x3::rule<class conv_op_class, Operation> const conv_op = "convolution";
x3::rule<class while_op_class, Operation> const while_op = "while";
x3::rule<class scan_op_class, Operation> const scan_op = "scan";
x3::rule<class results_class, Results> const results = "results";
x3::rule<class block_arg_class, ast::Param> const block_arg = "block argument";
x3::rule<class block_class, Block> const block = "block";
x3::rule<class region_class, Region> const region = "region";
x3::rule<class statement_class, Statements> const statement = "operation";
x3::rule<class statements_class, Statements> const statements = "operations";
x3::rule<class return_class, Statements> const return_stmt = "return";
x3::rule<class func_parts_class, FunctionParts> const func_parts = "function";
x3::rule<class func_class, Statements> const func_def = "function";
x3::rule<class module_class, Statements> const module_def = "module";
x3::rule<class alias_class> const alias_def = "alias definition";
x3::rule<class program_class, Statements> const program = "module";

auto const dims_text_def = x3::raw[x3::lexeme[*((+x3::digit | x3::char_('?')) >> 'x')]];
auto const attr_name_def = bare_id | string_text;
auto const type_word_def = opaque | bare_id;
auto const number_text_def = float_text | int_text;
auto const word_attr_def = symbol | opaque | bare_id;
auto const operation_def = generic_op[set_val] | reduce_applies[set_val] | conv_op[set_val] |
                           while_op[set_val] | scan_op[set_val] | pretty_op[set_val];
auto const tensor_type_def = (pos >> word("tensor") >> '<' >> pos >> dims_text >>
                              x3::expect[scalar_type] >> x3::expect['>'] >> here)[mk_tensor];
auto const scalar_type_def = (pos >> type_word >> here)[mk_name_at];
auto const type_list_def = '(' >> -(type[push] % ',') > ')';
auto const result_types_def = type_list[set_val] | type[push];
auto const function_type_def = (pos >> type_list >> pos >> x3::lit("->") >>
                                x3::expect[result_types] >> here)[mk_function_type];
auto const types_def = type[push] % ',';
auto const type_def = tensor_type[set_val] | function_type[set_val] | scalar_type[set_val];

auto const number_def = (pos >> number_text >> here)[mk_number];
auto const plain_attr_def =
    (pos >> word("dense") >> '<' >> -plain_attr >> '>' >> here)[mk_dense] |
    (pos >> word("array") >> '<' >> x3::expect[type] >> array_items >> x3::expect['>'] >>
     here)[mk_array] |
    (pos >> '[' >> attr_list >> x3::expect[']'] >> here)[mk_list] |
    (pos >> '{' >> entries >> x3::expect['}'] >> here)[mk_dict] |
    (pos >> '(' >> plain_attr >> ',' >> plain_attr >> ')' >> here)[mk_complex] |
    // The pretty forms' bare `<...>` (dot_general's `algorithm = <...>`), as
    // written.
    (pos >> bare_angled >> here)[mk_name_at] | (pos >> string_text >> here)[mk_string] |
    number[set_val] | tensor_type[set_val] | function_type[set_val] |
    (pos >> word_attr >> here)[mk_name_at];
auto const attribute_def = plain_attr[set_val] >> -(pos >> ':' >> type)[mk_typed];
auto const attr_list_def = -(attribute[push] % ',');
auto const array_items_def = -(':' >> (plain_attr[push] % ','));
auto const entry_def = (pos >> attr_name >> here >> -('=' > attribute))[mk_entry];
auto const entries_def = -(entry[push] % ',');

auto const operand_def = (pos >> value_use_name >> here)[mk_name_at];
auto const operands_def = operand[push] % ',';

// "name"(operands) <{properties}> ({regions}) {attributes} : type
auto const generic_op_def = (pos >> string_text >> here)[set_op_name] > '(' >
                            -(operand[push_arg_node] % ',') > ')' >
                            -('<' >> x3::lit('{') > entries[push_keywords] > '}' > '>') >
                            -('(' >> (region[push_region] % ',') > ')') >
                            -('{' > entries[push_keywords] > '}') >
                            ':' > function_type[set_type] > here[set_end];

// name items..., {attributes} : types; an item is an operand, a target
// `@sym(operands)`, `name = attribute` or an attribute.
auto const slice_range = x3::ulong_long >> ':' >> x3::ulong_long >> -(':' >> x3::ulong_long);
auto const slice_text = x3::rule<class slice_text_class, std::string>{"slice ranges"} =
    x3::raw['[' >> (slice_range % ',') >> ']'];
auto const pretty_item =
    (operand[push_arg_node] >> -(pos >> slice_text >> here)[push_slice] >>
     -(pos >> ('[' >> x3::ulong_long >> ']') >> here)[push_tuple_index]) |
    ((pos >> symbol >> here)[set_target] >> '(' >> -(operand[push_arg_node] % ',') > ')') |
    (pos >> bare_id >> here >> '=' >> plain_attr >> word("x") >> plain_attr >>
     here)[push_pair_keyword] |
    (pos >> bare_id >> here >> '=' >> plain_attr)[push_item_keyword] |
    (!x3::lit('{') >> plain_attr[push_arg_node]);
// stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions =
// [1] : (T, U) -> V, or with `across` alone and the body after the type,
// `reducer(%a: T, %b: T) { ... }`: operands x and c (several inputs:
// `(%x init: %c), (%y init: %d)`, in that order).
auto const reduce_name = x3::rule<class reduce_name_class, std::string>{"reduce"} =
    x3::raw[x3::lit("stablehlo.reduce") | x3::lit("mhlo.reduce")];
auto const reducer_def = word("reducer") > '(' > (block_arg[push_block_arg] % ',') > ')' >
                         *('(' > (block_arg[push_block_arg] % ',') > ')') >
                         '{' > statements[push_statements] > '}';
// The pairs as the op takes them: `(%x init: %c), (%y init: %d)` are the
// operands x, y, c, d, and `reducer(%a: T, %b: T) (%e: U, %f: U)` the block
// arguments a, e, b, f (the running values, then the elements).
template <class T> void evens_then_odds(std::vector<T>& v) {
  std::vector<T> evens, odds;
  for (size_t i = 0; i < v.size(); ++i)
    (i % 2 ? odds : evens).push_back(std::move(v[i]));
  v = std::move(evens);
  std::move(odds.begin(), odds.end(), std::back_inserter(v));
}
auto const inputs_then_inits = [](auto& ctx) { evens_then_odds(x3::_val(ctx).args); };
auto const push_reducer = [](auto& ctx) {
  Block block = x3::_attr(ctx);
  if (block.args.size() == x3::_val(ctx).args.size())
    evens_then_odds(block.args);
  x3::_val(ctx).regions.push_back(Region{std::move(block)});
};
auto const reduce_applies_def =
    (pos >> reduce_name >> here)[set_op_name] >>
    (('(' >> operand[push_arg_node] >> word("init") >> ':' >> operand[push_arg_node] >> ')') %
     ',') >>
    ((word("applies") > (pos >> bare_id >> here)[push_applies] > word("across")) | word("across")) >
    word("dimensions") > '=' > (pos >> plain_attr >> here)[push_dimensions] >
    -('{' > entries[push_keywords] > '}') >
    ':' > types[set_types] > here[set_end] > x3::eps[inputs_then_inits] > -reducer[push_reducer];
// A composite's name, a string before its operands: `stablehlo.composite
// "my.op" %a, %b {decomposition = @impl} : ...` (the generic form's `name`).
auto const push_name_keyword = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx).keywords.push_back(ast::Keyword{
      "name", make(span, ast::StringLit{decode_mlir_string(fusion::at_c<1>(a)), false}), span});
};
// stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i,
// o]->[b, 0, 1, f], window = {stride = [..], pad = [[..], ..], lhs_dilate =
// [..], rhs_dilate = [..], reverse = [..]} {attributes} : (T, U) -> V: the
// keyword `dim_numbers` holds the spec's text as a string; the window's
// entries are keywords.
auto const conv_name = x3::rule<class conv_name_class, std::string>{"convolution"} =
    x3::raw[x3::lit("stablehlo.convolution") | x3::lit("mhlo.convolution")];
auto const conv_dims = x3::rule<class conv_dims_class, std::string>{"dimension numbers"} =
    x3::raw['[' >> *(x3::char_ - ']') >> ']' >> x3::lit('x') >> '[' >> *(x3::char_ - ']') >> ']' >>
            x3::lit("->") >> '[' >> *(x3::char_ - ']') >> ']'];
auto const push_conv_dims = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx).keywords.push_back(
      ast::Keyword{"dim_numbers", make(span, ast::StringLit{fusion::at_c<1>(a), false}), span});
};
auto const conv_op_def = (pos >> conv_name >> here)[set_op_name] >> '(' >> operand[push_arg_node] >>
                         ',' >> operand[push_arg_node] >> ')' >> word("dim_numbers") > '=' >
                         (pos >> conv_dims >> here)[push_conv_dims] >
                         -(',' > word("window") > '=' > '{' > entries[push_keywords] > '}') >
                         -('{' > entries[push_keywords] > '}') >
                         ':' > types[set_types] > here[set_end];
// stablehlo.while(%arg0 = %init, ...) : T0, T1 cond { ... } do { ... }:
// the operands the initial values; the iteration names, with the types,
// the block arguments of both regions.
auto const while_name = x3::rule<class while_name_class, std::string>{"while"} =
    x3::raw[x3::lit("stablehlo.while") | x3::lit("mhlo.while")];
auto const push_iteration = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Operation& op = x3::_val(ctx);
  op.iteration.emplace_back(fusion::at_c<1>(a),
                            span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a)));
  op.args.push_back(fusion::at_c<3>(a));
};
auto const finish_while = [](auto& ctx) {
  Operation& op = x3::_val(ctx);
  op.end = x3::_attr(ctx);
  std::vector<ast::ExprPtr> types;
  if (const auto* several = std::get_if<ast::Tuple>(&op.type->node))
    types.assign(several->items.begin(), several->items.end());
  else
    types.push_back(op.type);
  if (types.size() != op.iteration.size())
    throw Error(ErrorKind::Syntax, op.type->span,
                "while names " + std::to_string(op.iteration.size()) +
                    " iteration arguments and gives " + std::to_string(types.size()) + " types");
  for (Region& r : op.regions)
    if (!r.empty() && r[0].args.empty())
      for (size_t i = 0; i < types.size(); ++i)
        r[0].args.push_back(ast::Param{std::string(types[i]->span.text()), op.iteration[i].first,
                                       op.iteration[i].second, types[i]});
};
auto const while_op_def = (pos >> while_name >> here)[set_op_name] >> '(' >>
                          -((pos >> value_def_name >> here >> '=' >> operand)[push_iteration] %
                            ',') >>
                          ')' >> ':' >> types[set_types] >> word("cond") > region[push_region] >
                          word("do") > region[push_region] > here[finish_while];
// chlo.scan(%in, ...) inits(%init, ...) dimension = N attributes {...} {
// body } : (T, ...) -> (U, ...): the operands the inputs, then the inits;
// the keyword `inputs` counts the inputs, `dimension` is a keyword.
auto const scan_name = x3::rule<class scan_name_class, std::string>{"scan"} =
    x3::raw[x3::lit("chlo.scan")];
auto const push_input_count = [](auto& ctx) {
  Operation& op = x3::_val(ctx);
  const It at = x3::_attr(ctx);
  const Span span = span_of(ctx, at, at);
  const uint64_t n = op.args.size();
  op.keywords.push_back(
      ast::Keyword{"inputs", make(span, ast::IntLit{n, std::to_string(n)}), span});
};
auto const push_scan_dimension = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Span span = span_of(ctx, fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx).keywords.push_back(ast::Keyword{"dimension", fusion::at_c<1>(a), span});
};
auto const scan_op_def = (pos >> scan_name >> here)[set_op_name] >> '(' >>
                         -(operand[push_arg_node] % ',') >> ')' >>
                         word("inits") > here[push_input_count] > '(' >
                         -(operand[push_arg_node] % ',') > ')' > word("dimension") > '=' >
                         (pos >> plain_attr >> here)[push_scan_dimension] >
                         -(word("attributes") > '{' > (&x3::lit('}') | entries[push_keywords]) >
                           '}') > region[push_region] > ':' > types[set_types] > here[set_end];
// `T -> U` after the colon (CHLO prints its ops' types so): the function
// type `(T) -> U`.
auto const set_arrow_type = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Operation& op = x3::_val(ctx);
  It arrow = fusion::at_c<0>(a);
  const Nodes& outs = fusion::at_c<1>(a);
  It end = fusion::at_c<2>(a);
  Nodes ins;
  if (const auto* several = std::get_if<ast::Tuple>(&op.type->node))
    for (const ast::ExprPtr& t : several->items)
      ins.push_back(std::const_pointer_cast<ast::Expr>(t));
  else
    ins.push_back(op.type);
  const Span from = op.type->span;
  op.type = make(from.to(span_of(ctx, arrow, end)),
                 ast::Call{"->",
                           span_of(ctx, arrow, arrow + 2),
                           {tuple_node(from, ins), tuple_node(span_of(ctx, arrow + 2, end), outs)},
                           {},
                           false});
};
auto const
    pretty_op_def = (pos >> bare_id >> here)[set_op_name] >>
                    -(&(string_text >> '%') >> (pos >> string_text >> here)[push_name_keyword]) >>
                    // CHLO's `chlo.top_k(%x, k = 2)`: the items in parentheses
                    (('(' >> &x3::lit('%') >> (pretty_item % ',') >> ')') | -(pretty_item % ',')) >>
                    -('{' > entries[push_keywords] > '}') > ':' > types[set_types] >
                    -(pos >> x3::lit("->") > result_types > here)[set_arrow_type] > here[set_end];

auto const results_def =
    ((pos >> value_def_name >> -(':' >> x3::uint_) >> here)[push_result] % ',') >> '=';

auto const block_arg_def = (pos >> value_def_name >> here >> ':' > type)[mk_param] >> loc_opt;
auto const block_def = '^' > bare_id > -('(' > (block_arg[push_block_arg] % ',') > ')') >
                       ':' >> statements[push_statements];
auto const region_def = '{' >> (+block[push] | statements[push_unlabeled_block]) > '}';

auto const return_stmt_def = (pos >> (word("func.return") | word("return")) >> -operands >>
                              -(':' > types) >> here)[mk_return];

auto const func_parts_def =
    word("func.func") > -(word("private") | word("public") | word("nested")) >
    (pos >> symbol >> here)[set_function_name] > '(' > -(func_arg[push_param] % ',') > ')' >
    -(x3::lit("->") > (('(' >> -((type[push_result_type] >> -('{' > entries > '}')) % ',') > ')') |
                       type[push_result_type])) > -(word("attributes") > '{' > entries > '}') >
    -region[set_body];
auto const func_arg_def = (pos >> value_def_name >> here >> ':' > type)[mk_param] >>
                          -('{' > entries > '}') >> loc_opt;
auto const func_def_def = (func_parts >> here)[mk_function];

auto const module_def_def = word("module") > -symbol > -(word("attributes") > '{' > entries > '}') >
                            '{' > statements[set_val] > '}';

auto const alias_def_def = x3::lexeme[x3::char_("#!") >> +(x3::alnum | x3::char_("_$.-"))] >> '=' >
                           (location | type | attribute);

auto const statement_def = (func_def[set_val] | module_def[set_val] | return_stmt[set_val] |
                            (pos >> -results >> operation >> here)[mk_op_statement]) >>
                           loc_opt;
auto const statements_def = *statement[append_statements];
auto const program_def = *(alias_def | statement[append_statements]);

BOOST_SPIRIT_DEFINE(balanced, angled, bare_angled, bare_id, value_def_name, value_use_name, symbol,
                    opaque, string_text, float_text, int_text, type, tensor_type, scalar_type,
                    type_list, result_types, function_type, attribute, plain_attr, attr_list,
                    array_items, types, func_arg, dims_text, attr_name, type_word, number_text,
                    number, word_attr, operation, entry, entries, operand, operands, generic_op,
                    reduce_applies, reducer, conv_op, while_op, scan_op, pretty_op, results,
                    block_arg, block, region, statement, statements, return_stmt, func_parts,
                    func_def, module_def, alias_def, program)

} // namespace

ast::Program parse_mlir(std::string_view text, const TextOrigin& origin) {
  Statements statements;
  run(program, skipper, text, origin, statements, "an operation, a function or a module");
  ast::Program p;
  p.statements = std::move(statements);
  p.file = origin.file();
  return p;
}

} // namespace teval::parser
