// A program as TorchScript (see emit_torchscript.h). A statement's index
// variables span a grid, variable k an arange along axis k, and every
// expression is a tensor broadcast over it, computed at every point at
// once: the branch a `.when` or `&&` does not take too, which is harmless
// because reads are clamped and divisors guarded, and whose errors count
// only where it is taken (each value carries the conditions, relative to
// its own evaluation, under which it is an error or skips its point). The
// values are then folded into the target point by point in the
// interpreter's order: along the reduce points when each output index is
// its own variable (the common case, one tensor operation per reduce
// point), else element by element. Integers and bool are int64 tensors,
// wrapped to their dtype after each operation; float16 and bfloat16 are
// computed in float32 and rounded after each operation, as the
// interpreter computes them.
#include "verify/emit_torchscript.h"

#include "core/error.h"
#include "core/json.h"
#include "core/shape.h"
#include "verify/emit_torchscript_body.h"
#include "verify/emit_torchscript_prelude.h"

#include <algorithm>

namespace teval::verify {

namespace torchscript {

std::string StatementWriter::combine(DType t, const std::string& acc, const std::string& v) const {
  using core::Aggregation;
  const Aggregation a = s_.aggregation;
  if (a == Aggregation::All || a == Aggregation::Any)
    return "((" + acc + " != 0) " + (a == Aggregation::All ? "&" : "|") + " (" + v + " != 0)).to(" +
           torch_dtype(t) + ")";
  if (core::is_float(t)) {
    const std::string cast = narrow(t) ? ".to(torch.float32)" : "";
    const std::string x = acc + cast, y = v + cast;
    const std::string r = a == Aggregation::Sum       ? "(" + x + " + " + y + ")"
                          : a == Aggregation::Product ? "(" + x + " * " + y + ")"
                          : a == Aggregation::Max     ? "_fmax(" + x + ", " + y + ")"
                                                      : "_fmin(" + x + ", " + y + ")";
    return narrow(t) ? r + ".to(" + torch_dtype(t) + ")" : r;
  }
  if (a == Aggregation::Max || a == Aggregation::Min)
    return std::string(a == Aggregation::Max ? "torch.maximum(" : "torch.minimum(") + acc + ", " +
           v + ")";
  const std::string r = acc + (a == Aggregation::Sum ? " + " : " * ") + v;
  return t != DType::Bool && core::bit_width(t) == 64 ? r : "_wrap(" + r + ", " + int_form(t) + ")";
}

void StatementWriter::write(int number) {
  const core::TensorDecl& target = k_.tensors[s_.target];
  code_ += "    # statement " + std::to_string(number) + ": " + target.name + "\n";
  const std::string fill =
      s_.init_from
          ? "t" + std::to_string(*s_.init_from) + ".clone()"
          : "torch.full(" + list(target.shape) + ", " +
                (core::is_float(target.dtype) ? float_literal(s_.init.f) : int_literal(s_.init.i)) +
                ", dtype=" + torch_dtype(target.dtype) + ")";
  for (const core::IndexVar& v : s_.vars)
    grid_.push_back(std::max<int64_t>(v.end - v.begin, 0));
  if (std::find(grid_.begin(), grid_.end(), 0) != grid_.end()) { // no point: nothing happens
    code_ += "    t" + std::to_string(s_.target) + " = " + fill + "\n";
    return;
  }
  for (size_t v = 0; v < s_.vars.size(); ++v) {
    std::vector<int64_t> view(grid_.size(), 1);
    view[v] = grid_[v];
    code_ += "    v" + std::to_string(v) + " = torch.arange(" + std::to_string(s_.vars[v].begin) +
             ", " + std::to_string(s_.vars[v].begin + grid_[v]) + ", dtype=torch.int64).reshape(" +
             list(view) + ")\n";
  }
  // Every value first (all of them are safe to compute everywhere), then
  // the points that count and the errors at them, in the interpreter's
  // order: constraints, reads in range (Skip), the write, the value.
  std::vector<Value> constraints;
  for (const core::Constraint& c : s_.constraints)
    constraints.push_back(value(c.expr));
  const Value v = value(s_.value);
  std::vector<Value> out;
  for (const Expr& e : s_.out_index)
    out.push_back(value(e));
  std::string live; // empty: every point
  auto conj = [&](const std::string& c) { live = live.empty() ? c : let(live + " & " + c); };
  auto check = [&](const std::vector<Cond>& conds) {
    std::string skipped;
    for (const Cond& c : conds) {
      const std::string at = live.empty() ? c.var : let(c.var + " & " + live);
      if (c.what.empty())
        skipped += (skipped.empty() ? "" : " | ") + at;
      else
        code_ += "    _check(" + at + ", " + core::json_string(c.what) + ")\n";
    }
    if (!skipped.empty())
      conj(let("~(" + skipped + ")"));
  };
  for (size_t c = 0; c < constraints.size(); ++c) {
    check(constraints[c].conds);
    conj(let("(" + constraints[c].var + " >= 0) & (" + constraints[c].var + " < " +
             std::to_string(s_.constraints[c].bound) + ")"));
  }
  if (!out_of_range_.empty()) {
    std::string any;
    for (const std::string& o : out_of_range_)
      any += (any.empty() ? "" : " | ") + o;
    conj(let("~(" + any + ")"));
  }
  // Each output index its own variable, inside the dimension: a fold along
  // the other variables.
  bool plain = true;
  std::vector<int> axes;
  for (size_t d = 0; d < s_.out_index.size() && plain; ++d) {
    const auto* r = std::get_if<core::VarRef>(&s_.out_index[d]->node);
    plain = r && std::find(axes.begin(), axes.end(), r->var) == axes.end() &&
            s_.vars[r->var].begin >= 0 && s_.vars[r->var].begin + grid_[r->var] <= target.shape[d];
    if (plain)
      axes.push_back(r->var);
  }
  std::string outside;
  for (size_t d = 0; d < out.size(); ++d) {
    check(out[d].conds);
    if (plain)
      continue; // inside by construction
    outside += (outside.empty() ? "(" : " | (") + out[d].var + " < 0) | (" + out[d].var +
               " >= " + std::to_string(target.shape[d]) + ")";
  }
  if (!outside.empty()) {
    if (skip()) {
      conj(let("~(" + outside + ")"));
    } else {
      const std::string bad = let(outside);
      code_ += "    _check(" + (live.empty() ? bad : let(bad + " & " + live)) + ", " +
               core::json_string("write out of range of " + target.name) + ")\n";
    }
  }
  check(v.conds);
  if (plain)
    fold_plain(v.var, live, fill, axes);
  else
    fold_points(v.var, live, fill, out);
}

std::string StatementWriter::step(const std::string& acc, const std::string& v,
                                  const std::string& mask, const std::string& written,
                                  const std::string& indent) {
  using core::Aggregation;
  const DType t = k_.tensors[s_.target].dtype;
  const bool track = tracked();
  std::string c;
  std::string next;
  if (s_.aggregation == Aggregation::Assign) {
    if (track) {
      std::string clash = written + (mask.empty() ? "" : " & " + mask);
      if (s_.conflict == core::WriteConflict::ErrorIfDifferent)
        clash += core::is_float(t) ? " & ~_same(" + acc + ", " + v + ")"
                                   : " & (" + acc + " != " + v + ")";
      c += indent + "_check(" + clash + ", " +
           core::json_string("two writes to one element of " + k_.tensors[s_.target].name) + ")\n";
    }
    next = v;
  } else {
    next = combine(t, acc, v);
    if (s_.start == core::Start::FirstValue)
      next = "torch.where(" + written + ", " + next + ", " + v + ")";
  }
  return c + indent + acc + " = " +
         (mask.empty() ? next : "torch.where(" + mask + ", " + next + ", " + acc + ")") + "\n";
}

void StatementWriter::fold_plain(const std::string& v, const std::string& mask,
                                 const std::string& fill, const std::vector<int>& axes) {
  const core::TensorDecl& target = k_.tensors[s_.target];
  std::vector<int64_t> perm, shape;
  int64_t points = 1;
  for (int a : axes) {
    perm.push_back(a);
    shape.push_back(grid_[a]);
  }
  for (size_t a = 0; a < grid_.size(); ++a)
    if (std::find(axes.begin(), axes.end(), static_cast<int>(a)) == axes.end()) {
      perm.push_back(static_cast<int64_t>(a));
      points *= grid_[a];
    }
  std::vector<int64_t> folded = shape;
  folded.push_back(points);
  auto arrange = [&](const std::string& x) {
    return let("torch.broadcast_to(" + x + ", " + list(grid_) + ").permute(" + list(perm) +
               ").reshape(" + list(folded) + ")");
  };
  const std::string values = arrange(v), valid = mask.empty() ? "" : arrange(mask);
  bool whole = true;
  std::string region = "[";
  for (size_t d = 0; d < axes.size(); ++d) {
    const core::IndexVar& iv = s_.vars[axes[d]];
    whole = whole && iv.begin == 0 && grid_[axes[d]] == target.shape[d];
    region += (d ? ", " : "") + std::to_string(iv.begin) + ":" +
              std::to_string(iv.begin + grid_[axes[d]]);
  }
  region += "]";
  const std::string full = let(fill);
  const std::string acc = let(whole ? full : full + region + ".clone()");
  const bool track = tracked();
  const std::string written =
      track ? let("torch.zeros(" + list(shape) + ", dtype=torch.bool)") : "";
  const std::string r = "r" + std::to_string(counter_++);
  code_ += "    for " + r + " in range(" + std::to_string(points) + "):\n";
  const std::string value = "x" + std::to_string(counter_++);
  code_ += "        " + value + " = " + values + ".select(-1, " + r + ")\n";
  std::string m;
  if (!valid.empty()) {
    m = "x" + std::to_string(counter_++);
    code_ += "        " + m + " = " + valid + ".select(-1, " + r + ")\n";
  }
  code_ += step(acc, value, m, written, "        ");
  if (track)
    code_ += "        " + written + " = " +
             (m.empty() ? "torch.ones_like(" + written + ")" : written + " | " + m) + "\n";
  const std::string t = "t" + std::to_string(s_.target);
  if (whole) {
    code_ += "    " + t + " = " + acc + "\n";
  } else {
    code_ += "    " + full + region + " = " + acc + "\n";
    code_ += "    " + t + " = " + full + "\n";
  }
}

void StatementWriter::fold_points(const std::string& v, const std::string& mask,
                                  const std::string& fill, const std::vector<Value>& out) {
  const core::TensorDecl& target = k_.tensors[s_.target];
  int64_t points = 1;
  for (int64_t e : grid_)
    points *= e;
  std::string flat;
  int64_t stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    const std::string term = "torch.clamp(" + out[d].var + ", 0, " +
                             std::to_string(std::max<int64_t>(target.shape[d] - 1, 0)) + ") * " +
                             std::to_string(stride);
    flat = flat.empty() ? term : term + " + " + flat;
    stride *= target.shape[d];
  }
  auto spread = [&](const std::string& x) {
    return let("torch.broadcast_to(" + x + ", " + list(grid_) + ").reshape([-1])");
  };
  const std::string values = spread(v), valid = mask.empty() ? "" : spread(mask);
  const std::string at = flat.empty() ? "" : spread(flat);
  const std::string acc = let(fill + ".reshape([-1])");
  const bool track = tracked();
  const std::string written =
      track ? let("torch.zeros([" + std::to_string(stride) + "], dtype=torch.bool)") : "";
  const std::string p = "p" + std::to_string(counter_++);
  code_ += "    for " + p + " in range(" + std::to_string(points) + "):\n";
  std::string indent = "        ";
  if (!valid.empty()) {
    code_ += indent + "if bool(" + valid + "[" + p + "]):\n";
    indent += "    ";
  }
  const std::string a = "a" + std::to_string(counter_++);
  code_ += indent + a + " = " + (at.empty() ? "0" : "int(" + at + "[" + p + "])") + "\n";
  const std::string old = "x" + std::to_string(counter_++);
  code_ += indent + old + " = " + acc + "[" + a + "]\n";
  code_ += step(old, values + "[" + p + "]", "", track ? written + "[" + a + "]" : "", indent);
  code_ += indent + acc + "[" + a + "] = " + old + "\n";
  if (track)
    code_ += indent + written + "[" + a + "] = True\n";
  code_ +=
      "    t" + std::to_string(s_.target) + " = " + acc + ".reshape(" + list(target.shape) + ")\n";
}

} // namespace torchscript

namespace {

using namespace torchscript;

std::string shape_tuple(const core::Shape& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

} // namespace

std::string emit_torchscript(const core::Kernel& k, const std::string& origin,
                             const std::map<std::string, core::Tensor>& constants) {
  std::vector<bool> written(k.tensors.size(), false);
  for (const core::Statement& s : k.statements)
    written[s.target] = true;
  for (int o : k.outputs)
    if (k.tensors[o].role != core::TensorRole::Input && !written[o])
      throw Inexpressible{"an output no statement writes (" + k.tensors[o].name + ")"};
  std::string py =
      "#!/usr/bin/env python3\n"
      "# " +
      origin +
      " as TorchScript, by teval emit --to torchscript (docs/EMIT.md).\n"
      "# Usage: python3 THIS INPUT_DIR OUTPUT_DIR [--fuser none|nnc] [--runs N]: reads\n"
      "# INPUT_DIR/NAME.npy for each input, runs the kernel (a TorchScript function) and\n"
      "# writes OUTPUT_DIR/NAME.npy for each output, or on the program's error prints it and\n"
      "# exits 1 writing nothing.\n"
      "# It computes teval's interpreter's bits where torch keeps IEEE semantics, and relies\n"
      "# on: PyTorch 1.13 or later and numpy; float32 and float64 operations rounding once\n"
      "# to nearest, float16 and bfloat16 computed in float32 and rounded after each\n"
      "# operation (as teval does); int64 arithmetic wrapping; the math functions (exp, log,\n"
      "# sin, pow, erf, sigmoid, ndtr, ...) are torch's, within a few ulps of teval's own.\n"
      "# A reduction folds point by point in teval's order, in the output's dtype.\n";
  py += detail::kTorchScriptHelpers;
  std::string params, inputs, made;
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const core::TensorDecl& d = k.tensors[i];
    if (d.role == core::TensorRole::Input && !constants.count(d.name)) {
      params += (params.empty() ? "" : ", ") + ("t" + std::to_string(i)) + ": torch.Tensor";
      inputs += "    (" + core::json_string(d.name) + ", \"" +
                std::string(core::npy_descr(d.dtype)) + "\", " + shape_tuple(d.shape) + "),\n";
    }
  }
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const core::TensorDecl& d = k.tensors[i];
    auto c = constants.find(d.name);
    if (d.role != core::TensorRole::Input || c == constants.end())
      continue;
    params += (params.empty() ? "" : ", ") + ("t" + std::to_string(i)) + ": torch.Tensor";
    std::string values;
    for (int64_t e = 0; e < c->second.numel(); ++e) {
      const core::Scalar v = c->second.get(e);
      values += (e ? ", " : "") + (core::is_float(d.dtype) ? float_literal(v.f) : int_literal(v.i));
    }
    made += "        torch.tensor([" + values + "], dtype=" + torch_dtype(d.dtype) + ").reshape(" +
            list(d.shape) + "),\n";
  }
  py += "\n@torch.jit.script\ndef kernel(" + params + ") -> List[torch.Tensor]:\n";
  int counter = 0;
  for (size_t s = 0; s < k.statements.size(); ++s)
    StatementWriter(k, k.statements[s], py, counter).write(static_cast<int>(s));
  std::string outputs, returned;
  for (int o : k.outputs) {
    const core::TensorDecl& d = k.tensors[o];
    returned += (returned.empty() ? "t" : ", t") + std::to_string(o);
    outputs += "    (" + core::json_string(d.name) + ", \"" +
               std::string(core::npy_descr(d.dtype)) + "\", " + shape_tuple(d.shape) + "),\n";
  }
  py += "    return [" + returned + "]\n\n\n_INPUTS = [\n" + inputs + "]\n_OUTPUTS = [\n" +
        outputs + "]\n\n\ndef _constants():\n    return [\n" + made + "    ]\n";
  return py + detail::kTorchScriptDriver;
}

} // namespace teval::verify
