// `teval` with no arguments and `teval repl`: the interactive session on a
// terminal (libedit), or a script read from stdin or a file.
#include "tools/teval/repl_command.h"

#include "core/files.h"
#include "core/interrupt.h"

#include "core/error.h"
#include "tools/teval/cli_support.h"
#include "tools/teval/repl_input.h"
#include "tools/teval/repl_session.h"

#include <histedit.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cwchar>
#include <iostream>
#include <iterator>
#include <new>
#include <sstream>
#include <unistd.h>

namespace teval::tools {

const char* const kReplHelp = R"(usage: teval [repl [--engine E] [FILE]]

An interactive session for exploring tensor index notations: define tensors,
evaluate statements against them, inspect types, loop nests and compiled
code. `:help` inside lists the entries and commands; docs/REPL.md has the
details.

On a terminal: line editing, history kept in ~/.teval_history (the last 1000
entries), Tab completion; Ctrl-C cancels the current input or stops a running
evaluation, Ctrl-D leaves.

When stdin is not a terminal, or a FILE is given, the input is a script: each
entry runs in turn and prints its results; the first error stops it.

options:
  --engine E    who evaluates statements from the start: interp (the
                default), ireval, jit or hexagon; `:set engine E` changes it
  -h, --help    this text

exit status: 0 success; 1 an entry of a script is wrong (a diagnostic on
stderr); 2 a usage error.
)";

namespace {

using repl::Session;

constexpr int kHistorySize = 1000;
const char* const kPrompt = "teval> ";
const char* const kContinuation = "  ...> ";

// Runs a script; returns the exit code.
int run_script(const std::string& name, const std::string& text, const std::string& engine) {
  Session session(engine);
  repl::EntryReader reader(name);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::shared_ptr<const core::SourceFile> entry = reader.add(line);
    if (!entry)
      continue;
    try {
      repl::Outcome out = session.execute(entry);
      std::cout << out.text;
      if (out.quit)
        return 0;
    } catch (const core::Error& e) {
      std::cout.flush();
      std::cerr << e.render();
      return 1;
    } catch (const std::bad_alloc&) {
      std::cout.flush();
      std::cerr << name << ":" << entry->location(0).line << ": error: out of memory\n";
      return 1;
    }
  }
  if (std::optional<core::Error> e = reader.unfinished()) {
    std::cout.flush();
    std::cerr << e->render();
    return 1;
  }
  return 0;
}

// --- The terminal ----------------------------------------------------------

volatile sig_atomic_t g_interrupted = 0;
volatile sig_atomic_t g_resized = 0;

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
}
// Stops the entry being evaluated (every engine polls it, or is left by a
// signal; see core/interrupt.h).
core::Interrupt g_evaluation;

// While an entry is evaluated: the first Ctrl-C stops it, the entry fails
// and the session is unchanged; a second one, for work that cannot be
// stopped (compiling a kernel), ends teval.
extern "C" void on_interrupt_running(int) {
  if (g_interrupted) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  g_interrupted = 1;
  const char message[] = "^C\n";
  ssize_t ignored = write(STDOUT_FILENO, message, sizeof message - 1);
  (void)ignored;
  g_evaluation.request();
}
extern "C" void on_resize(int) {
  g_resized = 1;
}

struct Terminal {
  explicit Terminal(const std::string& engine) : session(engine) {}
  Session session;
  const char* prompt = kPrompt;
};

Terminal* terminal_of(EditLine* el) {
  void* data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  return static_cast<Terminal*>(data);
}

extern "C" char* prompt(EditLine* el) {
  return const_cast<char*>(terminal_of(el)->prompt);
}

// Reads one character for libedit; Ctrl-C (a SIGINT while waiting) ends
// el_gets with an error so the input can be dropped.
extern "C" int read_char(EditLine* el, wchar_t* out) {
  std::mbstate_t state{};
  while (true) {
    if (g_interrupted) {
      errno = EINTR;
      return -1;
    }
    char c = 0;
    ssize_t n = read(STDIN_FILENO, &c, 1);
    if (n == 0)
      return 0;
    if (n < 0) {
      if (errno != EINTR)
        return -1;
      if (g_resized) {
        g_resized = 0;
        el_resize(el);
      }
      continue;
    }
    wchar_t w = 0;
    size_t r = std::mbrtowc(&w, &c, 1, &state);
    if (r == static_cast<size_t>(-2))
      continue; // more bytes of a multibyte character
    if (r == static_cast<size_t>(-1)) {
      state = {};
      w = static_cast<unsigned char>(c);
    }
    *out = w;
    return 1;
  }
}

extern "C" unsigned char complete_word(EditLine* el, int) {
  Terminal* t = terminal_of(el);
  const LineInfo* li = el_line(el);
  std::string_view before(li->buffer, static_cast<size_t>(li->cursor - li->buffer));
  size_t start = before.size();
  std::vector<std::string> words = repl::complete(t->session, before, start);
  std::string typed(before.substr(start));
  if (words.empty())
    return CC_REFRESH_BEEP;
  std::string prefix = repl::common_prefix(words);
  if (prefix.size() > typed.size()) {
    std::string add = prefix.substr(typed.size());
    if (words.size() == 1 && prefix[0] == ':')
      add += ' ';
    el_insertstr(el, add.c_str());
    return CC_REFRESH;
  }
  if (words.size() == 1)
    return CC_REFRESH;
  // Show the choices under the line, in columns.
  size_t width = 0;
  for (const std::string& w : words)
    width = std::max(width, w.size() + 2);
  size_t columns = std::max<size_t>(1, 78 / width);
  std::string list = "\n";
  for (size_t i = 0; i < words.size(); ++i) {
    list += words[i];
    bool end = (i + 1) % columns == 0 || i + 1 == words.size();
    list += end ? "\n" : std::string(width - words[i].size(), ' ');
  }
  std::fputs(list.c_str(), stdout);
  std::fflush(stdout);
  return CC_REDISPLAY;
}

std::string history_path() {
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    return "";
  return std::string(home) + "/.teval_history";
}

int run_terminal(const std::string& engine) {
  Terminal t(engine);
  EditLine* el = el_init("teval", stdin, stdout, stderr);
  if (!el) {
    std::cerr << "teval: cannot set up line editing on this terminal\n";
    return 1;
  }
  History* hist = history_init();
  HistEvent ev;
  history(hist, &ev, H_SETSIZE, kHistorySize);
  history(hist, &ev, H_SETUNIQUE, 1);
  std::string hist_file = history_path();
  if (!hist_file.empty())
    history(hist, &ev, H_LOAD, hist_file.c_str());
  el_set(el, EL_CLIENTDATA, &t);
  el_set(el, EL_EDITOR, "emacs");
  el_set(el, EL_PROMPT, prompt);
  el_set(el, EL_HIST, history, hist);
  el_set(el, EL_GETCFN, read_char);
  // The wide form: the narrow one copies the two strings and never frees them.
  el_wset(el, EL_ADDFN, L"teval-complete", L"complete a name or command", complete_word);
  el_set(el, EL_BIND, "^I", "teval-complete", nullptr);
  el_source(el, nullptr); // the user's ~/.editrc, if any

  struct sigaction interrupt = {}, running = {}, resize = {}, old_interrupt = {}, old_resize = {};
  interrupt.sa_handler = on_interrupt; // no SA_RESTART: read() returns EINTR
  running.sa_handler = on_interrupt_running;
  running.sa_flags = SA_RESTART;
  resize.sa_handler = on_resize;
  sigaction(SIGWINCH, &resize, &old_resize);

  std::cout << "teval 0.1.0 — :help lists the commands, Ctrl-D leaves. Notation: antares.\n";
  repl::EntryReader reader("<input>");
  std::string entry_text; // the lines of the entry in progress
  while (true) {
    t.prompt = reader.empty() ? kPrompt : kContinuation;
    g_interrupted = 0;
    sigaction(SIGINT, &interrupt, &old_interrupt);
    int count = 0;
    const char* got = el_gets(el, &count);
    sigaction(SIGINT, &running, nullptr);
    bool interrupted = g_interrupted;
    g_interrupted = 0;
    if (!got && interrupted) {
      // Ctrl-C: drop the input typed so far.
      std::fputs("^C\n", stdout);
      std::fflush(stdout);
      reader.clear();
      entry_text.clear();
      el_reset(el);
      continue;
    }
    if (!got || count <= 0) {
      if (!reader.empty())
        std::cout << "\n";
      std::cout << "\n";
      break;
    }
    std::string text(got, static_cast<size_t>(count));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
      text.pop_back();
    // A multi-line entry recalled from history comes back as one text.
    std::shared_ptr<const core::SourceFile> entry;
    for (size_t begin = 0; begin <= text.size();) {
      size_t end = std::min(text.find('\n', begin), text.size());
      entry = reader.add(text.substr(begin, end - begin));
      begin = end + 1;
    }
    entry_text += (entry_text.empty() ? "" : "\n") + text;
    if (!entry)
      continue;
    // History keeps whole entries, so recalling one brings all its lines.
    if (entry_text.find_first_not_of(" \t\n") != std::string::npos) {
      history(hist, &ev, H_ENTER, entry_text.c_str());
      if (!hist_file.empty())
        history(hist, &ev, H_SAVE, hist_file.c_str());
    }
    entry_text.clear();
    try {
      g_evaluation.reset();
      core::InterruptScope scope(g_evaluation);
      repl::Outcome out = t.session.execute(entry);
      std::cout << out.text << std::flush;
      if (out.quit)
        break;
    } catch (const core::Error& e) {
      std::cout.flush();
      if (e.kind() == core::ErrorKind::Interrupted)
        std::cerr << "interrupted; the session is unchanged\n" << std::flush;
      else
        std::cerr << e.render() << std::flush;
    } catch (const std::bad_alloc&) {
      std::cout.flush();
      std::cerr << "error: out of memory; the session is unchanged\n" << std::flush;
    }
  }
  sigaction(SIGINT, &old_interrupt, nullptr);
  sigaction(SIGWINCH, &old_resize, nullptr);
  history_end(hist);
  el_end(el);
  return 0;
}

} // namespace

int repl_command(const std::vector<std::string>& args) {
  std::optional<std::string> file;
  std::string engine = "interp";
  auto usage_error = [](const std::string& message) {
    std::cerr << "teval repl: " << message << "\n(see teval repl --help)\n";
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kReplHelp;
      return 0;
    }
    if (a == "--engine") {
      if (i + 1 == args.size())
        return usage_error("--engine needs a value");
      engine = args[++i];
      const std::vector<std::string>& all = Session::engines();
      if (std::find(all.begin(), all.end(), engine) == all.end())
        return usage_error("unknown engine '" + engine + "'; the REPL has interp, ireval, jit, " +
                           "hexagon");
      continue;
    }
    if ((!a.empty() && a[0] == '-' && a != "-") || file)
      return usage_error("unexpected argument '" + a + "'");
    file = a;
  }
  if (file && *file != "-") {
    std::string text;
    try {
      text = read_source(*file);
    } catch (const core::Error& e) {
      std::cerr << e.render();
      return 1;
    }
    return run_script(*file, text, engine);
  }
  if (!file && isatty(STDIN_FILENO))
    return run_terminal(engine);
  std::string text;
  try {
    text = core::read_stream(std::cin, core::kMaxSourceBytes, "<stdin>", "a script");
  } catch (const core::Error& e) {
    std::cerr << e.render();
    return 1;
  }
  return run_script("<stdin>", text, engine);
}

} // namespace teval::tools
