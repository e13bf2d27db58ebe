// Another compiler as a backend (see external.h).
#include "verify/external.h"

#include "core/error.h"
#include "core/npy.h"
#include "verify/program.h"
#include "verify/sandbox.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace teval::verify {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// The first \p n bytes of the file at \p path.
std::string head_of(const fs::path& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

// The last \p n bytes of the file at \p path.
std::string tail_of(const fs::path& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.size() > n)
    s = "..." + s.substr(s.size() - n);
  return s;
}

// The resident memory of every process of group \p group, in bytes, from
// /proc/PID/stat (field 5 the group, field 24 the resident pages).
int64_t group_resident_bytes(pid_t group) {
  static const int64_t page = ::sysconf(_SC_PAGESIZE);
  int64_t total = 0;
  std::error_code ec;
  // Processes come and go while /proc is read: an error is a process that
  // ended (read(2) of its stat fails with ESRCH), never an exception (an
  // ifstream's would be thrown by libstdc++, and lose the case).
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])))
      continue;
    std::string stat;
    int fd = ::open((it->path() / "stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    char buffer[1024];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
      stat.append(buffer, static_cast<size_t>(got));
    ::close(fd);
    size_t close = stat.rfind(')'); // the command name may hold spaces
    if (close == std::string::npos)
      continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    long long ppid = 0, pgrp = 0, skip = 0, rss = 0;
    fields >> state >> ppid >> pgrp;
    if (!fields || pgrp != group)
      continue;
    for (int i = 6; i < 24 && fields >> skip; ++i) {
    }
    if (fields >> rss)
      total += rss * page;
  }
  return total;
}

// The process's environment with \p overrides set, as "NAME=VALUE" strings.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (!overrides.count(entry.substr(0, entry.find('='))))
      env.push_back(std::move(entry));
  }
  for (const auto& [name, value] : overrides)
    env.push_back(name + "=" + value);
  return env;
}

// Runs \p command under /bin/sh in the child of a fork, with \p envp (made
// before the fork).
[[noreturn]] void exec_command(const std::string& command, const fs::path& work_dir,
                               char* const* envp) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGPIPE, SIG_DFL);
  int in = ::open("/dev/null", O_RDONLY);
  int out = ::open((work_dir / "stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = ::open((work_dir / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || err < 0)
    _exit(126);
  ::dup2(in, STDIN_FILENO);
  ::dup2(out, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  ::execle("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr), envp);
  _exit(127);
}

} // namespace

bool known_placeholder(const std::string& word) {
  return word == "program" || word == "inputs" || word == "outdir" || word == "lang" ||
         word == "entry";
}

std::string expand_command(const std::string& command,
                           const std::map<std::string, std::string>& values) {
  std::string out;
  for (size_t i = 0; i < command.size(); ++i) {
    if (command[i] != '{') {
      out += command[i];
      continue;
    }
    size_t close = command.find('}', i);
    std::string word = close == std::string::npos ? "" : command.substr(i + 1, close - i - 1);
    auto it = values.find(word);
    if (it == values.end()) {
      if (close != std::string::npos && !word.empty() &&
          word.find_first_of(" \t'\"{") == std::string::npos)
        throw core::Error(core::ErrorKind::Input, "--backend-cmd",
                          "unknown placeholder {" + word +
                              "}; the command may use {program}, {inputs}, {outdir}, {lang} "
                              "and {entry}");
      out += command[i]; // a brace of the shell's own
      continue;
    }
    out += shell_quote(it->second);
    i = close;
  }
  return out;
}

std::string first_diagnostic_line(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::string lower = line;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* word : {"error", "assert", "fatal", "panic", "terminate", "exception",
                             "segmentation", "abort", "unreachable"})
      if (lower.find(word) != std::string::npos)
        return line;
  }
  return "";
}

ExternalRun run_external(const ExternalBackend& backend, const std::string& work_dir,
                         const std::map<std::string, std::string>& placeholders,
                         const std::vector<std::string>& outputs) {
  ExternalRun r;
  const std::string command = expand_command(backend.command, placeholders);
  const std::vector<std::string> env = environment_with(backend.environment);
  std::vector<char*> envp;
  for (const std::string& e : env)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0)
    throw core::Error(core::ErrorKind::Limit, "--backend-cmd",
                      std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0)
    exec_command(command, work_dir, envp.data());
  ::setpgid(pid, pid); // also in the child: whichever runs first

  int status = 0;
  bool hung = false, hog = false;
  auto deadline = start + backend.timeout;
  auto next_measure = start + std::chrono::milliseconds(50);
  int64_t peak = 0;
  for (auto nap = std::chrono::microseconds(200);;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR)
      break;
    if (backend.memory > 0 && Clock::now() >= next_measure) {
      next_measure = Clock::now() + std::chrono::milliseconds(50);
      peak = std::max(peak, group_resident_bytes(pid));
      hog = peak > backend.memory;
    }
    if (hog || Clock::now() >= deadline) {
      hung = !hog;
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(20'000));
  }
  // Whatever the command left running in its group goes with it.
  ::kill(-pid, SIGKILL);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::string err = tail_of(fs::path(work_dir) / "stderr.txt", 2000);
  // The first diagnostic, from the start: a compiler's own dump after it
  // (MLIR prints the failing operation) can push it out of the tail.
  std::string first = first_diagnostic_line(head_of(fs::path(work_dir) / "stderr.txt", 1 << 16));
  std::string said = err.empty() ? "" : "\nits standard error ends:\n" + err;
  if (!first.empty())
    said = "\nits first diagnostic:\n" + first + "\n" + said;
  if (hog) {
    r.end = ExternalRun::End::Memory;
    r.detail = "the command's processes held " + std::to_string(peak >> 20) +
               " MiB of resident memory, past the budget of " +
               std::to_string(backend.memory >> 20) + " MiB, and were killed" + said;
    return r;
  }
  if (hung) {
    r.end = ExternalRun::End::Hang;
    r.detail = "the command was still running after " + std::to_string(backend.timeout.count()) +
               " ms and was killed" + said;
    return r;
  }
  if (WIFSIGNALED(status)) {
    r.end = ExternalRun::End::Crash;
    r.detail = "the command was " + describe_wait_status(status) + said;
    return r;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kDeclined) {
    r.end = ExternalRun::End::Declined;
    r.detail =
        "the command declined the program (exit status " + std::to_string(kDeclined) + ")" + said;
    return r;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    // The shell reports a command killed by a signal as 128 + the signal.
    r.end = code > 128 && code < 128 + 65 ? ExternalRun::End::Crash : ExternalRun::End::Exit;
    r.detail = "the command " + describe_wait_status(status) +
               (code > 128 && code < 128 + 65 ? " (the shell's way of saying killed by signal " +
                                                    std::to_string(code - 128) + ")"
                                              : "") +
               said;
    return r;
  }
  const std::string outdir = placeholders.at("outdir");
  for (const std::string& name : outputs) {
    fs::path path = fs::path(outdir) / (name + ".npy");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      r.end = ExternalRun::End::Missing;
      r.detail = "the command exited 0 without writing " + path.filename().string() + said;
      r.outputs.clear();
      return r;
    }
    try {
      r.outputs.emplace(name, core::read_npy(path.string()));
    } catch (const core::Error& e) {
      r.end = ExternalRun::End::Unreadable;
      r.detail = "the command wrote " + path.filename().string() + ", which teval cannot read:\n" +
                 e.render();
      r.outputs.clear();
      return r;
    }
  }
  return r;
}

} // namespace teval::verify
