// Running code under test in a child process (see sandbox.h).
#include "verify/sandbox.h"

#include "core/error.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace teval::verify {

namespace {

using Clock = std::chrono::steady_clock;

// Records on the pipe: a tag byte, a 4-byte length, the bytes. 'S' is a
// stage ("what\nbudget_ms"), 'R' the result.
void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      _exit(125); // the parent is gone
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void write_record(int fd, char tag, const std::string& bytes) {
  char header[5] = {tag};
  uint32_t n = static_cast<uint32_t>(bytes.size());
  std::memcpy(header + 1, &n, 4);
  write_all(fd, header, 5);
  write_all(fd, bytes.data(), bytes.size());
}

[[noreturn]] void child_main(int fd, const std::function<std::string(Stage&)>& body) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::signal(SIGINT, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::close(null);
  }
  Stage stage(fd);
  std::string result = body(stage);
  write_record(fd, 'R', result);
  ::close(fd);
  // No destructors or atexit handlers of the parent's objects: they belong
  // to the parent.
  _exit(0);
}

} // namespace

void Stage::begin(const std::string& what, std::chrono::milliseconds budget) {
  write_record(fd_, 'S', what + "\n" + std::to_string(budget.count()));
}

std::chrono::milliseconds sandbox_grace() {
  return std::chrono::milliseconds(2000);
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    int s = WTERMSIG(status);
    const char* name = strsignal(s);
    return "killed by signal " + std::to_string(s) + " (" + (name ? name : "unknown") + ")";
  }
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

ChildResult run_in_child(const std::function<std::string(Stage&)>& body,
                         std::chrono::milliseconds first_budget) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw core::Error(core::ErrorKind::Limit, "<sandbox>",
                      std::string("cannot make a pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw core::Error(core::ErrorKind::Limit, "<sandbox>",
                      std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], body);
  }
  ::close(fds[1]);
  const int fd = fds[0];

  ChildResult r;
  std::string buffer;
  bool have_result = false;
  Clock::time_point deadline = Clock::now() + first_budget + sandbox_grace();
  std::chrono::milliseconds budget = first_budget;
  bool hung = false;
  for (bool open = true; open;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      hung = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      continue;
    char chunk[65536];
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      open = false;
      break;
    }
    buffer.append(chunk, static_cast<size_t>(got));
    // Take every whole record.
    while (buffer.size() >= 5) {
      uint32_t len;
      std::memcpy(&len, buffer.data() + 1, 4);
      if (buffer.size() < 5 + static_cast<size_t>(len))
        break;
      char tag = buffer[0];
      std::string bytes = buffer.substr(5, len);
      buffer.erase(0, 5 + static_cast<size_t>(len));
      if (tag == 'S') {
        size_t nl = bytes.find('\n');
        r.stage = bytes.substr(0, nl);
        budget = std::chrono::milliseconds(std::stoll(bytes.substr(nl + 1)));
        deadline = Clock::now() + budget + sandbox_grace();
      } else if (tag == 'R') {
        r.payload = std::move(bytes);
        have_result = true;
      }
    }
  }
  ::close(fd);
  if (hung)
    ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (hung) {
    r.end = ChildResult::End::Hung;
    r.detail = "still running " + std::to_string(budget.count()) + " ms (its budget) + " +
               std::to_string(sandbox_grace().count()) + " ms after it started";
    return r;
  }
  if (have_result && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    r.end = ChildResult::End::Returned;
    return r;
  }
  r.end = ChildResult::End::Crashed;
  r.detail = describe_wait_status(status) + (have_result ? "" : " before reporting a result");
  return r;
}

} // namespace teval::verify
