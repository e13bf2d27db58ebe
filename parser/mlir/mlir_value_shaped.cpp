// byteir.repeat and byteir.non_zero, ByteIR's ops whose result shapes
// depend on operand values (ByteIR's compiler/doc/byteir_hlo_custom_call.md,
// its linalg lowering of repeat and its bounded shape of non_zero). A
// function of static types declares the result's extent; teval checks it
// against the values when it runs (ops/value_shaped.cpp).
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"
#include "core/format.h"

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::ValueType;

std::vector<ValueType> value_shaped_meaning(const OpSite& site, const core::Graph& g) {
  const bool repeat = site.op == core::GraphOp::Repeat;
  const std::string op = repeat ? "byteir.repeat" : "byteir.non_zero";
  if (site.operands.size() != (repeat ? 2u : 1u))
    throw Error(ErrorKind::Shape, site.span,
                op + " takes " +
                    (repeat ? "two operands, the input and the repeats" : "one operand"));
  only(site, {});
  if (site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, op + " has one result");
  const ValueType& x = g.values[static_cast<size_t>(site.operands[0])];
  ValueType out = site.declared_outs[0];
  if (x.quant || core::is_complex(x.dtype))
    throw Error(ErrorKind::Type, site.span, op + " of " + type_string(x) + " is not read");
  if (repeat) {
    // repeat_interleave along dimension 0: each row of the input as many
    // times as its repeat says, in order.
    const ValueType& r = g.values[static_cast<size_t>(site.operands[1])];
    if (x.shape.empty() || r.shape.size() != 1 ||
        (r.dtype != DType::Int32 && r.dtype != DType::Int64) || r.shape[0] != x.shape[0])
      throw Error(ErrorKind::Shape, site.span,
                  "byteir.repeat takes a tensor of rank 1 or more and a vector of int32 or int64 "
                  "repeats, one per row; here " +
                      type_string(x) + " and " + type_string(r));
    if (out.dtype != x.dtype || out.shape.size() != x.shape.size())
      throw Error(ErrorKind::Shape, site.span,
                  "byteir.repeat's result is of the input's element type and rank: " +
                      type_string(x) + " repeated, not " + type_string(out));
    for (size_t d = 1; d < x.shape.size(); ++d)
      if (out.shape[d] != kDynamic && out.shape[d] != x.shape[d])
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.repeat keeps dimension " + std::to_string(d) + " (" +
                        std::to_string(x.shape[d]) + "), not " + type_string(out));
      else
        out.shape[d] = x.shape[d];
    if (out.shape[0] == kDynamic) {
      // The sum of the repeats: known when they are a constant.
      const core::Tensor* c = core::constant_value(g, site.operands[1]);
      if (!c)
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.repeat's first result dimension is the sum of its repeats, which are "
                    "not a constant: declare it (tensor<5x...>); teval checks it when it runs");
      int64_t rows = 0;
      for (int64_t i = 0; i < c->numel(); ++i) {
        const int64_t n = c->get(i).i;
        if (n < 0 || __builtin_add_overflow(rows, n, &rows))
          throw Error(ErrorKind::Range, site.span,
                      "byteir.repeat's repeats must be non-negative; repeat " + std::to_string(i) +
                          " is " + std::to_string(n));
      }
      out.shape[0] = rows;
    }
    return {out};
  }
  // non_zero (torch.nonzero): the indices of the nonzero elements, one row
  // each, in row-major order.
  if (out.shape.size() != 2 || out.shape[1] != static_cast<int64_t>(x.shape.size()) ||
      (out.dtype != DType::Int32 && out.dtype != DType::Int64))
    throw Error(ErrorKind::Shape, site.span,
                "byteir.non_zero of " + type_string(x) +
                    " gives int32 or int64 indices of shape "
                    "[count, " +
                    std::to_string(x.shape.size()) + "], not " + type_string(out));
  if (out.shape[0] == kDynamic)
    throw Error(ErrorKind::Shape, site.span,
                "byteir.non_zero's row count is the number of nonzero elements, which a function "
                "of static types cannot leave open (ByteIR bounds it by the element count, " +
                    std::to_string(core::checked_numel(x.shape).value_or(0)) +
                    "): declare it; teval checks it when it runs");
  return {out};
}

} // namespace teval::parser::mlir_detail
