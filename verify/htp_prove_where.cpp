// The symbolic prover's reading of `where` clauses (see htp_prover.h):
// variables' extents as integer arithmetic of an op's inputs' extents.
#include "verify/htp_prover.h"

#include <cctype>
#include <regex>
#include <sstream>

namespace teval::verify::htp::prove {

namespace {

// Integer arithmetic on extents as a `where` clause spells it: integers,
// $inK[d], + - * / and parentheses ($(...) among them), as a term of the
// inputs' extents; none for anything else.
class Extents {
public:
  Extents(z3::context& c, const std::string& text, const std::vector<const SymTensor*>& inputs)
      : c_(c), s_(text), inputs_(inputs) {}
  std::optional<z3::expr> parse() {
    std::optional<z3::expr> e = sum();
    skip();
    return e && i_ == s_.size() ? e : std::nullopt;
  }

private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  bool eat(const std::string& t) {
    skip();
    if (s_.compare(i_, t.size(), t) != 0)
      return false;
    i_ += t.size();
    return true;
  }
  std::optional<int64_t> number() {
    skip();
    size_t b = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])))
      ++i_;
    return i_ > b ? std::optional(std::stoll(s_.substr(b, i_ - b))) : std::nullopt;
  }
  std::optional<z3::expr> sum() {
    std::optional<z3::expr> a = product();
    while (a) {
      if (eat("+")) {
        std::optional<z3::expr> b = product();
        a = b ? std::optional(*a + *b) : std::nullopt;
      } else if (eat("-")) {
        std::optional<z3::expr> b = product();
        a = b ? std::optional(*a - *b) : std::nullopt;
      } else {
        break;
      }
    }
    return a;
  }
  std::optional<z3::expr> product() {
    std::optional<z3::expr> a = factor();
    while (a) {
      if (eat("*")) {
        std::optional<z3::expr> b = factor();
        a = b ? std::optional(*a * *b) : std::nullopt;
      } else if (eat("/")) {
        // By a positive constant only (C's truncation, of a non-negative
        // dividend, is the floor).
        std::optional<int64_t> b = number();
        if (!b || *b <= 0)
          return std::nullopt;
        a = z3::ite(*a >= 0, *a / c_.int_val(*b), -((-*a) / c_.int_val(*b)));
      } else {
        break;
      }
    }
    return a;
  }
  std::optional<z3::expr> factor() {
    if (eat("-")) {
      std::optional<z3::expr> a = factor();
      return a ? std::optional(-*a) : std::nullopt;
    }
    if (eat("$(") || eat("(")) {
      std::optional<z3::expr> a = sum();
      return a && eat(")") ? a : std::nullopt;
    }
    if (eat("$in")) {
      std::optional<int64_t> k = number();
      if (!k || !eat("["))
        return std::nullopt;
      std::optional<int64_t> d = number();
      if (!d || !eat("]") || size_t(*k) >= inputs_.size() || size_t(*d) >= kRank)
        return std::nullopt;
      return inputs_[size_t(*k)]->shape[size_t(*d)];
    }
    if (std::optional<int64_t> n = number())
      return c_.int_val(*n);
    return std::nullopt;
  }

  z3::context& c_;
  const std::string& s_;
  const std::vector<const SymTensor*>& inputs_;
  size_t i_ = 0;
};

} // namespace

// The extents a definition's `where` clauses give its variables, per
// statement, as terms of its inputs' extents. Throws Outside when a clause
// is not of that arithmetic or a statement reads extents outside its
// clauses (its kernel would hold the probe's).
std::vector<std::map<std::string, z3::expr>>
where_extents(z3::context& c, const rules::OpDef& def, const std::string& op,
              const std::vector<const SymTensor*>& inputs) {
  static const std::regex field(R"(\$(in\d+|out0)\[|\$\()");
  static const std::regex where(R"(\bwhere\b)");
  std::vector<std::map<std::string, z3::expr>> out;
  std::stringstream statements(def.program);
  std::string st;
  while (std::getline(statements, st, ';')) {
    std::smatch m;
    std::string body = st, clauses;
    if (std::regex_search(st, m, where)) {
      body = m.prefix();
      clauses = m.suffix();
    }
    if (std::regex_search(body, field))
      throw Outside{def.span, op + "'s definition reads extents outside its where clauses"};
    std::map<std::string, z3::expr> extents;
    int depth = 0;
    size_t from = 0;
    for (size_t i = 0; i <= clauses.size(); ++i) {
      const char ch = i < clauses.size() ? clauses[i] : ',';
      depth += ch == '(' || ch == '[' ? 1 : ch == ')' || ch == ']' ? -1 : 0;
      if (ch != ',' || depth != 0)
        continue;
      const std::string clause = clauses.substr(from, i - from);
      from = i + 1;
      static const std::regex form(R"(^\s*(\w+)\s+in\s+(.*?)\s*$)");
      std::smatch cm;
      if (clause.find_first_not_of(" \t") == std::string::npos)
        continue;
      std::optional<z3::expr> e;
      if (std::regex_match(clause, cm, form))
        e = Extents(c, cm[2].str(), inputs).parse();
      if (!e)
        throw Outside{def.span, op +
                                    "'s definition has a where clause the encoding does not "
                                    "read: " +
                                    clause};
      extents.emplace(cm[1].str(), *e);
    }
    out.push_back(std::move(extents));
  }
  return out;
}

} // namespace teval::verify::htp::prove
