// The REPL session apart from the terminal: definitions, statements in both
// notations, commands, entry scanning, completion, and that a mistake never
// changes the session. Expected values come from numpy files in
// tests/data/repl (made with small exact values) or from plain loops.
#include "core/error.h"
#include "core/npy.h"
#include "tests/support/test_support.h"
#include "tools/teval/repl_input.h"
#include "tools/teval/repl_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include <set>
#include <unistd.h>

namespace teval {
namespace {

namespace fs = std::filesystem;
using tools::repl::complete;
using tools::repl::Lang;
using tools::repl::Outcome;
using tools::repl::scan_entry;
using tools::repl::Session;

fs::path data(const std::string& name) {
  return test::source_dir() / "tests/data/repl" / name;
}

// Runs one entry; failures of the entry fail the test with the diagnostic.
std::string run(Session& s, const std::string& text) {
  auto entry = core::SourceFile::make("<input>", text);
  try {
    return s.execute(entry).text;
  } catch (const core::Error& e) {
    ADD_FAILURE() << "entry `" << text << "` failed:\n" << e.render();
    return "";
  }
}

// The diagnostic of an entry that must fail.
std::string error_of(Session& s, const std::string& text) {
  auto entry = core::SourceFile::make("<input>", text);
  try {
    s.execute(entry);
  } catch (const core::Error& e) {
    return e.render();
  }
  ADD_FAILURE() << "entry `" << text << "` did not fail";
  return "";
}

// The value of session tensor \p name, through :save.
core::Tensor value(Session& s, const std::string& name) {
  // One directory per process: ctest runs tests of this file side by side.
  static const fs::path dir = test::scratch_dir("repl-value-" + std::to_string(getpid()));
  fs::path file = dir / (name + ".npy");
  run(s, ":save " + name + " " + file.string());
  return core::read_npy(file.string());
}

void load_ab(Session& s) {
  run(s, "a = load(\"" + data("a.npy").string() + "\")");
  run(s, ":load b " + data("b.npy").string());
}

TEST(ReplDefinitions, RandomDataHasTheTypeAndRange) {
  Session s;
  EXPECT_EQ(run(s, "x = float32[4, 8]"), "x: float32[4, 8] (random, seed 0)\n");
  EXPECT_EQ(run(s, "y = int32[64] in [0, 8)"), "y: int32[64] (random, seed 0, in [0, 8))\n");
  run(s, "z = int8[64] in (-3, 3]");
  run(s, "f = float64[64] in [10, 10.5)");
  run(s, "b = bool[64]");
  core::Tensor x = value(s, "x"), y = value(s, "y"), z = value(s, "z"), f = value(s, "f");
  for (int64_t i = 0; i < x.numel(); ++i) {
    EXPECT_GE(x.get(i).f, -1.0);
    EXPECT_LT(x.get(i).f, 1.0);
  }
  std::set<int64_t> ys, zs;
  for (int64_t i = 0; i < 64; ++i) {
    ys.insert(y.get(i).i);
    zs.insert(z.get(i).i);
    EXPECT_GE(f.get(i).f, 10.0);
    EXPECT_LT(f.get(i).f, 10.5);
  }
  // 64 draws from 8 (6) values: every value appears, none outside.
  EXPECT_EQ(ys, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(zs, (std::set<int64_t>{-2, -1, 0, 1, 2, 3}));
}

TEST(ReplDefinitions, TheSeedDecidesTheData) {
  Session s, t;
  run(s, "x = float32[16]");
  run(t, "x = float32[16]");
  EXPECT_TRUE(core::identical(value(s, "x"), value(t, "x")));
  run(t, ":set seed 7");
  run(t, "x = float32[16]");
  EXPECT_FALSE(core::identical(value(s, "x"), value(t, "x")));
}

TEST(ReplDefinitions, MistakesPointAtTheirPlace) {
  Session s;
  EXPECT_EQ(error_of(s, "x = float33[2]"), "<input>:1:5: error: unknown dtype `float33`\n"
                                           "x = float33[2]\n"
                                           "    ^~~~~~~\n");
  EXPECT_NE(error_of(s, "x = float32[4] in [0, 8]").find("half-open range"), std::string::npos);
  EXPECT_NE(error_of(s, "x = int8[4] in [0, 300)").find("outside int8 (-128 to 127)"),
            std::string::npos);
  EXPECT_NE(error_of(s, "x = int32[4] in [5, 5)").find("is empty"), std::string::npos);
  EXPECT_NE(error_of(s, "x = int32[4] in [0.5, 5)").find("bounds are integers"), std::string::npos);
  EXPECT_NE(error_of(s, "x = float32[-1]").find("non-negative"), std::string::npos);
  EXPECT_NE(error_of(s, "x = float32[100000, 100000, 100000]").find("limit"), std::string::npos);
  EXPECT_NE(error_of(s, "x = load(\"/nonexistent.npy\")").find("1:10: error"), std::string::npos);
  EXPECT_NE(error_of(s, "x = load(\"a.npy\"").find("expected `)`"), std::string::npos);
  EXPECT_TRUE(s.variable_names().empty());
}

TEST(ReplAntares, StatementsReadTheSessionAndAddTheirOutputs) {
  Session s;
  load_ab(s);
  std::string out = run(s, "c[I, J] +=! a[I, K] * b[K, J]");
  EXPECT_EQ(out.substr(0, out.find('\n')), "c: float32[2, 2]");
  EXPECT_TRUE(core::identical(value(s, "c"), core::read_npy(data("ab.npy").string())));
  // A later statement reads an earlier output.
  run(s, "t[I] +=! c[I, J]");
  core::Tensor c = value(s, "c"), t = value(s, "t");
  for (int64_t i = 0; i < 2; ++i)
    EXPECT_EQ(t.get(i).f, c.get(2 * i).f + c.get(2 * i + 1).f);
  // Integer index tensors, and every statement of an entry is kept.
  run(s, ":load idx " + data("idx.npy").string());
  run(s, "g[I, J] = a[I, idx[J]]; r[I] +=! a[I, K]");
  EXPECT_TRUE(core::identical(value(s, "g"), core::read_npy(data("gather.npy").string())));
  EXPECT_TRUE(core::identical(value(s, "r"), core::read_npy(data("rowsum.npy").string())));
}

TEST(ReplAntares, AStatementMayRedefineASessionTensor) {
  Session s;
  load_ab(s);
  core::Tensor before = value(s, "a");
  run(s, "a[I, K] = a[I, K] * 2; d[I, K] = a[I, K] - 1");
  core::Tensor after = value(s, "a"), d = value(s, "d");
  for (int64_t i = 0; i < before.numel(); ++i) {
    EXPECT_EQ(after.get(i).f, before.get(i).f * 2);
    EXPECT_EQ(d.get(i).f, before.get(i).f * 2 - 1); // reads the new a
  }
}

TEST(ReplAntares, ComputeV1PastesRunWithTheirInputDict) {
  Session s;
  load_ab(s);
  run(s, "- einstein_v2(\"o[N] = a[N, 0] + e[N]\", input_dict={\"a\": {\"dtype\": "
         "\"float32\", \"shape\": [2, 3]}, \"e\": {\"dtype\": \"float32\", \"shape\": [2]}})");
  EXPECT_EQ(value(s, "o").shape(), (core::Shape{2}));
  EXPECT_NE(error_of(s, "- einstein_v2(\"o[N] = a[N, 0]\", input_dict={\"a\": {\"dtype\": "
                        "\"float32\", \"shape\": [3, 3]}})")
                .find("the session's `a` is float32[2, 3]"),
            std::string::npos);
}

// Every tensor of the session, with its value.
std::map<std::string, core::Tensor> snapshot(Session& s) {
  std::map<std::string, core::Tensor> out;
  for (const std::string& n : s.variable_names())
    out[n] = value(s, n);
  return out;
}

void expect_same(const std::map<std::string, core::Tensor>& a,
                 const std::map<std::string, core::Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, t] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_TRUE(core::identical(t, b.at(name))) << name;
  }
}

TEST(ReplAntares, AFailedEntryChangesNothing) {
  Session s;
  load_ab(s);
  auto before = snapshot(s);
  std::string err = error_of(s, "a[I, K] = a[I, K] + 1; y[I] = nope[I]");
  EXPECT_EQ(err, "<input>:1:31: error: unknown tensor `nope`; define it first, as in `nope = "
                 "float32[4, 8]` or `nope = load(\"nope.npy\")`\n"
                 "a[I, K] = a[I, K] + 1; y[I] = nope[I]\n"
                 "                              ^~~~\n");
  // A run-time error: the read is out of range.
  EXPECT_NE(error_of(s, "a[I, K] = a[I, K] + 1; y[I] = a[I + 1, 0] where I in 2")
                .find("read out of range"),
            std::string::npos);
  expect_same(before, snapshot(s));
}

TEST(ReplTile, DeclarationsPersistAndContractionsRun) {
  Session s;
  load_ab(s);
  EXPECT_EQ(run(s, ":lang tile"), "notation: tile\n");
  EXPECT_EQ(run(s, "TensorDim I, J, K; TensorIndex i, j, k;"), "");
  EXPECT_EQ(run(s, "a.bind_dims(I, K); b.bind_dims(K, J);"), "");
  run(s, "auto C = TensorOutput(I, J); C(i, j) += a(i, k) * b(k, j);");
  EXPECT_TRUE(core::identical(value(s, "C"), core::read_npy(data("ab.npy").string())));
  // Python spelling, reading the earlier result.
  run(s, "T = TensorOutput(I)\nT[i] += C[i, j]");
  core::Tensor c = value(s, "C"), t = value(s, "T");
  for (int64_t i = 0; i < 2; ++i)
    EXPECT_EQ(t.get(i).f, c.get(2 * i).f + c.get(2 * i + 1).f);
  // A bare expression is `result`.
  EXPECT_EQ(run(s, "-a").substr(0, 24), "result: float32[2, 3]\nar");
  core::Tensor a = value(s, "a"), r = value(s, "result");
  for (int64_t i = 0; i < a.numel(); ++i)
    EXPECT_EQ(r.get(i).f, -a.get(i).f);
}

TEST(ReplTile, AFailedDeclarationIsNotKept) {
  Session s;
  load_ab(s);
  run(s, ":lang tile");
  EXPECT_NE(error_of(s, "TensorDim M; a.bind_dims(M);").find("has rank 2"), std::string::npos);
  EXPECT_NE(error_of(s, "auto O = TensorOutput(M);").find("`M` is not defined"), std::string::npos);
}

// Found by the REPL's libFuzzer harness: an entry whose last statement is
// neither a declaration, nor something with a result, nor an expression.
TEST(ReplTile, AnyStatementFormEndsInADiagnosticOrNothing) {
  Session s;
  load_ab(s);
  run(s, ":lang tile");
  EXPECT_NE(error_of(s, "m, n = Foo(2)"), "");
  EXPECT_NE(error_of(s, "for i in range(2):\n  x = a"), "");
  EXPECT_EQ(run(s, "m, n = TensorIndexes(2)"), "");
  EXPECT_EQ(run(s, ":type a"), "a: float32[2, 3]\n"); // the session goes on
}

TEST(ReplCommands, TypeVarsAndSettings) {
  Session s;
  load_ab(s);
  EXPECT_EQ(run(s, ":type a"), "a: float32[2, 3]\n");
  EXPECT_EQ(run(s, ":type c[I, J] +=! a[I, K] * b[K, J]"), "c: float32[2, 2]\n");
  EXPECT_EQ(run(s, ":type a[I, K] * b[K, J]"), "float32[2, 3, 2] over I, K, J\n");
  EXPECT_EQ(run(s, ":type a[I, 0].cast(`int8`)"), "int8[2] over I\n");
  EXPECT_TRUE(s.variable_names() == (std::vector<std::string>{"a", "b"})); // nothing ran
  std::string vars = run(s, ":vars");
  EXPECT_NE(vars.find("a     float32[2, 3]  load(\""), std::string::npos) << vars;
  EXPECT_EQ(run(s, ":set precision 1"),
            "precision 1, summarize 1000, seed 0, engine interp, time off\n");
  EXPECT_EQ(run(s, "b"), "b: float32[3, 2]\narray([[ 2.0,  1.0],\n       [ 0.0, -1.0],\n"
                         "       [ 1.5,  3.0]], dtype=float32)\n");
  run(s, ":set precision 0");
  EXPECT_NE(run(s, "b").find("[ 2.,  1.]"), std::string::npos);
  run(s, ":set summarize 3");
  run(s, "big = int8[7]");
  EXPECT_NE(run(s, "big").find("..."), std::string::npos);
  EXPECT_EQ(run(s, ":set precision full"),
            "precision full, summarize 3, seed 0, engine interp, time off\n");
}

TEST(ReplCommands, EveryEngineGivesTheSameResults) {
  Session s;
  load_ab(s);
  std::string product = run(s, "c[I, J] +=! a[I, K] * b[K, J]");
  for (const char* engine : {"ireval", "jit", "hexagon", "interp"}) {
    EXPECT_NE(run(s, std::string(":set engine ") + engine).find(std::string("engine ") + engine),
              std::string::npos);
    EXPECT_EQ(run(s, "c[I, J] +=! a[I, K] * b[K, J]"), product) << engine;
    EXPECT_NE(error_of(s, "q[I] = c[I, 2]").find("read out of range: c[0, 2]"), std::string::npos)
        << engine;
  }
  EXPECT_NE(error_of(s, ":set engine gpu").find("unknown engine `gpu`"), std::string::npos);
}

TEST(ReplCommands, ATrailingSemicolonSilencesAnEntry) {
  Session s;
  EXPECT_EQ(run(s, "x = int32[3] in [1, 2);"), "");
  EXPECT_EQ(run(s, "y[N] = x[N] * 2;  "), "");
  EXPECT_EQ(run(s, "y"), "y: int32[3]\narray([2, 2, 2], dtype=int32)\n");
  EXPECT_EQ(run(s, "y;"), "");
  run(s, ":lang tile");
  // Tile statements end in `;` themselves: `;;` silences.
  EXPECT_EQ(run(s, "auto z = x + 1;"), "z: int32[3]\narray([2, 2, 2], dtype=int32)\n");
  EXPECT_EQ(run(s, "auto w = x + 2;;"), "");
  EXPECT_EQ(run(s, "w"), "w: int32[3]\narray([3, 3, 3], dtype=int32)\n");
  // An error still shows, at its column.
  EXPECT_EQ(error_of(s, "auto v = nope + 1;;").find("<input>:1:10: error"), 0u);
}

TEST(ReplCommands, TimeReportsTheWallTime) {
  Session s;
  run(s, "x = float32[4]");
  auto ends_with_time = [](const std::string& text) {
    size_t at = text.rfind("time: ");
    return at != std::string::npos && text.substr(text.size() - 4) == " ms\n" &&
           text.find_first_not_of("0123456789.", at + 6) == text.size() - 4;
  };
  std::string timed = run(s, ":time y[N] = x[N] * 2");
  EXPECT_EQ(timed.rfind("y: float32[4]\n", 0), 0u) << timed;
  EXPECT_TRUE(ends_with_time(timed)) << timed;
  EXPECT_EQ(run(s, ":time z[N] = x[N] * 2;").rfind("time: ", 0), 0u);
  run(s, ":set time on");
  std::string shown = run(s, "y");
  EXPECT_EQ(shown.rfind("y: float32[4]\n", 0), 0u) << shown;
  EXPECT_TRUE(ends_with_time(shown)) << shown;
  // :time with time on reports once.
  std::string once = run(s, ":time y");
  EXPECT_EQ(once.find("time: "), once.rfind("time: ")) << once;
}

TEST(ReplAntares, ATensorNamedLikeAnAxisNamesTheClash) {
  Session s;
  run(s, "x = float32[2]");
  run(s, ":lang tile");
  run(s, "C = exp(x)");
  run(s, ":lang antares");
  EXPECT_EQ(error_of(s, "o[N] = C[N] * 2"),
            "<input>:1:8: error: `C` is a session tensor, but in Antares a name with an "
            "upper-case initial is an axis, so it cannot be read; copy it to a lower-case name "
            "first: `c = C`\no[N] = C[N] * 2\n       ^\n");
  EXPECT_EQ(run(s, "c = C"), "c: float32[2] (copy of C)\n");
  EXPECT_EQ(run(s, "o[N] = c[N] * 2;"), "");
  EXPECT_TRUE(s.variable_names() == (std::vector<std::string>{"C", "c", "o", "x"}));
}

TEST(ReplCommands, LowerJitResetQuit) {
  Session s;
  EXPECT_NE(error_of(s, ":lower").find("no statement has run yet"), std::string::npos);
  load_ab(s);
  run(s, "c[I, J] +=! a[I, K] * b[K, J]");
  EXPECT_NE(run(s, ":lower").find("for (int32 K = 0; K < 3; ++K)"), std::string::npos);
  EXPECT_NE(run(s, ":jit").find("define"), std::string::npos);
  EXPECT_NE(error_of(s, ":jit ptx").find("expected llvm or asm"), std::string::npos);
  run(s, ":reset");
  EXPECT_TRUE(s.variable_names().empty());
  EXPECT_NE(error_of(s, ":lower").find("no statement"), std::string::npos);
  EXPECT_TRUE(s.execute(core::SourceFile::make("<input>", ":quit")).quit);
  EXPECT_EQ(error_of(s, ":frob"), "<input>:1:1: error: unknown command `:frob`; :help lists the "
                                  "commands\n:frob\n^~~~~\n");
}

TEST(ReplInput, EntriesContinueWhileOpen) {
  EXPECT_TRUE(scan_entry("x = float32[4]").complete);
  EXPECT_FALSE(scan_entry("o[N] = (x[N]").complete);
  EXPECT_EQ(scan_entry("o[N] = (x[N]").open_at, 7u);
  EXPECT_FALSE(scan_entry("o[N] = x[N] \\").complete);
  EXPECT_TRUE(scan_entry("o[N] = x[N] \\\n + 1").complete);
  EXPECT_FALSE(scan_entry("COMPUTE_V1='- einstein_v2(\"o[N] = x[N]\"").complete);
  EXPECT_EQ(scan_entry("a = \"(\"").open_at, std::nullopt);
  EXPECT_TRUE(scan_entry("o[N] = x[N] # (").complete);
  EXPECT_FALSE(scan_entry("s = \"\"\"\n(").complete);
  EXPECT_TRUE(scan_entry("x)]").complete); // the parser reports it
  EXPECT_EQ(tools::repl::join_continuations("a \\\nb '\\\n'"), "a  \nb '\\\n'");
}

TEST(ReplInput, EntriesAreNumberedAcrossTheInput) {
  tools::repl::EntryReader r("<stdin>");
  EXPECT_TRUE(r.add("x = float32[2]"));
  EXPECT_FALSE(r.add("o[N] = (x[N] +"));
  EXPECT_FALSE(r.empty());
  auto entry = r.add("  1) \\");
  EXPECT_FALSE(entry);
  entry = r.add("  * 2");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->text(), "o[N] = (x[N] +\n  1)  \n  * 2");
  EXPECT_EQ(entry->location(0).line, 2u);
  EXPECT_FALSE(r.unfinished());
  r.add("y[N] = x[N");
  ASSERT_TRUE(r.unfinished());
  EXPECT_EQ(r.unfinished()->render(), "<stdin>:5:9: error: the input ends inside an entry: `[` is "
                                      "not closed\ny[N] = x[N\n        ^\n");
  r.clear();
  EXPECT_TRUE(r.empty());
}

// Reading line by line ends each entry exactly where scanning the lines
// gathered so far as one text would, and joins the same continuations;
// lines are drawn from a pool of the cases that carry state across lines.
TEST(ReplInput, LineByLineReadingAgreesWithScanningTheWhole) {
  const char* const pool[] = {"o[N] = (x[N]",   "+ 1)",       "a \\",     "  b \\  ",
                              "s = \"\"\"",     "\"\"\" + (", "t = 'q\\", "' ]",
                              "# comment (",    "c = `x",     "y` \\",    "",
                              "z = [1, 2] # )", "\\",         "\"\"\")",  "w = x \\ y"};
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    tools::repl::EntryReader reader("<stdin>");
    std::string pending;
    for (int n = 0; n < 12; ++n) {
      std::string line = pool[rng() % std::size(pool)];
      pending += (pending.empty() ? "" : "\n") + line;
      auto entry = reader.add(line);
      bool complete = scan_entry(pending).complete;
      ASSERT_EQ(entry != nullptr, complete) << pending;
      if (!entry)
        continue;
      ASSERT_EQ(entry->text(), tools::repl::join_continuations(pending)) << pending;
      pending.clear();
    }
  }
}

TEST(ReplInput, AnEntryOfManyLinesIsReadInOnePass) {
  // 10^5 continued lines (this took minutes when every line rescanned the
  // entry): one entry, its continuations joined (a backslash inside brackets
  // is no continuation and stays).
  tools::repl::EntryReader reader("<stdin>");
  EXPECT_FALSE(reader.add("o[N] = x[N] \\"));
  for (int i = 0; i < 100000; ++i)
    ASSERT_FALSE(reader.add(i % 2 ? "  + 1) \\" : "  + (x[N] \\"));
  auto entry = reader.add("  + 1");
  ASSERT_TRUE(entry);
  EXPECT_EQ(std::count(entry->text().begin(), entry->text().end(), '\\'), 50000);
  EXPECT_EQ(std::count(entry->text().begin(), entry->text().end(), '\n'), 100001);
}

std::vector<std::string> completions(const Session& s, const std::string& line) {
  size_t start = 0;
  return complete(s, line, start);
}

TEST(ReplInput, TabCompletes) {
  Session s;
  run(s, "x = float32[2]");
  run(s, "xy = int8[2]");
  using V = std::vector<std::string>;
  EXPECT_EQ(completions(s, ":l"), (V{":lang", ":load", ":lower"}));
  EXPECT_EQ(completions(s, ":set p"), (V{"precision"}));
  EXPECT_EQ(completions(s, ":lang t"), (V{"tile"}));
  EXPECT_EQ(completions(s, ":save x"), (V{"x", "xy"}));
  EXPECT_EQ(completions(s, "o[N] = x"), (V{"x", "xy"}));
  EXPECT_EQ(completions(s, "o[N] = x[N].w"), (V{"when"}));
  EXPECT_EQ(completions(s, "o[N] = x[N].c"), (V{"call", "cast"}));
  EXPECT_EQ(completions(s, "o[N] = x[N].cast(`int1"), (V{"int16"}));
  EXPECT_EQ(completions(s, "o[N] = x[N].call(`ta"), (V{"tan", "tanh"}));
  // Every function offered inside .call(` is accepted, and nothing else is:
  // the completion list is the parsers' list.
  V offered = completions(s, "o[N] = x[N].call(`");
  EXPECT_EQ(offered.size(), 33u);
  for (const std::string& f : offered) {
    std::string arity2 = f == "pow" || f == "atan2" || f == "max" || f == "min" ? ", [x[N]]" : "";
    std::string arg = f == "abs" || f == "max" || f == "min" ? "x[N]" : "x[N].cast(`float32`)";
    run(s, "o[N] = " + arg + ".call(`" + f + "`" + arity2 + ")");
  }
  for (const char* f : {"exactdiv", "neg", "same", "not"}) {
    EXPECT_EQ(std::count(offered.begin(), offered.end(), f), 0) << f;
    EXPECT_NE(error_of(s, std::string("o[N] = x[N].call(`") + f + "`)").find("unknown function"),
              std::string::npos);
  }
  EXPECT_EQ(completions(s, "y = float1"), (V{"float16"}));
  EXPECT_EQ(completions(s, "y = lo"), (V{"load"}));
  std::string dir = data("").string();
  EXPECT_EQ(completions(s, "y = load(\"" + dir + "id"), (V{dir + "idx.npy"}));
  EXPECT_EQ(completions(s, ":load y " + dir + "ro"), (V{dir + "rowsum.npy"}));
  run(s, ":lang tile");
  EXPECT_EQ(completions(s, "TensorI"), (V{"TensorIndex", "TensorIndexes"}));
  EXPECT_EQ(completions(s, "x.b"), (V{"bind_dims"}));
  EXPECT_EQ(tools::repl::common_prefix({"TensorIndex", "TensorIndexes"}), "TensorIndex");
}

// Every line of malformed.txt fails with a diagnostic, changes nothing, and
// the diagnostics are as in malformed.err.
TEST(ReplCorpus, MalformedLinesFailCleanly) {
  fs::current_path(test::source_dir()); // the corpus names files from here
  Session s;
  load_ab(s);
  run(s, "c[I, J] +=! a[I, K] * b[K, J]");
  auto before = snapshot(s);
  std::string text = test::read_file(data("malformed.txt")), rendered;
  size_t begin = 0, count = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.empty())
      continue;
    if (line == ":lang tile" || line == ":lang antares") { // for the lines after it
      run(s, line);
      continue;
    }
    ++count;
    rendered += "> " + line + "\n" + error_of(s, line);
  }
  EXPECT_GE(count, 60u);
  expect_same(before, snapshot(s));
  std::string failure = test::check_golden(data("malformed.err"), rendered);
  EXPECT_TRUE(failure.empty()) << failure;
}

// Mutations of valid entries (characters deleted, inserted, swapped) either
// run or fail with a diagnostic; nothing else escapes.
TEST(ReplCorpus, MutatedEntriesNeverEscape) {
  const std::vector<std::string> valid = {
      "x = float32[4, 3] in [0, 2)",    "y = int32[5] in [0, 4)",
      "o[N] = x[N, y[N] % 3]",          "s[N] +=! x[N, K].when([K < 2], 0.0)",
      "m[N, K] = x[N, K].cast(`int8`)", ":type o[N] >=! x[N, K]",
      "t[A, B] = x[B, A] where A in 3", ":set precision 3",
      "p[N] = x[N, 0].call(`exp`)",     "q[N, K] = (x[N, K] * 2) // 1"};
  uint64_t state = 12345;
  auto next = [&] {
    return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33;
  };
  const std::string alphabet = "[](){}.,:;=+-*/%<>!&|~`'\"\\ \nNKxyo0123456789e_";
  int ran = 0, failed = 0;
  for (int round = 0; round < 1500; ++round) {
    Session s;
    run(s, "x = float32[4, 3]");
    run(s, "y = int32[4] in [0, 3)");
    std::string text = valid[next() % valid.size()];
    for (int edits = 1 + next() % 3; edits > 0 && !text.empty(); --edits) {
      size_t at = next() % text.size();
      switch (next() % 3) {
      case 0:
        text.erase(at, 1);
        break;
      case 1:
        text.insert(at, 1, alphabet[next() % alphabet.size()]);
        break;
      default:
        std::swap(text[at], text[next() % text.size()]);
      }
    }
    try {
      s.execute(core::SourceFile::make("<input>", text));
      ++ran;
    } catch (const core::Error& e) {
      EXPECT_FALSE(e.render().empty());
      ++failed;
    }
  }
  EXPECT_GT(ran, 0);
  EXPECT_GT(failed, 0);
}

} // namespace
} // namespace teval
