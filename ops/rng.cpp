// rng_bit_generator (see rng.h).
#include "ops/rng.h"

#include "core/error.h"
#include "ops/bitcast.h"
#include "ops/philox.h"

namespace teval::ops::detail {

using core::DType;
using core::Tensor;

namespace {

uint32_t rotate_left(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

// A 64-bit word as its (low, high) 32-bit halves.
std::array<uint32_t, 2> halves(uint64_t w) {
  return {static_cast<uint32_t>(w), static_cast<uint32_t>(w >> 32)};
}

uint64_t word(uint32_t low, uint32_t high) {
  return uint64_t{low} | uint64_t{high} << 32;
}

// The output's bits, one word per element wide enough for its dtype, and
// how far the draws moved the counter.
struct Bits {
  std::vector<uint64_t> values; // row-major
  uint64_t counters = 0;        // how far the counter moved
};

// Threefry's 32-bit layout: the output split in halves along its first
// dimension of even extent (else its longest, the first of them), element
// j of that dimension from counter position j / 2 of the halved shape,
// word j % 2 of the pair; a rank-0 output from the first word of counter 0.
Bits threefry_32(uint64_t key, uint64_t counter, const core::Shape& shape) {
  Bits b;
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t split = -1;
  for (int64_t d = 0; d < rank && split < 0; ++d)
    if (shape[d] % 2 == 0)
      split = d;
  if (split < 0)
    for (int64_t d = 0; d < rank; ++d)
      if (split < 0 || shape[d] > shape[split])
        split = d;
  // The halved shape, and each output element's position in it.
  core::Shape half = shape;
  if (split >= 0)
    half[split] = (shape[split] + 1) / 2;
  int64_t half_count = 1, count = 1;
  for (int64_t d : half)
    half_count *= d;
  for (int64_t d : shape)
    count *= d;
  b.values.resize(static_cast<size_t>(count));
  b.counters = static_cast<uint64_t>(rank == 0 ? 1 : half_count);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t position = 0;
    int word_of_pair = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t i = index[d];
      if (d == split) {
        word_of_pair = static_cast<int>(i % 2);
        i /= 2;
      }
      position = position * half[d] + i;
    }
    std::array<uint32_t, 2> y =
        threefry2x32_20(halves(counter + static_cast<uint64_t>(position)), halves(key));
    b.values[static_cast<size_t>(flat)] = y[word_of_pair];
    for (int64_t d = rank - 1; d >= 0; --d)
      if (++index[d] < shape[d])
        break;
      else
        index[d] = 0;
  }
  return b;
}

Bits threefry_64(uint64_t key, uint64_t counter, int64_t count) {
  Bits b;
  b.values.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    std::array<uint32_t, 2> y =
        threefry2x32_20(halves(counter + static_cast<uint64_t>(i)), halves(key));
    b.values[static_cast<size_t>(i)] = word(y[0], y[1]);
  }
  b.counters = static_cast<uint64_t>(count);
  return b;
}

// Philox's layout: 128-bit counters from (low, high) on, each giving four
// 32-bit words, taken in order (two 64-bit values, low word first).
Bits philox(uint64_t key, uint64_t low, uint64_t high, int64_t count, int width) {
  Bits b;
  b.values.resize(static_cast<size_t>(count));
  const int64_t per_counter = width == 64 ? 2 : 4;
  const int64_t counters = (count + per_counter - 1) / per_counter;
  for (int64_t c = 0; c < counters; ++c) {
    const uint64_t l = low + static_cast<uint64_t>(c);
    const uint64_t h = high + (l < low ? 1 : 0);
    std::array<uint32_t, 2> lw = halves(l), hw = halves(h);
    std::array<uint32_t, 4> y = philox4x32_10({lw[0], lw[1], hw[0], hw[1]}, halves(key));
    for (int64_t j = 0; j < per_counter && c * per_counter + j < count; ++j)
      b.values[static_cast<size_t>(c * per_counter + j)] =
          width == 64 ? word(y[2 * j], y[2 * j + 1]) : y[j];
  }
  b.counters = static_cast<uint64_t>(counters);
  return b;
}

} // namespace

std::array<uint32_t, 2> threefry2x32_20(std::array<uint32_t, 2> x, std::array<uint32_t, 2> k) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const std::array<uint32_t, 3> ks = {k[0], k[1], 0x1BD11BDAu ^ k[0] ^ k[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int round = 0; round < 20; ++round) {
    x[0] += x[1];
    x[1] = rotate_left(x[1], kRotations[round % 8]) ^ x[0];
    if (round % 4 == 3) { // a key injection after every four rounds
      const uint32_t s = static_cast<uint32_t>(round / 4 + 1);
      x[0] += ks[s % 3];
      x[1] += ks[(s + 1) % 3] + s;
    }
  }
  return x;
}

std::vector<Tensor> rng_bit_generator(const core::GraphNode& n, const Tensor& state,
                                      const core::ValueType& output) {
  const std::string algorithm = n.string_attr("rng_algorithm");
  const int64_t words = state.numel();
  auto state_word = [&](int64_t i) { return static_cast<uint64_t>(state.get(i).i); };
  const uint64_t key = state_word(0);
  int64_t count = 1;
  for (int64_t d : output.shape)
    count *= d;
  // The generators give 64-bit values for 64-bit elements and 32-bit ones
  // for the others, whose low bits the narrower elements keep.
  const int width = core::size_bytes(output.dtype) == 8 ? 64 : 32; // complex: refused by the reader
  Bits b;
  Tensor new_state = state;
  if (algorithm == "PHILOX") {
    const uint64_t low = state_word(1), high = words == 3 ? state_word(2) : 0;
    b = philox(key, low, high, count, width);
    const uint64_t moved = low + b.counters;
    new_state.set(1, core::Scalar::of_int(state.dtype(), static_cast<int64_t>(moved)));
    if (words == 3)
      new_state.set(2, core::Scalar::of_int(state.dtype(),
                                            static_cast<int64_t>(high + (moved < low ? 1 : 0))));
  } else { // THREE_FRY, and DEFAULT read as it
    const uint64_t counter = state_word(1);
    b = width == 64 ? threefry_64(key, counter, count) : threefry_32(key, counter, output.shape);
    new_state.set(1,
                  core::Scalar::of_int(state.dtype(), static_cast<int64_t>(counter + b.counters)));
  }
  // The bits as the output's elements: an integer of the element's width
  // (narrower ones keep the low bits), a float's bits reinterpreted.
  Tensor result(output.dtype, output.shape);
  if (core::minifloat(output.dtype)) {
    const uint64_t mask = (uint64_t{1} << core::bit_width(output.dtype)) - 1;
    for (int64_t i = 0; i < count; ++i)
      result.set(i, core::Scalar::of_float(
                        output.dtype,
                        core::minifloat_value(output.dtype,
                                              static_cast<uint8_t>(b.values[size_t(i)] & mask))));
  } else if (core::is_float(output.dtype)) {
    const DType carrier = width == 64                           ? DType::UInt64
                          : core::size_bytes(output.dtype) == 4 ? DType::UInt32
                          : core::size_bytes(output.dtype) == 2 ? DType::UInt16
                                                                : DType::UInt8;
    Tensor bits(carrier, output.shape);
    for (int64_t i = 0; i < count; ++i)
      bits.set(i, core::Scalar::of_int(carrier, static_cast<int64_t>(b.values[size_t(i)])));
    result = bitcast_convert(bits, output);
  } else {
    for (int64_t i = 0; i < count; ++i)
      result.set(i, core::Scalar::of_int(output.dtype, static_cast<int64_t>(b.values[size_t(i)])));
  }
  return {new_state, result};
}

} // namespace teval::ops::detail
