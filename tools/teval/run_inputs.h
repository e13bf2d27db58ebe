// The -i arguments of `teval run` and the commands that take a program's
// inputs: NAME=TYPE[SHAPE] for seeded random data, NAME=PATH for a .npy
// file or an array of a .npz archive.
#pragma once

#include "core/tensor.h"
#include "parser/antares/antares.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace teval::tools {

/// One -i NAME=VALUE argument.
struct InputArg {
  std::string name;
  std::string value;
};

/// "float32[4, 8]" as an -i value; nothing when the value is a path.
/// Throws UsageError for a word and brackets that name no dtype, an empty or
/// non-numeric dimension.
std::optional<parser::InputType> random_spec(const std::string& value);

/// The dtypes and shapes of the inputs: declared ones (an Antares
/// input_dict, \p types) checked against the -i arguments \p inputs; fills
/// \p given with the tensors read from files.
std::map<std::string, parser::InputType> input_types(const std::vector<InputArg>& inputs,
                                                     std::map<std::string, parser::InputType> types,
                                                     std::map<std::string, core::Tensor>& given);

} // namespace teval::tools
