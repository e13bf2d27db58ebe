// rng_bit_generator (StableHLO specification, "rng_bit_generator"):
// rng_algorithm in the generic form or the pretty one's
// `algorithm = THREE_FRY`, the state and the results checked as the
// specification's constraints (C1) and (C2) say; the bits themselves are
// ops/rng.cpp's.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

namespace teval::parser::mlir_detail {

std::vector<core::ValueType>
rng_bit_generator_meaning(const OpSite& site, const core::ValueType& state, core::GraphNode& node) {
  using core::DType;
  using core::Error;
  using core::ErrorKind;
  only(site, {"rng_algorithm", "algorithm"});
  const char* name = find(site, "rng_algorithm", false) ? "rng_algorithm" : "algorithm";
  const core::Span at = find(site, name, true)->span;
  const std::string algorithm = *enum_word(site, name, 99);
  if (algorithm != "DEFAULT" && algorithm != "THREE_FRY" && algorithm != "PHILOX")
    throw Error(ErrorKind::Type, at,
                "rng_algorithm is " + algorithm + "; it is one of DEFAULT, THREE_FRY, PHILOX");
  if (state.dtype != DType::UInt64 || state.shape.size() != 1)
    throw Error(ErrorKind::Type, site.span,
                "rng_bit_generator's initial_state is a 1-dimensional tensor of ui64, not " +
                    type_string(state));
  // (C2): DEFAULT is THREE_FRY here, whose state is a key and a counter.
  const int64_t words = state.shape[0];
  if (algorithm == "PHILOX" ? words != 2 && words != 3 : words != 2)
    throw Error(ErrorKind::Shape, site.span,
                "rng_bit_generator with " + algorithm + " takes a state of " +
                    (algorithm == "PHILOX" ? "2 or 3" : "2") + " ui64 words, not " +
                    std::to_string(words));
  // The output's type is the declared one: integers or floats of any
  // width but bool.
  if (site.declared_outs.size() != 2)
    throw Error(
        ErrorKind::Shape, site.span,
        "rng_bit_generator gives 2 results (the new state and the bits); its type declares " +
            std::to_string(site.declared_outs.size()));
  const core::ValueType output = site.declared_outs[1];
  if (output.dtype == DType::Bool || core::is_complex(output.dtype) || output.quant)
    throw Error(ErrorKind::Type, site.span,
                "rng_bit_generator's output is a tensor of integers or floats, not " +
                    type_string(output));
  node.attrs["rng_algorithm"] = algorithm;
  return {state, output}; // (C1): the new state has the initial state's type
}

} // namespace teval::parser::mlir_detail
