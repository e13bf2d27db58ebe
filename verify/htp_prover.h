// The symbolic prover's internals (see htp_prove.h): the encoding of a rule
// as Z3 terms, shared by verify/htp_prove_encode.cpp (tensors, ops,
// constraints, replacements) and verify/htp_prove.cpp (the cases, the
// queries, replaying a counterexample). The only files that see Z3; not
// part of the library's interface.
#pragma once

#include "core/kernel.h"
#include "verify/htp_prove.h"
#include "verify/htp_verifier.h"

#include <z3++.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace teval::verify::htp::prove {

using detail::Skeleton;
using parser::htp::Rule;
using rules::HtpType;
using rules::OpSet;

/// A construct outside the fragment the encoding covers: the rule's
/// verdict is unknown, for this reason.
struct Outside {
  core::Span span;
  std::string reason;
};

/// Tensors are rank 4 (HTP's [batch, height, width, depth]).
inline constexpr size_t kRank = 4;
/// Extents range over [1, kMaxExtent].
inline constexpr int64_t kMaxExtent = (int64_t{1} << 31) - 1;

using Index = std::vector<z3::expr>;

/// A tensor of symbolic extents whose element at a symbolic index is a
/// term: of a graph input, an uninterpreted function of the index.
struct SymTensor {
  HtpType dtype = HtpType::Float32;
  std::vector<z3::expr> shape;
  /// The element at an index within the shape (throws Outside when the
  /// values are outside the fragment, a quantized tensor's say).
  std::function<z3::expr(const Index&)> at;
  /// Built by the replacement (modifiers change fresh ops only).
  bool fresh = false;
  /// The op that computes it ("" for a graph input).
  std::string op;
  /// A quantized tensor's zero offset (Int) and step (float32).
  std::optional<z3::expr> zero, step;
  /// A match op outside the fragment: using it throws this (the case may
  /// still be vacuous, its constraint false without it).
  std::optional<Outside> poison;
  /// A shape construction (HTP's OpDef_Shape): `shape` is its value; it
  /// has no data.
  bool is_shape = false;
};

/// One graph input of the match (a tag, or a "$Const"): its extents and
/// its values.
struct Leaf {
  int item = -1; ///< in the skeleton
  std::string name;
  HtpType dtype = HtpType::Float32;
  std::vector<z3::expr> shape;
  /// Its elements: floats, or a quantized or int32 tensor's codes (Int).
  std::optional<z3::func_decl> values;
  /// A quantized tensor's zero offset (Int) and step (float32).
  std::optional<z3::expr> zero, step;
  /// The graph holds it as a constant: a tag CONSTVAL_* reads (HTP matches
  /// a tag to a constant too; the sampling verifier draws it so).
  bool constant = false;
};

using detail::zero_range;
using rules::code_range;

inline bool is_float(HtpType t) {
  return t == HtpType::Float32 || t == HtpType::Float16;
}

/// The Z3 sort of a float HtpType's elements.
z3::sort element_sort(z3::context& c, HtpType t);

/// Probe extents an op's definition is elaborated at, tried in turn until
/// it accepts them (a product or a convolution relates its inputs').
const std::vector<core::Shape>& probe_extents();

/// The extents the `where` clauses of \p def (op \p op's definition) give
/// its variables, per statement, as integer arithmetic of \p inputs'
/// extents. Throws Outside for a clause of other arithmetic, or a statement
/// that reads extents outside its clauses.
std::vector<std::map<std::string, z3::expr>>
where_extents(z3::context& c, const rules::OpDef& def, const std::string& op,
              const std::vector<const SymTensor*>& inputs);

/// Calls \p f on every load in \p e.
void loads(const core::Expr& e, const std::function<void(const core::Load&)>& f);

/// A rule under one assignment of dtypes to its match's inputs.
class Encoding {
public:
  /// \p precision: the rule lowers precision on purpose, and the values'
  /// obligation is the documented precision change rather than equality.
  Encoding(z3::context& c, const Rule& rule, const OpSet& ops, const Skeleton& skeleton,
           const std::vector<HtpType>& leaf_dtypes, bool precision = false);

  /// Builds the match's graph and the constraint: what every graph the
  /// rule applies to satisfies. Throws Outside.
  z3::expr assumptions();
  /// Builds the replacement: what the rewrite must keep (its ops accept
  /// their inputs, the output's dtype and extents), and the index at which
  /// the values may differ (\p differ: in bounds and not identical).
  /// Throws Outside.
  z3::expr obligations(z3::expr& differ);
  /// The same obligations when the values are outside the fragment (the
  /// types may still show the rewrite wrong). Throws Outside.
  z3::expr obligations_without_values();

  const std::vector<Leaf>& leaves() const { return leaves_; }
  /// The graph options the rule reads, by name, each an integer.
  const std::map<std::string, z3::expr>& options() const { return options_; }
  /// Their ranges: an OPTION_UINT is at least 1 (HTP never sets a size
  /// option to 0), an OPTION_INT an int; an OPTION_BOOL any integer.
  z3::expr option_ranges() const {
    z3::expr all = c_.bool_val(true);
    for (const z3::expr& r : option_ranges_)
      all = all && r;
    return all;
  }
  const Index& index() const { return index_; }
  /// Every quantized encoding's zero offset and step: the inputs' and
  /// those of ops that quantize into an encoding of their own.
  const std::vector<std::pair<z3::expr, z3::expr>>& encodings() const { return encodings_; }
  /// Whether the rule is elementwise: every op it applies reads its inputs
  /// at its output's index (or a scalar's element), and nothing reads,
  /// slices or constructs extents. Its proof at rank 4 then holds at every
  /// rank (a tensor of another rank is one of rank 4 with its axes merged
  /// or padded with unit ones, element for element).
  bool elementwise() const { return elementwise_; }
  /// The ops abstracted as uninterpreted functions, each with the reason
  /// its definition is outside the fragment.
  const std::vector<std::string>& abstracted() const { return abstracted_; }

private:
  // A constraint value: a bool, an integer (int or size; a size is an
  // integer in [0, 2^64), arithmetic wrapping), a float constant or a dtype.
  struct Val {
    enum class Type { Bool, Int, Size, Float, DType } type = Type::Bool;
    std::optional<z3::expr> e; ///< Bool, Int, Size; a Float read from the graph (float32)
    float f = 0;               ///< a constant Float
    std::string dtype;
  };

  Val eval(const ast::Expr& e);
  // CONSTVAL_INT, CONSTVAL_FLOAT and their _VALID forms.
  Val constval(const ast::Call& c);
  z3::expr truth(const ast::Expr& e);
  const SymTensor& opref(const ast::Expr& e);
  z3::expr as_int(const Val& v, const ast::Expr& e);

  // Op \p op of \p inputs; \p declared the output definition in force (a
  // replacement's op) or none (a match op: its definition's output).
  // Whether its definition accepts the inputs goes to *typed.
  SymTensor apply(const std::string& op, const std::vector<const SymTensor*>& inputs,
                  const SymTensor* declared, z3::expr* typed, core::Span where);
  // The same, read from its definition's kernel. Throws Outside.
  SymTensor interpreted(const std::string& op, const std::vector<const SymTensor*>& inputs,
                        const SymTensor* declared, z3::expr* typed, core::Span where);
  // The same as an uninterpreted function: a definition outside the
  // fragment (\p why).
  SymTensor uninterpreted(const std::string& op, const std::vector<const SymTensor*>& inputs,
                          const SymTensor* declared, z3::expr* typed, const Outside& why);
  void output_type(const std::string& op, const rules::OpDef& def, core::DType computed,
                   const std::vector<const SymTensor*>& inputs, const SymTensor* declared,
                   SymTensor& result, z3::expr& ok);
  SymTensor build(const ast::Expr& e, const SymTensor& in_force, z3::expr& typed);
  // The replacement's output; what it must keep (its ops accept their
  // inputs, the root's dtype and extents) into \p keep.
  SymTensor replacement(z3::expr& keep);
  SymTensor modifier(const ast::Call& c, const SymTensor& in_force, z3::expr& typed);

  z3::context& c_;
  bool precision_ = false;
  const Rule& rule_;
  const OpSet& ops_;
  const Skeleton& skeleton_;
  std::vector<Leaf> leaves_;
  std::vector<SymTensor> nodes_; ///< per skeleton item
  std::map<std::string, int> tags_;
  std::map<std::string, z3::expr> options_;
  std::vector<z3::expr> option_ranges_;
  std::map<std::string, z3::func_decl> functions_; ///< uninterpreted math functions
  Index index_;
  int conditions_ = 0; ///< fresh conditions made (truth)
  bool elementwise_ = true;
  /// The chunk of an AUTOSPLIT being built: its start (a multiple of the
  /// chunk size, chosen by the solver) and extent.
  struct Split {
    std::string tag;
    int dim = 0;
    z3::expr start, size;
  };
  std::vector<Split> splits_;
  /// Which chunk holds the output's element at the index: conditions on
  /// each AUTOSPLIT's start, added to the query of the values.
  std::vector<z3::expr> chunk_conditions_;
  /// What the elements read so far need: codes in their dtype's range.
  std::vector<z3::expr> value_conditions_;
  /// Where a float-to-integer conversion faults (NaN or out of range).
  std::vector<z3::expr> faults_;
  std::vector<z3::expr> premises_; ///< limits of teval's the claim assumes
  int splits_made_ = 0;
  int encodings_made_ = 0; ///< fresh encodings of ops that quantize
  std::vector<std::pair<z3::expr, z3::expr>> encodings_;
  /// Ops abstracted as uninterpreted functions: an id per definition and
  /// dtypes; each op and why, for the verdict's reason.
  std::map<std::string, int> uninterpreted_;
  std::vector<std::string> abstracted_;
  SymTensor autosplit(const ast::Call& c, const SymTensor& in_force, z3::expr& typed);
  SymTensor slice(const std::vector<const SymTensor*>& inputs, const SymTensor* declared,
                  z3::expr* typed, core::Span where);
  SymTensor shape_function(const ast::Call& c, z3::expr& typed);
  SymTensor shape_node(std::vector<z3::expr> value) const;
  // The precision claim's parts (precision_).
  z3::expr in_float16_range(const z3::expr& v) const;
  z3::expr within_precision_change(const z3::expr& before, const z3::expr& after) const;
  z3::expr premise(const z3::expr& before) const;
};

} // namespace teval::verify::htp::prove
