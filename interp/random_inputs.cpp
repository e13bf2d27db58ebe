// Seeded random inputs, valid by construction.
#include "interp/random_inputs.h"

#include "core/error.h"
#include "interp/interpreter.h"

#include <algorithm>
#include <cstring>

namespace teval::interp {

namespace {

class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n), n > 0, without modulo bias.
  uint64_t below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t v = 0;
    do
      v = next();
    while (v >= limit);
    return v % n;
  }

private:
  uint64_t state_;
};

// FNV-1a: a stable hash of the tensor name for its stream.
uint64_t hash_name(const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : name)
    h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

const core::Expr& strip_casts(const core::Expr& e) {
  if (const auto* c = std::get_if<core::Cast>(&e->node))
    return strip_casts(c->value);
  return e;
}

} // namespace

std::map<int, int64_t> index_bounds(const core::Kernel& k) {
  std::map<int, int64_t> bounds;
  auto bound = [&](const core::Expr& e, int64_t extent) {
    const auto* l = std::get_if<core::Load>(&strip_casts(e)->node);
    if (!l || k.tensors[l->tensor].role != core::TensorRole::Input ||
        !core::is_integer(k.tensors[l->tensor].dtype))
      return;
    auto [it, fresh] = bounds.emplace(l->tensor, extent);
    if (!fresh)
      it->second = std::min(it->second, extent);
  };
  for (const core::Statement& s : k.statements) {
    auto visit = [&](const core::Expr& e) {
      if (const auto* l = std::get_if<core::Load>(&e->node)) {
        for (size_t d = 0; d < l->index.size(); ++d)
          bound(l->index[d], k.tensors[l->tensor].shape[d]);
      } else if (const auto* a = std::get_if<core::Apply>(&e->node); a && a->op == core::Op::Eq) {
        for (int side = 0; side < 2; ++side)
          if (const auto* v = std::get_if<core::VarRef>(&strip_casts(a->args[1 - side])->node))
            bound(a->args[side], s.vars[v->var].end);
      }
    };
    core::for_each_node(s.value, visit);
    for (size_t d = 0; d < s.out_index.size(); ++d) {
      core::for_each_node(s.out_index[d], visit);
      bound(s.out_index[d], k.tensors[s.target].shape[d]);
    }
    for (const core::Constraint& c : s.constraints)
      core::for_each_node(c.expr, visit);
  }
  return bounds;
}

core::Tensor random_tensor_in(core::DType dtype, const core::Shape& shape, uint64_t seed,
                              const std::string& name, const RandomBounds& bounds) {
  const core::DType real = core::is_complex(dtype) ? core::complex_part(dtype) : dtype;
  TEVAL_ASSERT(core::is_float(real) ? core::round_float(real, bounds.lo) < bounds.hi
                                    : bounds.int_lo <= bounds.int_hi,
               "empty random bounds");
  core::Tensor t(dtype, shape);
  SplitMix64 rng(seed * 0x9e3779b97f4a7c15ULL ^ hash_name(name));
  // The count of integers in [int_lo, int_hi], modulo 2^64 (0 for the whole
  // int64 range, where every draw is in range).
  uint64_t count = static_cast<uint64_t>(bounds.int_hi) - static_cast<uint64_t>(bounds.int_lo) + 1;
  // A draw that rounds up to hi is drawn again, so values stay below hi.
  auto draw_float = [&](auto rounded) {
    double v = 0;
    do {
      double u = static_cast<double>(rng.next() >> 11) * 0x1p-53; // [0, 1)
      v = rounded(bounds.lo + u * (bounds.hi - bounds.lo));
    } while (v >= bounds.hi);
    return v;
  };
  // float32 and float64 stored as the machine's own: the values and the
  // stream of draws are Scalar::of_float's, without a Scalar per element.
  if (dtype == core::DType::Float32 || dtype == core::DType::Float64) {
    std::byte* out = t.bytes().data();
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (dtype == core::DType::Float32) {
        auto v = static_cast<float>(draw_float([](double x) { return double(float(x)); }));
        std::memcpy(out + i * 4, &v, 4);
      } else {
        double v = draw_float([](double x) { return x; });
        std::memcpy(out + i * 8, &v, 8);
      }
    }
    return t;
  }
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (core::is_complex(dtype)) { // each part in the bounds, the real part first
      const double re = draw_float([&](double x) { return core::round_float(real, x); });
      t.set(i, core::Scalar::of_complex(
                   dtype, re, draw_float([&](double x) { return core::round_float(real, x); })));
    } else if (core::is_float(dtype)) {
      t.set(i, core::Scalar::of_float(
                   dtype, draw_float([&](double x) { return core::round_float(dtype, x); })));
    } else {
      uint64_t offset = count == 0 ? rng.next() : rng.below(count);
      t.set(i, core::Scalar::of_int(
                   dtype, static_cast<int64_t>(static_cast<uint64_t>(bounds.int_lo) + offset)));
    }
  }
  return t;
}

core::Tensor random_tensor(core::DType dtype, const core::Shape& shape, uint64_t seed,
                           const std::string& name, std::optional<int64_t> index_bound) {
  RandomBounds b;
  if (core::is_bool(dtype)) {
    b.int_lo = 0;
    b.int_hi = 1;
  } else if (index_bound) {
    // Never beyond the dtype, where values would wrap negative.
    int64_t cap = core::int_max_wide(dtype) >= INT64_MAX
                      ? INT64_MAX
                      : static_cast<int64_t>(core::int_max_wide(dtype)) + 1;
    b.int_lo = 0;
    b.int_hi = std::clamp<int64_t>(*index_bound, 1, cap) - 1;
  } else if (core::is_unsigned(dtype)) {
    b.int_lo = 0;
  }
  return random_tensor_in(dtype, shape, seed, name, b);
}

core::Tensor random_value(const core::ValueType& t, uint64_t seed, const std::string& name) {
  if (!t.quant)
    return random_tensor(t.dtype, t.shape, seed, name);
  // random_tensor's [-10, 10], within the storage range (or its lowest 21
  // integers where the range lies outside it).
  RandomBounds b;
  b.int_lo = std::max(b.int_lo, t.quant->storage_min);
  b.int_hi = std::min(b.int_hi, t.quant->storage_max);
  if (b.int_lo > b.int_hi) {
    b.int_lo = t.quant->storage_min;
    b.int_hi = std::min(t.quant->storage_max, t.quant->storage_min + 20);
  }
  return random_tensor_in(t.dtype, t.shape, seed, name, b);
}

std::vector<core::Tensor> make_inputs(const core::Kernel& kernel,
                                      const std::map<std::string, core::Tensor>& given,
                                      uint64_t seed) {
  std::vector<core::Tensor> inputs;
  std::map<int, int64_t> bounds = index_bounds(kernel);
  for (int id : input_ids(kernel)) {
    const core::TensorDecl& d = kernel.tensors[id];
    if (auto it = given.find(d.name); it != given.end()) {
      inputs.push_back(it->second);
      continue;
    }
    std::optional<int64_t> bound;
    if (auto b = bounds.find(id); b != bounds.end())
      bound = b->second;
    inputs.push_back(random_tensor(d.dtype, d.shape, seed, d.name, bound));
  }
  return inputs;
}

} // namespace teval::interp
