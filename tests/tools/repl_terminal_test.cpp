// The REPL as users run it: scripts on stdin (golden stdout, stderr and exit
// code for each tests/data/repl/scripts/NAME.teval), and a scripted session
// on a real pseudo-terminal that types, completes with Tab, recalls history
// and cancels with Ctrl-C. Waits have a generous deadline that only turns
// a hang into a failure; nothing here measures time.
#include "core/progress.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

namespace teval {
namespace {

namespace fs = std::filesystem;

// Each script on every engine (teval repl --engine E): the same output and
// diagnostics as the golden, whose settings lines name the interpreter.
TEST(ReplScripts, GoldenOutputsOnEveryEngine) {
  fs::path dir = test::source_dir() / "tests/data/repl/scripts";
  std::vector<fs::path> scripts = test::files_with_extension(dir, ".teval");
  ASSERT_GE(scripts.size(), 4u);
  for (const fs::path& script : scripts) {
    fs::path golden = script;
    golden.replace_extension(".out");
    std::string expected = test::read_file(golden);
    for (const char* engine : {"interp", "ireval", "jit", "hexagon"}) {
      SCOPED_TRACE(script.filename().string() + " on " + engine);
      test::Result r =
          test::run_teval("repl --engine " + std::string(engine) + " < '" + script.string() + "'",
                          test::source_dir());
      std::string actual =
          r.out + "--- stderr\n" + r.err + "--- exit " + std::to_string(r.exit_code) + "\n";
      if (std::string(engine) == "interp") {
        std::string failure = test::check_golden(golden, actual);
        EXPECT_TRUE(failure.empty()) << failure;
        continue;
      }
      std::string want = expected;
      for (size_t at = 0; (at = want.find(", engine interp,", at)) != std::string::npos;)
        want.replace(at, 16, ", engine " + std::string(engine) + ",");
      EXPECT_EQ(actual, want);
    }
  }
}

// The example session of docs/REPL.md, as a FILE, on every engine: the
// interpreter's output.
TEST(ReplScripts, TheExampleSessionRunsOnEveryEngine) {
  std::string example = (test::source_dir() / "examples/repl/session.teval").string();
  test::Result interp = test::run_teval("repl '" + example + "'", test::source_dir());
  ASSERT_EQ(interp.exit_code, 0) << interp.err;
  EXPECT_NE(interp.out.find("float32[2, 2] over I, J\n"), std::string::npos);
  for (const char* engine : {"ireval", "jit", "hexagon"}) {
    test::Result r = test::run_teval("repl --engine " + std::string(engine) + " '" + example + "'",
                                     test::source_dir());
    EXPECT_EQ(r.exit_code, 0) << engine << ": " << r.err;
    EXPECT_EQ(r.out, interp.out) << engine;
  }
}

TEST(ReplScripts, FileArgumentAndUsage) {
  fs::path script = test::source_dir() / "tests/data/repl/scripts/stop_at_error.teval";
  test::Result r = test::run_teval("repl '" + script.string() + "'", test::source_dir());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stop_at_error.teval:3:8: error: integer division by zero"),
            std::string::npos)
      << r.err;
  r = test::run_teval("repl --help", test::source_dir());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("usage: teval [repl [--engine E] [FILE]]"), std::string::npos);
  EXPECT_EQ(test::run_teval("repl a b", test::source_dir()).exit_code, 2);
  EXPECT_EQ(test::run_teval("repl --bogus", test::source_dir()).exit_code, 2);
  EXPECT_EQ(test::run_teval("repl /nonexistent.teval", test::source_dir()).exit_code, 1);
  EXPECT_EQ(test::run_teval("repl --engine", test::source_dir()).exit_code, 2);
  r = test::run_teval("repl --engine gpu", test::source_dir());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "teval repl: unknown engine 'gpu'; the REPL has interp, ireval, jit, hexagon\n"
                   "(see teval repl --help)\n");
}

TEST(ReplScripts, OutOfMemoryIsAnError) {
#if defined(TEVAL_TEST_ASAN)
  GTEST_SKIP() << "AddressSanitizer needs more address space than the limit leaves";
#endif
  // 3 GB of address space: enough for teval, not for a 4 GB tensor.
  fs::path dir = test::scratch_dir("repl-memory");
  test::write_file(dir / "in.teval", "y = int8[2]\nx = float32[1000000000]\n");
  std::string cmd = "ulimit -v 3000000; '" + (test::binary_dir() / "bin/teval").string() + "' < '" +
                    (dir / "in.teval").string() + "' > '" + (dir / "out").string() + "' 2> '" +
                    (dir / "err").string() + "'";
  int status = std::system(("bash -c \"" + cmd + "\"").c_str());
  test::Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::read_file(dir / "out"),
                 test::read_file(dir / "err")};
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "y: int8[2] (random, seed 0)\n");
  EXPECT_EQ(r.err, "<stdin>:2: error: out of memory\n");
}

// teval on the slave side of a pseudo-terminal.
class Pty {
public:
  // teval with \p args (none: the REPL).
  explicit Pty(const fs::path& home, std::vector<std::string> args = {}) {
    std::string teval = (test::binary_dir() / "bin/teval").string();
    std::vector<char*> argv = {teval.data()};
    for (std::string& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    struct winsize size {};
    size.ws_row = 40;
    size.ws_col = 100;
    pid_ = forkpty(&fd_, nullptr, nullptr, &size);
    if (pid_ == 0) {
      setenv("HOME", home.c_str(), 1);
      setenv("TERM", "xterm", 1);
      if (chdir(test::source_dir().c_str()) != 0)
        _exit(126);
      execv(teval.c_str(), argv.data());
      _exit(127);
    }
  }
  ~Pty() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0)
      close(fd_);
  }
  bool started() const { return pid_ > 0; }

  // Types \p keys at the start of a line: once the prompt is shown and
  // libedit has put the terminal in its editing (non-canonical) mode. Keys
  // typed earlier would meet the line discipline, where Ctrl-D is not a key
  // but an end of file. (A pty master shares its slave's termios.)
  void enter(const std::string& keys, const std::string& prompt = "teval> ") {
    ASSERT_TRUE(wait_for(prompt)) << "no prompt `" << prompt << "`; seen:\n" << seen_;
    for (int i = 0; i < 3000; ++i) {
      struct termios mode {};
      if (tcgetattr(fd_, &mode) == 0 && !(mode.c_lflag & ICANON))
        break;
      usleep(10000);
    }
    type(keys);
  }

  void type(const std::string& keys) {
    ASSERT_EQ(write(fd_, keys.data(), keys.size()), static_cast<ssize_t>(keys.size()));
  }

  // Reads until \p text has appeared since the last wait; false on a hang
  // (nothing for 30 s) or the end of output.
  bool wait_for(const std::string& text) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (true) {
      size_t at = seen_.find(text, from_);
      if (at != std::string::npos) {
        from_ = at + text.size();
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return false;
      struct pollfd p {
        fd_, POLLIN, 0
      };
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0)
        continue;
      char buf[4096];
      ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0)
        return false;
      seen_.append(buf, static_cast<size_t>(n));
    }
  }

  // The exit code, once teval has ended (waiting at most 30 s); the output
  // is read meanwhile, so teval never blocks writing it.
  int wait_exit() {
    for (int i = 0; i < 3000; ++i) {
      struct pollfd p {
        fd_, POLLIN, 0
      };
      while (poll(&p, 1, 0) > 0) {
        char buf[4096];
        ssize_t n = read(fd_, buf, sizeof buf);
        if (n <= 0)
          break;
        seen_.append(buf, static_cast<size_t>(n));
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      usleep(10000);
    }
    return -2;
  }
  const std::string& output() const { return seen_; }

private:
  int fd_ = -1;
  pid_t pid_ = -1;
  bool exited_ = false;
  std::string seen_;
  size_t from_ = 0;
};

#define EXPECT_SEEN(pty, text)                                                                     \
  ASSERT_TRUE((pty).wait_for(text)) << "waiting for: " << (text) << "\nseen:\n" << (pty).output()

TEST(ReplTerminal, TypeCompleteRecallCancel) {
  fs::path home = test::scratch_dir("repl-home");
  Pty t(home);
  ASSERT_TRUE(t.started());
  t.enter("x = float32[2, 2]\r");
  EXPECT_SEEN(t, "x: float32[2, 2] (random, seed 0)");
  t.enter("xy = int8[3] in [1, 2)\r");
  EXPECT_SEEN(t, "xy: int8[3]");
  // Tab with two candidates lists them; typing on completes the name.
  t.enter("x\t");
  EXPECT_SEEN(t, "x   xy");
  t.type("y\r");
  EXPECT_SEEN(t, "array([1, 1, 1], dtype=int8)");
  // Tab completes a command and a unique name.
  t.enter(":ty\t");
  EXPECT_SEEN(t, "pe ");
  t.type("xy\r");
  EXPECT_SEEN(t, "xy: int8[3]\r\n");
  // Multi-line input continues with its own prompt.
  t.enter("o[N] = (x[N, 0]\r");
  t.enter(" + xy[N].cast(`float32`)) where N in 2\r", "  ...> ");
  EXPECT_SEEN(t, "o: float32[2]");
  // Ctrl-C drops a half-typed entry, even one that is continuing.
  t.enter("p[N] = (x[N, 0]\r");
  t.enter("+ 1\x03", "  ...> ");
  EXPECT_SEEN(t, "^C");
  t.enter(":vars\r");
  EXPECT_SEEN(t, "xy    int8[3]");
  EXPECT_EQ(t.output().find("p    "), std::string::npos);
  // History: Ctrl-P recalls the previous line (`:vars`), then `:type xy`
  // three lines back.
  t.enter("\x10\r");
  EXPECT_SEEN(t, "xy    int8[3]");
  // An error shows the line and a caret, and the session goes on.
  t.enter("q[N] = nope[N]\r");
  EXPECT_SEEN(t, "error: unknown tensor `nope`");
  EXPECT_SEEN(t, "q[N] = nope[N]\r\n       ^~~~");
  t.enter("x\r");
  EXPECT_SEEN(t, "x: float32[2, 2]");
  // Ctrl-D leaves.
  t.enter("\x04");
  EXPECT_EQ(t.wait_exit(), 0) << t.output();
  std::string history = test::read_file(home / ".teval_history");
  EXPECT_NE(history.find("q[N]\\040=\\040nope[N]"), std::string::npos) << history;
}

TEST(ReplTerminal, CtrlCStopsAnEvaluationOnEveryEngine) {
  fs::path home = test::scratch_dir("repl-interrupt");
  Pty t(home);
  ASSERT_TRUE(t.started());
  t.enter("x = float32[1]\r");
  EXPECT_SEEN(t, "x: float32[1]");
  for (const char* engine : {"interp", "ireval", "jit"}) {
    t.enter(std::string(":set engine ") + engine + "\r");
    EXPECT_SEEN(t, std::string("engine ") + engine);
    // 2^39 points: it runs until stopped.
    t.enter("o[M] +=! x[M] + (K + L).cast(`float32`) where K in 1048576, L in 524288\r");
    usleep(300000);
    t.type("\x03");
    EXPECT_SEEN(t, "interrupted; the session is unchanged");
    t.enter(":vars\r");
    EXPECT_SEEN(t, "x     float32[1]");
    // The session goes on, on the same engine.
    t.enter("y[N] = x[N] * 2;\r");
    t.enter("y\r");
    EXPECT_SEEN(t, "y: float32[1]");
  }
  EXPECT_EQ(t.output().find("o     "), std::string::npos);
  t.enter("\x04");
  EXPECT_EQ(t.wait_exit(), 0) << t.output();
}

TEST(ReplTerminal, MultiLineEntriesRecallAsOne) {
  fs::path home = test::scratch_dir("repl-multiline");
  {
    Pty t(home);
    t.enter("r[N] = (N +\r");
    t.enter("  1) where N in 3\r", "  ...> ");
    EXPECT_SEEN(t, "array([1, 2, 3], dtype=int32)");
    t.enter("r[N] = r[N] * 0\r");
    EXPECT_SEEN(t, "array([0, 0, 0], dtype=int32)");
    // Two entries back is the whole two-line entry: one Enter runs it.
    t.enter("\x10\x10\r");
    EXPECT_SEEN(t, "array([1, 2, 3], dtype=int32)");
    t.enter(":quit\r");
    EXPECT_EQ(t.wait_exit(), 0) << t.output();
  }
  {
    Pty t(home);           // and so does the next session, from ~/.teval_history:
    t.enter("\x10\x10\r"); // :quit, then the recalled entry
    EXPECT_SEEN(t, "array([1, 2, 3], dtype=int32)");
    t.enter("\x04");
    EXPECT_EQ(t.wait_exit(), 0) << t.output();
  }
}

TEST(ReplTerminal, HistoryPersistsAndIsLimited) {
  fs::path home = test::scratch_dir("repl-history");
  std::string lines = "_HiStOrY_V2_\n";
  for (int i = 0; i < 1500; ++i)
    lines += "o" + std::to_string(i) + "[N]\\040=\\040N\\040where\\040N\\040in\\0402\n";
  test::write_file(home / ".teval_history", lines);
  {
    Pty t(home);
    // The last line of the file is the first one recalled.
    t.enter("\x10\r");
    EXPECT_SEEN(t, "o1499: int32[2]");
    t.enter(":quit\r");
    EXPECT_EQ(t.wait_exit(), 0) << t.output();
  }
  std::string saved = test::read_file(home / ".teval_history");
  size_t count = std::count(saved.begin(), saved.end(), '\n');
  EXPECT_LE(count, 1001u); // the header and at most 1000 lines
  EXPECT_NE(saved.find("o1499"), std::string::npos);
  EXPECT_EQ(saved.find("o0["), std::string::npos);
  {
    Pty t(home); // the new session recalls the old one's lines: :quit, then o1499
    t.enter("\x10\x10\r");
    EXPECT_SEEN(t, "o1499: int32[2]");
    t.enter("\x04");
    EXPECT_EQ(t.wait_exit(), 0) << t.output();
  }
}

TEST(ReplTerminal, RandomKeysNeverCrashOrHang) {
  fs::path home = test::scratch_dir("repl-keys");
  Pty t(home);
  t.enter("x = float32[3, 2]\r");
  EXPECT_SEEN(t, "x: float32[3, 2]");
  uint64_t state = 99;
  auto next = [&] { return (state = state * 6364136223846793005ULL + 1) >> 33; };
  // Editing one line: printable characters, brackets, quotes, Tab,
  // Backspace, arrows, history, Ctrl-A/E/K/U/W; each batch ends with Ctrl-C
  // (malformed entries themselves are tests/data/repl/malformed.txt).
  const std::vector<std::string> keys = {"x",    "[",    "]",    "(",      ")",      "N",    ",",
                                         " ",    "=",    "+",    "\"",     "`",      "'",    ":",
                                         ".",    "\t",   "\x7f", "\x1b[A", "\x1b[D", "\x01", "\x05",
                                         "\x0b", "\x15", "\x17", "\\",     "0",      "#"};
  for (int batch = 0; batch < 40; ++batch) {
    std::string typed;
    for (int i = 0; i < 30; ++i)
      typed += keys[next() % keys.size()];
    t.enter(typed + "\x03");
    EXPECT_SEEN(t, "^C\r\n");
    t.enter(":type x\r");
    EXPECT_SEEN(t, "x: float32[3, 2]\r\n");
  }
  t.enter("\x04");
  EXPECT_EQ(t.wait_exit(), 0) << t.output();
}

// On a terminal, `teval run` shows a long evaluation's progress on one
// line of stderr, rewritten in place and erased before what follows.
TEST(RunTerminal, ALongEvaluationShowsItsProgress) {
  Pty pty(test::scratch_dir("run-progress"),
          {"run", "-e", "output0[N] +=! x[N] * x[K % 4] where K in 2000000000, N in 4", "-i",
           "x=float32[4]", "--timeout", "2.5"});
  ASSERT_TRUE(pty.started());
  EXPECT_TRUE(pty.wait_for("\rteval run: statement 1/1, ")) << pty.output();
  EXPECT_TRUE(pty.wait_for("% of 8000000000 points, ")) << pty.output();
  EXPECT_EQ(pty.wait_exit(), 1);
  // The line is erased, then the diagnostic starts at the left margin.
  EXPECT_NE(pty.output().find("\r\033[K<command line>: error: the evaluation did not finish "
                              "within --timeout 2.5 s"),
            std::string::npos)
      << pty.output();

  // --no-progress: nothing but the diagnostic.
  Pty quiet(test::scratch_dir("run-progress"),
            {"run", "-e", "output0[N] +=! x[N] * x[K % 4] where K in 2000000000, N in 4", "-i",
             "x=float32[4]", "--timeout", "1.5", "--no-progress"});
  EXPECT_EQ(quiet.wait_exit(), 1);
  EXPECT_EQ(quiet.output().find("statement"), std::string::npos) << quiet.output();
}

// The line's text, for each state of the counters.
TEST(RunTerminal, ProgressLineText) {
  core::Progress p;
  EXPECT_EQ(core::ProgressLine::text(p, "teval run", 3.7), "teval run: evaluating, 3 s");
  p.statement = 2;
  p.statements = 5;
  p.done = 37;
  p.total = 100;
  EXPECT_EQ(core::ProgressLine::text(p, "teval run", 12.2),
            "teval run: statement 2/5, 37% of 100 points, 12 s");
}

} // namespace
} // namespace teval
