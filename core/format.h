// Text forms of values and kernels, for diagnostics, dumps and printing.
#pragma once

#include "core/kernel.h"
#include "core/numeric.h"
#include "core/tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace teval::core {

/// The shortest text that reads back as the same value of its dtype, in
/// Python's style: "3", "-0.5", "1.0", "1e-05", "inf", "nan", "True".
std::string format_scalar(const Scalar& v);

/// Element \p at of \p t as format_scalar shows it; a bool stored as a
/// byte other than 0 or 1 says so.
std::string format_element(const Tensor& t, int64_t at);

/// "1, 2, 3": an index tuple as error messages show it.
std::string format_index(const std::vector<int64_t>& index);

/// "N=1, K=2": an index point of \p vars as error messages show it, or
/// "the only point" for a statement without variables.
std::string format_point(const std::vector<IndexVar>& vars, const std::vector<int64_t>& point);

/// The diagnostics of every evaluator for an access outside a tensor:
/// "read out of range: A[5, 0] is outside shape [4, 2] (at N=5); guard it
/// with .when(...)". \p index and \p point are already formatted
/// (format_index, "N=5, K=0" or "the only point").
std::string read_out_of_range(const std::string& tensor, const std::string& index,
                              const Shape& shape, const std::string& point);
std::string write_out_of_range(const std::string& tensor, const std::string& index,
                               const Shape& shape, const std::string& point);

/// The name of variable or tensor number N.
using NameOf = std::function<std::string(int)>;

/// A readable dump of \p e with every cast explicit, naming variables and
/// tensors through the given functions. \p c_style writes loads as
/// `A[i][j]` and int64 constants bare, as loop-nest listings do.
std::string to_string(const Expr& e, const NameOf& var_name, const NameOf& tensor_name,
                      bool c_style = false);

/// A readable dump of \p e inside statement \p s of kernel \p k, with every
/// cast explicit: "cast<float32>(N) * input0[N, K]".
std::string to_string(const Kernel& k, const Statement& s, const Expr& e);

/// A readable dump of the whole kernel: tensors, statements with their
/// index ranges, aggregation, init and policies. Used by golden tests of
/// elaboration and by `teval run --dump-kernel`.
std::string to_string(const Kernel& k);

} // namespace teval::core
