// `teval fuzz`: the campaign's coordinator and its workers (see fuzz.h).
//
// The coordinator is one single-threaded process: it hands case numbers to
// J worker processes through pipes, logs each answer in DIR/cases.log the
// moment it comes, keeps report.json and junit.xml current, prints
// progress, and stops on the case count, the time limit, SIGINT or
// SIGTERM. A worker generates its case, checks it in a sandboxed child
// (fuzz_case.h), shrinks a failing one, and writes the finding's directory
// itself (a rename, so two workers finding one signature at once cannot
// both write it).
#include "verify/fuzz.h"

#include "core/error.h"
#include "core/format.h"
#include "core/json.h"
#include "jit/hexagon/hexagon.h"
#include "verify/fuzz_state.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace teval::verify {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// ---- the worker -----------------------------------------------------------

// The command that reruns a saved case: teval run on the saved program and
// inputs with the engine, and the interpreter to compare; for the external
// backend, its command on the saved files and teval check of what it wrote.
std::string reproduce_text(const Program& p, const fs::path& dir, const Disagreement& d,
                           const CampaignSettings& settings, const std::string& teval) {
  fs::path abs = fs::absolute(dir);
  std::string program = shell_quote((abs / program_file_name(p)).string());
  std::string inputs;
  for (const auto& entry : fs::directory_iterator(abs / "inputs")) {
    std::string name = entry.path().stem().string();
    inputs += " -i " + name + "=" + shell_quote(entry.path().string());
  }
  std::string entry = p.entry.empty() ? "" : " --entry " + p.entry;
  std::string run = teval + " run " + program + entry + inputs;
  std::string s = "#!/bin/sh\n# " + d.kind + " in " + d.backend + "\n";
  if (d.backend == "external" && settings.target.external) {
    fs::path work = abs / "outputs" / "external";
    std::map<std::string, std::string> values{{"program", (work / program_file_name(p)).string()},
                                              {"inputs", (work / "inputs").string()},
                                              {"outdir", (work / "out").string()},
                                              {"lang", p.lang},
                                              {"entry", p.entry}};
    s += "# the external backend on the saved case";
    if (!settings.target.external->environment.empty())
      s += ", in the environment the campaign recorded";
    s += ":\n";
    for (const auto& [name, value] : settings.target.external->environment)
      s += "export " + name + "=" + shell_quote(value) + "\n";
    s += expand_command(settings.target.external->command, values) + "\n";
    s += "# the verdict on what it wrote (teval check):\n" + teval + " check " + program + entry +
         inputs + (settings.target.fma ? " --fma" : "");
    for (const auto& out : fs::directory_iterator(abs / "expected"))
      if (out.path().extension() == ".npy")
        s += " --candidate " + out.path().stem().string() + "=" +
             shell_quote((work / "out" / out.path().filename()).string());
    return s + "\n";
  }
  if (d.backend == "interp")
    return s + run + "\n";
  return s + run + " --engine " + d.backend + "\n# against the interpreter:\n" + run +
         " --engine interp\n";
}

bool same_failure(const CaseResult& r, const Disagreement& d) {
  return r.disagreement && r.disagreement->kind == d.kind && r.disagreement->backend == d.backend;
}

// Checks case \p index; returns the log line.
state::LogLine work_on_case(const std::string& dir, const CampaignSettings& settings,
                            const FuzzRun& run, uint64_t index) {
  state::LogLine line{index, "ok", ""};
  Case c = make_case(settings.space, index);
  CaseResult r = check_case(c.program, c.input_seed, settings.target);
  if (!r.disagreement) {
    line.status = r.external_skipped     ? "skip"
                  : r.external_declined  ? "unsupported"
                  : r.reference_error    ? "error"
                  : r.engine_unsupported ? "unrun"
                                         : "ok";
    return line;
  }
  const Disagreement first = *r.disagreement;
  ShrinkResult shrunk = shrink(
      c.program,
      [&](const Program& candidate) {
        return same_failure(check_case(candidate, c.input_seed, settings.target), first);
      },
      run.shrink);
  std::string signature = finding_signature(shrunk.program, first);
  line.status = "finding";
  line.signature = signature;
  fs::path final_dir = fs::path(dir) / "findings" / signature;
  if (fs::exists(final_dir))
    return line;
  // Saved in a directory of this worker's, then renamed into place.
  fs::path tmp = fs::path(dir) / "tmp" / (std::to_string(index) + "-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  CaseResult original =
      check_case(c.program, c.input_seed, settings.target, (tmp / "original").string());
  CaseResult small =
      check_case(shrunk.program, c.input_seed, settings.target, (tmp / "shrunk").string());
  const Disagreement& d = small.disagreement ? *small.disagreement : first;
  std::string what = "case " + std::to_string(index) + " of seed " +
                     std::to_string(settings.space.seed) + ": " + first.kind + " in " +
                     first.backend + "\n\nshrunk (" + std::to_string(shrunk.steps) + " steps, " +
                     std::to_string(shrunk.attempts) + " tried) to:\n" + source(shrunk.program) +
                     "\n\n" + d.what + "\n";
  if (!small.disagreement)
    what += "\n(the shrunk case did not fail again when saved: the failure may be flaky)\n";
  (void)original;
  write_text_file((tmp / "finding.txt").string(), what);
  fs::path reproduce_dir =
      fs::exists(tmp / "shrunk" / "inputs") ? tmp / "shrunk" : tmp / "original";
  // The reproduce command names the final place.
  fs::path named = final_dir / reproduce_dir.filename();
  fs::create_directories(reproduce_dir / "inputs");
  std::string reproduce = reproduce_text(shrunk.program, reproduce_dir, d, settings, run.teval);
  std::string from = fs::absolute(reproduce_dir).string(), to = fs::absolute(named).string();
  for (size_t at = reproduce.find(from); at != std::string::npos;
       at = reproduce.find(from, at + to.size()))
    reproduce.replace(at, from.size(), to);
  write_text_file((tmp / "reproduce.sh").string(), reproduce);
  fs::permissions(tmp / "reproduce.sh", fs::perms::owner_exec | fs::perms::group_exec,
                  fs::perm_options::add);
  state::write_meta(tmp.string(), {first.backend, first.kind, shrunk.program.lang,
                                   statement_count(shrunk.program),
                                   static_cast<int>(shrunk.program.inputs.size())});
  fs::create_directories(final_dir.parent_path());
  if (::rename(tmp.c_str(), final_dir.c_str()) != 0)
    fs::remove_all(tmp, ec); // another worker saved this signature first
  return line;
}

[[noreturn]] void worker_main(int in_fd, int out_fd, const std::string& dir,
                              const CampaignSettings& settings, const FuzzRun& run) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Ctrl-C, `timeout` and job control signal the whole process group: the
  // coordinator alone decides (it stops workers with SIGKILL), so that a
  // case in flight is left for a resumed run, never logged as lost. The
  // sandboxed children inherit this; the commands they run do not.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  std::string buffer;
  char chunk[256];
  for (;;) {
    size_t nl;
    while ((nl = buffer.find('\n')) == std::string::npos) {
      ssize_t got = ::read(in_fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        _exit(0);
      buffer.append(chunk, static_cast<size_t>(got));
    }
    std::string request = buffer.substr(0, nl);
    buffer.erase(0, nl + 1);
    if (request == "quit")
      _exit(0);
    uint64_t index = std::stoull(request);
    state::LogLine l;
    try {
      const std::vector<std::string>& engines = settings.target.engines;
      if (std::count(engines.begin(), engines.end(), "hexagon"))
        jit::prepare_dsp_simulator(); // shared by the sandboxed cases
      l = work_on_case(dir, settings, run, index);
    } catch (const std::exception& e) {
      l = {index, "lost", ""};
      // What went wrong, for the bug report (docs/CAMPAIGNS.md).
      std::ofstream(std::filesystem::path(dir) / ("lost-" + std::to_string(index) + ".txt"))
          << e.what() << "\n";
    }
    std::string reply = state::log_line_text(l);
    if (::write(out_fd, reply.data(), reply.size()) != static_cast<ssize_t>(reply.size()))
      _exit(1);
  }
}

// ---- the coordinator ------------------------------------------------------

int signal_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int) {
  int saved = errno;
  char b = 1;
  (void)!::write(signal_pipe[1], &b, 1);
  errno = saved;
}

struct Worker {
  pid_t pid = -1;
  int to = -1;   // the coordinator writes case numbers here
  int from = -1; // and reads answers here
  std::string buffer;
  std::optional<uint64_t> busy;
};

Worker spawn_worker(const std::string& dir, const CampaignSettings& settings, const FuzzRun& run,
                    const std::vector<Worker>& others) {
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0)
    throw core::Error(core::ErrorKind::Limit, dir, "cannot make a pipe for a worker");
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = ::fork();
  if (pid < 0)
    throw core::Error(core::ErrorKind::Limit, dir, "cannot start a worker process");
  if (pid == 0) {
    for (const Worker& w : others) {
      ::close(w.to);
      ::close(w.from);
    }
    ::close(signal_pipe[0]);
    ::close(signal_pipe[1]);
    ::close(down[1]);
    ::close(up[0]);
    worker_main(down[0], up[1], dir, settings, run);
  }
  ::close(down[0]);
  ::close(up[1]);
  return Worker{pid, down[1], up[0], "", std::nullopt};
}

void stop_worker(Worker& w) {
  if (w.pid < 0)
    return;
  ::kill(w.pid, SIGKILL);
  while (::waitpid(w.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  ::close(w.to);
  ::close(w.from);
  w.pid = -1;
}

std::string clock_text(double seconds) {
  int64_t s = static_cast<int64_t>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return buf;
}

std::string progress_text(const FuzzSummary& s, double elapsed, std::optional<double> left) {
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f", elapsed > 0 ? s.run_cases / elapsed : 0.0);
  std::string t = std::to_string(s.cases) + " cases (" + rate + "/s), " +
                  std::to_string(s.findings.size()) + " findings (" +
                  std::to_string(s.finding_cases) + " cases), " + clock_text(elapsed) + " elapsed";
  if (left)
    t += ", " + clock_text(*left) + " left";
  return t;
}

} // namespace

std::optional<CampaignSettings> load_settings(const std::string& dir) {
  fs::path p = fs::path(dir) / "campaign.txt";
  if (!fs::exists(p))
    return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return state::parse_settings(text, p.string());
}

FuzzSummary run_fuzz(const std::string& dir, const CampaignSettings& settings, const FuzzRun& run) {
  fs::create_directories(fs::path(dir) / "findings");
  // One campaign process per directory: a second would log the same cases.
  std::string lock_path = (fs::path(dir) / "lock").string();
  int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX | LOCK_NB) != 0) {
    if (lock >= 0)
      ::close(lock);
    throw core::Error(core::ErrorKind::Input, dir,
                      "another teval fuzz is running on this campaign directory");
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  std::string settings_text = state::settings_text(settings);
  if (auto saved = load_settings(dir)) {
    if (state::settings_text(*saved) != settings_text)
      throw core::Error(core::ErrorKind::Input, (fs::path(dir) / "campaign.txt").string(),
                        "this directory holds a campaign with other settings:\n" +
                            state::settings_text(*saved));
  } else {
    state::write_atomically((fs::path(dir) / "campaign.txt").string(), settings_text);
  }
  std::error_code ec;
  fs::remove_all(fs::path(dir) / "tmp", ec); // what a stopped run left half done
  FuzzSummary summary;
  std::set<uint64_t> done;
  state::load_log(dir, summary, done);

  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  auto time_left = [&]() -> std::optional<double> {
    if (!run.time)
      return std::nullopt;
    return std::max(0.0, std::chrono::duration<double>(*run.time).count() - elapsed());
  };
  // Case numbers of this shard not done yet, in order.
  uint64_t next_k = 0;
  auto next_case = [&]() -> std::optional<uint64_t> {
    for (;; ++next_k) {
      if (run.cases && next_k >= *run.cases)
        return std::nullopt;
      uint64_t index = settings.shard_index + settings.shard_count * next_k;
      if (!done.count(index)) {
        ++next_k;
        return index;
      }
    }
  };

  if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    throw core::Error(core::ErrorKind::Limit, dir, "cannot make a pipe");
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  ::sigaction(SIGINT, &action, &old_int);
  ::sigaction(SIGTERM, &action, &old_term);
  std::signal(SIGPIPE, SIG_IGN);

  std::vector<Worker> workers;
  for (int j = 0; j < std::max(1, run.jobs); ++j)
    workers.push_back(spawn_worker(dir, settings, run, workers));

  const bool tty = ::isatty(STDERR_FILENO);
  auto last_report = Clock::now(), last_progress = Clock::now();
  bool dispatching = true, live_line = false;
  uint64_t run_findings = 0; // cases of this run with a finding
  std::optional<Clock::time_point> drain_deadline;
  auto say = [&](const std::string& text) {
    if (!run.verbose)
      return;
    std::string s = (live_line ? "\r\033[K" : "") + text + "\n";
    live_line = false;
    (void)!::write(STDERR_FILENO, s.data(), s.size());
  };
  auto write_reports = [&](bool finished) {
    summary.seconds = elapsed();
    state::write_reports(dir, settings, summary, finished);
    last_report = Clock::now();
  };
  write_reports(false);

  // Whether the run was cut short (--time, --stop-after, a signal): then
  // running cases get 30 s (none after a signal); once every case of
  // --cases is handed out, the run waits for the last ones to finish.
  bool cut_short = false;
  for (;;) {
    if (dispatching &&
        ((run.time && elapsed() >= std::chrono::duration<double>(*run.time).count()) ||
         (run.stop_after > 0 && run_findings >= run.stop_after))) {
      dispatching = false;
      cut_short = true;
    }
    if (dispatching)
      for (Worker& w : workers) {
        if (w.busy)
          continue;
        std::optional<uint64_t> index = next_case();
        if (!index) {
          dispatching = false;
          break;
        }
        std::string request = std::to_string(*index) + "\n";
        if (::write(w.to, request.data(), request.size()) == static_cast<ssize_t>(request.size()))
          w.busy = index;
      }
    bool any_busy = false;
    for (const Worker& w : workers)
      any_busy = any_busy || w.busy;
    if (!dispatching && !any_busy)
      break;
    if (!dispatching && !drain_deadline && (cut_short || summary.interrupted))
      drain_deadline = Clock::now() + std::chrono::seconds(summary.interrupted ? 0 : 30);
    if (drain_deadline && Clock::now() >= *drain_deadline)
      break; // in-flight cases are left for a resumed run

    std::vector<pollfd> fds{{signal_pipe[0], POLLIN, 0}};
    for (const Worker& w : workers)
      fds.push_back({w.from, POLLIN, 0});
    int n = ::poll(fds.data(), fds.size(), 200);
    if (n < 0 && errno != EINTR)
      break;
    if (fds[0].revents & POLLIN) {
      char b[64];
      while (::read(signal_pipe[0], b, sizeof b) > 0) {
      }
      summary.interrupted = true;
      dispatching = false;
      drain_deadline = Clock::now();
      break;
    }
    for (size_t i = 0; i < workers.size(); ++i) {
      Worker& w = workers[i];
      if (!(fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[4096];
      ssize_t got = ::read(w.from, chunk, sizeof chunk);
      if (got <= 0) {
        // The worker died (a bug of teval's own outside the sandbox): its
        // case is logged as lost and a new worker takes over.
        if (w.busy) {
          state::LogLine l{*w.busy, "lost", ""};
          state::append_log(dir, l);
          done.insert(l.index);
          state::account(summary, l, dir);
          ++summary.run_cases;
          say("teval fuzz: warning: a worker died on case " + std::to_string(l.index));
        }
        stop_worker(w);
        w = spawn_worker(dir, settings, run, workers);
        continue;
      }
      w.buffer.append(chunk, static_cast<size_t>(got));
      size_t nl;
      while ((nl = w.buffer.find('\n')) != std::string::npos) {
        std::istringstream fields(w.buffer.substr(0, nl));
        w.buffer.erase(0, nl + 1);
        state::LogLine l;
        fields >> l.index >> l.status >> l.signature;
        state::append_log(dir, l);
        done.insert(l.index);
        bool fresh = l.status == "finding" && !summary.findings.count(l.signature);
        state::account(summary, l, dir);
        ++summary.run_cases;
        run_findings += l.status == "finding";
        w.busy.reset();
        if (fresh) {
          const FindingGroup& g = summary.findings[l.signature];
          say("finding " + l.signature + ": " + g.kind + " in " + g.backend + " (case " +
              std::to_string(l.index) + "), shrunk to " + std::to_string(g.statements) +
              " statement(s) and " + std::to_string(g.inputs) + " input(s); see " +
              (fs::path(dir) / "findings" / l.signature).string());
          write_reports(false);
        }
      }
    }
    auto now = Clock::now();
    if (now - last_report > std::chrono::seconds(5))
      write_reports(false);
    if (run.verbose && now - last_progress > std::chrono::seconds(tty ? 1 : 10)) {
      last_progress = now;
      std::string line = "teval fuzz: " + progress_text(summary, elapsed(), time_left());
      if (tty) {
        line = "\r\033[K" + line;
        live_line = true;
      } else {
        line += "\n";
      }
      (void)!::write(STDERR_FILENO, line.data(), line.size());
    }
  }
  for (Worker& w : workers) {
    if (!w.busy) {
      (void)!::write(w.to, "quit\n", 5);
      ::close(w.to);
      while (::waitpid(w.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      ::close(w.from);
      w.pid = -1;
    } else {
      stop_worker(w);
    }
  }
  if (live_line)
    say("");
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::close(signal_pipe[0]);
  ::close(signal_pipe[1]);
  fs::remove_all(fs::path(dir) / "tmp", ec);
  bool finished = run.cases && !summary.interrupted && [&] {
    for (uint64_t k = 0; k < *run.cases; ++k)
      if (!done.count(settings.shard_index + settings.shard_count * k))
        return false;
    return true;
  }();
  write_reports(finished);
  return summary;
}

FuzzSummary merge_campaigns(const std::vector<std::string>& dirs, const std::string& out) {
  if (dirs.empty())
    throw core::Error(core::ErrorKind::Input, out, "nothing to merge");
  std::optional<CampaignSettings> first;
  std::map<uint64_t, state::LogLine> lines;
  fs::create_directories(fs::path(out) / "findings");
  for (const std::string& d : dirs) {
    std::optional<CampaignSettings> s = load_settings(d);
    if (!s)
      throw core::Error(core::ErrorKind::Input, d, "not a campaign directory (no campaign.txt)");
    CampaignSettings unsharded = *s;
    unsharded.shard_index = 0;
    unsharded.shard_count = 1;
    if (!first)
      first = unsharded;
    else if (state::settings_text(*first) != state::settings_text(unsharded))
      throw core::Error(core::ErrorKind::Input, (fs::path(d) / "campaign.txt").string(),
                        "this campaign's settings differ from those of " + dirs[0]);
    std::ifstream in(fs::path(d) / "cases.log");
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      state::LogLine l;
      if (!(fields >> l.index >> l.status))
        continue;
      fields >> l.signature;
      auto [it, fresh] = lines.emplace(l.index, l);
      if (!fresh && (it->second.status != l.status || it->second.signature != l.signature))
        throw core::Error(core::ErrorKind::Input, (fs::path(d) / "cases.log").string(),
                          "case " + std::to_string(l.index) + " is `" + l.status + "` here and `" +
                              it->second.status + "` in another campaign");
    }
    for (const auto& f : fs::directory_iterator(fs::path(d) / "findings")) {
      fs::path target = fs::path(out) / "findings" / f.path().filename();
      if (!fs::exists(target))
        fs::copy(f.path(), target, fs::copy_options::recursive);
    }
  }
  std::string log;
  FuzzSummary summary;
  for (const auto& [index, l] : lines) {
    log += state::log_line_text(l);
    state::account(summary, l, out);
  }
  state::write_atomically((fs::path(out) / "campaign.txt").string(), state::settings_text(*first));
  state::write_atomically((fs::path(out) / "cases.log").string(), log);
  state::write_reports(out, *first, summary, false);
  return summary;
}

std::string pack_campaign(const std::string& dir) {
  std::string out = "teval-campaign-pack 1\n";
  auto add = [&](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string rel = fs::relative(file, dir).string();
    out += rel + "\n" + std::to_string(bytes.size()) + "\n" + bytes;
  };
  for (const char* name : {"campaign.txt", "cases.log"})
    if (fs::exists(fs::path(dir) / name))
      add(fs::path(dir) / name);
  if (fs::exists(fs::path(dir) / "findings"))
    for (const auto& e : fs::recursive_directory_iterator(fs::path(dir) / "findings"))
      if (e.is_regular_file())
        add(e.path());
  return out;
}

void unpack_campaign(const std::string& bytes, const std::string& dir) {
  auto bad = [&] { return core::Error(core::ErrorKind::Input, dir, "not a packed campaign"); };
  const std::string magic = "teval-campaign-pack 1\n";
  if (bytes.compare(0, magic.size(), magic) != 0)
    throw bad();
  for (size_t at = magic.size(); at < bytes.size();) {
    size_t nl = bytes.find('\n', at);
    size_t nl2 = nl == std::string::npos ? nl : bytes.find('\n', nl + 1);
    if (nl2 == std::string::npos)
      throw bad();
    fs::path rel = bytes.substr(at, nl - at);
    uint64_t size = std::stoull(bytes.substr(nl + 1, nl2 - nl - 1));
    if (rel.is_absolute() || rel.empty() || size > bytes.size() - nl2 - 1)
      throw bad();
    for (const auto& part : rel)
      if (part == "..")
        throw bad();
    fs::path target = fs::path(dir) / rel;
    fs::create_directories(target.parent_path());
    write_text_file(target.string(), bytes.substr(nl2 + 1, size));
    at = nl2 + 1 + size;
  }
}

std::string summary_text(const FuzzSummary& s, const std::string& dir) {
  std::string t = std::to_string(s.cases) + " cases";
  if (s.run_cases != s.cases)
    t += " (" + std::to_string(s.run_cases) + " in this run)";
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f", s.seconds > 0 ? s.run_cases / s.seconds : 0.0);
  t += " in " + clock_text(s.seconds) + " (" + rate + " cases/s), " +
       std::to_string(s.reference_errors) + " programs the interpreter rejects, " +
       (s.engine_unsupported
            ? std::to_string(s.engine_unsupported) + " cases an engine could not run (no verdict), "
            : std::string()) +
       (s.unsupported ? std::to_string(s.unsupported) +
                            " cases the command declined (unsupported, no verdict), "
                      : std::string()) +
       std::to_string(s.findings.size()) + " findings in " + std::to_string(s.finding_cases) +
       " cases" + (s.interrupted ? " (interrupted)" : "") + "\n";
  for (const auto& [sig, g] : s.findings)
    t += "  " + sig + ": " + g.kind + " in " + g.backend + ", " + std::to_string(g.count) +
         " case(s), shrunk to " + std::to_string(g.statements) + " statement(s), " +
         std::to_string(g.inputs) + " input(s): " + (fs::path(dir) / "findings" / sig).string() +
         "/reproduce.sh\n";
  t += "report: " + (fs::path(dir) / "report.json").string() + "\n";
  return t;
}

} // namespace teval::verify
