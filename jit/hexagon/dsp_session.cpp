// Many kernels in one qemu-hexagon process (see dsp_session.h).
#include "jit/hexagon/dsp_session.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "jit/hexagon/dsp_runner.h"
#include "jit/llvm_support.h"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace teval::generated {
extern const unsigned char dsp_server_executable[];
extern const std::size_t dsp_server_executable_size;
} // namespace teval::generated

namespace teval::jit::dsp {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using core::Error;
using core::ErrorKind;

Outcome read_outcome(const std::function<bool(void*, size_t)>& take,
                     const std::vector<std::vector<std::byte>>& buffers,
                     const std::string& kernel) {
  const std::string where = "kernel " + kernel + " on qemu-hexagon";
  auto need = [&](void* to, size_t n) {
    if (!take(to, n))
      throw Error(ErrorKind::Unsupported, kernel,
                  where + " ended without reporting an outcome (qemu-hexagon itself failed)");
  };
  Outcome o;
  char magic[4];
  need(magic, 4);
  if (std::memcmp(magic, "TVSG", 4) == 0) {
    int32_t signal = 0;
    need(&signal, 4);
    throw Error(ErrorKind::Unsupported, kernel,
                where + " died with signal " + std::to_string(signal) + " (" + strsignal(signal) +
                    ")");
  }
  o.ok = std::memcmp(magic, "TVOK", 4) == 0;
  if (!o.ok && std::memcmp(magic, "TVER", 4) != 0)
    throw Error(ErrorKind::Unsupported, kernel, where + " wrote no outcome");
  if (!o.ok) {
    uint32_t count = 0;
    need(&o.site, 4);
    need(&count, 4);
    if (count > 64)
      throw Error(ErrorKind::Unsupported, kernel, where + " wrote a malformed error");
    o.values.resize(count);
    need(o.values.data(), count * 8);
  }
  for (const auto& b : buffers) {
    o.buffers.emplace_back(b.size());
    if (!b.empty()) // an empty buffer's data() may be null
      need(o.buffers.back().data(), b.size());
  }
  return o;
}

namespace {

std::string server_bytes() {
  return std::string(reinterpret_cast<const char*>(generated::dsp_server_executable),
                     generated::dsp_server_executable_size);
}

// The server's kernel region, from its symbol table.
struct Region {
  uint32_t begin = 0;
  uint32_t size = 0;
};

const Region& region() {
  static const Region r = [] {
    std::string bytes = server_bytes();
    auto buffer = llvm::MemoryBuffer::getMemBuffer(bytes, "dsp_server", false);
    auto file = check(llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef()),
                      "reading the DSP server");
    for (const llvm::object::SymbolRef& s : file->symbols())
      if (check(s.getName(), "a symbol's name") == "teval_kernel_region") {
        Region found{static_cast<uint32_t>(check(s.getAddress(), "a symbol's address")),
                     static_cast<uint32_t>(llvm::object::ELFSymbolRef(s).getSize())};
        TEVAL_ASSERT(found.size > 0, "the DSP server's kernel region is empty");
        return found;
      }
    TEVAL_ASSERT(false, "the DSP server has no kernel region");
    return Region{};
  }();
  return r;
}

// The slots of the region this process has handed out (first fit, in
// pages), by address: their sizes.
std::mutex slots_mutex;
std::map<uint32_t, uint32_t> slots;

// What a process forked from the simulator's starter shares with it.
struct Shared {
  std::atomic<pid_t> busy; // the process in a conversation, or 0
};

// One running server.
struct Simulator {
  pid_t pid = -1;
  int fd = -1;      // this end of the socket
  pid_t owner = -1; // the process that started it (and can reap it)
  uint64_t generation = 0;
  Shared* shared = nullptr;
  int stderr_fd = -1; // the reading end of its standard error
};

std::mutex session_mutex;
std::unique_ptr<Simulator> current;

// Ends \p s: kills it (it may be mid-kernel) and, for its starter, reaps it.
void end(std::unique_ptr<Simulator>& s) {
  if (!s)
    return;
  if (s->pid > 0) {
    ::kill(s->pid, SIGKILL);
    if (s->owner == ::getpid())
      while (::waitpid(s->pid, nullptr, 0) < 0 && errno == EINTR) {
      }
  }
  ::close(s->fd);
  ::close(s->stderr_fd);
  ::munmap(s->shared, sizeof(Shared));
  s.reset();
}

// Whether \p s can take a request from this process: alive, and not left
// mid-conversation. Sets \p elsewhere when another live process is using it.
bool usable(Simulator& s, bool& elsewhere) {
  elsewhere = false;
  if (s.owner == ::getpid()) {
    if (::waitpid(s.pid, nullptr, WNOHANG) == s.pid) {
      s.pid = -1; // reaped
      return false;
    }
  } else if (::kill(s.pid, 0) != 0) {
    return false;
  }
  pid_t busy = s.shared->busy.load();
  if (busy == 0)
    return true;
  if (busy != ::getpid() && ::kill(busy, 0) == 0) {
    elsewhere = true;
    return false;
  }
  return false; // a conversation its process never finished
}

// Sends all of \p data; false when the simulator is gone.
bool send_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n) {
    ssize_t put = ::send(fd, p, n, MSG_NOSIGNAL);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    p += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

struct PastBudget {};

// Receives exactly \p n bytes by \p deadline; false at the end of the
// stream. Throws PastBudget past the deadline, and rethrows an interrupt.
bool receive_all(int fd, void* data, size_t n, Clock::time_point deadline) {
  char* p = static_cast<char*>(data);
  while (n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      throw PastBudget{};
    pollfd in{fd, POLLIN, 0};
    int ready = ::poll(&in, 1, static_cast<int>(std::min<int64_t>(left.count(), 20)));
    core::poll_interrupt();
    if (ready < 0 && errno != EINTR)
      return false;
    if (ready <= 0)
      continue;
    ssize_t got = ::recv(fd, p, n, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

// What the simulator has written to its standard error so far.
std::string said(const Simulator& s) {
  std::string t;
  char chunk[4096];
  ssize_t got;
  while (t.size() < (1u << 16) && (got = ::read(s.stderr_fd, chunk, sizeof chunk)) > 0)
    t.append(chunk, static_cast<size_t>(got));
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  return t;
}

// Starts a simulator owned by this process.
std::unique_ptr<Simulator> launch(const std::string& kernel) {
  fs::path qemu = tool("qemu-hexagon", kernel);
  const fs::path& server = server_executable();
  auto s = std::make_unique<Simulator>();
  s->owner = ::getpid();
  s->generation = std::random_device{}() | (uint64_t{std::random_device{}()} << 32) | 1;
  void* shared =
      ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  TEVAL_ASSERT(shared != MAP_FAILED, "cannot map memory for the DSP simulator");
  s->shared = new (shared) Shared{};
  int fds[2], err[2];
  TEVAL_ASSERT(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 &&
                   ::pipe2(err, O_CLOEXEC) == 0,
               "cannot make a socket for the DSP simulator");
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  TEVAL_ASSERT(pid >= 0, "fork failed");
  if (pid == 0) {
    // The simulator ends with the process that started it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(126);
    if (::dup2(fds[1], 0) < 0 || ::dup2(fds[1], 1) < 0 || ::dup2(err[1], 2) < 0)
      ::_exit(127);
    const char* argv[] = {qemu.c_str(), server.c_str(), nullptr};
    ::execv(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(fds[1]);
  ::close(err[1]);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  s->pid = pid;
  s->fd = fds[0];
  s->stderr_fd = err[0];
  uint32_t hello[2] = {};
  char magic[4];
  bool greeted = false;
  try {
    auto deadline = Clock::now() + std::chrono::seconds(30);
    greeted = send_all(s->fd, "TVSS", 4) && receive_all(s->fd, magic, 4, deadline) &&
              std::memcmp(magic, "TVSV", 4) == 0 && receive_all(s->fd, hello, 8, deadline);
  } catch (const PastBudget&) {
  } catch (...) {
    end(s);
    throw;
  }
  if (!greeted || hello[0] != region().begin || hello[1] != region().size) {
    end(s);
    throw Error(ErrorKind::Unsupported, kernel,
                "qemu-hexagon did not start teval's DSP runtime: " + said(*s));
  }
  return s;
}

// The simulator ended while running a kernel: how, in words.
std::string how_it_ended(Simulator& s) {
  std::string words = said(s);
  std::string after = words.empty() ? "" : ": " + words;
  if (s.owner == ::getpid()) {
    // It closed its end of the socket, so it is ending: wait for its status.
    int status = 0;
    pid_t waited = 0;
    for (int i = 0; i < 500 && waited == 0; ++i) {
      waited = ::waitpid(s.pid, &status, WNOHANG);
      if (waited == 0)
        ::usleep(10000);
    }
    if (waited == s.pid) {
      s.pid = -1;
      if (WIFSIGNALED(status))
        return " died with signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")" + after;
      return " exited with status " + std::to_string(WEXITSTATUS(status)) + after;
    }
  }
  return " ended while running it" + after;
}

} // namespace

const fs::path& server_executable() {
  // Kept in the temporary directory under a name of its contents, for every
  // teval process of this user: written once (atomically), never removed.
  static const fs::path p = [] {
    std::string bytes = server_bytes();
    char name[64];
    std::snprintf(name, sizeof name, "teval-dsp-server-%u-%016zx",
                  static_cast<unsigned>(::getuid()), std::hash<std::string>{}(bytes));
    fs::path file = fs::temp_directory_path() / name;
    if (fs::exists(file) && fs::file_size(file) == bytes.size())
      return file;
    fs::path written = file;
    written += "." + std::to_string(::getpid());
    {
      std::ofstream out(written, std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      TEVAL_ASSERT(out.good(), "cannot write " + written.string());
    }
    fs::permissions(written, fs::perms::owner_all);
    fs::rename(written, file);
    return file;
  }();
  return p;
}

std::optional<uint32_t> reserve_slot(uint32_t size) {
  const Region& r = region();
  size = (size + 4095) / 4096 * 4096;
  std::lock_guard<std::mutex> lock(slots_mutex);
  uint32_t at = r.begin;
  for (const auto& [slot, length] : slots) {
    if (slot - at >= size)
      break;
    at = slot + length;
  }
  if (size > r.size || at - r.begin > r.size - size)
    return std::nullopt;
  slots[at] = size;
  return at;
}

void release_slot(uint32_t slot) {
  std::lock_guard<std::mutex> lock(slots_mutex);
  slots.erase(slot);
}

int simulator_pid() {
  std::lock_guard<std::mutex> lock(session_mutex);
  return current ? current->pid : -1;
}

void start_session() {
  std::lock_guard<std::mutex> lock(session_mutex);
  bool elsewhere = false;
  if (current && (usable(*current, elsewhere) || elsewhere))
    return;
  end(current);
  current = launch("the DSP simulator");
}

std::optional<Outcome> run_in_session(Image& image,
                                      const std::vector<std::vector<std::byte>>& buffers,
                                      std::chrono::milliseconds budget, const std::string& kernel) {
  std::lock_guard<std::mutex> lock(session_mutex);
  bool elsewhere = false;
  if (current && !usable(*current, elsewhere)) {
    if (elsewhere)
      return std::nullopt;
    end(current);
  }
  if (!current)
    current = launch(kernel);
  Simulator& s = *current;
  pid_t idle = 0;
  if (!s.shared->busy.compare_exchange_strong(idle, ::getpid()))
    return std::nullopt;
  const std::string where = "kernel " + kernel + " on qemu-hexagon";
  struct Ended {};
  auto send = [&](const void* data, size_t n) {
    if (n && !send_all(s.fd, data, n))
      throw Ended{};
  };
  try {
    if (image.loaded_in != s.generation) {
      for (const auto& [address, bytes] : image.segments) {
        uint32_t head[2] = {address, static_cast<uint32_t>(bytes.size())};
        send("TVLD", 4);
        send(head, 8);
        send(bytes.data(), bytes.size());
      }
      image.loaded_in = s.generation;
    }
    uint32_t head[2] = {image.entry, static_cast<uint32_t>(buffers.size())};
    send("TVRN", 4);
    send(head, 8);
    for (const auto& b : buffers) {
      uint64_t size = b.size();
      send(&size, 8);
    }
    for (const auto& b : buffers)
      send(b.data(), b.size());
    auto deadline = Clock::now() + budget;
    Outcome o = read_outcome(
        [&](void* to, size_t n) {
          if (!receive_all(s.fd, to, n, deadline))
            throw Ended{};
          return true;
        },
        buffers, kernel);
    s.shared->busy.store(0);
    return o;
  } catch (const PastBudget&) {
    end(current);
    throw Error(ErrorKind::Limit, kernel,
                where + " ran past its time budget of " + std::to_string(budget.count() / 1000.0) +
                    " s and was stopped");
  } catch (const Ended&) {
    std::string how = how_it_ended(s);
    end(current);
    throw Error(ErrorKind::Unsupported, kernel, where + how);
  } catch (...) { // a signal the kernel raised, an interrupt
    end(current);
    throw;
  }
}

} // namespace teval::jit::dsp
