// Running compiled kernels under qemu-hexagon (see dsp_runner.h).
#include "jit/hexagon/dsp_runner.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "core/tmath.h"
#include "jit/llvm_support.h"

#include <llvm/Object/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace teval::generated {
extern const unsigned char dsp_runtime_object[];
extern const std::size_t dsp_runtime_object_size;
} // namespace teval::generated

namespace teval::jit::dsp {

namespace fs = std::filesystem;
using core::Error;
using core::ErrorKind;

namespace {

// The program named \p name on PATH, or empty.
fs::path find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(p.c_str(), X_OK) == 0)
      return p;
  }
  return {};
}

void write_file(const fs::path& p, const void* data, size_t size) {
  std::ofstream out(p, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  TEVAL_ASSERT(out.good(), "cannot write " + p.string());
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Status {
  bool finished = false;
  int wait_status = 0;
};

// Waits for child \p pid at most \p budget, killing it past the budget or
// when the evaluation is asked to stop (Ctrl-C, a campaign's budget; the
// request is then rethrown).
Status wait_for(pid_t pid, std::chrono::milliseconds budget) {
  auto deadline = std::chrono::steady_clock::now() + budget;
  Status s;
  auto stop = [&] {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &s.wait_status, 0);
  };
  for (auto pause = std::chrono::microseconds(100);;
       pause = std::min(pause * 2, std::chrono::microseconds(20000))) {
    if (::waitpid(pid, &s.wait_status, WNOHANG) == pid) {
      s.finished = true;
      return s;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      stop();
      return s;
    }
    try {
      core::poll_interrupt();
    } catch (...) {
      stop();
      throw;
    }
    std::this_thread::sleep_for(pause);
  }
}

// Runs \p argv with standard input, output and error from and to files,
// within \p budget; kills it past the budget.
Status run_process(const std::vector<std::string>& argv, const fs::path& in, const fs::path& out,
                   const fs::path& err, std::chrono::milliseconds budget) {
  pid_t pid = ::fork();
  TEVAL_ASSERT(pid >= 0, "fork failed");
  if (pid == 0) {
    int fds[3] = {::open(in.c_str(), O_RDONLY),
                  ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600),
                  ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600)};
    for (int i = 0; i < 3; ++i)
      if (fds[i] < 0 || ::dup2(fds[i], i) < 0)
        ::_exit(127);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return wait_for(pid, budget);
}

// An upper bound of the bytes the sections of \p object take once linked
// one after the other.
uint32_t linked_size_bound(const std::string& object, const std::string& kernel) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(object, "kernel.o", false);
  auto file = check(llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef()),
                    "reading the kernel's object");
  uint64_t bound = 0;
  for (const llvm::object::ELFSectionRef section : file->sections())
    if (section.getFlags() & llvm::ELF::SHF_ALLOC)
      bound += section.getSize() + section.getAlignment().value();
  if (bound > (1u << 30))
    throw Error(ErrorKind::Limit, kernel, "the kernel's code for the DSP is over 1 GiB");
  return static_cast<uint32_t>(bound);
}

// Places the kernel's sections from \p address on, in one segment without
// the ELF headers; what a kernel does not run is dropped.
std::string linker_script(uint32_t address) {
  return "PHDRS { image PT_LOAD; }\n"
         "SECTIONS {\n"
         "  . = " +
         std::to_string(address) +
         ";\n"
         "  .text : { *(.text .text.*) } :image\n"
         "  .rodata : { *(.rodata .rodata.*) } :image\n"
         "  .data : { *(.data .data.*) } :image\n"
         "  .bss : { *(.bss .bss.* COMMON) } :image\n"
         "  /DISCARD/ : { *(.eh_frame) *(.comment) *(.note.*) *(.hexagon.attributes) }\n"
         "}\n";
}

// The image of a kernel linked for \p slot (\p size bytes from there).
Image read_image(const std::string& linked, uint32_t slot, uint32_t size,
                 const std::string& kernel) {
  auto elf = check(llvm::object::ELF32LEFile::create(linked), "reading the linked kernel");
  Image image;
  image.slot = slot;
  image.entry = static_cast<uint32_t>(elf.getHeader().e_entry);
  for (const auto& header : check(elf.program_headers(), "the linked kernel's segments")) {
    if (header.p_type != llvm::ELF::PT_LOAD || header.p_memsz == 0)
      continue;
    uint32_t at = header.p_vaddr, memory = header.p_memsz, file = header.p_filesz;
    if (at < slot || memory > size || at - slot > size - memory || file > memory ||
        header.p_offset + uint64_t{file} > linked.size())
      throw Error(ErrorKind::Unsupported, kernel,
                  "linking the kernel for the DSP placed it outside its slot");
    std::string bytes = linked.substr(header.p_offset, file);
    bytes.resize(memory, '\0');
    image.segments.emplace_back(at, std::move(bytes));
  }
  if (image.entry < slot || image.entry - slot >= size)
    throw Error(ErrorKind::Unsupported, kernel, "the linked kernel's entry is outside its slot");
  return image;
}

// Whether buffers of \p sizes fit the runtime's arena (dsp_runtime.c: 256
// MiB, each buffer from a 128-byte line).
bool fits_arena(const std::vector<std::vector<std::byte>>& buffers) {
  uint64_t used = 0;
  for (const auto& b : buffers)
    used += (b.size() + 127) / 128 * 128;
  return used <= (uint64_t{256} << 20);
}

} // namespace

fs::path tool(const std::string& name, const std::string& kernel) {
  fs::path p = find_program(name);
  if (p.empty())
    throw Error(ErrorKind::Unsupported, kernel,
                name + " is not installed; the Hexagon target needs it (scripts/dev setup "
                       "installs lld-19 and qemu-user)");
  return p;
}

std::string isolated(const std::function<std::string()>& work, const std::string& kernel,
                     std::chrono::milliseconds budget) {
  std::string pattern = (fs::temp_directory_path() / "teval-dsp-XXXXXX").string();
  TEVAL_ASSERT(::mkdtemp(pattern.data()), "cannot make a temporary directory");
  fs::path dir = pattern;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{dir};
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = ::fork();
  TEVAL_ASSERT(pid >= 0, "fork failed");
  if (pid == 0) {
    int err = ::open((dir / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (err < 0 || ::dup2(err, 2) < 0)
      ::_exit(126);
    std::string bytes = work();
    std::ofstream out(dir / "result", std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    ::_exit(out ? 0 : 125);
  }
  Status waited = wait_for(pid, budget);
  int status = waited.wait_status;
  if (!waited.finished)
    throw Error(ErrorKind::Range, kernel,
                "internal error: compiling the kernel for the DSP took longer than " +
                    std::to_string(budget.count() / 1000) + " s");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string said = read_file(dir / "stderr");
    while (!said.empty() && (said.back() == '\n' || said.back() == ' '))
      said.pop_back();
    throw CompileFailure(ErrorKind::Range, kernel,
                         "internal error: LLVM's Hexagon code generator failed on the kernel" +
                             (said.empty()
                                  ? std::string(" (it ended with status ") +
                                        std::to_string(WIFSIGNALED(status) ? WTERMSIG(status)
                                                                           : WEXITSTATUS(status)) +
                                        ")"
                                  : ": " + said));
  }
  return read_file(dir / "result");
}

const std::vector<std::string>& runtime_symbols() {
  // clang-format off
  static const std::vector<std::string> symbols = {
      "teval_rt_fail", "memset", "memcpy", "memmove",
      "__hexagon_memcpy_likely_aligned_min32bytes_mult8bytes",
      "__hexagon_divsi3", "__hexagon_udivsi3", "__hexagon_modsi3", "__hexagon_umodsi3",
      "__hexagon_divdi3", "__hexagon_udivdi3", "__hexagon_moddi3", "__hexagon_umoddi3",
      "__hexagon_divdf3", "trunc", "truncf", "floor", "floorf", "ceil", "ceilf",
      "sqrt", "sqrtf", "__hexagon_sqrtf",
      "teval_pow", "teval_powf", "teval_atan2", "teval_atan2f", "teval_fmod",
      "teval_rt_round_f16", "teval_rt_round_bf16", "teval_rt_i64_to_f16", "teval_rt_i64_to_bf16",
      "teval_rt_f16_to_float", "teval_rt_float_to_f16",
#define TEVAL_TMATH_NAME(name) "teval_" #name, "teval_" #name "f",
      TEVAL_TMATH_UNARY(TEVAL_TMATH_NAME)
#undef TEVAL_TMATH_NAME
  };
  // clang-format on
  return symbols;
}

Executable::Executable(const std::string& object, const std::string& kernel) : kernel_(kernel) {
  tool("ld.lld-19", kernel); // missing: an error before anything is made
  std::string pattern = (fs::temp_directory_path() / "teval-dsp-XXXXXX").string();
  TEVAL_ASSERT(::mkdtemp(pattern.data()), "cannot make a temporary directory");
  dir_ = pattern;
  write_file(dir_ / "kernel.o", object.data(), object.size());
  write_file(dir_ / "empty", "", 0);
  uint32_t size = linked_size_bound(object, kernel);
  std::optional<uint32_t> slot = reserve_slot(size);
  if (!slot) {
    standalone();
    return;
  }
  std::string script = linker_script(*slot);
  write_file(dir_ / "kernel.ld", script.data(), script.size());
  try {
    link({"--just-symbols=" + server_executable().string(), "-T", (dir_ / "kernel.ld").string(),
          "-e", "teval_kernel", (dir_ / "kernel.o").string(), "-o",
          (dir_ / "kernel.image").string()});
    image_ = read_image(read_file(dir_ / "kernel.image"), *slot, size, kernel);
  } catch (...) {
    release_slot(*slot);
    throw;
  }
}

void Executable::link(const std::vector<std::string>& arguments) const {
  std::vector<std::string> argv = {tool("ld.lld-19", kernel_).string(), "-static"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  Status s = run_process(argv, dir_ / "empty", dir_ / "link.out", dir_ / "link.err",
                         std::chrono::seconds(60));
  if (!s.finished || !WIFEXITED(s.wait_status) || WEXITSTATUS(s.wait_status) != 0)
    throw Error(ErrorKind::Unsupported, kernel_,
                "linking the kernel for the DSP failed: " + read_file(dir_ / "link.err"));
}

Executable::~Executable() {
  if (image_)
    release_slot(image_->slot);
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

const fs::path& Executable::standalone() const {
  if (!executable_.empty())
    return executable_;
  write_file(dir_ / "runtime.o", generated::dsp_runtime_object, generated::dsp_runtime_object_size);
  link({"-e", "_start", (dir_ / "runtime.o").string(), (dir_ / "kernel.o").string(), "-o",
        (dir_ / "kernel").string()});
  executable_ = dir_ / "kernel";
  return executable_;
}

Outcome Executable::run(const std::vector<std::vector<std::byte>>& buffers,
                        std::chrono::milliseconds budget, const fs::path* trace) const {
  if (!fits_arena(buffers))
    throw Error(ErrorKind::Limit, kernel_,
                "kernel " + kernel_ +
                    " on qemu-hexagon: the buffers need more than the DSP runtime's 256 MiB");
  if (image_ && !trace)
    if (std::optional<Outcome> o = run_in_session(*image_, buffers, budget, kernel_))
      return std::move(*o);
  return run_standalone(buffers, budget, trace);
}

Outcome Executable::run_standalone(const std::vector<std::vector<std::byte>>& buffers,
                                   std::chrono::milliseconds budget, const fs::path* trace) const {
  fs::path qemu = tool("qemu-hexagon", kernel_);
  const fs::path& executable = standalone();
  {
    std::ofstream in(dir_ / "input", std::ios::binary);
    uint32_t n = static_cast<uint32_t>(buffers.size());
    in.write("TVIN", 4);
    in.write(reinterpret_cast<const char*>(&n), 4);
    for (const auto& b : buffers) {
      uint64_t size = b.size();
      in.write(reinterpret_cast<const char*>(&size), 8);
    }
    for (const auto& b : buffers)
      if (!b.empty())
        in.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    TEVAL_ASSERT(in.good(), "cannot write the DSP's input");
  }
  std::vector<std::string> argv = {qemu.string()};
  if (trace)
    argv.insert(argv.end(), {"-d", "in_asm,exec,nochain", "-D", trace->string()});
  argv.push_back(executable.string());
  Status s = run_process(argv, dir_ / "input", dir_ / "output", dir_ / "stderr", budget);
  std::string where = "kernel " + kernel_ + " on qemu-hexagon";
  if (!s.finished)
    throw Error(ErrorKind::Limit, kernel_,
                where + " ran past its time budget of " + std::to_string(budget.count() / 1000.0) +
                    " s and was stopped");
  if (WIFSIGNALED(s.wait_status))
    throw Error(ErrorKind::Unsupported, kernel_,
                where + " died with signal " + std::to_string(WTERMSIG(s.wait_status)) + " (" +
                    strsignal(WTERMSIG(s.wait_status)) + ")");
  int code = WEXITSTATUS(s.wait_status);
  if (code != 0)
    throw Error(ErrorKind::Unsupported, kernel_,
                where + " exited with status " + std::to_string(code) + ": " +
                    read_file(dir_ / "stderr"));
  std::string out = read_file(dir_ / "output");
  size_t at = 0;
  return read_outcome(
      [&](void* to, size_t n) {
        if (at + n > out.size())
          return false;
        if (n) // an empty buffer's data() may be null
          std::memcpy(to, out.data() + at, n);
        at += n;
        return true;
      },
      buffers, kernel_);
}

DspKernel::Executed executed(const fs::path& trace) {
  std::ifstream log(trace);
  TEVAL_ASSERT(log.good(), "cannot read qemu-hexagon's log " + trace.string());
  // Each translated block: "IN: symbol", then one line per instruction word
  // ("0x000221f0:  0x7c024008\t{\tR9:8 = ..."), packets in braces, then a
  // blank line. Each executed block: "Trace 0: HOST [FLAGS/PC/...] symbol".
  std::map<uint64_t, DspKernel::Executed> blocks;
  DspKernel::Executed total;
  bool in_kernel = false;
  std::string line;
  uint64_t block = 0;
  bool in_block = false;
  while (std::getline(log, line)) {
    if (line.rfind("IN:", 0) == 0) {
      in_block = true;
      block = UINT64_MAX;
      continue;
    }
    if (in_block && line.rfind("0x", 0) == 0) {
      uint64_t address = std::stoull(line.substr(0, line.find(':')), nullptr, 16);
      if (block == UINT64_MAX) {
        block = address;
        blocks[block] = {};
      }
      DspKernel::Executed& b = blocks[block];
      ++b.words;
      b.packets += std::count(line.begin(), line.end(), '}');
      continue;
    }
    in_block = false;
    if (line.rfind("Trace ", 0) != 0)
      continue;
    size_t open = line.find('['), close = line.find(']');
    if (open == std::string::npos || close == std::string::npos)
      continue;
    std::string fields = line.substr(open + 1, close - open - 1);
    size_t slash = fields.find('/');
    uint64_t pc =
        std::stoull(fields.substr(slash + 1, fields.find('/', slash + 1) - slash - 1), nullptr, 16);
    std::string symbol = close + 2 <= line.size() ? line.substr(close + 2) : "";
    if (symbol == "teval_kernel")
      in_kernel = true;
    else if (in_kernel && symbol == "_start")
      break;
    if (!in_kernel)
      continue;
    auto it = blocks.find(pc);
    TEVAL_ASSERT(it != blocks.end(), "qemu-hexagon executed a block it never translated");
    total.packets += it->second.packets;
    total.words += it->second.words;
  }
  return total;
}

} // namespace teval::jit::dsp
