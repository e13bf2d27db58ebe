// What each op of an MLIR function means to teval (internal to
// parser/mlir/): an operation as the function spells it, and the check of
// its operands and attributes that gives its results' types and its decoded
// attributes.
#pragma once

#include "core/graph.h"
#include "parser/ast.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace teval::parser::mlir_detail {

/// An operation as the function spells it, before its meaning is checked.
struct OpSite {
  const ast::Call* call = nullptr;
  core::Span span;
  std::string name; ///< after the dialect: "add", "custom_call"
  std::vector<int> operands;
  std::vector<const ast::Expr*> positional; ///< attributes among the operands
  std::vector<core::ValueType> declared_ins, declared_outs;
  /// The op's attributes by name: its keywords, or for a custom call the
  /// entries of byteir_attrs.
  std::map<std::string, const ast::Expr*> attrs;
  std::map<std::string, core::Span> attr_names; ///< where each name is written
  core::Span attrs_span;
  core::GraphOp op = core::GraphOp::Constant;
};

/// The types of \p site's results, its attributes decoded into \p node;
/// \p g holds the values defined so far. Throws Error at the offending
/// operand or attribute.
std::vector<core::ValueType> meaning(const OpSite& site, const core::Graph& g,
                                     core::GraphNode& node);

/// dot_general's dimension numbers.
struct DotNumbers {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
};

/// dot_general and dot (parser/mlir/mlir_dot.cpp): the result type of
/// \p site over operands \p lhs and \p rhs, the dimension numbers decoded
/// into \p node as lhs_batch, rhs_batch, lhs_contract and rhs_contract;
/// \p numbers, when given, instead of \p site's attributes (a composition's
/// dot_general, \p site's result dtype the dot's).
core::ValueType dot_meaning(const OpSite& site, const core::ValueType& lhs,
                            const core::ValueType& rhs, core::GraphNode& node,
                            const DotNumbers* numbers = nullptr);

/// convolution (parser/mlir/mlir_convolution.cpp) of \p lhs and \p rhs:
/// the result type; the dimension numbers (input_batch, input_feature,
/// input_spatial, kernel_in, kernel_out, kernel_spatial, output_batch,
/// output_feature, output_spatial), the window (strides, pad_low, pad_high,
/// lhs_dilation, rhs_dilation, reversal as 0/1) and feature_groups and
/// batch_groups into \p node. dynamic_conv gives its padding operand's
/// values as \p padding_operand.
core::ValueType convolution_meaning(const OpSite& site, const core::ValueType& lhs,
                                    const core::ValueType& rhs, core::GraphNode& node,
                                    const std::vector<int64_t>* padding_operand = nullptr);

/// gather and dynamic_gather (parser/mlir/mlir_gather.cpp) of \p operand
/// at \p indices, slices of \p slice_sizes: the result type; node.op set
/// to Gather and the dimension numbers (offset_dims, collapsed_slice_dims,
/// operand_batching_dims, start_indices_batching_dims, start_index_map,
/// index_vector_dim) and slice_sizes into \p node.
core::ValueType gather_meaning(const OpSite& site, const core::ValueType& operand,
                               const core::ValueType& indices,
                               const std::vector<int64_t>& slice_sizes, core::GraphNode& node);

/// reduce (parser/mlir/mlir_reduce.cpp) of \p operands (input, initial
/// value): the result type; the attributes dimensions (ascending) and body
/// ("add", "multiply", "maximum", "minimum", "and", "or") into \p node.
core::ValueType reduce_meaning(const OpSite& site, const std::vector<core::ValueType>& operands,
                               core::GraphNode& node);

/// Whether reduce \p site of \p operands is one reduce_meaning reads: one
/// input and initial value, its body one op that folds them (`applies`, or
/// a region of add, multiply, maximum, minimum, and, or). Another reduce
/// (several inputs, any other body) keeps its body as a region that the
/// native reference runs (reduce_region_types).
bool folds_one_op(const OpSite& site, const std::vector<core::ValueType>& operands);

/// A body of element types wider than its operands' (reduce,
/// reduce_window, scatter; the specification's is_promotable): each such
/// operand of \p site converted to the type of its body parameter first
/// (convert, or uniform_quantize of quantized values), as new nodes of
/// \p g named \p prefix + "promoted<operand>".
void promote_to_body(OpSite& site, core::Graph& g, const std::string& prefix);

/// The op a reduce \p site of quantized values `applies`
/// (add, multiply, maximum, minimum): its region is that op on the
/// quantized scalars (Elaborator::reduce_region).
core::GraphOp applied_op(const OpSite& site);

/// The result types of reduce \p site of \p operands (N inputs, N initial
/// values) whose body is a region, checked as the specification's
/// (C1)-(C8) but for promotion (each initial value of its input's element
/// type); `dimensions` (ascending) into \p node.
std::vector<core::ValueType> reduce_region_types(const OpSite& site,
                                                 const std::vector<core::ValueType>& operands,
                                                 core::GraphNode& node);

/// The types of a reduce_window whose body is a region (several inputs,
/// or a body other than one op), its attributes into \p node.
std::vector<core::ValueType>
reduce_window_region_types(const OpSite& site, const std::vector<core::ValueType>& operands,
                           core::GraphNode& node);

/// reduce_window (parser/mlir/mlir_reduce.cpp) of \p operands (input,
/// initial value): the result type; the attributes window, strides,
/// base_dilations, window_dilations, pad_low, pad_high and body into
/// \p node.
core::ValueType reduce_window_meaning(const OpSite& site,
                                      const std::vector<core::ValueType>& operands,
                                      core::GraphNode& node);

/// pad (parser/mlir/mlir_pad.cpp) of \p x with the rank-0 \p value: the
/// result type; the attributes low, high and interior into \p node.
core::ValueType pad_meaning(const OpSite& site, const core::ValueType& x,
                            const core::ValueType& value, core::GraphNode& node);
/// pad's result type from its amounts (read from attributes or, for
/// dynamic_pad, constant operands), checked as (C2)-(C4); into \p node.
core::ValueType pad_type(const OpSite& site, const core::ValueType& x, const core::ValueType& value,
                         const std::vector<int64_t>& low, const std::vector<int64_t>& high,
                         const std::vector<int64_t>& interior, core::GraphNode& node);

/// triangular_solve (parser/mlir/mlir_triangular_solve.cpp) of \p a and
/// \p b: the result type; the attributes left_side, lower, unit_diagonal
/// and transpose_a into \p node.
core::ValueType triangular_solve_meaning(const OpSite& site, const core::ValueType& a,
                                         const core::ValueType& b, core::GraphNode& node);

/// cholesky's result type (the operand's: a float tensor of rank >= 2,
/// square in its last two dimensions), its `lower` into \p node.
core::ValueType cholesky_meaning(const OpSite& site, const core::ValueType& a,
                                 core::GraphNode& node);

/// fft (parser/mlir/mlir_fft.cpp) of \p x: the result type; the
/// attributes fft_type and fft_length into \p node.
core::ValueType fft_meaning(const OpSite& site, const core::ValueType& x, core::GraphNode& node);

/// rng_bit_generator (parser/mlir/mlir_rng.cpp) of \p state: the result
/// types (the state's and the declared output's); rng_algorithm into
/// \p node.
std::vector<core::ValueType>
rng_bit_generator_meaning(const OpSite& site, const core::ValueType& state, core::GraphNode& node);

/// dynamic_slice and dynamic_update_slice
/// (parser/mlir/mlir_dynamic_slice.cpp) of \p operands: the result type;
/// dynamic_slice's attribute sizes into \p node.
core::ValueType dynamic_slice_meaning(const OpSite& site,
                                      const std::vector<core::ValueType>& operands,
                                      core::GraphNode& node);
core::ValueType dynamic_update_slice_meaning(const OpSite& site,
                                             const std::vector<core::ValueType>& operands,
                                             core::GraphNode& node);

/// get_dimension_size and the dynamic forms with static results
/// (parser/mlir/mlir_dynamic.cpp), read as the static ops they are (a
/// constant; iota, reshape, broadcast_in_dim); nothing for another op.
/// The meaning of \p site where a quantized tensor is involved
/// (parser/mlir/mlir_quant.cpp): uniform_quantize, uniform_dequantize,
/// bitcast_convert to and from the storage type, the elementwise ops
/// (dequantize_op_quantize, marked in \p node); an error for others;
/// nothing when no value is quantized.
std::optional<std::vector<core::ValueType>>
quantized_meaning(const OpSite& site, const core::Graph& g, core::GraphNode& node);
/// The ops that only move elements, whose quantized forms keep the
/// operand's (per-tensor) quantization (spec): reshape, transpose,
/// broadcast_in_dim, slice, concatenate, reverse, dynamic_slice,
/// dynamic_update_slice.
bool moves_elements(core::GraphOp op);

/// A per-axis quantized operand \p from moved to \p to by \p site's op
/// (moves_elements), once \p node holds its attributes: the result must be
/// quantized along the dimension the op moves the operand's to, of the
/// same extent (transpose: by the permutation; broadcast_in_dim: by its
/// dimensions; reshape: a dimension kept whole; the others: the same).
void check_moved_axis(const OpSite& site, const core::ValueType& from, const core::ValueType& to,
                      const core::GraphNode& node);

/// The specification's constraints on dot_general, dot and convolution of
/// quantized tensors (dot_general (C14)-(C20), convolution (C28)-(C34)),
/// once \p node holds the op's dimension attributes: an error at the op.
void check_quantized_contraction(const OpSite& site, const std::vector<core::ValueType>& ins,
                                 const core::ValueType& out, const core::GraphNode& node);

std::optional<std::vector<core::ValueType>> alias_meaning(const OpSite& site, const core::Graph& g,
                                                          core::GraphNode& node);

/// scatter (parser/mlir/mlir_scatter.cpp) of \p operands (N inputs, the
/// scatter indices, N updates), checked as (C1)-(C22): the dimension
/// numbers into \p node; the update computation's parameter types (the N
/// inputs' and then the N updates' elements, rank 0).
std::vector<core::ValueType> scatter_meaning(const OpSite& site,
                                             const std::vector<core::ValueType>& operands,
                                             core::GraphNode& node);
/// select_and_scatter (parser/mlir/mlir_scatter.cpp) of \p operands (the
/// operand, the source, the initial value), checked as (C1)-(C12): the
/// window attributes into \p node; the element type its regions take.
core::ValueType select_and_scatter_meaning(const OpSite& site,
                                           const std::vector<core::ValueType>& operands,
                                           core::GraphNode& node);

/// byteir.repeat and byteir.non_zero (parser/mlir/mlir_value_shaped.cpp):
/// the result type, its extent that depends on values the declared one (or
/// for repeat the sum of constant repeats).
std::vector<core::ValueType> value_shaped_meaning(const OpSite& site, const core::Graph& g);

/// batch_norm_inference, batch_norm_training and batch_norm_grad
/// (parser/mlir/mlir_batch_norm.cpp), which the specification defines as
/// compositions of other ops: \p site's composition added to \p g as
/// nodes of those ops, their values named \p prefix and a name; the ids of
/// the op's results. is_batch_norm: \p name (after the dialect) is one.
bool is_batch_norm(const std::string& name);
std::vector<int> batch_norm(const OpSite& site, core::Graph& g, const std::string& prefix);

/// CHLO's sugar (parser/mlir/mlir_chlo.cpp). chlo_broadcast: the operands
/// of a broadcasting op (chlo.broadcast_add ... broadcast_select, \p site
/// already naming the StableHLO op) that need it replaced by broadcast_in_dim
/// nodes added to \p g (named \p prefix and the operand's role), the
/// result's shape the operands' broadcast; broadcast_dimensions consumed.
/// chlo_composition: chlo.square, chlo.conj and chlo.constant_like (\p
/// site.name; is_chlo_composition) as nodes of the ops CHLO defines them
/// by, the ids of the op's results.
void chlo_broadcast(OpSite& site, core::Graph& g, const std::string& prefix);
bool is_chlo_composition(const std::string& name);
std::vector<int> chlo_composition(const OpSite& site, core::Graph& g, const std::string& prefix);

/// Adds to \p g a node of \p op on \p operands, written at \p span, with one
/// result of type \p t at value path \p path; returns the result's id.
int add_node(core::Graph& g, core::Span span, core::GraphOp op, std::vector<int> operands,
             const core::ValueType& t, const std::string& path,
             std::map<std::string, core::GraphAttr> attrs = {});

} // namespace teval::parser::mlir_detail
