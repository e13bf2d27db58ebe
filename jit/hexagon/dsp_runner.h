// Running compiled kernels on the Hexagon DSP under qemu-hexagon (internal
// to jit/): a kernel's object is linked by ld.lld-19 for a slot of the
// resident simulator's kernel region and runs there (dsp_session.h), or,
// where that cannot be, with teval's freestanding runtime (dsp_runtime.c,
// embedded in teval) into a static executable of its own, which
// qemu-hexagon runs with the buffers on standard input and the outcome on
// standard output; both within a time budget.
//
// ld.lld-19 and qemu-hexagon run as programs: Debian packages no lld
// library in the set teval builds with, and qemu exists only as a program.
#pragma once

#include "core/error.h"
#include "jit/hexagon/dsp_session.h"
#include "jit/hexagon/hexagon.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace teval::jit::dsp {

/// The program \p name on PATH; throws Error(Unsupported) naming \p kernel
/// when it is not installed.
std::filesystem::path tool(const std::string& name, const std::string& kernel);

/// What isolated() throws when its child fails or crashes (not when it
/// runs past its budget): the caller may try the work another way.
struct CompileFailure : core::Error {
  using core::Error::Error;
};

/// Runs \p work in a child process (forked, so it sees this process's
/// memory) and returns the bytes it returns: LLVM's code generator ends the
/// process on an internal failure ("LLVM ERROR: ..."), and a kernel it
/// cannot compile must be an error naming the kernel, not the end of teval.
/// Throws CompileFailure, an Error{Range} with what the child printed, when
/// it fails or crashes, and Error{Range} when it runs past \p budget.
std::string isolated(const std::function<std::string()>& work, const std::string& kernel,
                     std::chrono::milliseconds budget);

/// The symbols the runtime defines, which a kernel may leave undefined.
const std::vector<std::string>& runtime_symbols();

/// Counts what the kernel executed in \p trace, a log of Executable::run:
/// from its entry (teval_kernel) until control is back in the runtime's
/// _start, runtime routines the kernel calls included. Packets are the
/// VLIW bundles the DSP issues one a cycle; words are instruction words (a
/// duplex word holds two sub-instructions; constant extenders count).
DspKernel::Executed executed(const std::filesystem::path& trace);

/// A linked kernel, with its files in a private directory removed with it.
class Executable {
public:
  /// Links \p object (an ELF object of teval_kernel) for a slot of the
  /// simulator's region, or, when the region is full, with the runtime
  /// into an executable of its own. Throws Error(Unsupported) when a tool
  /// is missing or the link fails.
  Executable(const std::string& object, const std::string& kernel);
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  /// Runs the kernel on \p buffers (every buffer of its loop nest, in
  /// order); returns them as the kernel left them, or the error it
  /// reported. Throws Error naming the kernel when qemu-hexagon is missing,
  /// crashes, or runs past \p budget, or the kernel raises a signal. With
  /// \p trace, the kernel runs in a qemu-hexagon of its own, which writes
  /// every translated block's instructions and every block it executes
  /// there (its `-d in_asm,exec,nochain` log), for executed().
  Outcome run(const std::vector<std::vector<std::byte>>& buffers, std::chrono::milliseconds budget,
              const std::filesystem::path* trace = nullptr) const;

  /// As run(), always in a qemu-hexagon of its own (to measure what the
  /// resident simulator saves).
  Outcome run_standalone(const std::vector<std::vector<std::byte>>& buffers,
                         std::chrono::milliseconds budget,
                         const std::filesystem::path* trace = nullptr) const;

private:
  // Links the executable of its own, once.
  const std::filesystem::path& standalone() const;
  // Runs ld.lld-19 -static with \p arguments in the private directory;
  // throws Error(Unsupported) with what it printed when it fails.
  void link(const std::vector<std::string>& arguments) const;

  std::filesystem::path dir_;
  std::string kernel_;
  mutable std::filesystem::path executable_;
  mutable std::optional<Image> image_;
};

} // namespace teval::jit::dsp
