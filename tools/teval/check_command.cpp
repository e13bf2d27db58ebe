// `teval check`: the oracle's verdict on another compiler's output.
#include "tools/teval/check_command.h"

#include "core/error.h"
#include "core/format.h"
#include "core/interrupt.h"
#include "core/json.h"
#include "ops/native.h"
#include "oracle/bounds.h"
#include "oracle/evaluate.h"
#include "oracle/verdict.h"
#include "tools/teval/cli_support.h"
#include "tools/teval/run_command.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

namespace teval::tools {

using core::json_string;

const char* const kCheckHelp =
    R"(usage: teval check (FILE | -e TEXT) [program options] --candidate OUT=PATH.npy ...
                   [--given VALUE=PATH.npy]... [--json] [--bound rigorous | --ulp N | --rtol R --atol A] [--fma]
                   [--excess-precision] [--math-ulp N | --math-ulp FUNCTION=N]...
                   [--timeout SECONDS] [--walk]

Says whether tensors another compiler produced are legal results of a
program: `exact` (bit-equal to the exact or the sequential result),
`within-bound` (every element inside its rigorous interval, which holds the
result of every legal evaluation: any order of each reduction, each
operation rounded to its dtype, documented math-library error; see
docs/ORACLE.md), `mismatch` with the worst element, or `inconclusive`:
no mismatch, but where teval cannot make an element's bound finite (a long
float16 sum), only the exact and the sequential values pass, and the
candidate has another value there. An MLIR function that has no einstein_v2
decomposition (control flow, sort, complex values, ...) is judged against
its native references' values: exact, or within --ulp or --rtol/--atol; a
complex output part by part, as OUT.real and OUT.imag (docs/BYTEIR.md).

options:
  --candidate OUT=PATH   the candidate for output OUT: a .npy file, or
                         PATH.npz:KEY (repeat for several outputs); of an
                         MLIR function, OUT may also name any value it
                         computes (%5, %2/%0: as teval run --dump-values)
  --given VALUE=PATH     of an MLIR function: judge as if its value VALUE
                         (%5, %2/%0) were this array, a compiler's dump of
                         an earlier layer; what follows is bounded from it,
                         so each layer is judged on its own inputs
                         (repeatable; docs/BYTEIR.md, "Every value")
  --json                 print one JSON object (docs/ORACLE.md, schema
                         teval.check/1) instead of text
  --bound rigorous       judge by the rigorous per-element bound (default)
  --ulp N                judge by distance from the exact result: N ulps
  --rtol R, --atol A     judge like numpy's allclose against the exact result:
                         |candidate - exact| <= A + R·|exact|
  --timeout SECONDS      stop an evaluation that runs longer (an error)
  --walk                 evaluate every statement point by point, as the
                         definition does (slow), instead of computing each
                         contraction from its terms on every core: the same
                         values (docs/ORACLE.md, "The fast check")
  --fma                  a product may be fused into the sum or addition it
                         feeds (legal for compilers that contract a*b+c)
  --excess-precision     a float16 or bfloat16 value may be kept in float32
                         between operations and tensors, outputs rounded (as
                         libraries that compute these dtypes in float32 do)
  --math-ulp N           every math function may err by N ulps of its result
                         (0: correctly rounded) instead of the table measured
                         on real libraries (docs/ORACLE.md)
  --math-ulp FN=N        the same for one function (exp, erf, tanh, ...);
                         repeatable, and it wins over --math-ulp N
  program options        as for teval run: FILE or -e TEXT, --lang, --entry,
                         -p NAME=..., -i NAME=PATH.npy | PATH.npz:KEY |
                         DTYPE[dims], --seed N, --max-memory SIZE
  -h, --help             this text

exit status: 0 every candidate passes; 1 a mismatch, or the program or its
inputs are wrong; 2 a usage error; 3 no mismatch, but some candidate is
inconclusive.
)";

namespace {

struct CheckArgs {
  std::vector<std::string> program;
  double timeout = 0; // seconds; 0: none
  std::string timeout_text;
  std::vector<std::pair<std::string, std::string>> candidates, givens;
  bool json = false;
  bool help = false;
  bool walk = false;
  oracle::CheckOptions check;
  oracle::BoundOptions bound;
};

double parse_number(const std::string& option, const std::string& v) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(d) || d < 0)
    throw UsageError{option + " takes a non-negative number, not '" + v + "'"};
  return d;
}

CheckArgs parse(const std::vector<std::string>& args) {
  CheckArgs c;
  bool tolerance = false, ulp = false, rigorous = false;
  auto value = [&](size_t& i) -> const std::string& {
    if (i + 1 >= args.size())
      throw UsageError{"option " + args[i] + " needs a value"};
    return args[++i];
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      c.help = true;
    } else if (a == "--candidate" || a == "--given") {
      // OUT is an output's name, or an MLIR value's (`%5`, `%2/%0`, `%1#0`).
      const bool candidate = a == "--candidate";
      const std::string& spec = value(i);
      size_t eq = spec.find('=');
      std::string name = spec.substr(0, std::min(eq, spec.size()));
      auto value_char = [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || std::strchr("_$.-%/#@", ch);
      };
      if (eq == std::string::npos || eq + 1 == spec.size() || name.empty() ||
          !std::all_of(name.begin(), name.end(), value_char))
        throw UsageError{a + (candidate ? " takes OUT=PATH.npy" : " takes VALUE=PATH.npy") +
                         ", not '" + spec + "'"};
      std::string path = spec.substr(eq + 1);
      auto& list = candidate ? c.candidates : c.givens;
      for (const auto& seen : list)
        if (seen.first == name)
          throw UsageError{(candidate ? "candidate '" : "value '") + name + "' is given twice"};
      list.emplace_back(name, path);
    } else if (a == "--timeout") {
      c.timeout_text = value(i);
      c.timeout = parse_seconds(a, c.timeout_text);
    } else if (a == "--json") {
      c.json = true;
    } else if (a == "--fma") {
      c.bound.fma = true;
    } else if (a == "--walk") {
      c.walk = true;
    } else if (a == "--excess-precision") {
      c.bound.excess_precision = true;
    } else if (a == "--math-ulp") {
      const std::string& v = value(i);
      size_t eq = v.find('=');
      int64_t n = static_cast<int64_t>(
          parse_count(a, eq == std::string::npos ? v : v.substr(eq + 1), int64_t{1} << 40));
      if (eq == std::string::npos) {
        c.bound.math_ulps = n;
      } else {
        try {
          c.bound.function_ulps[oracle::math_function(v.substr(0, eq))] = n;
        } catch (const core::Error& e) {
          throw UsageError{"--math-ulp: " + e.message()};
        }
      }
    } else if (a == "--bound") {
      if (value(i) != "rigorous")
        throw UsageError{"--bound takes rigorous (or use --ulp N, --rtol R --atol A)"};
      rigorous = true;
    } else if (a == "--ulp") {
      c.check.ulps = static_cast<int64_t>(parse_count(a, value(i), int64_t{1} << 62));
      ulp = true;
    } else if (a == "--rtol" || a == "--atol") {
      (a == "--rtol" ? c.check.rtol : c.check.atol) = parse_number(a, value(i));
      tolerance = true;
    } else {
      c.program.push_back(a);
      // The program options that take a value keep it.
      if ((a == "-e" || a == "--lang" || a == "--entry" || a == "-p" || a == "-i" ||
           a == "--seed" || a == "--max-memory") &&
          i + 1 < args.size())
        c.program.push_back(args[++i]);
    }
  }
  if (rigorous + ulp + tolerance > 1)
    throw UsageError{"give one rule: --bound rigorous, --ulp N, or --rtol/--atol"};
  if ((ulp || tolerance) && (c.bound.math_ulps || !c.bound.function_ulps.empty()))
    throw UsageError{"--math-ulp sets the rigorous bound; --ulp and --rtol/--atol do not use it"};
  if ((ulp || tolerance) && c.bound.excess_precision)
    throw UsageError{"--excess-precision widens the rigorous bound; --ulp and --rtol/--atol do "
                     "not use it"};
  c.check.rule = ulp         ? oracle::Rule::Ulp
                 : tolerance ? oracle::Rule::Tolerance
                             : oracle::Rule::Rigorous;
  if (!c.help && c.candidates.empty())
    throw UsageError{"no candidate: give --candidate OUT=PATH.npy for an output"};
  return c;
}

std::string rule_name(oracle::Rule r) {
  switch (r) {
  case oracle::Rule::Rigorous:
    return "rigorous";
  case oracle::Rule::Ulp:
    return "ulp";
  case oracle::Rule::Tolerance:
    return "tolerance";
  }
  return "rigorous";
}

std::string json_number(double d) {
  if (!std::isfinite(d))
    return "null";
  std::ostringstream o;
  o.precision(17);
  o << d;
  return o.str();
}

std::string json_bool(bool b) {
  return b ? "true" : "false";
}

std::string index_list(const std::vector<int64_t>& index) {
  std::string s;
  for (size_t i = 0; i < index.size(); ++i)
    s += (i ? ", " : "") + std::to_string(index[i]);
  return s;
}

std::string json_dependencies(const oracle::ElementReport& e) {
  if (e.dependency_count == 0)
    return "";
  std::string s = ", \"depends_on\": [";
  for (size_t i = 0; i < e.depends_on.size(); ++i) {
    const oracle::Dependency& d = e.depends_on[i];
    s += (i ? ", " : "") + std::string("{\"tensor\": ") + json_string(d.tensor) + ", \"index\": [" +
         index_list(d.index) + "], \"value\": " + json_string(core::format_scalar(d.value)) + "}";
  }
  return s + "], \"depends_on_count\": " + std::to_string(e.dependency_count);
}

std::string json_element(const oracle::ElementReport& e) {
  std::string index;
  for (size_t i = 0; i < e.index.size(); ++i)
    index += (i ? ", " : "") + std::to_string(e.index[i]);
  return "{\"index\": [" + index +
         "], \"candidate\": " + json_string(core::format_scalar(e.candidate)) +
         ", \"exact\": " + json_string(core::format_scalar(e.exact)) +
         ", \"bound\": {\"lo\": " + json_string(core::format_scalar(e.bound.lo)) +
         ", \"hi\": " + json_string(core::format_scalar(e.bound.hi)) +
         ", \"nan\": " + json_bool(e.bound.nan) + ", \"any\": " + json_bool(e.bound.any) +
         "}, \"ulps\": " + json_number(e.ulps) + ", \"fraction\": " + json_number(e.fraction) +
         json_dependencies(e) + "}";
}

std::string json_verdict(const oracle::OutputVerdict& v) {
  std::string s = "{\"name\": " + json_string(v.name) +
                  ", \"status\": " + json_string(oracle::status_name(v.status));
  if (v.status == oracle::Status::Mismatch)
    s += ", \"kind\": " + json_string(v.kind) + ", \"message\": " + json_string(v.message);
  s += ", \"elements\": " + std::to_string(v.elements) +
       ", \"mismatches\": " + std::to_string(v.mismatches) +
       ", \"unbounded\": " + std::to_string(v.unbounded) +
       ", \"inconclusive\": " + std::to_string(v.inconclusive) +
       ", \"exact_match\": " + json_bool(v.exact_match) +
       ", \"sequential_match\": " + json_bool(v.sequential_match) +
       ", \"max_ulps\": " + json_number(v.max_ulps) +
       ", \"max_fraction\": " + json_number(v.max_fraction);
  if (v.worst)
    s += ", \"worst\": " + json_element(*v.worst);
  return s + "}";
}

// Prints the verdicts, as one JSON object or as text: a line per verdict,
// then the outputs nobody gave a candidate for (\p unchecked) and, when a
// wrong dtype or shape stopped the check first, the candidates it did not
// judge (\p unjudged).
void report(const CheckArgs& c, const std::string& verdict,
            const std::vector<oracle::OutputVerdict>& verdicts,
            const std::vector<std::string>& unchecked,
            const std::optional<std::vector<std::string>>& unjudged) {
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
      s += (i ? ", " : "") + json_string(names[i]);
    return "[" + s + "]";
  };
  if (c.json) {
    std::string s = "{\"schema\": \"teval.check/1\", \"verdict\": " + json_string(verdict) +
                    ", \"rule\": " + json_string(rule_name(c.check.rule)) +
                    ", \"fma\": " + json_bool(c.bound.fma) +
                    (c.bound.excess_precision ? ", \"excess_precision\": true" : "") +
                    ", \"outputs\": [";
    for (size_t i = 0; i < verdicts.size(); ++i)
      s += (i ? ", " : "") + json_verdict(verdicts[i]);
    s += "], \"unchecked\": " + list(unchecked);
    if (unjudged)
      s += ", \"unjudged\": " + list(*unjudged);
    std::cout << s << "}\n";
    return;
  }
  for (const oracle::OutputVerdict& v : verdicts)
    std::cout << oracle::describe(v) << "\n";
  for (const std::string& name : unchecked)
    std::cout << name << ": not checked (no --candidate)\n";
  if (unjudged)
    for (const std::string& name : *unjudged)
      std::cout << name
                << ": not judged (a candidate's dtype or shape is wrong, so nothing "
                   "was evaluated)\n";
}

// The candidates matched to the outputs: each one's output (by name, or
// an MLIR value asked for), the arrays read, the verdicts of those of the
// wrong dtype or shape, and the outputs nobody gave a candidate for.
struct Matched {
  std::vector<size_t> which;
  std::vector<core::Tensor> candidates;
  std::vector<oracle::OutputVerdict> wrong;
  std::vector<std::string> unjudged, unchecked;
};

// \p names and \p types: the program's outputs, then the values asked for
// (p.values says which output each is).
Matched match(const CheckArgs& c, const LoadedProgram& p, const std::vector<std::string>& names,
              const std::vector<std::pair<core::DType, core::Shape>>& types) {
  const size_t outputs = names.size() - p.values.size();
  Matched m;
  for (const auto& [name, path] : c.candidates) {
    std::optional<size_t> found;
    std::string listed;
    for (size_t o = 0; o < outputs; ++o) {
      listed += (o ? ", " : "") + names[o];
      if (names[o] == name)
        found = o;
    }
    if (auto v = p.values.find(name); !found && v != p.values.end())
      found = v->second;
    if (!found)
      throw core::Error(core::ErrorKind::Name, "--candidate " + name + "=" + path,
                        "the program has no output " +
                            std::string(p.graph_values ? "or value `" : "`") + name +
                            "`; its outputs are: " + listed +
                            (p.graph_values ? " (and the values teval run --dump-values writes, "
                                              "such as %0 or %2/%0)"
                                            : ""));
    m.which.push_back(*found);
  }
  for (const auto& [name, path] : c.candidates)
    m.candidates.push_back(read_tensor_argument(name, path));
  // A candidate of the wrong dtype or shape fails before anything is
  // evaluated (a large layer takes seconds to minutes).
  for (size_t i = 0; i < m.candidates.size(); ++i) {
    const auto& [dtype, shape] = types[m.which[i]];
    if (auto v = oracle::wrong_type(c.candidates[i].first, m.candidates[i], dtype, shape)) {
      v->rule = c.check.rule;
      m.wrong.push_back(*v);
    } else {
      m.unjudged.push_back(c.candidates[i].first);
    }
  }
  // Outputs nobody gave a candidate for are named, not silently skipped.
  for (size_t o = 0; o < outputs; ++o)
    if (std::find(m.which.begin(), m.which.end(), o) == m.which.end())
      m.unchecked.push_back(names[o]);
  return m;
}

// Runs \p evaluate, within --timeout when there is one.
void within_timeout(const CheckArgs& c, const LoadedProgram& p,
                    const std::function<void()>& evaluate) {
  if (c.timeout <= 0)
    return evaluate();
  auto budget = std::chrono::milliseconds(static_cast<int64_t>(c.timeout * 1000));
  if (!core::run_within(budget, evaluate))
    throw core::Error(core::ErrorKind::Limit, p.file->name(),
                      "the evaluation did not finish within --timeout " + c.timeout_text + " s");
}

// `teval check` of an MLIR function without a kernel (p.native): the
// candidates are judged against its native references' values, the only
// legal result teval knows there: exact, or within --ulp N or --rtol/--atol
// of them (a complex output part by part, as OUT.real and OUT.imag).
int check_native(const CheckArgs& c, const LoadedProgram& p) {
  const core::Graph& g = *p.native;
  std::vector<std::string> names;
  std::vector<std::pair<core::DType, core::Shape>> types;
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const core::ValueType& t = g.values[static_cast<size_t>(g.outputs[o])];
    names.push_back(o < g.outputs.size() - p.values.size() ? core::graph_output_name(o) : "");
    types.emplace_back(t.dtype, t.shape);
  }
  Matched m = match(c, p, names, types);
  if (!m.wrong.empty()) {
    report(c, "fail", m.wrong, m.unchecked, m.unjudged);
    return 1;
  }
  if (!c.json)
    std::cerr << "teval check: note: " << p.native_reason
              << "\nteval check: note: so the candidates are compared with the native "
                 "references' values (exact, or within --ulp or --rtol/--atol), not with "
                 "rigorous bounds\n";
  std::vector<core::Tensor> values;
  within_timeout(c, p, [&] { values = ops::evaluate(g, p.inputs); });
  std::vector<oracle::OutputVerdict> verdicts;
  bool fail = false;
  for (size_t i = 0; i < m.candidates.size(); ++i)
    for (oracle::OutputVerdict& v : oracle::judge_against_value(
             c.candidates[i].first, m.candidates[i], values[m.which[i]], c.check)) {
      fail = fail || v.status == oracle::Status::Mismatch;
      verdicts.push_back(std::move(v));
    }
  report(c, fail ? "fail" : "pass", verdicts, m.unchecked, std::nullopt);
  return fail ? 1 : 0;
}

int check(const CheckArgs& c) {
  // An MLIR function's values may have candidates too (`%5`, `%2/%0`: a
  // compiler's per-layer dumps): they become outputs after its results.
  static const std::regex result_name("result[0-9]+");
  std::vector<std::string> named;
  for (const auto& [name, path] : c.candidates)
    if (!std::regex_match(name, result_name))
      named.push_back(name);
  std::vector<std::pair<std::string, core::Tensor>> givens;
  for (const auto& [name, path] : c.givens)
    givens.emplace_back(name, read_tensor_argument(name, path));
  LoadedProgram p = load_program(c.program, "teval check", named, givens);
  if (p.native)
    return check_native(c, p);
  const core::Kernel& k = p.kernel;
  std::vector<std::string> names;
  std::vector<std::pair<core::DType, core::Shape>> types;
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    const core::TensorDecl& t = k.tensors[k.outputs[o]];
    names.push_back(t.name);
    types.emplace_back(t.dtype, t.shape);
  }
  Matched m = match(c, p, names, types);
  if (!m.wrong.empty()) {
    report(c, "fail", m.wrong, m.unchecked, m.unjudged);
    return 1;
  }
  oracle::Evaluation values;
  within_timeout(c, p, [&] { values = oracle::evaluate(k, p.inputs, c.bound, {.fast = !c.walk}); });
  std::vector<oracle::OutputVerdict> verdicts;
  bool fail = false, inconclusive = false;
  for (size_t i = 0; i < m.candidates.size(); ++i) {
    const size_t o = m.which[i];
    verdicts.push_back(oracle::judge(c.candidates[i].first, m.candidates[i], values.sequential[o],
                                     values.exact[o], values.bounds[o], c.check));
    oracle::explain(verdicts.back(), k, p.inputs, o);
    fail = fail || verdicts.back().status == oracle::Status::Mismatch;
    inconclusive = inconclusive || verdicts.back().status == oracle::Status::Inconclusive;
  }
  // A mismatch anywhere fails; else an undecided element makes the whole
  // check inconclusive, never a pass.
  const char* verdict = fail ? "fail" : inconclusive ? "inconclusive" : "pass";
  report(c, verdict, verdicts, m.unchecked, std::nullopt);
  return fail ? 1 : inconclusive ? 3 : 0;
}

} // namespace

int check_command(const std::vector<std::string>& args) {
  CheckArgs c;
  try {
    c = parse(args);
    if (c.help) {
      std::cout << kCheckHelp;
      return 0;
    }
    return check(c);
  } catch (const UsageError& e) {
    std::cerr << "teval check: " << e.message << "\n(see teval check --help)\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "teval check: error: out of memory\n";
    return 1;
  } catch (const core::Error& e) {
    if (c.json)
      std::cout << "{\"schema\": \"teval.check/1\", \"verdict\": \"error\", \"diagnostic\": "
                << json_string(e.render()) << "}\n";
    std::cerr << e.render();
    return 1;
  }
}

} // namespace teval::tools
