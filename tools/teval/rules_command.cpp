// `teval rules`: check, expand, apply, verify (see rules_command.h).
#include "tools/teval/rules_command.h"

#include "parser/htp_rules.h"
#include "tools/teval/json.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace teval::tools {

namespace {

namespace htp = parser::htp;

const char* const kRulesHelp = R"(usage: teval rules check FILE... [--json]
       teval rules expand FILE

Reads Hexagon HTP op-package rule files (C++ sources with
DEF_PACKAGE_OPTIMIZATION, DEF_PACKAGE_OP, ... ; see docs/HTP_RULES.md).

  check    parse every rule, type-check its constraint and check the
           grammar's restrictions; diagnostics go to stderr and a summary
           per file to stdout. With --json, stdout has one JSON object per
           rule and line: file, line, column, kind, macro, pass, priority,
           op, errors, warnings.
  expand   print every rule with all macros expanded (IS_QUINT8,
           TYPICAL_SLICE, FROM_DEFAULT_PACKAGE, the file's #defines, ...)

exit status: 0 every rule well formed; 1 some rule malformed (or a file
unreadable); 2 a usage error.
)";

struct UsageError {
  std::string message;
};

std::shared_ptr<const core::SourceFile> load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw core::Error(core::ErrorKind::Input, path, "cannot open file");
  std::ostringstream s;
  s << in.rdbuf();
  return core::SourceFile::make(path, s.str());
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
  std::string out = "{\"file\": " + json_string(f.source->name()) +
                    ", \"line\": " + std::to_string(at.line) +
                    ", \"column\": " + std::to_string(at.column) +
                    ", \"kind\": " + json_string(htp::kind_name(r.kind)) +
                    ", \"macro\": " + json_string(r.macro);
  bool optimization = r.kind == htp::ItemKind::Optimization;
  out += ", \"pass\": " + (optimization && !r.pass.name.empty() ? json_string(r.pass.text()) : "null");
  out += ", \"priority\": " +
         (optimization && r.pass.priority ? std::to_string(*r.pass.priority) : "null");
  out += ", \"op\": " + (r.op_name.empty() ? "null" : json_string(r.op_name));
  out += ", \"errors\": " + diagnostics_json(r, core::Severity::Error);
  out += ", \"warnings\": " + diagnostics_json(r, core::Severity::Warning) + "}";
  return out;
}

void print_diagnostics(const htp::RuleFile& f) {
  for (const core::Diagnostic& d : f.diagnostics)
    std::cerr << core::render(d);
  for (const htp::Rule& r : f.rules)
    for (const core::Diagnostic& d : r.diagnostics)
      std::cerr << core::render(d);
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
    std::cout << path << ": " << f.rules.size() << " declaration" << (f.rules.size() == 1 ? "" : "s")
              << " (" << optimizations << " optimization rule" << (optimizations == 1 ? "" : "s")
              << "), " << bad << " malformed, " << warnings << " warning"
              << (warnings == 1 ? "" : "s") << "\n";
  }
  return malformed ? 1 : 0;
}

int expand(const std::string& path) {
  htp::RuleFile f = htp::read_rules(load(path));
  print_diagnostics(f);
  if (f.malformed())
    return 1;
  for (const htp::Rule& r : f.rules) {
    auto at = f.source->location(r.span.begin);
    std::cout << "// " << path << ":" << at.line << "\n";
    if (r.kind != htp::ItemKind::Optimization) {
      std::cout << htp::to_text(*r.invocation) << "\n\n";
      continue;
    }
    std::cout << r.macro << "(" << r.pass.text();
    if (!r.flags.empty())
      std::cout << ", " << r.flags;
    std::cout << ",\n    " << htp::to_text(*r.match) << ",\n    " << htp::to_text(*r.constraint)
              << ",\n    " << htp::to_text(*r.replacement) << ")\n\n";
  }
  return 0;
}

} // namespace

int rules_command(const std::vector<std::string>& args) {
  try {
    if (args.empty())
      throw UsageError{"no subcommand: give check, expand, apply or verify"};
    const std::string& sub = args[0];
    if (sub == "-h" || sub == "--help") {
      std::cout << kRulesHelp;
      return 0;
    }
    std::vector<std::string> files;
    bool json = false;
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "-h" || a == "--help") {
        std::cout << kRulesHelp;
        return 0;
      }
      if (a == "--json" && sub == "check") {
        json = true;
        continue;
      }
      if (a.starts_with("-"))
        throw UsageError{"unknown option '" + a + "'"};
      files.push_back(a);
    }
    if (sub == "check") {
      if (files.empty())
        throw UsageError{"no rule file given"};
      return check(files, json);
    }
    if (sub == "expand") {
      if (files.size() != 1)
        throw UsageError{"expand takes one rule file"};
      return expand(files[0]);
    }
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
