// Many kernels in one qemu-hexagon process (internal to jit/): the DSP
// runtime linked alone (the "server", embedded in teval) runs as a resident
// simulator, one per process, started on first use. Kernels are linked by
// ld.lld-19 for a slot of its kernel region (against the server's symbols,
// so they call its runtime), loaded into that slot once, and run on
// request over a socket; a run costs a round trip instead of qemu's
// start-up.
//
// Processes forked from the one that started the simulator (a campaign's
// sandboxed cases) use it too: a flag in memory shared with them marks a
// conversation in progress, so that one left unfinished by a process that
// died is seen and the simulator replaced rather than fed the rest of
// somebody else's request. A kernel that runs past its budget, or raises a
// signal, ends the simulator; the next run starts another.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace teval::jit::dsp {

/// What a kernel's run on the DSP gave.
struct Outcome {
  bool ok = true;
  int32_t site = -1;
  std::vector<int64_t> values;
  std::vector<std::vector<std::byte>> buffers;
};

/// Reads a run's outcome (dsp_runtime.c) of a kernel whose buffers have the
/// sizes of \p buffers through \p take, which fills its argument with the
/// next bytes or returns false at the end of the stream. Throws Error
/// naming \p kernel for a signal the kernel raised or a stream that ends
/// early or says something else.
Outcome read_outcome(const std::function<bool(void*, size_t)>& take,
                     const std::vector<std::vector<std::byte>>& buffers, const std::string& kernel);

/// The server program (written once per process to a private directory).
const std::filesystem::path& server_executable();

/// A kernel linked for a slot of the region: its entry and the bytes to
/// copy there (zero-filled sections included).
struct Image {
  uint32_t slot = 0; ///< where it was linked (reserve_slot())
  uint32_t entry = 0;
  std::vector<std::pair<uint32_t, std::string>> segments;
  /// The simulator it was last loaded into (0: none).
  uint64_t loaded_in = 0;
};

/// Reserves \p size bytes of the region for a kernel in this process, or
/// returns nothing when the region is full (the kernel then runs in a
/// qemu-hexagon of its own).
std::optional<uint32_t> reserve_slot(uint32_t size);
void release_slot(uint32_t slot);

/// Runs the kernel of \p image on \p buffers in this process's simulator,
/// loading it first where needed, within \p budget. Returns nothing when
/// the simulator is in use by another process (the caller runs the kernel
/// in a qemu-hexagon of its own). Throws Error naming \p kernel as
/// Executable::run does.
std::optional<Outcome> run_in_session(Image& image,
                                      const std::vector<std::vector<std::byte>>& buffers,
                                      std::chrono::milliseconds budget, const std::string& kernel);

/// The process id of this process's simulator, or -1 when none runs (for
/// tests and measurements).
int simulator_pid();

/// Starts this process's simulator, or replaces it when it died or was
/// left in mid-conversation, so that processes forked from this one find
/// it ready. Throws Error(Unsupported) when qemu-hexagon is not installed.
void start_session();

} // namespace teval::jit::dsp
