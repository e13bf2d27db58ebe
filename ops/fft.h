// fft: its native reference (StableHLO specification, "fft";
// docs/SEMANTICS.md, "StableHLO's fft"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

namespace teval::ops::detail {

/// fft_type FFT, IFFT, RFFT or IRFFT of \p x over its last
/// size(fft_length) dimensions, one dimension at a time in the
/// specification's order, each a discrete Fourier transform summed
/// directly in double (X_k = sum over n of x_n e^(-2 pi i k n / N), in
/// ascending n; the inverse with e^(+2 pi i k n / N) and divided by N),
/// its result rounded to the element type before the next dimension's.
core::Tensor fft(const core::GraphNode& n, const core::Tensor& x, const core::ValueType& result);

} // namespace teval::ops::detail
