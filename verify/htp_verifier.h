// The soundness verifier's internals, shared by verify/htp_verify.cpp (the
// verifier: judging a drawn graph, shrinking, the verdict) and
// verify/htp_draw.cpp (drawing the graphs: types, shapes, constants and
// options from the rule's match and the constraint's hints). Not part of
// the library's interface.
#pragma once

#include "rules/htp_ops.h"
#include "verify/htp_compare.h"
#include "verify/htp_hints.h"
#include "verify/htp_verify.h"

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace teval::verify::htp::detail {

using parser::htp::Rule;
using rules::Graph;
using rules::HtpType;
using rules::OpSet;
using rules::TensorType;

// The match pattern as a list of nodes, inputs before users.
struct Skeleton {
  struct Item {
    enum class Kind { Leaf, Const, Op } kind;
    std::string name; // leaf tag, or the op's LET tag
    std::string op;
    std::vector<int> inputs;
  };
  std::vector<Item> items;
  int root = -1;
};

/// The skeleton item of \p e in \p s (added, with its operands, unless a
/// tag in \p tags names it already).
int skeleton_of(const ast::Expr& e, Skeleton& s, std::map<std::string, int>& tags);

// Everything random about one candidate graph.
struct Plan {
  std::vector<TensorType> types; // per skeleton item: leaf and const types, op quantization
  // Per skeleton item, a quantized encoding for an op of a float draw
  // whose definition quantizes (Quantize of a float input, Requantize).
  std::vector<TensorType> encodings;
  std::vector<double> const_values;
  std::map<std::string, double> options;
  uint64_t data_seed = 0;
  double scale = 1;
};

/// The zero offsets drawn for a quantized dtype: its codes for QUInt8,
/// QInt8 and QUInt16, 0 for the symmetric QInt16 and QInt32.
std::pair<int64_t, int64_t> zero_range(HtpType t);

/// \p g in the text format, each input's values as a comment after it.
std::string with_values(const Graph& g, const std::map<int, core::Tensor>& inputs);

/// For a rule that lowers precision on purpose: the error of \p got (the
/// output of \p after) against \p expected (of \p before, whose graph
/// inputs are \p inputs) when it is within the documented bound
/// (kPrecisionChangeBound of the largest magnitude, quantized values as the
/// real values they encode, a quantized output one code besides); none when
/// it is not, or the types differ.
std::optional<RelativeError> within_precision_change(const Graph& before,
                                                     const core::Tensor& expected,
                                                     const Graph& after, const core::Tensor& got,
                                                     const std::map<int, core::Tensor>& inputs);

class Verifier {
public:
  Verifier(const Rule& rule, const OpSet& ops, const VerifyOptions& o);

  VerifyResult run();

private:
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  Plan draw(int size);
  // The encoding hints (encodings_) applied to \p p's types: a dtype the
  // constraint tests for, quantization copied between the tags it
  // compares, a zero offset it names.
  void take_encoding_hints(Plan& p);
  // The graph of \p p, or nothing when an op's definition rejects its
  // inputs (that op's skeleton item goes to *failed).
  std::optional<Graph> build(const Plan& p, std::string* why, int* failed = nullptr);
  // \p p with the extents of inputs an op's definition equates to others
  // (see the definition).
  void repair(Plan& p);
  // Outcome of one plan: nullopt when the rule does not apply (not a case).
  // Imprecise: a rule that lowers precision on purpose differs within
  // kPrecisionChangeBound (the relative error goes to *error).
  // RewrittenAway: the earlier rules (VerifyOptions::earlier) leave no
  // node the rule applies to.
  enum class Outcome { Skip, Agree, Differ, Imprecise, Unverifiable, RewrittenAway };
  Outcome check(const Plan& p, Counterexample* cx, std::string* reason, double* error = nullptr);
  Plan shrink(Plan p);
  // Whether the rule still applies somewhere in \p g once the earlier
  // rules have run on it; a rule that cannot be evaluated there is taken
  // to apply (nothing is claimed about it). The first earlier rule that
  // rewrote the graph is counted in rewriters_.
  bool survives_earlier(const Graph& g);

  const Rule& rule_;
  const OpSet& ops_;
  const VerifyOptions& o_;
  std::mt19937_64 rng_;
  Skeleton skeleton_;
  std::map<std::string, std::string> options_;
  bool reads_dtypes_ = false;
  // The match has an op HTP's TCM migration inserts (flat_to_vtcm, ...).
  bool matches_tcm_moves_ = false;
  // Input tags that are the axis operand of a built-in Concat: constants.
  std::set<std::string> axis_tags_;
  // The graph dtypes every match op on an input tag is defined for, when
  // not all of them (empty: any).
  std::vector<HtpType> accepted_;
  bool lowers_precision_ = false;
  std::vector<DimHint> hints_;
  EncodingHints encodings_;
  ConstantHints constants_;
  std::map<std::string, int> rejections_;
  std::map<const Rule*, int> rewriters_;
};

} // namespace teval::verify::htp::detail
