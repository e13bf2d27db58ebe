// The -i arguments of `teval run` and the commands that take a program's
// inputs (see run_inputs.h).
#include "tools/teval/run_inputs.h"

#include "core/error.h"
#include "core/npy.h"
#include "core/npz.h"
#include "tools/teval/cli_support.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace teval::tools {

core::Tensor read_tensor_argument(const std::string& name, const std::string& path) {
  if (size_t at = path.rfind(".npz:"); at != std::string::npos)
    return core::read_npz(path.substr(0, at + 4), path.substr(at + 5));
  if (path.size() > 4 && path.substr(path.size() - 4) == ".npz")
    return core::read_npz(path, name);
  return core::read_npy(path);
}

std::optional<parser::InputType> random_spec(const std::string& value) {
  size_t open = value.find('[');
  if (open == std::string::npos || value.back() != ']')
    return std::nullopt;
  std::optional<core::DType> dtype = core::dtype_from_name(value.substr(0, open));
  if (!dtype) {
    // A word and a bracketed list is meant as a type, unless such a file
    // exists.
    std::string word = value.substr(0, open);
    if (is_identifier(word) && !std::filesystem::exists(value))
      throw UsageError{"unknown dtype '" + word + "' in '" + value + "'; teval has " +
                       core::dtype_name_list()};
    return std::nullopt;
  }
  parser::InputType t{*dtype, {}, {}};
  std::stringstream dims(value.substr(open + 1, value.size() - open - 2));
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    size_t b = dim.find_first_not_of(' ');
    size_t e = dim.find_last_not_of(' ');
    if (b == std::string::npos)
      throw UsageError{"empty dimension in '" + value + "'"};
    dim = dim.substr(b, e - b + 1);
    for (char c : dim)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        throw UsageError{"dimension '" + dim + "' in '" + value + "' is not a number"};
    errno = 0;
    unsigned long long n = std::strtoull(dim.c_str(), nullptr, 10);
    if (errno || n > static_cast<unsigned long long>(INT64_MAX))
      throw UsageError{"dimension '" + dim + "' is too large"};
    t.shape.push_back(static_cast<int64_t>(n));
  }
  return t;
}

std::map<std::string, parser::InputType> input_types(const std::vector<InputArg>& inputs,
                                                     std::map<std::string, parser::InputType> types,
                                                     std::map<std::string, core::Tensor>& given) {
  for (const InputArg& in : inputs) {
    if (std::optional<parser::InputType> spec = random_spec(in.value)) {
      if (auto it = types.find(in.name); it != types.end()) {
        if (it->second.dtype != spec->dtype || it->second.shape != spec->shape)
          throw core::Error(core::ErrorKind::Shape, "-i " + in.name + "=" + in.value,
                            "input `" + in.name + "` is declared " +
                                type_text(it->second.dtype, it->second.shape) + ", not " +
                                type_text(spec->dtype, spec->shape))
              .note(it->second.span, "declared here");
        continue;
      }
      types[in.name] = *spec;
      continue;
    }
    core::Tensor t = read_tensor_argument(in.name, in.value);
    if (auto it = types.find(in.name); it != types.end()) {
      if (it->second.dtype != t.dtype() || it->second.shape != t.shape())
        throw core::Error(core::ErrorKind::Shape, in.value,
                          "input `" + in.name + "` is declared " +
                              type_text(it->second.dtype, it->second.shape) +
                              " but the file holds " + type_text(t.dtype(), t.shape()))
            .note(it->second.span, "declared here");
    } else {
      types[in.name] = {t.dtype(), t.shape(), {}};
    }
    given.emplace(in.name, std::move(t));
  }
  return types;
}

} // namespace teval::tools
