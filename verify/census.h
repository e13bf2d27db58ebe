// The generators' reach, measured: a census of the constructs
// docs/SEMANTICS.md defines (dtypes, ranks, operators on each dtype,
// aggregations, index forms, guarded reads, temps of rank 0, ...) over the
// elaborated kernels of a campaign's cases. A construct the census lists and
// the generators never draw is a part of the semantics no campaign tests.
#pragma once

#include "core/graph.h"
#include "core/kernel.h"
#include "verify/fuzz_case.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace teval::verify {

/// How many of the sampled kernels drew each construct.
struct Census {
  uint64_t kernels = 0;
  /// Cases whose program did not elaborate (an error the program is meant
  /// to have is drawn at run time, never here: this must stay 0).
  uint64_t unreadable = 0;
  /// Construct name -> kernels that have it, for every construct of
  /// census_constructs() (0 where none had it) and any other seen.
  std::map<std::string, uint64_t> counts;
};

/// Every construct the census lists, as "group: construct", in the order
/// the table shows them. 2000 cases of --lang all must draw each one
/// (Census.EveryConstructIsDrawnIn2000Cases).
const std::vector<std::string>& census_constructs();

/// The constructs \p k has (each once), named as census_constructs() names
/// them.
std::vector<std::string> constructs_of(const core::Kernel& k);

/// Every construct the census of MLIR functions lists: each op of the
/// graph, each value of each ByteIR op's attributes, each result count,
/// each element type and scalars. 2000 cases of --lang mlir must draw
/// each one (Census.EveryByteirOpAndAttributeValueIsDrawnIn2000Cases).
const std::vector<std::string>& mlir_census_constructs();

/// The constructs op graph \p g has, named as mlir_census_constructs()
/// names them.
std::vector<std::string> constructs_of(const core::Graph& g);

/// The census of cases 0 .. \p cases - 1 of \p space: of their kernels'
/// constructs, or for --lang mlir of their op graphs'.
Census take_census(const CaseSpace& space, uint64_t cases);

/// \p c as a Markdown table: group, construct, kernels, share; the
/// constructs never drawn first, marked.
std::string census_table(const Census& c);

} // namespace teval::verify
