// The symbolic prover's constraints (see htp_prover.h): constraint
// expressions as Z3 terms over the extents, options and encodings.
#include "verify/htp_prover.h"

#include <cmath>

namespace teval::verify::htp::prove {

using ast::as_call;
using ast::as_string;

// A condition outside the fragment is a fresh, unconstrained bool: the
// graphs it admits are a superset of the rule's, so a proof still holds, a
// vacuous case is still vacuous, and a counterexample that its real value
// rules out does not replay (the rule does not apply to it).
z3::expr Encoding::truth(const ast::Expr& e) {
  try {
    Val v = eval(e);
    if (v.type == Val::Type::Bool)
      return *v.e;
  } catch (const Outside&) {
  }
  return c_.bool_const(("condition_" + std::to_string(conditions_++)).c_str());
}

const SymTensor& Encoding::opref(const ast::Expr& e) {
  if (const ast::StringLit* s = as_string(e)) {
    auto it = tags_.find(s->value);
    if (it == tags_.end())
      throw Outside{e.span, "tag \"" + s->value + "\" is not in the match"};
    if (nodes_.at(it->second).poison)
      throw *nodes_.at(it->second).poison;
    return nodes_.at(it->second);
  }
  throw Outside{e.span, "an operand reference other than a tag (INPUT_OF, OUTPUT_OF, SELECT)"};
}

z3::expr Encoding::as_int(const Val& v, const ast::Expr& e) {
  if (v.type == Val::Type::Int || v.type == Val::Type::Size)
    return *v.e;
  throw Outside{e.span, "an integer was expected"};
}

Encoding::Val Encoding::eval(const ast::Expr& e) {
  auto boolean = [&](z3::expr b) {
    Val v;
    v.type = Val::Type::Bool;
    v.e = b;
    return v;
  };
  auto integer = [&](z3::expr i, Val::Type t) {
    Val v;
    v.type = t;
    v.e = i;
    return v;
  };
  if (const auto* i = std::get_if<ast::IntLit>(&e.node)) {
    bool size = i->text.find_first_of("uU") != std::string::npos;
    return integer(c_.int_val(int64_t(i->value)), size ? Val::Type::Size : Val::Type::Int);
  }
  if (const auto* f = std::get_if<ast::FloatLit>(&e.node)) {
    Val v;
    v.type = Val::Type::Float;
    v.f = float(f->value);
    return v;
  }
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
    Val v = eval(*u->operand);
    if (u->op != ast::UnaryOp::Neg)
      return v;
    if (v.type == Val::Type::Float) {
      v.f = -v.f;
      if (v.e)
        v.e = -*v.e;
      return v;
    }
    return integer(-as_int(v, e), Val::Type::Int);
  }
  if (const auto* n = std::get_if<ast::Name>(&e.node)) {
    if (n->id == "OK" || n->id == "true")
      return boolean(c_.bool_val(true));
    if (n->id == "false")
      return boolean(c_.bool_val(false));
    if (n->id.starts_with("DType::")) {
      Val v;
      v.type = Val::Type::DType;
      v.dtype = n->id.substr(7);
      return v;
    }
    if (n->id == "INF" || n->id == "NEG_INF") {
      Val v;
      v.type = Val::Type::Float;
      v.f = n->id == "INF" ? INFINITY : -INFINITY;
      return v;
    }
    throw Outside{e.span, "the constant " + n->id + " is not encoded yet"};
  }
  const ast::Call& c = *as_call(e);
  const std::string& f = c.callee;
  if (f == "AND" || f == "OR" || f == "XOR") {
    z3::expr acc = c_.bool_val(f == "AND");
    for (const ast::ExprPtr& a : c.args)
      acc = f == "AND" ? (acc && truth(*a)) : f == "OR" ? (acc || truth(*a)) : (acc != truth(*a));
    return boolean(acc);
  }
  if (f == "NOT")
    return boolean(!truth(*c.args[0]));
  if (f == "SELECT") {
    Val a = eval(*c.args[1]), b = eval(*c.args[2]);
    if (a.type != b.type || !a.e || !b.e)
      throw Outside{e.span, "a SELECT of values other than bools and integers"};
    return integer(z3::ite(truth(*c.args[0]), *a.e, *b.e), a.type);
  }
  auto both_size = [](const Val& a, const Val& b) {
    return a.type == Val::Type::Size || b.type == Val::Type::Size;
  };
  // An int converted to a size, as C converts: modulo 2^64.
  auto to_size = [&](const Val& v) {
    z3::expr x = *v.e;
    if (v.type == Val::Type::Size)
      return x;
    return z3::ite(x < 0, x + c_.int_val("18446744073709551616"), x);
  };
  if (f == "EQ" || f == "NE" || f == "LT" || f == "GT" || f == "LE" || f == "GE") {
    Val a = eval(*c.args[0]), b = eval(*c.args[1]);
    if (a.type == Val::Type::DType || b.type == Val::Type::DType) {
      bool same = a.dtype == b.dtype;
      return boolean(c_.bool_val(f == "EQ" ? same : !same));
    }
    if (a.type == Val::Type::Float || b.type == Val::Type::Float) {
      if (a.type != Val::Type::Float || b.type != Val::Type::Float)
        throw Outside{e.span, "a float compared with an integer"};
      if (a.e || b.e) { // a value read from the graph: IEEE comparisons of float32
        const z3::expr x = a.e ? *a.e : c_.fpa_val(a.f), y = b.e ? *b.e : c_.fpa_val(b.f);
        return boolean(f == "EQ"   ? z3::fp_eq(x, y)
                       : f == "NE" ? !z3::fp_eq(x, y)
                       : f == "LT" ? x < y
                       : f == "GT" ? x > y
                       : f == "LE" ? x <= y
                                   : x >= y);
      }
      bool r = f == "EQ"   ? a.f == b.f
               : f == "NE" ? a.f != b.f
               : f == "LT" ? a.f < b.f
               : f == "GT" ? a.f > b.f
               : f == "LE" ? a.f <= b.f
                           : a.f >= b.f;
      return boolean(c_.bool_val(r));
    }
    if (a.type == Val::Type::Bool || b.type == Val::Type::Bool)
      return boolean(f == "EQ" ? *a.e == *b.e : *a.e != *b.e);
    z3::expr x = both_size(a, b) ? to_size(a) : *a.e, y = both_size(a, b) ? to_size(b) : *b.e;
    return boolean(f == "EQ"   ? x == y
                   : f == "NE" ? x != y
                   : f == "LT" ? x < y
                   : f == "GT" ? x > y
                   : f == "LE" ? x <= y
                               : x >= y);
  }
  if (f == "ADD" || f == "MUL" || f == "MIN" || f == "MAX" || f == "SUB" || f == "DIV" ||
      f == "REM" || f == "MOD") {
    Val acc = eval(*c.args[0]);
    for (size_t i = 1; i < c.args.size(); ++i) {
      Val b = eval(*c.args[i]);
      if (acc.type == Val::Type::Float || b.type == Val::Type::Float) {
        if (acc.type != Val::Type::Float || b.type != Val::Type::Float)
          throw Outside{e.span, "float arithmetic on extents is not encoded yet"};
        if (acc.e || b.e)
          throw Outside{e.span, "arithmetic on a float read from the graph is not encoded yet"};
        acc.f = f == "ADD"   ? acc.f + b.f
                : f == "SUB" ? acc.f - b.f
                : f == "MUL" ? acc.f * b.f
                : f == "DIV" ? acc.f / b.f
                : f == "MIN" ? std::min(acc.f, b.f)
                : f == "MAX" ? std::max(acc.f, b.f)
                             : throw Outside{e.span, f + " of floats is not encoded yet"};
        continue;
      }
      const bool size = both_size(acc, b);
      z3::expr x = size ? to_size(acc) : as_int(acc, e), y = size ? to_size(b) : as_int(b, e);
      z3::expr r = x;
      if (f == "ADD")
        r = x + y;
      else if (f == "SUB")
        r = x - y;
      else if (f == "MUL")
        r = x * y;
      else if (f == "MIN")
        r = z3::min(x, y);
      else if (f == "MAX")
        r = z3::max(x, y);
      else {
        // Division by a constant other than zero only (a zero divisor is
        // a fault the proof would have to rule out).
        const ast::Expr& divisor = *c.args[i];
        const auto* lit = std::get_if<ast::IntLit>(&divisor.node);
        if (!lit || lit->value == 0)
          throw Outside{divisor.span, f + " by a value other than a nonzero constant"};
        // C truncates toward zero; Z3's div and mod are Euclidean (the
        // same for a nonnegative dividend and positive divisor).
        z3::expr q = z3::ite(x >= 0, x / y, -((-x) / y));
        r = f == "DIV" ? q
            : f == "REM"
                ? x - q * y
                : z3::ite(x - q * y != 0 && ((x - q * y < 0) != (y < 0)), x - q * y + y, x - q * y);
      }
      if (size)
        r = z3::mod(r, c_.int_val("18446744073709551616"));
      acc = integer(r, size ? Val::Type::Size : Val::Type::Int);
    }
    return acc;
  }
  if (f.starts_with("CONSTVAL_"))
    return constval(c);
  if (f == "UINT" || f == "INT") {
    Val v = eval(*c.args[0]);
    if (v.type == Val::Type::Float || v.type == Val::Type::DType)
      throw Outside{e.span, f + " of a float or dtype is not encoded yet"};
    return integer(f == "UINT" ? to_size(v) : *v.e, f == "UINT" ? Val::Type::Size : Val::Type::Int);
  }
  if (f == "OPTION_INT" || f == "OPTION_UINT" || f == "OPTION_BOOL") {
    const std::string& name = as_string(*c.args[0])->value;
    auto it = options_.find(name);
    if (it == options_.end())
      it = options_.emplace(name, c_.int_const(("option_" + name).c_str())).first;
    // Its range: a size option HTP never sets to 0, an int option an int.
    if (f == "OPTION_UINT")
      option_ranges_.push_back(it->second >= 1 && it->second <= c_.int_val(kMaxExtent));
    if (f == "OPTION_INT")
      option_ranges_.push_back(it->second >= c_.int_val(int64_t(INT32_MIN)) &&
                               it->second <= c_.int_val(int64_t(INT32_MAX)));
    if (f == "OPTION_BOOL")
      return boolean(it->second != 0);
    return integer(it->second, f == "OPTION_UINT" ? Val::Type::Size : Val::Type::Int);
  }
  if (f == "SPLIT_DIM" || f == "SPLIT_START" || f == "SPLIT_SIZE") {
    const std::string& tag = as_string(*c.args[0])->value;
    for (auto it = splits_.rbegin(); it != splits_.rend(); ++it)
      if (it->tag == tag)
        return integer(f == "SPLIT_DIM"     ? c_.int_val(it->dim)
                       : f == "SPLIT_START" ? it->start
                                            : it->size,
                       Val::Type::Int);
    throw Outside{e.span, f + " of a split not in scope"};
  }
  if (f == "RANK_OF") {
    elementwise_ = false;
    (void)opref(*c.args[0]);
    return integer(c_.int_val(int(kRank)), Val::Type::Size);
  }
  if (f == "DIM_OF") {
    elementwise_ = false;
    const SymTensor& t = opref(*c.args[0]);
    const auto* lit = std::get_if<ast::IntLit>(&c.args[1]->node);
    if (!lit || lit->value >= kRank)
      throw Outside{c.args[1]->span, "DIM_OF of a dimension other than a constant below 4"};
    return integer(t.shape[lit->value], Val::Type::Size);
  }
  if (f == "DTYPE_OF") {
    Val v;
    v.type = Val::Type::DType;
    v.dtype = rules::tag(opref(*c.args[0]).dtype);
    return v;
  }
  if (f == "ELEMENTSIZE_OF")
    return integer(c_.int_val(rules::element_size(opref(*c.args[0]).dtype)), Val::Type::Size);
  if (f == "STEPSIZE_OF" || f == "ZERO_OFFSET_OF") {
    const SymTensor& t = opref(*c.args[0]);
    if (f == "ZERO_OFFSET_OF" && t.zero)
      return integer(*t.zero, Val::Type::Int);
    if (!is_float(t.dtype))
      throw Outside{e.span, f + " of a quantized tensor is not encoded yet"};
    if (f == "ZERO_OFFSET_OF")
      return integer(c_.int_val(0), Val::Type::Int);
    Val v;
    v.type = Val::Type::Float;
    v.f = 1.0f;
    return v;
  }
  if (f == "SAME_ENCODING") {
    const SymTensor &a = opref(*c.args[0]), &b = opref(*c.args[1]);
    if (a.dtype != b.dtype || !a.zero || !b.zero)
      return boolean(c_.bool_val(a.dtype == b.dtype));
    return boolean(*a.zero == *b.zero && *a.step == *b.step);
  }
  throw Outside{c.callee_span, f + " is not encoded yet"};
}

// CONSTVAL_INT(tag, i), CONSTVAL_FLOAT(tag, i) and their _VALID forms, as
// teval's evaluator reads them: element i of the tag's node, which the
// graph holds as a constant (as the sampling verifier draws such a tag);
// CONSTVAL_INT of a float only when it is an integer in int32's range,
// else INT32_MIN. Element 0 only (another's position depends on the
// extents).
Encoding::Val Encoding::constval(const ast::Call& c) {
  const std::string& f = c.callee;
  const ast::StringLit* tag = as_string(*c.args[0]);
  const auto* at = std::get_if<ast::IntLit>(&c.args[1]->node);
  auto it = tag ? tags_.find(tag->value) : tags_.end();
  if (it == tags_.end() || !at || at->value != 0)
    throw Outside{c.callee_span, f + " of an element other than a tag's first"};
  Leaf* leaf = nullptr;
  for (Leaf& l : leaves_)
    leaf = l.item == it->second ? &l : leaf;
  if (!leaf) { // an op's output is never a constant
    Val v;
    v.type = f.starts_with("CONSTVAL_FLOAT") && !f.ends_with("_VALID") ? Val::Type::Float
             : f.ends_with("_VALID")                                   ? Val::Type::Bool
                                                                       : Val::Type::Int;
    v.e = v.type == Val::Type::Bool  ? c_.bool_val(false)
          : v.type == Val::Type::Int ? c_.int_val(int64_t(INT32_MIN))
                                     : c_.fpa_nan(c_.fpa_sort(8, 24));
    return v;
  }
  // A tag read so is a constant of the graph, as the sampling verifier
  // draws it (as an input it would have no value to read).
  leaf->constant = true;
  z3::expr valid = c_.bool_val(true);
  const z3::expr zero = c_.int_val(0);
  const z3::expr x = (*leaf->values)(zero, zero, zero, zero);
  Val v;
  if (f.starts_with("CONSTVAL_FLOAT")) {
    // The element as a float32 (a code as the integer it is).
    const z3::sort f32 = c_.fpa_sort(8, 24);
    // (A code converted to a float is outside what the solver decides.)
    if (!x.is_fpa())
      throw Outside{c.callee_span, f + " of a quantized or integer tensor is not encoded yet"};
    const z3::expr value = z3::fpa_to_fpa(x, f32);
    if (f.ends_with("_VALID")) {
      v.e = valid;
      return v; // a Bool
    }
    v.type = Val::Type::Float;
    v.e = z3::ite(valid, value, c_.fpa_nan(f32));
    return v;
  }
  z3::expr integer = x;
  if (x.is_fpa()) {
    const z3::expr whole(c_, Z3_mk_fpa_round_to_integral(c_, Z3_mk_fpa_rtz(c_), x));
    integer = z3::expr(c_, Z3_mk_real2int(c_, Z3_mk_fpa_to_real(c_, whole)));
    valid = valid && !x.mk_is_nan() && !x.mk_is_inf() && z3::fp_eq(whole, x) &&
            integer >= c_.int_val(int64_t(INT32_MIN)) && integer <= c_.int_val(int64_t(INT32_MAX));
  }
  if (f.ends_with("_VALID")) {
    v.e = valid;
    return v; // a Bool
  }
  v.type = Val::Type::Int;
  v.e = z3::ite(valid, integer, c_.int_val(int64_t(INT32_MIN)));
  return v;
}

} // namespace teval::verify::htp::prove
