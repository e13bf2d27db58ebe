// Loop transformations of the LoopNest IR. Each returns a new nest (the
// input is unchanged; untouched subtrees are shared) or nothing, with the
// reason in *why, when it does not apply or would change a result.
//
// Every transformation preserves the outputs bit for bit, and preserves
// whether the nest stops with an error; when several points of a nest are
// erroneous, a transformation that changes the iteration order (reorder,
// tile, fuse) may report a different one of them (docs/SEMANTICS.md,
// "Loop transformations"). Loops are named by their variable.
#pragma once

#include "core/loopnest.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace teval::core {

/// The variables of every For in \p nest, in pre-order (outer loops first).
std::vector<int> loop_vars(const LoopNest& nest);

/// How split() handles an extent that is not a multiple of the factor.
enum class SplitTail : uint8_t {
  Separate, ///< a second loop runs the remaining iterations
  Mask,     ///< the inner loop's extra iterations are guarded off
};

/// `for v in [b, e)` becomes `for v.o: for v.i in [0, factor): v = b + v.o
/// * factor + v.i` (v itself is then a Let, so the body and error messages
/// are unchanged), plus the tail. factor >= 1.
std::optional<LoopNest> split(const LoopNest& nest, int var, int64_t factor, SplitTail tail,
                              std::string* why = nullptr);

/// Interchanges loop \p outer and the loop \p inner directly inside it
/// (perfectly nested, bounds independent of outer). Applies only when no
/// two iterations it reorders touch one stored location: every access to a
/// buffer the body stores has outer (or every one has inner) as the whole
/// index of one and the same dimension.
std::optional<LoopNest> reorder(const LoopNest& nest, int outer, int inner,
                                std::string* why = nullptr);

/// Splits \p outer and \p inner (perfectly nested) by the factors and
/// moves the two inner parts inside: a 2-D tile. Applies when reorder does.
std::optional<LoopNest> tile(const LoopNest& nest, int outer, int inner, int64_t outer_factor,
                             int64_t inner_factor, std::string* why = nullptr);

/// Replaces a loop with constant bounds and at most 64 iterations by its
/// body once per iteration, each under `let v = value`.
std::optional<LoopNest> unroll(const LoopNest& nest, int var, std::string* why = nullptr);

/// Marks a loop for vector code generation (LoopKind::Vectorized); the
/// code generator vectorizes what it can prove legal, and forces vector
/// code only on a loop whose iterations_separated() holds.
std::optional<LoopNest> vectorize(const LoopNest& nest, int var, std::string* why = nullptr);

/// True when no two iterations of \p f touch one stored location: every
/// access to a buffer its body stores has f's variable as the whole index
/// of one and the same dimension (the rule of reorder and parallelize). A
/// loop that fails it may carry a reduction from iteration to iteration.
bool iterations_separated(const For& f, std::string* why = nullptr);

/// Marks a top-level loop (a statement of the root block) with constant
/// bounds to run its iterations on several threads (LoopKind::Parallel).
/// Applies when no two iterations touch one stored location (every access
/// to a stored buffer has the variable as the whole index of one and the
/// same dimension) and the loop cannot raise an error (core/bounds.h): then
/// no order of the iterations changes a result.
std::optional<LoopNest> parallelize(const LoopNest& nest, int var, std::string* why = nullptr);

// The same on one statement of a nest, which is not copied (a schedule of
// a nest of many statements stays linear): the statement transformed.
std::optional<Stmt> reorder(const Stmt& root, int outer, int inner, std::string* why = nullptr);
std::optional<Stmt> vectorize(const Stmt& root, int var, std::string* why = nullptr);
/// \p loop: a top-level loop statement of \p nest.
std::optional<Stmt> parallelize(const LoopNest& nest, const Stmt& loop, std::string* why = nullptr);

/// Register tiling of a top-level statement \p top of \p nest, a perfectly
/// nested chain of loops with constant bounds around one store: loop \p jam,
/// whose variable is a whole index of the store, is split by \p jam_factor,
/// and its inner part moves inside every loop below it:
///
///     for jam.o:                         (the loops above and between in place)
///       for ...:
///         jam_factor copies of: let jam = jam.o * jam_factor + k:
///           for <the innermost loop>: body
///
/// With a vectorized output row innermost and reductions between, the
/// copies' accumulators stay in registers across the reductions. Each
/// output still gets its updates in the same order: the same bits. jam.o
/// keeps the jammed loop's kind (its iterations still write disjoint
/// outputs). Applies when the factor divides the extent, the statement
/// cannot raise an error and the stored buffer is read only at the store's
/// index. The new loop variable is added to \p nest.
std::optional<Stmt> register_tile(LoopNest& nest, const Stmt& top, int jam, int64_t jam_factor,
                                  std::string* why = nullptr);
/// The same on the top-level statement that holds loop \p jam.
std::optional<LoopNest> register_tile(const LoopNest& nest, int jam, int64_t jam_factor,
                                      std::string* why = nullptr);

/// Index-set splitting of a top-level statement \p top of \p nest, a
/// perfectly nested chain of loops: loop \p var's range [b, e) becomes two
/// statements, the chain with var over [b, at), then the chain with var
/// over [at, e) (b < at < e, constant bounds). So a row of outputs 56 wide
/// becomes one of 48 (whole vectors) and one of 8. Applies when no two
/// iterations of var touch one stored location (iterations_separated) and
/// the statement cannot raise an error: then running one part of the range
/// first changes no result. The second statement binds fresh copies of the
/// variables (added to \p nest), so that each loop keeps its own variable.
std::optional<std::pair<Stmt, Stmt>> split_range(LoopNest& nest, const Stmt& top, int var,
                                                 int64_t at, std::string* why = nullptr);
/// The same on the top-level statement that holds loop \p var.
std::optional<LoopNest> split_range(const LoopNest& nest, int var, int64_t at,
                                    std::string* why = nullptr);

/// Leaves out each fill of the root block that is dead: a statement that
/// stores one constant at every element of a buffer (lowering begins each
/// kernel statement with one), when the next statement that touches the
/// buffer stores every element of it again, unguarded, without reading it
/// (loops with constant nonempty bounds whose variables are the store's
/// whole indices over each dimension's extent). No read can see the fill,
/// and the later statement's errors do not depend on it. \p dropped (when
/// given) receives the buffer of each fill left out.
LoopNest drop_dead_fills(const LoopNest& nest, std::vector<int>* dropped = nullptr);

/// Guarded reads as plain reads of a padded copy. In top-level statement
/// \p top of \p nest, a read `select(c, B[i_1, ..., i_n], k)`, where k is a
/// constant of B's dtype and c a conjunction of bounds on the read's own
/// indices (`i_d >= l`, `i_d < u` and the other orders, with integer
/// constants), becomes the unconditional read P[i_1 - lo_1, ..., i_n - lo_n]
/// of a temp buffer P over every value [lo_d, hi_d] the indices take there,
/// holding B's element where c holds and k elsewhere: a padded
/// convolution's window is read without a condition. Applies when the
/// indices are integer arithmetic on variables of known ranges (they cannot
/// fail, so evaluating them where c is false changes nothing), B is read in
/// range wherever c holds, \p top does not write B, and P has at most 4
/// times B's elements plus 4096. Reads of one B whose conditions select the
/// same elements of B (within its shape) with the same k share one P over
/// the union of their ranges (a stencil's shifted windows), and all the
/// copies together have at most \p max_elements elements. Returns, in order: for each P its
/// Allocate (not zeroed) and one statement that writes all of P (B's element where the index
/// is inside B and the condition's box, k elsewhere); \p top rewritten; each P's Free. The P
/// buffers are added to \p nest.
std::optional<std::vector<Stmt>> pad_guarded_reads(LoopNest& nest, const Stmt& top,
                                                   int64_t max_elements,
                                                   std::string* why = nullptr);
/// The same on the top-level statement that holds loop \p var.
std::optional<LoopNest> pad_guarded_reads(const LoopNest& nest, int var, int64_t max_elements,
                                          std::string* why = nullptr);

/// Rows walked as one through a padded copy's row stride. Top-level
/// statement \p at of \p tops (the root block's statements of \p nest) is
/// a chain of loops with constant bounds around one unguarded store
/// O[..., h, w], h and w adjacent loops over the whole of O's last two
/// dimensions (H x W), whose value reads O only at the store's index and
/// temps T (padded copies) at [..., h + a, w + b], all of one row stride
/// S >= W. Then q = h * S + w walks the rows as one row of H * S points,
/// rounded up to a multiple of \p row: each read of T is at the flat
/// position q + a * S + b, the same element, and the columns w in [W, S)
/// are computed into a temp O_rows[..., q / row, q % row] and thrown away.
/// So a 56-wide convolution over 58-wide padded rows keeps whole vectors
/// (56 / 58 of the lanes useful, not 56 / 64). The statements become:
/// O_rows' Allocate and its start (nothing for a fill of O with zeros
/// before, else that fill, else a copy of O), the statement over (q / row,
/// q % row) into O_rows, the copy of O_rows' useful columns into O, and
/// O_rows' Free; every access to T in the nest is made flat (T[..., x, y]
/// is T[..., x * S + y]), T given the rows the last walked point reads.
/// Applies when the statement and the walked one cannot fail (the thrown
/// away columns read other elements of T: they must be in range and the
/// value must not fail on any element) and T is not written there.
/// Returns the new top-level statements; the buffers and variables are
/// added to \p nest.
std::optional<std::vector<Stmt>> coalesce_rows(LoopNest& nest, const std::vector<Stmt>& tops,
                                               size_t at, int64_t row, std::string* why = nullptr);

/// The pairs of loops that follow each other directly in one block, first
/// to last: the candidates for fuse().
std::vector<std::pair<int, int>> adjacent_loops(const LoopNest& nest);

/// Fuses loop \p second into loop \p first when they are adjacent in one
/// block with equal constant bounds: one loop runs both bodies. Applies
/// when no iteration of one body touches a location another iteration of
/// the other stores: every access to a buffer that either body stores and
/// both access has the loop variable as the whole index of one and the
/// same dimension.
std::optional<LoopNest> fuse(const LoopNest& nest, int first, int second,
                             std::string* why = nullptr);

} // namespace teval::core
