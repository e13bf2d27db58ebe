// Reading an op's attributes by name (internal to parser/mlir/): each
// accessor checks the attribute's kind and range and throws Error at it.
#pragma once

#include "core/numeric.h"
#include "parser/mlir/mlir_ops.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace teval::parser::mlir_detail {

/// The attribute, or null when it is absent and not \p required.
const ast::Expr* find(const OpSite& site, const std::string& name, bool required);
/// Throws at an attribute that is not one of \p known.
void only(const OpSite& site, std::initializer_list<std::string_view> known);
int64_t int_attr(const OpSite& site, const std::string& name);
double float_attr(const OpSite& site, const std::string& name);
bool bool_attr(const OpSite& site, const std::string& name, bool fallback);
/// Distinct axes of a tensor of rank \p rank, increasing.
std::vector<int64_t> axes_attr(const OpSite& site, const std::string& name, size_t rank);
/// A scalar (`1.0 : f32`, `dense<1> : tensor<i64>`, or bare, of \p fallback).
core::Scalar scalar_attr(const OpSite& site, const std::string& name, core::DType fallback);
std::optional<std::string> string_attr(const OpSite& site, const std::string& name, bool required);
/// One axis in [0, rank).
int64_t axis_attr(const OpSite& site, const std::string& name, size_t rank);
/// `[1, 2]`, `array<i64: 1, 2>` or `dense<[1, 2]> : tensor<2xi64>`.
std::vector<int64_t> ints_attr(const OpSite& site, const std::string& name);
/// The integers of an attribute, flattened: `[1, 2]`, `[[0, 0], [1, 1]]`,
/// `array<i64: 1, 2>`, `dense<0> : tensor<2x2xi64>`, and booleans as 0 and
/// 1 (`[false, true]`, `array<i1: false, true>`, `dense<false> :
/// tensor<2xi1>`). Throws Error at \p e, naming it \p name.
std::vector<int64_t> flat_ints(const ast::Expr& e, const std::string& name);

/// The fields of a dialect attribute kept as written,
/// `#stablehlo.gather<offset_dims = [1], index_vector_dim = 1>` (or the
/// text inside its `<...>`): each name with its integers (one for `= N`).
/// Nothing when the text is not such a list of fields.
std::optional<std::map<std::string, std::vector<int64_t>>> dialect_fields(std::string_view written);

/// An enum's word: `GT` written after the op (the pretty form, the
/// \p at-th such word) or `name = #stablehlo<comparison_direction GT>`.
std::optional<std::string> enum_word(const OpSite& site, const std::string& name, size_t at);

} // namespace teval::parser::mlir_detail
