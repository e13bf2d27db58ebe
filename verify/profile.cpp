// Generator profiles (see profile.h).
#include "verify/profile.h"

#include "core/kernel_json.h"
#include "verify/emit_mlir.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace teval::verify {

namespace {

template <class T> bool has(const std::vector<T>& list, const T& x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep))
    if (!item.empty())
      out.push_back(item);
  return out;
}

std::optional<core::Op> op_named(const std::string& name) {
#define TEVAL_OP(e, spelling, arity, rule)                                                         \
  if (core::json_name(core::Op::e) == name)                                                        \
    return core::Op::e;
#include "core/kernel_ops.def"
  return std::nullopt;
}

// Calls \p f on every node of \p e outside load indices (a load itself
// included), and \p gather when a load's index reads a tensor.
void each_value_node(const core::Expr& e, const std::function<void(const core::Expr&)>& f,
                     bool& gather) {
  f(e);
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, core::Load>) {
          for (const core::Expr& i : n.index)
            core::for_each_node(i, [&](const core::Expr& x) {
              gather |= std::holds_alternative<core::Load>(x->node);
            });
        } else if constexpr (std::is_same_v<T, core::Apply>) {
          for (const core::Expr& a : n.args)
            each_value_node(a, f, gather);
        } else if constexpr (std::is_same_v<T, core::Cast>) {
          each_value_node(n.value, f, gather);
        } else if constexpr (std::is_same_v<T, core::Select>) {
          each_value_node(n.cond, f, gather);
          each_value_node(n.then, f, gather);
          each_value_node(n.otherwise, f, gather);
        }
      },
      e->node);
}

} // namespace

std::string Profile::text() const {
  std::string t;
  auto word = [&](const std::string& w) { t += (t.empty() ? "" : " ") + w; };
  if (!dtypes.empty()) {
    std::string list;
    for (core::DType d : dtypes)
      list += (list.empty() ? "" : ",") + core::to_string(d);
    word("dtypes=" + list);
  }
  if (!ops.empty()) {
    std::string list;
    for (core::Op o : ops)
      list += (list.empty() ? "" : ",") + std::string(core::json_name(o));
    word("ops=" + list);
  }
  if (no_gather)
    word("no-gather");
  if (linalg)
    word("linalg");
  return t;
}

std::optional<Profile> Profile::parse(const std::string& text, std::string* why) {
  Profile p;
  for (const std::string& w : split(text, ' ')) {
    if (w == "no-gather") {
      p.no_gather = true;
    } else if (w == "linalg") {
      p.linalg = true;
    } else if (w.starts_with("dtypes=")) {
      for (const std::string& d : split(w.substr(7), ',')) {
        std::optional<core::DType> t = core::dtype_from_name(d);
        if (!t || !core::kernel_dtype(*t))
          return *why =
                     "unknown dtype '" + d + "'" + (t ? core::not_kernel_note(*t) : std::string()),
                 std::nullopt;
        if (!has(p.dtypes, *t))
          p.dtypes.push_back(*t);
      }
    } else if (w.starts_with("ops=")) {
      for (const std::string& o : split(w.substr(4), ',')) {
        std::optional<core::Op> op = op_named(o);
        if (!op)
          return *why = "unknown operator '" + o + "' (the names of docs/KERNEL_JSON.md)",
                 std::nullopt;
        if (!has(p.ops, *op))
          p.ops.push_back(*op);
      }
    } else {
      return *why = "unknown profile word '" + w + "'", std::nullopt;
    }
  }
  return p;
}

std::optional<Profile> Profile::named(const std::string& name) {
  std::string why;
  if (name == "float32-dense")
    return parse("dtypes=float32 no-gather", &why);
  if (name == "float-dense")
    return parse("dtypes=float32,float64,float16,bfloat16 no-gather", &why);
  if (name == "linalg")
    return parse("linalg", &why);
  return std::nullopt;
}

std::string profile_names() {
  return "float32-dense, float-dense, linalg";
}

// True when \p e is index arithmetic: an integer or bool value that reads no
// tensor (a `.when` condition's comparison of indices), which a profile
// does not restrict.
static bool index_arithmetic(const core::Expr& e) {
  if (core::is_float(e->dtype))
    return false;
  bool reads = false;
  core::for_each_node(e, [&](const core::Expr& x) {
    reads |= std::holds_alternative<core::Load>(x->node) || core::is_float(x->dtype);
  });
  return !reads;
}

bool admits(const Profile& p, const core::Kernel& k) {
  if (p.empty())
    return true;
  if (!p.dtypes.empty())
    for (const core::TensorDecl& t : k.tensors)
      if (!has(p.dtypes, t.dtype))
        return false;
  bool ok = true, gather = false;
  for (const core::Statement& s : k.statements)
    each_value_node(
        s.value,
        [&](const core::Expr& e) {
          if (index_arithmetic(e))
            return;
          if (!p.dtypes.empty() && e->dtype != core::DType::Bool && !has(p.dtypes, e->dtype))
            ok = false;
          if (const auto* a = std::get_if<core::Apply>(&e->node); a && !p.ops.empty())
            ok &= has(p.ops, a->op);
        },
        gather);
  if (!ok || (p.no_gather && gather))
    return false;
  if (p.linalg) {
    try {
      emit_mlir(k, "<profile>", {});
    } catch (const Inexpressible&) {
      return false;
    }
  }
  return true;
}

} // namespace teval::verify
