// fft's native reference (see fft.h).
#include "ops/fft.h"

#include "core/complex.h"
#include "core/interrupt.h"
#include "core/shape.h"
#include "core/tmath.h"

#include <vector>

namespace teval::ops::detail {

namespace {

using core::Complex;
using core::DType;
using core::Scalar;
using core::Shape;
using core::Tensor;

// e^(sign 2 pi i m / n), m reduced modulo n first so that the angle is
// computed from a fraction in [0, 1).
Complex twiddle(int64_t m, int64_t n, int sign) {
  const double pi = 3.14159265358979323846;
  const double angle = sign * 2 * pi * static_cast<double>(m % n) / static_cast<double>(n);
  return {teval_cos(angle), teval_sin(angle)};
}

// The discrete Fourier transform of \p in (inverse: conjugate twiddles,
// divided by the length), each sum in ascending order.
std::vector<Complex> dft(const std::vector<Complex>& in, bool inverse) {
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<Complex> out(in.size());
  for (int64_t k = 0; k < n; ++k) {
    core::poll_interrupt();
    Complex sum;
    for (int64_t j = 0; j < n; ++j) {
      const Complex w = twiddle(k * j % n, n, inverse ? 1 : -1);
      const Complex x = in[static_cast<size_t>(j)];
      sum.re += x.re * w.re - x.im * w.im;
      sum.im += x.re * w.im + x.im * w.re;
    }
    if (inverse) {
      sum.re /= static_cast<double>(n);
      sum.im /= static_cast<double>(n);
    }
    out[static_cast<size_t>(k)] = sum;
  }
  return out;
}

// \p x (complex) transformed along dimension \p axis: \p f maps each line
// of the axis (read as complex values) to the line of the result, whose
// extent along the axis is \p out_extent and dtype \p t.
template <class F> Tensor along(const Tensor& x, size_t axis, int64_t out_extent, DType t, F&& f) {
  Shape shape = x.shape();
  const int64_t in_extent = shape[axis];
  shape[axis] = out_extent;
  Tensor out(t, shape);
  const std::vector<int64_t> in_strides = core::strides(x.shape());
  const std::vector<int64_t> out_strides = core::strides(shape);
  int64_t lines = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (d != axis)
      lines *= shape[d];
  for (int64_t line = 0; line < lines; ++line) {
    // The line's first element in each tensor: the index of every other
    // dimension, from the line number (row-major, the axis left out).
    int64_t rest = line, in_at = 0, out_at = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      if (d == axis)
        continue;
      const int64_t i = rest % shape[d];
      rest /= shape[d];
      in_at += i * in_strides[d];
      out_at += i * out_strides[d];
    }
    std::vector<Complex> values(static_cast<size_t>(in_extent));
    for (int64_t k = 0; k < in_extent; ++k) {
      const Scalar s = x.get(in_at + k * in_strides[axis]);
      values[static_cast<size_t>(k)] = {s.f, core::is_complex(s.dtype) ? s.im : 0.0};
    }
    const std::vector<Complex> r = f(values);
    for (int64_t k = 0; k < out_extent; ++k) {
      const Complex v = r[static_cast<size_t>(k)];
      out.set(out_at + k * out_strides[axis],
              core::is_complex(t) ? core::complex_result(t, v) : Scalar::of_float(t, v.re));
    }
  }
  return out;
}

} // namespace

Tensor fft(const core::GraphNode& n, const Tensor& x, const core::ValueType& result) {
  const std::string type = n.string_attr("fft_type");
  const std::vector<int64_t> length = n.ints_attr("fft_length");
  const size_t rank = x.shape().size(), lead = rank - length.size();
  const DType complex = core::is_complex(result.dtype) ? result.dtype : x.dtype();
  auto full = [](bool inverse) {
    return [inverse](const std::vector<Complex>& line) { return dft(line, inverse); };
  };
  Tensor v = x;
  if (type == "FFT") { // the last dimension first
    for (size_t a = rank; a-- > lead;)
      v = along(v, a, v.shape()[a], complex, full(false));
    return v;
  }
  if (type == "IFFT") { // the inverse: the first of the dimensions first
    for (size_t a = lead; a < rank; ++a)
      v = along(v, a, v.shape()[a], complex, full(true));
    return v;
  }
  if (type == "RFFT") { // the last dimension's n / 2 + 1 first terms, then the others
    const int64_t last = length.back();
    v = along(v, rank - 1, last == 0 ? 0 : last / 2 + 1, complex,
              [](const std::vector<Complex>& line) {
                std::vector<Complex> r = dft(line, false);
                r.resize(line.empty() ? 0 : line.size() / 2 + 1);
                return r;
              });
    for (size_t a = rank - 1; a-- > lead;)
      v = along(v, a, v.shape()[a], complex, full(false));
    return v;
  }
  // IRFFT: the inverse of the others, then the last dimension's spectrum
  // completed by symmetry (X_(N-k) = conj X_k), inverted, its real parts.
  for (size_t a = lead; a + 1 < rank; ++a)
    v = along(v, a, v.shape()[a], complex, full(true));
  const int64_t last = length.back();
  return along(v, rank - 1, last, result.dtype, [last](const std::vector<Complex>& half) {
    std::vector<Complex> spectrum(static_cast<size_t>(last));
    for (int64_t k = 0; k < last; ++k) {
      const int64_t mirror = last - k;
      spectrum[static_cast<size_t>(k)] = k < static_cast<int64_t>(half.size())
                                             ? half[static_cast<size_t>(k)]
                                             : Complex{half[static_cast<size_t>(mirror)].re,
                                                       -half[static_cast<size_t>(mirror)].im};
    }
    return dft(spectrum, true);
  });
}

} // namespace teval::ops::detail
