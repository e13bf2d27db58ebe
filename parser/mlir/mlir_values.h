// Types and attribute values of MLIR text as teval reads them (internal to
// parser/mlir/): `tensor<4x?xf32>`, typed numbers, `dense<...>` constants.
#pragma once

#include "core/graph.h"
#include "core/numeric.h"
#include "core/tensor.h"
#include "parser/ast.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace teval::parser::mlir_detail {

/// A `?` dimension.
inline constexpr int64_t kDynamic = -1;

/// The dtype of an MLIR element type (i1 ... f64), or nothing.
std::optional<core::DType> element_type(std::string_view name);
/// The text of \p e as written.
std::string text(const ast::Expr& e);
/// `tensor<4x?xf32>` (a `?` as kDynamic). Throws Error for another type.
core::ValueType tensor_type(const ast::Expr& e);
/// The quantized element type \p written (`!quant.uniform<i8<-127:127>:f32:1,
/// {0.1:-30, 0.5}>`, spec "Types"; parser/mlir/mlir_quant.cpp), checked as
/// (C1)-(C11) say ((C12), (C13) need the shape: tensor_type checks them).
/// Throws Error at \p span.
std::shared_ptr<const core::Quantization> quantized_element(const std::string& written,
                                                            core::Span span);
/// "tensor<4x?xf32>".
std::string type_string(const core::ValueType& t);
/// The declared type \p declared admits \p actual: same dtype and rank,
/// equal extents where \p declared is static.
bool fits(const core::ValueType& declared, const core::ValueType& actual);

/// An attribute value with its `: type` ascription split off.
struct Typed {
  const ast::Expr* value;
  const ast::Expr* type = nullptr;
};
Typed typed(const ast::Expr& e);

/// An integer literal (a sign allowed), or nothing. Throws Error past int64.
std::optional<int64_t> integer_value(const ast::Expr& e);
/// A number literal as a double, or nothing.
std::optional<double> float_value(const ast::Expr& e);
/// One element of a dense attribute as a value of \p t (a bit pattern
/// `0x7FC00000` for floats). Throws Error.
core::Scalar element_value(const ast::Expr& e, core::DType t);
/// `dense<...>` of type \p t: a splat, nested lists, or a hex string of the
/// raw little-endian bytes. Throws Error.
core::Tensor dense_value(const ast::Expr& e, const core::ValueType& t);

} // namespace teval::parser::mlir_detail
