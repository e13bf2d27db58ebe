// The terms of a contraction, output by output (see contraction.h).
#include "interp/contraction.h"

#include "core/interrupt.h"
#include "core/numeric.h"
#include "core/shape.h"

#include <algorithm>
#include <cstring>

namespace teval::interp {

using core::DType;
using core::Expr;
using Wide = __int128;

namespace {

double load_float32(const std::byte* bytes, int64_t at) {
  float v;
  std::memcpy(&v, bytes + 4 * at, 4);
  return v;
}

// Element \p at of a factor's floating tensor.
double load(const Contraction::Factor& f, int64_t at) {
  switch (f.type) {
  case DType::Float32:
    return load_float32(f.bytes, at);
  case DType::Float64: {
    double v;
    std::memcpy(&v, f.bytes + 8 * at, 8);
    return v;
  }
  default: {
    uint16_t b;
    std::memcpy(&b, f.bytes + 2 * at, 2);
    return f.type == DType::Float16 ? core::float16_value(b) : core::bfloat16_value(b);
  }
  }
}

// The lanes [lo, hi) as bits.
inline uint64_t lane_run(int64_t lo, int64_t hi, int lanes) {
  lo = std::max<int64_t>(lo, 0);
  hi = std::min<int64_t>(hi, lanes);
  if (lo >= hi)
    return 0;
  uint64_t below_hi = hi == 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
  return below_hi & ~((uint64_t{1} << lo) - 1);
}

// The lanes j < \p lanes (bit j) where d + c·j compares with 0 as \p op says.
uint64_t lanes_where(Wide d, Wide c, core::Op op, int lanes) {
  const uint64_t all = (uint64_t{1} << lanes) - 1;
  // The common case, a step of -1, 0 or 1 along the row and a value far
  // from int64's ends: as x + c·j >= 0 (or > 0) in int64.
  constexpr int64_t kNear = int64_t{1} << 60;
  if (c >= -1 && c <= 1 && d > -kNear && d < kNear && op != core::Op::Eq && op != core::Op::Ne) {
    int64_t x = static_cast<int64_t>(d), y = static_cast<int64_t>(c);
    if (op == core::Op::Lt || op == core::Op::Le)
      x = -x, y = -y;
    if (op == core::Op::Gt || op == core::Op::Lt)
      x -= 1;
    // x + y·j >= 0
    if (y == 0)
      return x >= 0 ? all : 0;
    return y > 0 ? lane_run(-x, lanes, lanes) : lane_run(0, x + 1, lanes);
  }
  if (op == core::Op::Eq || op == core::Op::Ne) {
    uint64_t m = 0;
    for (int j = 0; j < lanes; ++j) {
      Wide v = d + c * j;
      m |= uint64_t{(v == 0) == (op == core::Op::Eq)} << j;
    }
    return m;
  }
  // As x + y·j >= 0 over the integers.
  Wide x = d, y = c;
  switch (op) {
  case core::Op::Gt:
    x -= 1;
    break;
  case core::Op::Lt:
    x = -x - 1, y = -y;
    break;
  case core::Op::Le:
    x = -x, y = -y;
    break;
  default:
    break;
  }
  Wide lo = 0, hi = lanes; // [lo, hi)
  if (y == 0) {
    if (x < 0)
      return 0;
  } else if (y == 1) {
    lo = -x;
  } else if (y == -1) {
    hi = x + 1;
  } else if (y > 0) {
    // j >= ceil(-x / y)
    Wide n = -x;
    lo = n >= 0 ? (n + y - 1) / y : -((-n) / y);
  } else {
    // j <= floor(x / -y)
    Wide m = -y;
    hi = (x >= 0 ? x / m : -((-x + m - 1) / m)) + 1;
  }
  lo = std::max<Wide>(lo, 0);
  hi = std::min<Wide>(hi, lanes);
  return lane_run(static_cast<int64_t>(lo), static_cast<int64_t>(hi), lanes);
}

} // namespace

int Contraction::add_affine(const Affine& a) {
  affine_.push_back(a);
  return static_cast<int>(affine_.size() - 1);
}

std::optional<Contraction::Factor>
Contraction::factor(const core::Kernel& kernel, const Expr& e,
                    const std::vector<const core::Tensor*>& tensors) {
  Factor f;
  if (!core::is_float(e->dtype))
    return std::nullopt;
  if (const auto* c = std::get_if<core::Const>(&e->node)) {
    f.constant = true;
    f.value = c->value.f;
    return f;
  }
  const Expr* read = &e;
  if (const auto* sel = std::get_if<core::Select>(&e->node)) {
    const auto* otherwise = std::get_if<core::Const>(&sel->otherwise->node);
    std::optional<std::vector<Comparison>> guard = conjunction(sel->cond, s_->vars);
    if (!otherwise || !guard || sel->otherwise->dtype != e->dtype)
      return std::nullopt;
    f.value = otherwise->value.f;
    for (const Comparison& c : *guard)
      f.guard.emplace_back(add_affine(c.difference), c.op);
    read = &sel->then;
  }
  if (const auto* cast = std::get_if<core::Cast>(&(*read)->node)) {
    if (!core::is_float(cast->value->dtype))
      return std::nullopt;
    f.cast = (*read)->dtype;
    read = &cast->value;
  }
  const auto* load = std::get_if<core::Load>(&(*read)->node);
  if (!load || !tensors[load->tensor] || !core::is_float((*read)->dtype))
    return std::nullopt;
  f.tensor = load->tensor;
  const core::Shape& shape = kernel.tensors[load->tensor].shape;
  std::vector<int64_t> strides = core::strides(shape);
  Affine flat{0, std::vector<int64_t>(s_->vars.size(), 0)};
  Wide constant = 0;
  std::vector<Wide> coeff(s_->vars.size(), 0);
  for (size_t d = 0; d < load->index.size(); ++d) {
    std::optional<Affine> a = affine(load->index[d], s_->vars);
    if (!a)
      return std::nullopt;
    auto [lo, hi] = affine_range(*a, s_->vars);
    if (lo < 0 || hi >= shape[d]) {
      f.dims.push_back(add_affine(*a));
      f.extents.push_back(shape[d]);
    }
    constant += Wide(a->constant) * strides[d];
    for (size_t v = 0; v < coeff.size(); ++v)
      coeff[v] += Wide(a->coeff[v]) * strides[d];
  }
  // The flat position (used only where every index is in range) and every
  // value it takes over the box fit int64.
  if (constant < INT64_MIN || constant > INT64_MAX)
    return std::nullopt;
  flat.constant = static_cast<int64_t>(constant);
  for (size_t v = 0; v < coeff.size(); ++v) {
    if (coeff[v] < INT64_MIN || coeff[v] > INT64_MAX)
      return std::nullopt;
    flat.coeff[v] = static_cast<int64_t>(coeff[v]);
  }
  auto [lo, hi] = affine_range(flat, s_->vars);
  if (lo < INT64_MIN || hi > INT64_MAX)
    return std::nullopt;
  f.flat = add_affine(flat);
  return f;
}

std::optional<Contraction> Contraction::plan(const core::Kernel& kernel, const core::Statement& s,
                                             const std::vector<const core::Tensor*>& tensors) {
  const core::TensorDecl& target = kernel.tensors[s.target];
  if (s.aggregation != core::Aggregation::Sum || !core::is_float(target.dtype) ||
      s.start != core::Start::Init || s.init_from || target.shape.empty() ||
      s.value->dtype != target.dtype)
    return std::nullopt;
  Contraction c;
  c.s_ = &s;
  c.dtype_ = target.dtype;
  c.skip_ = s.out_of_range == core::OutOfRange::Skip;
  // Every output index is its own variable, spanning the extent.
  std::vector<char> is_out(s.vars.size(), 0);
  for (size_t d = 0; d < s.out_index.size(); ++d) {
    const auto* v = std::get_if<core::VarRef>(&s.out_index[d]->node);
    if (!v || is_out[v->var] || s.vars[v->var].begin != 0 || s.vars[v->var].end != target.shape[d])
      return std::nullopt;
    is_out[v->var] = 1;
    c.out_vars_.push_back(v->var);
  }
  c.points_ = 1;
  for (size_t v = 0; v < s.vars.size(); ++v) {
    if (s.vars[v].end <= s.vars[v].begin)
      return std::nullopt;
    if (!is_out[v]) {
      c.reduce_vars_.push_back(static_cast<int>(v));
      c.points_ *= s.vars[v].end - s.vars[v].begin;
    }
  }
  c.outputs_ = 1;
  for (int64_t extent : target.shape)
    c.outputs_ *= extent;
  c.row_ = target.shape.back();
  for (const core::Constraint& k : s.constraints) {
    std::optional<Affine> a = affine(k.expr, s.vars);
    if (!a)
      return std::nullopt;
    c.constraints_.emplace_back(c.add_affine(*a), k.bound);
  }
  std::vector<const Expr*> factors;
  const auto* mul = std::get_if<core::Apply>(&s.value->node);
  if (mul && mul->op == core::Op::Mul) {
    factors = {&mul->args[0], &mul->args[1]};
  } else {
    factors = {&s.value};
  }
  for (const Expr* e : factors) {
    std::optional<Factor> f = c.factor(kernel, *e, tensors);
    if (!f || (factors.size() == 2 && (*e)->dtype != target.dtype))
      return std::nullopt;
    c.factors_.push_back(std::move(*f));
  }
  for (Factor& f : c.factors_)
    if (!f.constant) {
      f.bytes = tensors[f.tensor]->bytes().data();
      f.type = tensors[f.tensor]->dtype();
    }
  return c;
}

std::vector<int> Contraction::reads() const {
  std::vector<int> ids;
  for (const Factor& f : factors_)
    if (!f.constant && std::find(ids.begin(), ids.end(), f.tensor) == ids.end())
      ids.push_back(f.tensor);
  return ids;
}

bool Contraction::terms(int64_t first, int lanes, int64_t from, int64_t to_point,
                        Terms& out) const {
  const size_t n = affine_.size();
  const size_t per = static_cast<size_t>(to_point - from) * kLanes;
  out.a.resize(per);
  if (product())
    out.b.resize(per);
  out.count.fill(0);
  // The index point of lane 0's first term.
  std::vector<int64_t> point(s_->vars.size());
  int64_t rest = first;
  for (size_t d = out_vars_.size(); d-- > 0;) {
    int64_t extent = s_->vars[out_vars_[d]].end;
    point[out_vars_[d]] = rest % extent;
    rest /= extent;
  }
  // The reduction point \p from, row-major.
  std::vector<int64_t> counter(reduce_vars_.size(), 0);
  rest = from;
  for (size_t r = reduce_vars_.size(); r-- > 0;) {
    const core::IndexVar& var = s_->vars[reduce_vars_[r]];
    counter[r] = rest % (var.end - var.begin);
    rest /= var.end - var.begin;
    point[reduce_vars_[r]] = var.begin + counter[r];
  }
  // Every affine value at that point, its change from a lane to the next,
  // and its change when reduction variable r steps (those inside it
  // starting again); modulo 2^64, as every value reached fits int64.
  std::vector<int64_t> cur(n), lane(n), step(n * reduce_vars_.size());
  const int lane_var = out_vars_.back();
  for (size_t i = 0; i < n; ++i) {
    const Affine& a = affine_[i];
    uint64_t v = static_cast<uint64_t>(a.constant);
    for (size_t x = 0; x < point.size(); ++x)
      v += static_cast<uint64_t>(a.coeff[x]) * static_cast<uint64_t>(point[x]);
    cur[i] = static_cast<int64_t>(v);
    lane[i] = a.coeff[lane_var];
    uint64_t reset = 0;
    for (size_t r = reduce_vars_.size(); r-- > 0;) {
      const core::IndexVar& var = s_->vars[reduce_vars_[r]];
      uint64_t k = static_cast<uint64_t>(a.coeff[reduce_vars_[r]]);
      step[i * reduce_vars_.size() + r] = static_cast<int64_t>(k - reset);
      reset += k * static_cast<uint64_t>(var.end - 1 - var.begin);
    }
  }
  const size_t nr = reduce_vars_.size();
  const uint64_t all = (uint64_t{1} << lanes) - 1;
  // The lanes where affine value \p id compares with 0 as \p op says.
  auto where = [&](int id, core::Op op) { return lanes_where(cur[id], lane[id], op, lanes); };
  // The lanes where every index of \p f that may leave its extent does not.
  auto in_range = [&](const Factor& f) {
    uint64_t m = all;
    for (size_t d = 0; d < f.dims.size(); ++d)
      m &= where(f.dims[d], core::Op::Ge) &
           lanes_where(Wide(cur[f.dims[d]]) - f.extents[d], lane[f.dims[d]], core::Op::Lt, lanes);
    return m;
  };
  const bool compact = skip_ || !constraints_.empty();
  for (int64_t point_k = from; point_k < to_point; ++point_k) {
    const int64_t k = point_k - from;
    uint64_t present = all;
    for (const auto& [id, bound] : constraints_)
      present &= where(id, core::Op::Ge) &
                 lanes_where(Wide(cur[id]) - bound, lane[id], core::Op::Lt, lanes);
    if (skip_)
      for (const Factor& f : factors_)
        if (!f.constant)
          present &= in_range(f);
    // Each lane's slot for this term: the next of its own when points
    // may be skipped, else term k's.
    std::array<size_t, kLanes> slot;
    if (compact)
      for (int j = 0; j < lanes; ++j)
        slot[j] = static_cast<size_t>(out.count[j]) * kLanes + static_cast<size_t>(j);
    for (size_t i = 0; i < factors_.size(); ++i) {
      const Factor& f = factors_[i];
      double* to = i == 0 ? out.a.data() : out.b.data();
      double* row = to + k * kLanes;
      if (f.constant) {
        if (compact)
          for (int j = 0; j < lanes; ++j)
            to[slot[j]] = f.value;
        else
          std::fill(row, row + lanes, f.value);
        continue;
      }
      uint64_t taken = present;
      for (const auto& [id, op] : f.guard)
        taken &= where(id, op);
      if (!skip_ && (taken & ~in_range(f)))
        return false; // a read out of range: the walk reports it
      const uint64_t base = static_cast<uint64_t>(cur[f.flat]);
      const uint64_t stride = static_cast<uint64_t>(lane[f.flat]);
      auto read = [&](int j) {
        double v = load(f, static_cast<int64_t>(base + stride * static_cast<uint64_t>(j)));
        return f.cast ? core::round_float(*f.cast, v) : v;
      };
      int low = taken ? __builtin_ctzll(taken) : 0;
      int high = taken ? 64 - __builtin_clzll(taken) : 0;
      if (!compact && taken == lane_run(low, high, lanes)) {
        // The lanes that read are one run: the others take the guard's
        // value, and a read along the row is a copy or one value.
        std::fill(row, row + low, f.value);
        std::fill(row + high, row + lanes, f.value);
        if (stride == 1 && !f.cast && f.type == DType::Float32)
          for (int j = low; j < high; ++j)
            row[j] = load_float32(f.bytes, static_cast<int64_t>(base) + j);
        else if (stride == 1 && !f.cast && f.type == DType::Float64)
          std::memcpy(row + low, f.bytes + 8 * (static_cast<int64_t>(base) + low),
                      sizeof(double) * static_cast<size_t>(high - low));
        else if (stride == 0 && high > low)
          std::fill(row + low, row + high, read(low));
        else
          for (int j = low; j < high; ++j)
            row[j] = read(j);
      } else {
        for (int j = 0; j < lanes; ++j)
          (compact ? to[slot[j]] : row[j]) = taken >> j & 1 ? read(j) : f.value;
      }
    }
    if (compact)
      for (int j = 0; j < lanes; ++j)
        out.count[j] += present >> j & 1;
    // The next reduction point: the innermost variable that does not wrap.
    for (size_t r = nr; r-- > 0;) {
      const core::IndexVar& var = s_->vars[reduce_vars_[r]];
      if (++counter[r] < var.end - var.begin) {
        for (size_t i = 0; i < n; ++i)
          cur[i] = static_cast<int64_t>(static_cast<uint64_t>(cur[i]) +
                                        static_cast<uint64_t>(step[i * nr + r]));
        break;
      }
      counter[r] = 0;
    }
  }
  if (!compact)
    for (int j = 0; j < lanes; ++j)
      out.count[j] = to_point - from;
  return true;
}

namespace {

// Adds term k of lanes j < count[j] to sums[j], products rounded, in T
// (float or double: the interpreter's rounding of each operation).
template <class T>
void add_terms(T* sums, const Contraction::Terms& terms, bool product, int lanes, int64_t longest,
               bool uniform) {
  constexpr int kLanes = Contraction::kLanes;
  for (int64_t k = 0; k < longest; ++k) {
    const double* a = terms.a.data() + k * kLanes;
    const double* b = product ? terms.b.data() + k * kLanes : nullptr;
    if (uniform) { // every lane has every term: a loop the compiler vectorises
      for (int j = 0; j < lanes; ++j)
        sums[j] =
            sums[j] + (b ? static_cast<T>(a[j]) * static_cast<T>(b[j]) : static_cast<T>(a[j]));
    } else {
      for (int j = 0; j < lanes; ++j)
        if (k < terms.count[j])
          sums[j] =
              sums[j] + (b ? static_cast<T>(a[j]) * static_cast<T>(b[j]) : static_cast<T>(a[j]));
    }
  }
}

} // namespace

bool Contraction::sum_in_order(core::Tensor& out,
                               const std::function<void(int64_t)>& progress) const {
  constexpr int64_t kChunk = 1024;
  const double init = s_->init.f;
  Terms t;
  int64_t done = 0;
  for (int64_t row = 0; row < outputs_ / row_; ++row)
    for (int64_t start = 0; start < row_; start += kLanes) {
      core::poll_interrupt();
      const int64_t first = row * row_ + start;
      const int lanes = static_cast<int>(std::min<int64_t>(kLanes, row_ - start));
      std::array<float, kLanes> single;
      std::array<double, kLanes> wide;
      single.fill(static_cast<float>(init));
      wide.fill(init);
      for (int64_t from = 0; from < points_; from += kChunk) {
        if (!terms(first, lanes, from, std::min(points_, from + kChunk), t))
          return false;
        int64_t longest = 0;
        bool uniform = true;
        for (int j = 0; j < lanes; ++j) {
          longest = std::max(longest, t.count[j]);
          uniform = uniform && t.count[j] == t.count[0];
        }
        if (dtype_ == DType::Float32) {
          add_terms(single.data(), t, product(), lanes, longest, uniform);
        } else if (dtype_ == DType::Float64) {
          add_terms(wide.data(), t, product(), lanes, longest, uniform);
        } else {
          // float16 and bfloat16: each operation in double, rounded.
          for (int64_t k = 0; k < longest; ++k)
            for (int j = 0; j < lanes; ++j)
              if (k < t.count[j]) {
                size_t at = static_cast<size_t>(k) * kLanes + static_cast<size_t>(j);
                double r = product() ? core::round_float(dtype_, t.a[at] * t.b[at]) : t.a[at];
                wide[j] = core::round_float(dtype_, wide[j] + r);
              }
        }
      }
      for (int j = 0; j < lanes; ++j)
        out.set(first + j, core::Scalar::of_float(dtype_, dtype_ == DType::Float32
                                                              ? static_cast<double>(single[j])
                                                              : wide[j]));
      done += lanes;
      if (progress && (start == 0 || done == outputs_))
        progress(done);
    }
  return true;
}

} // namespace teval::interp
