// Parsing the options of `teval run`, `lower`, `jit` and `emit` (see
// run_options.h).
#include "tools/teval/run_options.h"

#include "tools/teval/cli_support.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace teval::tools {

namespace {

int64_t parse_int(const std::string& text, const std::string& spec) {
  size_t b = text.find_first_not_of(' ');
  size_t e = text.find_last_not_of(' ');
  std::string t = b == std::string::npos ? "" : text.substr(b, e - b + 1);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || *end || errno)
    throw UsageError{"'" + t + "' in '" + spec + "' is not an integer"};
  return v;
}

parser::TileParam integer_param(const std::string& text, const std::string& spec) {
  parser::TileParam p;
  if (!text.empty() && text.front() == '[') {
    if (text.back() != ']')
      throw UsageError{"unterminated list in '" + spec + "'"};
    p.list = true;
    std::stringstream items(text.substr(1, text.size() - 2));
    std::string item;
    while (std::getline(items, item, ','))
      p.values.push_back(parse_int(item, spec));
    return p;
  }
  p.values.push_back(parse_int(text, spec));
  return p;
}

} // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  auto value = [&](size_t& i) -> const std::string& {
    if (i + 1 >= args.size())
      throw UsageError{"option " + args[i] + " needs a value"};
    return args[++i];
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "-e") {
      o.text = value(i);
    } else if (a == "--lang") {
      o.lang = value(i);
      if (o.lang != "antares" && o.lang != "tile" && o.lang != "mlir")
        throw UsageError{"unknown --lang '" + o.lang + "'; teval run reads: antares, tile, mlir"};
    } else if (a == "--entry") {
      o.entry = value(i);
    } else if (a == "-p") {
      const std::string& spec = value(i);
      size_t eq = spec.find('=');
      if (eq == std::string::npos || !is_identifier(spec.substr(0, eq)))
        throw UsageError{"-p takes NAME=INT or NAME=[I,J,...], not '" + spec + "'"};
      std::string name = spec.substr(0, eq);
      if (o.params.count(name))
        throw UsageError{"parameter '" + name + "' is given twice"};
      o.params[name] = integer_param(spec.substr(eq + 1), spec);
    } else if (a == "-i") {
      auto [name, spec] = name_value(value(i), "-i takes NAME=PATH.npy or NAME=DTYPE[d0,...]");
      for (const InputArg& seen : o.inputs)
        if (seen.name == name)
          throw UsageError{"input '" + name + "' is given twice"};
      o.inputs.push_back({name, spec});
    } else if (a == "--order") {
      const std::string& v = value(i);
      if (v != "sequential" && v != "any")
        throw UsageError{"--order takes sequential or any, not '" + v + "'"};
      o.any_order = v == "any";
    } else if (a == "--fma") {
      o.fma = true;
    } else if (a == "--no-cache") {
      o.no_cache = true;
    } else if (a == "--threads") {
      const std::string& v = value(i);
      char* end = nullptr;
      errno = 0;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || errno || n < 1 || n > 1024)
        throw UsageError{"--threads takes a number of threads from 1 to 1024, not '" + v + "'"};
      o.threads = static_cast<int>(n);
    } else if (a == "--seed") {
      const std::string& v = value(i);
      char* end = nullptr;
      errno = 0;
      unsigned long long s = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end || errno || v[0] == '-')
        throw UsageError{"--seed takes a non-negative integer, not '" + v + "'"};
      o.seed = s;
    } else if (a == "-o" || a == "--save-inputs") {
      std::string dir = value(i);
      if (dir.empty())
        throw UsageError{a + " needs a directory, not an empty name"};
      (a == "-o" ? o.out_dir : o.save_inputs) = dir;
    } else if (a == "--print") {
      o.print = true;
    } else if (a == "--dump-values") {
      o.dump_values = value(i);
    } else if (a == "--dump-kernel") {
      o.dump_kernel = true;
    } else if (a == "--engine") {
      o.engine = value(i);
      if (o.engine != "interp" && o.engine != "ireval" && o.engine != "jit" &&
          o.engine != "hexagon" && o.engine != "interp-definitional")
        throw UsageError{"unknown --engine '" + o.engine +
                         "'; teval run has: interp, ireval, jit, hexagon, interp-definitional"};
    } else if (a == "--max-memory") {
      o.max_memory = parse_bytes(a, value(i));
    } else if (a == "--exact") {
      o.exact = true;
    } else if (a == "--schedule") {
      o.schedule = true;
    } else if (a == "--to") {
      o.to = value(i);
    } else if (a == "--input-dir") {
      o.input_dir = value(i);
    } else if (a == "--output-dir") {
      o.output_dir = value(i);
    } else if (a == "--vectorize") {
      o.vectorize = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--no-progress") {
      o.no_progress = true;
    } else if (a == "--timeout") {
      o.timeout_text = value(i);
      o.timeout = parse_seconds(a, o.timeout_text);
    } else if (a == "--emit") {
      o.emit = value(i);
      if (o.emit != "llvm" && o.emit != "asm" && o.emit != "obj")
        throw UsageError{"unknown --emit '" + o.emit + "'; teval jit emits: llvm, asm, obj"};
    } else if (a == "--target") {
      o.target = value(i);
      if (o.target != "host" && o.target != "hexagon")
        throw UsageError{"unknown --target '" + o.target +
                         "'; teval jit compiles for: host, hexagon"};
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else if (o.file) {
      throw UsageError{"more than one program file: '" + *o.file + "' and '" + a + "'"};
    } else {
      o.file = a;
    }
  }
  if (o.help)
    return o;
  if (o.file && o.text)
    throw UsageError{"give a program FILE or -e TEXT, not both"};
  if (!o.file && !o.text)
    throw UsageError{"no program: give a FILE or -e TEXT"};
  return o;
}

} // namespace teval::tools
