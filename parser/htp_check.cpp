// The checks of HTP rules (see htp_check.h): the seed's grammar, constraint
// types (bool, int, size, float, dtype) and the restrictions on match and
// replacement expressions.
#include "parser/htp_check.h"

#include "parser/htp_checker.h"

namespace teval::parser::htp {

using detail::Checker;

bool is_dtype_tag(const std::string& name) { return detail::kDTypeTags.count(name) != 0; }

void check_rule(Rule& rule, const std::vector<ExternalFunction>& externals) {
  if (!rule.invocation || rule.malformed())
    return;
  const ast::Call& inv = std::get<ast::Call>(rule.invocation->node);
  Checker checker(rule, externals);
  switch (rule.kind) {
  case ItemKind::Optimization:
    checker.optimization(inv);
    return;
  case ItemKind::Op:
    checker.op(inv);
    return;
  case ItemKind::TensorProperties:
    checker.tensor_properties(inv);
    return;
  case ItemKind::ParamOrder:
    checker.param_order(inv);
    return;
  }
}

} // namespace teval::parser::htp
