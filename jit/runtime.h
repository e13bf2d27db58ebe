// The runtime of compiled kernels: the functions generated code calls, and
// the error channel. Compiled code never formats a message or throws: at an
// error it stores the site number and the values involved in the RunContext
// and returns. The host then rebuilds the diagnostic from the site (what
// failed, where) and the values, with the same words IREval uses.
#pragma once

#include "core/error.h"
#include "core/kernel.h"
#include "core/loopnest.h"

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

namespace teval::jit {

/// What an error site checks.
enum class SiteKind : uint8_t {
  Read,  ///< a Load out of range; values: the indices
  Write, ///< a Store out of range; values: the failing dimension, the indices
  Apply, ///< an operation without a value; values: its operands
  Cast,  ///< a conversion without a value; values: the operand
  Raise, ///< a Raise statement; values: its arguments
};

/// One place in generated code that can stop the kernel with an error.
struct Site {
  SiteKind kind;
  /// The node that failed (a Load, Apply or Cast), or null.
  core::Expr expr;
  /// The Store or Raise statement, or null.
  const core::StmtNode* stmt = nullptr;
  /// The dtype of each value passed, in order: the site's own values first,
  /// then one per point variable in `points`.
  std::vector<core::DType> dtypes;
  /// The point variables bound at the site, in ascending id order.
  std::vector<int> points;
};

/// The state shared between the host and one run of a compiled kernel.
struct RunContext {
  int32_t site = -1;
  std::vector<int64_t> values;
  /// Threads a parallel loop may use (at least 1).
  int threads = 1;
  /// Set when a request to stop reached a parallel loop (which then
  /// returns 1 without an error site).
  bool interrupted = false;
};

/// The diagnostic for the error reported at \p site with \p values (ints
/// as int64, floats as the bits of a double) in \p nest.
core::Error site_error(const core::LoopNest& nest, const Site& site,
                       const std::vector<int64_t>& values);

/// Nonzero while this thread is inside teval_rt_fail, which allocates: a
/// request to stop the kernel waits until it returns (see jit.cpp).
extern thread_local volatile std::sig_atomic_t in_runtime_call;

extern "C" {
/// Called by generated code at an error: records \p site and copies
/// \p count values from \p values.
void teval_rt_fail(RunContext* ctx, int32_t site, const int64_t* values, int32_t count);

/// A chunk of a parallel loop: its iterations [begin, end) on \p buffers.
using ParallelChunk = int32_t (*)(void** buffers, RunContext* ctx, int64_t begin, int64_t end);

/// Called by generated code for a parallel loop over [begin, end): runs
/// \p chunk over consecutive parts of the range on ctx->threads threads
/// (this one among them) and returns 0, or 1 when it was stopped (see
/// jit.cpp). Chunks cannot fail: only loops that cannot are parallel.
int32_t teval_rt_parallel_for(ParallelChunk chunk, void** buffers, RunContext* ctx, int64_t begin,
                              int64_t end);
/// \p x rounded to float16 / bfloat16 (ties to even), returned as a float
/// that holds the value exactly.
float teval_rt_round_f16(double x);
float teval_rt_round_bf16(double x);
/// \p v converted to float16 / bfloat16 with one rounding.
float teval_rt_i64_to_f16(int64_t v);
float teval_rt_i64_to_bf16(int64_t v);
}

} // namespace teval::jit
