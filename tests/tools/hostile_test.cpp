// The hostile corpus (tests/hostile/corpus.txt, the golden error programs
// and seeded mutants of the examples) through the `teval` binary, each case
// under a time and a memory limit: every case must end in a clear
// diagnostic, the documented exit status and nothing written, never a
// crash, a hang or a blow-up (docs/LIMITS.md). The outcome table is
// printed; any case that is not OK fails the test. Under the sanitizer
// build the binary is sanitized, so the corpus runs under ASan/UBSan too.
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace teval {
namespace {

namespace fs = std::filesystem;
using test::shell_quoted;

// Limits per case: generous enough for the sanitizer build, far below
// what a hang or a blow-up takes.
constexpr auto kTimeLimit = std::chrono::seconds(60);
constexpr long kMemoryLimitKb = 4L << 20; // 4 GiB of resident memory

struct Case {
  std::string entry;   // the entry point, for the table
  std::string expect;  // located, file, usage, ok, or any (a mutant)
  std::string command; // for /bin/sh
  std::string nowrite; // a path that must not exist afterwards
  std::string origin;  // where the case comes from, for messages
};

struct Outcome {
  std::string kind; // OK, weak, wrong, crash, hang, memory
  std::string why;
};

struct Ran {
  int status = 0; // as from waitpid
  bool timed_out = false;
  long max_rss_kb = 0;
  std::string out, err;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Runs \p command with /bin/sh in \p dir in a process group of its own,
// killing the group at the time limit.
Ran run_case(const std::string& command, const fs::path& dir) {
  fs::path out = dir / ".out", err = dir / ".err";
  std::string path = (test::binary_dir() / "bin").string() + ":" + std::getenv("PATH");
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (chdir(dir.c_str()) != 0)
      _exit(127);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    setenv("PATH", path.c_str(), 1);
    setenv("SRC", test::source_dir().c_str(), 1);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  Ran r;
  auto deadline = std::chrono::steady_clock::now() + kTimeLimit;
  struct rusage usage {};
  for (;;) {
    pid_t done = wait4(pid, &r.status, WNOHANG, &usage);
    if (done == pid)
      break;
    if (std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      wait4(pid, &r.status, 0, &usage);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-pid, SIGKILL); // anything the shell left behind
  r.max_rss_kb = usage.ru_maxrss;
  r.out = test::read_file(out);
  r.err = test::read_file(err);
  return r;
}

// A diagnostic at a place in program text: file:line:col, then the source
// line and a caret line (after any warnings: it starts some line).
bool located(const std::string& err) {
  static const std::regex form(
      R"((?:^|\n)[^\n:]+:\d+:\d+: error: [^\n]+\n[^\n]*\n[ \t]*(\.\.\.)?[ \t]*\^)");
  return std::regex_search(err, form);
}

// A diagnostic about a file or argument: PATH: error: message.
bool file_form(const std::string& err) {
  static const std::regex form(R"((?:^|\n)[^\n]+: error: [^\n]+\n)");
  return std::regex_search(err, form);
}

Outcome classify(const Case& c, const Ran& r, const fs::path& dir) {
  if (r.timed_out)
    return {"hang", "killed after " + std::to_string(kTimeLimit.count()) + " s"};
  if (WIFSIGNALED(r.status))
    return {"crash", "signal " + std::to_string(WTERMSIG(r.status))};
  int code = WEXITSTATUS(r.status);
  if (r.err.find("Sanitizer") != std::string::npos ||
      r.err.find("runtime error:") != std::string::npos ||
      r.err.find("internal error") != std::string::npos || code > 2)
    return {"crash", "exit " + std::to_string(code) + ": " + r.err.substr(0, 300)};
  if (r.max_rss_kb > kMemoryLimitKb || r.err.find("out of memory") != std::string::npos)
    return {"memory", std::to_string(r.max_rss_kb / 1024) + " MiB"};
  if (!c.nowrite.empty() && fs::exists(fs::symlink_status(dir / c.nowrite)))
    return {"wrong", c.nowrite + " was written"};
  // run, lower and jit print nothing when they fail (rules check prints its
  // summary, a REPL script the entries before the failing one).
  bool quiet = c.entry == "run" || c.entry == "lower" || c.entry == "jit";
  if (code == 1 && quiet && !r.out.empty())
    return {"wrong", "an error with output on stdout: " + r.out.substr(0, 200)};
  int want = c.expect == "usage" ? 2 : c.expect == "ok" ? 0 : 1;
  if (c.expect == "diagnostic" && code == 1 && !located(r.err) && !file_form(r.err))
    return {"weak", "no diagnostic: " + r.err.substr(0, 300)};
  if (c.expect == "any") {
    if (code == 2)
      return {"wrong", "a usage error for a program: " + r.err.substr(0, 300)};
    if (code == 1 && !located(r.err) && !file_form(r.err))
      return {"weak", r.err.substr(0, 300)};
    return {"OK", ""};
  }
  if (code != want)
    return {"wrong", "exit " + std::to_string(code) + ", expected " + std::to_string(want) + ": " +
                         r.err.substr(0, 300)};
  if (c.expect == "located" && !located(r.err))
    return {"weak", "not located: " + r.err.substr(0, 300)};
  if (c.expect == "file" && !file_form(r.err))
    return {"weak", "no PATH: error: line: " + r.err.substr(0, 300)};
  return {"OK", ""};
}

// --- the generated inputs ---------------------------------------------------

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * size_t(n));
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

std::string npy_claiming(const std::string& shape, size_t data_bytes) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  header += std::string(64 - (10 + header.size() + 1) % 64, ' ') + "\n";
  return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) +
         char(header.size() >> 8) + header + std::string(data_bytes, '\0');
}

std::string statements(int n) {
  std::string p = "t0[N] = input0[N] + 1.0";
  for (int i = 1; i < n; ++i)
    p += "; t" + std::to_string(i) + "[N] = t" + std::to_string(i - 1) + "[N] * 0.5 + input0[N]";
  return p + "\n";
}

void generate(const fs::path& dir) {
  auto put = [&](const std::string& name, const std::string& text) {
    test::write_file(dir / name, text);
  };
  put("plus12000.antares", "output0[N] = input0[N]" + repeat(" + input0[N]", 12000) + "\n");
  // 10^6 terms: the tree freed after the depth check is as deep (its
  // destructor recursed and overflowed the stack).
  put("plus1000000.antares", "output0[N] = input0[N]" + repeat(" + input0[N]", 1000000) + "\n");
  put("neg13000.antares", "output0[N] = " + repeat("- ", 13000) + "input0[N]\n");
  put("call2000.antares", "output0[N] = input0[N]" + repeat(".call(`abs`)", 2000) + "\n");
  put("preamble12000.antares", "- _X = 1" + repeat(" + 1", 12000) +
                                   "; einstein_v2(f\"output0[N] = N where N in {_X}\", {})\n");
  put("dense100000.mlir", "func.func @main() -> tensor<1xf32> {\n  %0 = stablehlo.constant dense<" +
                              repeat("[", 100000) + "1.0" + repeat("]", 100000) +
                              "> : tensor<1xf32>\n  return %0 : tensor<1xf32>\n}\n");
  put(
      "ops20000.mlir", "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %v0 = "
                       "stablehlo.exponential %a : tensor<4xf32>\n" +
                           [&] {
                             std::string ops;
                             for (int i = 1; i < 20000; ++i)
                               ops += "  %v" + std::to_string(i) + " = stablehlo.add %v" +
                                      std::to_string(i - 1) + ", %a : tensor<4xf32>\n";
                             return ops;
                           }() +
                           "  return %v19999 : tensor<4xf32>\n}\n");
  put("brackets100000.antares",
      "output0[N] = " + repeat("(", 100000) + "input0[N]" + repeat(")", 100000) + "\n");
  put("plus12000.tile",
      "Tensor f(const Tensor& I) {\n  auto O = I" + repeat(" + I", 12000) + ";\n  return O;\n}\n");
  put("neg13000.tile",
      "Tensor f(const Tensor& I) {\n  auto O = " + repeat("-", 13000) + "I;\n  return O;\n}\n");
  {
    std::string axes, shape = "2";
    for (int i = 0; i < 20000; ++i) {
      axes += ", K" + std::to_string(i);
      shape += ", 1";
    }
    put("loops20000.antares", "- einstein_v2(\"output0[N] +=! input0[N" + axes +
                                  "]\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [" +
                                  shape + "]}})\n");
  }
  {
    std::string where;
    for (int i = 0; i < 300; ++i)
      where += ", K" + std::to_string(i) + " in 1";
    put("axes300.antares", "output0[N] +=! input0[N] where N in 2" + where + "\n");
  }
  put("plus12000.teval", "x = float32[4]\ny[N] = x[N]" + repeat(" + x[N]", 12000) + "\n");
  put("neg13000.teval", "x = float32[4]\ny[N] = " + repeat("- ", 13000) + "x[N]\n");
  put("continued100000.teval",
      "x = float32[4]\ny[N] = x[N] \\\n" + repeat("  + x[N] \\\n", 100000) + "  + 1.0\n");
  put("deep_field.ops", "\"Relu\": out0[N, H, W, C] = in0[N, H, W, C] * $(" + repeat("(", 100000) +
                            "1" + repeat(")", 100000) + ")\n");
  put("syntax.ops", "\"Relu\": out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [0.0]\n");
  put("div0.ops", "\"Relu\": out0[N, H, W, C] = in0[N, H, W, C] * $(1 / 0)\n");
  put("overflow.ops",
      "\"Relu\": out0[N, H, W, C] = in0[N, H, W, C] * $(999999999999 * 999999999999)\n");
  put("unclosed.ops", "\"Relu\": out0[N, H, W, C] = in0[N, H, W, C] * $((2)\n");
  put("nested_ops.cpp", "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), EQ(" +
                            repeat("- ", 13000) + "1, 1), \"x\")\n");
  {
    std::string g = "input x: float32[1, 1, 1, 4]\ne0 = Exp(x): float32[1, 1, 1, 4]\n";
    for (int i = 1; i < 100000; ++i)
      g +=
          "e" + std::to_string(i) + " = Exp(e" + std::to_string(i - 1) + "): float32[1, 1, 1, 4]\n";
    put("chain.graph", g + "output e99999\n");
  }
  put("exp_pair.cpp", "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Exp\", LET(\"inner\", Op(\"Exp\", "
                      "\"x\"))), OK, WrapOp(\"Exp\", \"inner\"))\n");
  put("autosplit_deep.cpp", "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), OK, "
                            "AUTOSPLIT(3, \"I\", 1, Op(\"Relu\", TYPICAL_SLICE(\"x\", \"I\"))))\n");
  put("deep.graph", "input x: float32[1, 1, 1, 3000000]\nr = Relu(x): float32[1, 1, 1, "
                    "3000000]\noutput r\n");
  put("zero_huge.graph", "input x: quint8[1, 1, 1, 4] zero 999999999999 step 1\n"
                         "r = Relu(x): quint8[1, 1, 1, 4] zero 0 step 1\noutput r\n");
  put("extent_negative.graph", "input x: float32[1, 1, 1, -1]\nr = Relu(x): float32[1, 1, 1, "
                               "-1]\noutput r\n");
  put("claims_1100M.npy", npy_claiming("(1100000000,)", 16));
  put("claims_700M.npy", npy_claiming("(700000000,)", 16));
  put("claims_rank65.npy", npy_claiming("(" + repeat("1, ", 65) + ")", 4));
  put("huge_output.tile", "Tensor f(const Tensor& I) {\n  TensorIndex i;\n"
                          "  auto O = TensorOutput(2200000000);\n  O(i) += I(0);\n"
                          "  return O;\n}\n");
  put("indexes_max.tile", "def f(I):\n  i = TensorIndexes(9223372036854775807)\n  return I\n");
  put("dims_1e9.tile", "Tensor f(const Tensor& I) {\n  std::vector<TensorDim> X(1000000000);\n"
                       "  return I;\n}\n");
  put("statements10001.antares", statements(10001));
  put("statements300.antares", statements(300));
  {
    // 10^5 declared inputs (two used), and 5000 statements reading 5000
    // inputs: both took time quadratic in the inputs (a duplicate check;
    // the compiled entry point's parameters).
    std::string dict, used_dict, program;
    for (int i = 0; i < 100000; ++i) {
      std::string entry =
          "\"in" + std::to_string(i) + "\": {\"dtype\": \"float32\", \"shape\": [1]}";
      dict += (i ? ", " : "") + entry;
      if (i < 5000) {
        used_dict += (i ? ", " : "") + entry;
        program +=
            (i ? "; t" : "t") + std::to_string(i) + "[N] = in" + std::to_string(i) + "[N] + 1.0";
      }
    }
    put("inputs100000.antares",
        "- einstein_v2(\"output0[N] = in0[N] + in1[N]\", {" + dict + "})\n");
    put("statements5000_inputs.antares",
        "- einstein_v2(\"" + program + "\", {" + used_dict + "})\n");
  }
  put("loop_forever.tile", "Tensor f(const Tensor& I) {\n  auto O = I;\n"
                           "  for (int a = 0; a < 1000000000000000000; ++a) {\n  }\n"
                           "  return O;\n}\n");
  put("nofunction.tile", "// a Tile source without a function\n");
  put("empty.npz", "");
  fs::create_directory(dir / "adir");
}

// --- the cases ---------------------------------------------------------------

std::vector<Case> corpus_cases() {
  std::vector<Case> cases;
  std::ifstream in(test::source_dir() / "tests/hostile/corpus.txt");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (trim(line).empty() || trim(line)[0] == '#')
      continue;
    std::vector<std::string> fields = test::split_fields(line);
    EXPECT_TRUE(fields.size() == 3 || fields.size() == 4) << "corpus.txt:" << n;
    if (fields.size() < 3)
      continue;
    cases.push_back({fields[0], fields[1], fields[2], fields.size() > 3 ? fields[3] : "",
                     "corpus.txt:" + std::to_string(n)});
  }
  return cases;
}

// Every golden error program: its # ARGS (or // ARGS) line gives the rest
// of the command.
std::vector<Case> golden_cases() {
  std::vector<Case> cases;
  for (const char* lang : {"antares", "tile", "mlir"}) {
    fs::path dir = test::source_dir() / "tests/errors" / lang;
    for (const fs::path& p : test::files_with_extension(dir, std::string(".") + lang)) {
      std::string text = test::read_file(p), args;
      std::smatch m;
      if (std::regex_search(text, m, std::regex(R"((#|//) ARGS: ([^\n]*))")))
        args = m[2];
      cases.push_back({"run", "diagnostic",
                       "cd " + shell_quoted(dir.string()) + " && teval run " +
                           p.filename().string() + " " + args + " -o out",
                       "out", p.filename().string()});
    }
  }
  fs::path reject = test::source_dir() / "tests/data/htp/reject";
  for (const fs::path& p : test::files_with_extension(reject, ".cpp"))
    cases.push_back({"rules check", "diagnostic", "teval rules check " + shell_quoted(p.string()),
                     "", p.filename().string()});
  return cases;
}

// Seeded byte and token mutants of the small seed programs (run with a
// time budget, so a mutant that still means something ends either way), of
// the example rules and graph, and of the example REPL session.
std::vector<Case> mutant_cases(const fs::path& dir) {
  std::mt19937 rng(14);
  const std::string alphabet = "()[]{},;:*+-/%<>=!.'\"`\\#0123456789 NKx_\n";
  const char* const numbers[] = {"99999999999999999999", "2147483648", "-1", "0", "4294967296"};
  auto mutate = [&](std::string s) {
    int edits = 1 + int(rng() % 3);
    for (int k = 0; k < edits && !s.empty(); ++k) {
      size_t at = rng() % s.size();
      switch (rng() % 5) {
      case 0:
        s.erase(at, 1);
        break;
      case 1:
        s.insert(at, 1, alphabet[rng() % alphabet.size()]);
        break;
      case 2: {
        size_t len = 1 + rng() % 20, to = rng() % s.size();
        s.insert(to, s.substr(at, len));
        break;
      }
      case 3: {
        size_t d = s.find_first_of("0123456789", at);
        if (d != std::string::npos)
          s.replace(d, s.find_first_not_of("0123456789", d) - d, numbers[rng() % 5]);
        break;
      }
      default:
        std::swap(s[at], s[rng() % s.size()]);
      }
    }
    return s;
  };
  std::vector<Case> cases;
  std::vector<fs::path> programs;
  for (const auto& e : fs::directory_iterator(test::source_dir() / "tests/data/antares"))
    if (fs::exists(e.path() / "program.antares"))
      programs.push_back(e.path() / "program.antares");
  std::sort(programs.begin(), programs.end());
  for (int i = 0; i < 150; ++i) {
    const fs::path& p = programs[size_t(i) % programs.size()];
    std::string name = "mutant" + std::to_string(i) + ".antares";
    test::write_file(dir / name, mutate(test::read_file(p)));
    cases.push_back({"run", "any", "teval run " + name + " --timeout 5 -o m" + std::to_string(i),
                     "", p.parent_path().filename().string() + " mutant " + std::to_string(i)});
  }
  fs::path htp = test::source_dir() / "examples/htp";
  std::string rules = test::read_file(htp / "split_rules.cpp");
  std::string graph = test::read_file(htp / "relu.graph");
  for (int i = 0; i < 30; ++i) {
    std::string name = "mutant" + std::to_string(i) + ".cpp";
    test::write_file(dir / name, mutate(rules));
    cases.push_back({"rules check", "any", "teval rules check " + name, "",
                     "split_rules.cpp mutant " + std::to_string(i)});
  }
  for (int i = 0; i < 20; ++i) {
    std::string name = "mutant" + std::to_string(i) + ".graph";
    test::write_file(dir / name, mutate(graph));
    cases.push_back({"rules apply", "any",
                     "teval rules apply " + shell_quoted((htp / "split_rules.cpp").string()) +
                         " --graph " + name,
                     "", "relu.graph mutant " + std::to_string(i)});
  }
  // MLIR functions of ByteIR ops, a dynamic dimension given a shape.
  std::vector<fs::path> functions =
      test::files_with_extension(test::source_dir() / "examples/byteir", ".mlir");
  for (int i = 0; i < 40; ++i) {
    const fs::path& p = functions[size_t(i) % functions.size()];
    std::string name = "mutant" + std::to_string(i) + ".mlir";
    test::write_file(dir / name, mutate(test::read_file(p)));
    cases.push_back(
        {"run", "any",
         "teval run " + name + " -i arg0=float32[3,7] --timeout 5 -o x" + std::to_string(i), "",
         p.filename().string() + " mutant " + std::to_string(i)});
  }
  // REPL scripts run from the source tree, where the session's files are.
  std::string session = test::read_file(test::source_dir() / "examples/repl/session.teval");
  for (int i = 0; i < 30; ++i) {
    fs::path name = dir / ("mutant" + std::to_string(i) + ".teval");
    test::write_file(name, mutate(session));
    cases.push_back({"repl", "any",
                     "cd \"$SRC\" && teval repl " + shell_quoted(name.string()) + " > /dev/null",
                     "", "session.teval mutant " + std::to_string(i)});
  }
  return cases;
}

TEST(Hostile, EveryCaseEndsInADiagnosticWithinItsLimits) {
  fs::path dir = test::scratch_dir("hostile");
  generate(dir);
  std::vector<Case> cases = corpus_cases();
  for (std::vector<Case> more : {golden_cases(), mutant_cases(dir)})
    cases.insert(cases.end(), more.begin(), more.end());

  const std::vector<std::string> kinds = {"OK", "weak", "wrong", "crash", "hang", "memory"};
  std::map<std::string, std::map<std::string, int>> table;
  std::string failures;
  for (const Case& c : cases) {
    auto start = std::chrono::steady_clock::now();
    Ran r = run_case(c.command, dir);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (getenv("TEVAL_HOSTILE_TIMES") && seconds > 1)
      std::cout << seconds << " s " << r.max_rss_kb / 1024 << " MiB: " << c.origin << "\n";
    Outcome o = classify(c, r, dir);
    ++table[c.entry][o.kind];
    if (o.kind != "OK")
      failures += "  [" + o.kind + "] " + c.origin + ": " + c.command.substr(0, 200) + "\n    " +
                  o.why + "\n";
  }

  std::string report = "hostile corpus: " + std::to_string(cases.size()) + " cases\n";
  char row[160];
  std::snprintf(row, sizeof row, "%-14s %6s", "entry", "cases");
  report += row;
  for (const std::string& k : kinds)
    report += " " + std::string(7 - std::min<size_t>(k.size(), 7), ' ') + k;
  report += "\n";
  for (const auto& [entry, counts] : table) {
    int total = 0;
    for (const auto& [k, n] : counts)
      total += n;
    std::snprintf(row, sizeof row, "%-14s %6d", entry.c_str(), total);
    report += row;
    for (const std::string& k : kinds) {
      auto it = counts.find(k);
      std::snprintf(row, sizeof row, " %7d", it == counts.end() ? 0 : it->second);
      report += row;
    }
    report += "\n";
  }
  std::cout << report;
  EXPECT_TRUE(failures.empty()) << failures;
}

} // namespace
} // namespace teval
