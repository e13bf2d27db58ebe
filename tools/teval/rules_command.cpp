// `teval rules`: check, expand, apply, verify (see rules_command.h).
#include "tools/teval/rules_command.h"

#include "core/format.h"
#include "core/json.h"
#include "parser/htp/htp_rules.h"
#include "rules/htp_ops.h"
#include "rules/htp_rewrite.h"
#include "tools/teval/cli_support.h"
#include "verify/htp_prove.h"
#include "verify/htp_verify.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace teval::tools {

using core::json_string;

namespace {

namespace htp = parser::htp;
namespace vh = verify::htp;

const char* const kRulesHelp = R"(usage: teval rules check FILE... [--json]
       teval rules expand FILE
       teval rules apply FILE --graph GRAPH [-o OUT]
       teval rules verify FILE [--ops OPS] [--cases N] [--seed S] [--line L] [--passes]
                          [--prove] [--timeout MS] [--json]
       teval rules ops

Reads Hexagon HTP op-package rule files (C++ sources with
DEF_PACKAGE_OPTIMIZATION, DEF_PACKAGE_OP, ... ; see docs/HTP_RULES.md).

  check    parse every rule, type-check its constraint and check the
           grammar's restrictions; diagnostics go to stderr and a summary
           per file to stdout. With --json, stdout has one JSON object per
           rule and line: file, line, column, kind, macro, pass, priority,
           op, errors, warnings.
  expand   print every rule with all macros expanded (IS_QUINT8,
           TYPICAL_SLICE, FROM_DEFAULT_PACKAGE, the file's #defines, ...)
  apply    apply the file's optimization rules to the graph GRAPH (text
           format, docs/HTP_RULES.md) in pass order, each pass to a fixed
           point; print the rewritten graph (to OUT with -o) and, on
           stderr, each rewrite and each rule that could not be evaluated
  verify   for each optimization rule, draw random graphs the rule applies
           to, evaluate them before and after the rewrite with the
           ground-truth interpreter (op meanings from teval's standard ops
           and the ops file OPS, whose definitions replace theirs) and
           report sound (no counterexample in N graphs), unsound (with a
           shrunk counterexample and the differing element),
           changes-precision (a rule computing in float16 or in another
           quantized encoding on purpose, within its bound: the worst error
           and where) or unverifiable (with the reason). --cases N graphs
           per rule (default 50), --seed S, --line L only the rule starting
           on line L. --passes verifies the file's rules together, in pass
           order: each graph is first rewritten by the rules of earlier
           passes, and a rule whose match they always rewrite away is
           unreachable (naming the rule that does). An op a rule builds
           that neither defines is an error of the ops file, not a verdict.
           With --json, one object per rule and line: file, line, kind,
           pass, verdict (null for an ops file error), cases, reason,
           worst_error, counterexample {before, after, difference},
           ops_file_errors when there are any, and rewritten_away with
           --passes. --prove proves each rule symbolically first (Z3; for
           every shape, option and value): proved (and sampled too: it must
           find no counterexample), refuted (with the solver's
           counterexample, replayed by the evaluator) or unknown (with the
           reason; the sampling verdict stands). --timeout MS is the
           solver's limit per query (default 10000). With --json the object
           adds proof, proof_reason and solver_seconds.
  ops      print teval's standard ops: the models of the HTP and QNN ops
           that verify uses when OPS does not define them, with the
           documentation each follows

exit status: 0 success; 1 some rule malformed, a graph or ops file wrong, or
(verify) some rule unsound or refuted; 2 a usage error.
)";

std::shared_ptr<const core::SourceFile> load(const std::string& path) {
  return core::SourceFile::make(path, read_source(path));
}

std::string diagnostics_json(const htp::Rule& r, core::Severity severity) {
  std::string out = "[";
  bool first = true;
  for (const core::Diagnostic& d : r.diagnostics) {
    if (d.severity != severity)
      continue;
    auto at = d.span.file->location(d.span.begin);
    out += first ? "" : ", ";
    out += "{\"line\": " + std::to_string(at.line) + ", \"column\": " + std::to_string(at.column) +
           ", \"message\": " + json_string(d.message) + "}";
    first = false;
  }
  return out + "]";
}

std::string rule_json(const htp::RuleFile& f, const htp::Rule& r) {
  auto at = f.source->location(r.span.begin);
  std::string out =
      "{\"file\": " + json_string(f.source->name()) + ", \"line\": " + std::to_string(at.line) +
      ", \"column\": " + std::to_string(at.column) +
      ", \"kind\": " + json_string(htp::kind_name(r.kind)) + ", \"macro\": " + json_string(r.macro);
  bool optimization = r.kind == htp::ItemKind::Optimization;
  out +=
      ", \"pass\": " + (optimization && !r.pass.name.empty() ? json_string(r.pass.text()) : "null");
  out += ", \"priority\": " +
         (optimization && r.pass.priority ? std::to_string(*r.pass.priority) : "null");
  out += ", \"op\": " + (r.op_name.empty() ? "null" : json_string(r.op_name));
  out += ", \"errors\": " + diagnostics_json(r, core::Severity::Error);
  out += ", \"warnings\": " + diagnostics_json(r, core::Severity::Warning) + "}";
  return out;
}

// Every diagnostic of the file, in the order of their positions.
void print_diagnostics(const htp::RuleFile& f) {
  std::vector<const core::Diagnostic*> all;
  for (const core::Diagnostic& d : f.diagnostics)
    all.push_back(&d);
  for (const htp::Rule& r : f.rules)
    for (const core::Diagnostic& d : r.diagnostics)
      all.push_back(&d);
  std::stable_sort(all.begin(), all.end(),
                   [](const core::Diagnostic* a, const core::Diagnostic* b) {
                     return a->span.begin < b->span.begin;
                   });
  for (const core::Diagnostic* d : all)
    std::cerr << core::render(*d);
}

int check(const std::vector<std::string>& files, bool json) {
  bool malformed = false;
  for (const std::string& path : files) {
    htp::RuleFile f = htp::read_rules(load(path));
    print_diagnostics(f);
    malformed = malformed || f.malformed();
    if (json) {
      for (const htp::Rule& r : f.rules)
        std::cout << rule_json(f, r) << "\n";
      continue;
    }
    size_t bad = 0, warnings = 0, optimizations = 0;
    for (const htp::Rule& r : f.rules) {
      bad += r.malformed();
      optimizations += r.kind == htp::ItemKind::Optimization;
      for (const core::Diagnostic& d : r.diagnostics)
        warnings += d.severity == core::Severity::Warning;
    }
    for (const core::Diagnostic& d : f.diagnostics)
      warnings += d.severity == core::Severity::Warning;
    std::cout << path << ": " << f.rules.size() << " declaration"
              << (f.rules.size() == 1 ? "" : "s") << " (" << optimizations << " optimization rule"
              << (optimizations == 1 ? "" : "s") << "), " << bad << " malformed, " << warnings
              << " warning" << (warnings == 1 ? "" : "s") << "\n";
  }
  return malformed ? 1 : 0;
}

int expand(const std::string& path) {
  htp::RuleFile f = htp::read_rules(load(path));
  print_diagnostics(f);
  // Every good rule is printed; the malformed ones are the diagnostics above
  // and make the exit status 1.
  for (const htp::Rule& r : f.rules) {
    if (r.malformed())
      continue;
    auto at = f.source->location(r.span.begin);
    std::cout << "// " << path << ":" << at.line << "\n";
    if (r.kind != htp::ItemKind::Optimization) {
      std::cout << htp::to_pretty_text(*r.invocation) << "\n\n";
      continue;
    }
    std::cout << r.macro << "(" << r.pass.text();
    if (!r.flags.empty())
      std::cout << ", " << r.flags;
    for (const ast::ExprPtr& part : {r.match, r.constraint, r.replacement})
      std::cout << ",\n    " << htp::to_pretty_text(*part, 4);
    std::cout << ")\n\n";
  }
  return f.malformed() ? 1 : 0;
}

std::string indent(const std::string& text) {
  std::string out;
  for (size_t b = 0; b < text.size();) {
    size_t e = std::min(text.find('\n', b), text.size());
    out += "    " + text.substr(b, e - b) + "\n";
    b = e + 1;
  }
  return out;
}

std::vector<const htp::Rule*> optimizations(const htp::RuleFile& f) {
  std::vector<const htp::Rule*> out;
  for (const htp::Rule& r : f.rules)
    if (r.kind == htp::ItemKind::Optimization)
      out.push_back(&r);
  return out;
}

std::string where(const htp::Rule& r) {
  auto at = r.span.file->location(r.span.begin);
  return r.span.file->name() + ":" + std::to_string(at.line);
}

int apply(const std::string& path, const std::string& graph_path, const std::string& out) {
  htp::RuleFile f = htp::read_rules(load(path));
  print_diagnostics(f);
  if (f.malformed())
    return 1;
  auto graph_file = load(graph_path);
  rules::ApplyResult r = rules::apply_rules(rules::read_graph(*graph_file), optimizations(f));
  for (const rules::Step& s : r.steps)
    std::cerr << where(*s.rule) << ": " << s.rule->pass.text() << ": rewrote " << s.node << " into "
              << s.replacement << "\n";
  for (const rules::Skipped& s : r.skipped)
    std::cerr << where(*s.rule) << ": not evaluable at " << s.node << ": " << s.why.reason << "\n";
  std::string text = rules::to_text(r.graph);
  if (out.empty()) {
    std::cout << text;
    return 0;
  }
  std::ofstream o(out, std::ios::binary);
  o << text;
  if (!o)
    throw core::Error(core::ErrorKind::Input, out, "cannot write file");
  return 0;
}

// `{"file": ..., "line": ..., "kind": "optimization", "pass": ...` of a
// rule's verdict object, left open.
std::string rule_json(const htp::Rule& r) {
  auto at = r.span.file->location(r.span.begin);
  return "{\"file\": " + json_string(r.span.file->name()) +
         ", \"line\": " + std::to_string(at.line) + ", \"kind\": \"optimization\"" +
         ", \"pass\": " + json_string(r.pass.text());
}

// \p x as the shortest decimal that reads back as it.
std::string decimal(double x) {
  return core::format_scalar(core::Scalar::of_float(core::DType::Float64, x));
}

std::string verdict_json(const htp::Rule& r, const vh::VerifyResult& v, bool passes) {
  std::string out = rule_json(r) + ", \"verdict\": " + json_string(vh::verdict_name(v.verdict)) +
                    ", \"cases\": " + std::to_string(v.cases) +
                    ", \"reason\": " + (v.reason.empty() ? "null" : json_string(v.reason)) +
                    ", \"worst_error\": " +
                    (v.verdict == vh::Verdict::ChangesPrecision ? decimal(v.worst_error) : "null") +
                    (passes ? ", \"rewritten_away\": " + std::to_string(v.rewritten_away) : "") +
                    ", \"counterexample\": ";
  if (!v.counterexample)
    return out + "null}";
  return out + "{\"before\": " + json_string(v.counterexample->before) +
         ", \"after\": " + json_string(v.counterexample->after) +
         ", \"difference\": " + json_string(v.counterexample->difference) + "}}";
}

// Seconds to the millisecond: "0.018".
std::string seconds(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << s;
  return out.str();
}

// \p object (a verdict_json object) with the proof's keys added.
std::string proof_json(const std::string& object, const vh::ProofResult& p) {
  return object.substr(0, object.size() - 1) +
         ", \"proof\": " + json_string(vh::proof_verdict_name(p.verdict)) +
         ", \"proof_reason\": " + (p.reason.empty() ? "null" : json_string(p.reason)) +
         ", \"solver_seconds\": " + seconds(p.solver_seconds) + "}";
}

int verify_rules(const std::string& path, const std::string& ops_path, vh::VerifyOptions o,
                 std::optional<uint32_t> line, bool passes, bool json,
                 std::optional<unsigned> prove) {
  htp::RuleFile f = htp::read_rules(load(path));
  print_diagnostics(f);
  rules::OpSet ops = ops_path.empty()
                         ? rules::OpSet::standard()
                         : rules::OpSet::read(load(ops_path), &rules::OpSet::standard());
  std::string ops_name = ops_path.empty() ? "teval's standard ops"
                                          : "the ops file " + ops_path + " or teval's standard ops";
  bool unsound = f.malformed();
  size_t counts[5] = {0, 0, 0, 0, 0};
  std::vector<const htp::Rule*> well_formed;
  for (const htp::Rule* r : optimizations(f))
    if (!r->malformed())
      well_formed.push_back(r);
  size_t ops_errors = 0;
  size_t proofs[3] = {0, 0, 0};
  std::vector<double> solver_seconds;
  for (const htp::Rule* r : optimizations(f)) {
    if (line && r->span.file->location(r->span.begin).line != *line)
      continue;
    if (r->malformed())
      continue;
    // An op the ops file lacks is its mistake, not a verdict on the rule.
    std::vector<core::Diagnostic> missing = vh::undefined_ops(*r, ops, ops_name);
    if (!missing.empty()) {
      for (const core::Diagnostic& d : missing)
        std::cerr << core::render(d);
      ++ops_errors;
      unsound = true;
      if (json) {
        std::string errors;
        for (const core::Diagnostic& d : missing)
          errors += (errors.empty() ? "" : ", ") + json_string(d.message);
        std::cout << rule_json(*r) << ", \"verdict\": null, \"cases\": 0, \"reason\": null, "
                  << "\"counterexample\": null, \"ops_file_errors\": [" << errors << "]}\n";
      }
      continue;
    }
    if (passes) {
      o.earlier.clear();
      for (const htp::Rule* q : well_formed)
        if (rules::run_order(*q) < rules::run_order(*r))
          o.earlier.push_back(q);
    }
    std::optional<vh::ProofResult> proof;
    if (prove) {
      proof = vh::prove_rule(*r, ops, vh::ProveOptions{*prove, o});
      ++proofs[static_cast<int>(proof->verdict)];
      solver_seconds.push_back(proof->solver_seconds);
      unsound = unsound || proof->verdict == vh::ProofVerdict::Refuted;
    }
    if (proof && proof->verdict == vh::ProofVerdict::Refuted) {
      if (json) {
        vh::VerifyResult v;
        v.verdict = vh::Verdict::Unsound;
        v.counterexample = proof->counterexample;
        std::cout << proof_json(verdict_json(*r, v, passes), *proof) << "\n";
        continue;
      }
      std::cout << where(*r) << ": refuted (" << proof->reason << ", "
                << seconds(proof->solver_seconds)
                << " s of solver): " << proof->counterexample->difference << "\n  counterexample:\n"
                << indent(proof->counterexample->before) << "  after the rewrite:\n"
                << indent(proof->counterexample->after);
      continue;
    }
    vh::VerifyResult v = proof ? *proof->sampled : vh::verify_rule(*r, ops, o);
    ++counts[static_cast<int>(v.verdict)];
    unsound = unsound || v.verdict == vh::Verdict::Unsound;
    if (json) {
      std::string object = verdict_json(*r, v, passes);
      std::cout << (proof ? proof_json(object, *proof) : object) << "\n";
      continue;
    }
    if (proof)
      std::cout << where(*r) << ": " << vh::proof_verdict_name(proof->verdict) << " ("
                << proof->reason << "; " << seconds(proof->solver_seconds) << " s of solver)"
                << (proof->inconsistency.empty() ? "" : "; " + proof->inconsistency)
                << "\n  sampling: ";
    else
      std::cout << where(*r) << ": ";
    std::cout << vh::verdict_name(v.verdict);
    if (v.verdict == vh::Verdict::Sound)
      std::cout << " (no counterexample in " << v.cases << " graph" << (v.cases == 1 ? "" : "s")
                << (v.rewritten_away ? "; " + std::to_string(v.rewritten_away) +
                                           " more rewritten away by earlier passes"
                                     : "")
                << ")\n";
    else if (v.verdict == vh::Verdict::Unverifiable || v.verdict == vh::Verdict::Unreachable)
      std::cout << ": " << v.reason << "\n";
    else if (v.verdict == vh::Verdict::ChangesPrecision)
      std::cout << " (within " << decimal(v.worst_error) << " of the values' magnitude in "
                << v.cases << " graphs; the worst: " << v.counterexample->difference
                << ")\n  worst graph:\n"
                << indent(v.counterexample->before) << "  after the rewrite:\n"
                << indent(v.counterexample->after);
    else
      std::cout << " (found in case " << v.cases << "): " << v.counterexample->difference
                << "\n  counterexample:\n"
                << indent(v.counterexample->before) << "  after the rewrite:\n"
                << indent(v.counterexample->after);
  }
  if (!json)
    std::cout << counts[0] << " sound, " << counts[1] << " unsound, " << counts[2]
              << " unverifiable"
              << (counts[3] ? ", " + std::to_string(counts[3]) + " changes-precision" : "")
              << (counts[4] ? ", " + std::to_string(counts[4]) + " unreachable" : "")
              << (ops_errors ? ", " + std::to_string(ops_errors) + " not verified (ops file errors)"
                             : "")
              << "\n";
  if (!json && prove) {
    std::sort(solver_seconds.begin(), solver_seconds.end());
    std::cout << "proofs: " << proofs[0] << " proved, " << proofs[1] << " refuted, " << proofs[2]
              << " unknown";
    if (!solver_seconds.empty())
      std::cout << "; solver time per rule: median " +
                       seconds(solver_seconds[solver_seconds.size() / 2]) + " s, max " +
                       seconds(solver_seconds.back()) + " s";
    std::cout << "\n";
  }
  return unsound ? 1 : 0;
}

} // namespace

int rules_command(const std::vector<std::string>& args) {
  try {
    if (args.empty())
      throw UsageError{"no subcommand: give check, expand, apply, verify or ops"};
    const std::string& sub = args[0];
    if (sub == "-h" || sub == "--help") {
      std::cout << kRulesHelp;
      return 0;
    }
    std::vector<std::string> files;
    bool json = false, passes = false;
    std::string graph, ops, out;
    std::optional<uint32_t> line;
    std::optional<unsigned> prove, timeout;
    vh::VerifyOptions vo;
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "-h" || a == "--help") {
        std::cout << kRulesHelp;
        return 0;
      }
      if (a == "--json" && (sub == "check" || sub == "verify")) {
        json = true;
        continue;
      }
      if (a == "--passes" && sub == "verify") {
        passes = true;
        continue;
      }
      if (a == "--prove" && sub == "verify") {
        prove = prove ? prove : std::optional<unsigned>(vh::ProveOptions{}.timeout_ms);
        continue;
      }
      bool valued =
          (a == "--graph" || a == "-o") ? sub == "apply"
          : (a == "--ops" || a == "--cases" || a == "--seed" || a == "--line" || a == "--timeout")
              ? sub == "verify"
              : false;
      if (valued) {
        if (i + 1 >= args.size())
          throw UsageError{"option " + a + " needs a value"};
        const std::string& v = args[++i];
        if (a == "--graph")
          graph = v;
        else if (a == "-o")
          out = v;
        else if (a == "--ops")
          ops = v;
        else if (a == "--cases")
          vo.cases = int(parse_count(a, v, 1000000));
        else if (a == "--seed")
          vo.seed = parse_count(a, v, uint64_t{1} << 40);
        else if (a == "--timeout")
          timeout = unsigned(parse_count(a, v, 3600000));
        else
          line = uint32_t(parse_count(a, v, UINT32_MAX));
        if (a == "--cases" && vo.cases == 0)
          throw UsageError{"--cases takes a positive integer"};
        continue;
      }
      if (a.starts_with("-"))
        throw UsageError{"unknown option '" + a + "' for rules " + sub};
      files.push_back(a);
    }
    if (sub == "check") {
      if (files.empty())
        throw UsageError{"no rule file given"};
      return check(files, json);
    }
    if (files.size() != 1 && (sub == "expand" || sub == "apply" || sub == "verify"))
      throw UsageError{sub + " takes one rule file"};
    if (sub == "expand")
      return expand(files[0]);
    if (sub == "apply") {
      if (graph.empty())
        throw UsageError{"apply needs --graph GRAPH"};
      return apply(files[0], graph, out);
    }
    if (sub == "ops") {
      if (!files.empty())
        throw UsageError{"ops takes no file"};
      std::cout << rules::OpSet::standard_text();
      return 0;
    }
    if (timeout && !prove)
      throw UsageError{"--timeout applies to --prove"};
    if (timeout && *timeout == 0)
      throw UsageError{"--timeout takes a positive number of milliseconds"};
    if (sub == "verify")
      return verify_rules(files[0], ops, vo, line, passes, json,
                          prove && timeout ? timeout : prove);
    throw UsageError{"unknown subcommand '" + sub + "'"};
  } catch (const UsageError& e) {
    std::cerr << "teval rules: " << e.message << "\n(see teval rules --help)\n";
    return 2;
  } catch (const core::Error& e) {
    std::cerr << e.render();
    return 1;
  }
}

} // namespace teval::tools
