// Reading Antares sources: a bare einstein_v2 program, or the COMPUTE_V1
// wrapper exactly as users paste it (`COMPUTE_V1='- ...' make`, or just
// `- ...`): a Python-like preamble of integer assignments and one
// einstein_v2(...) call with input_dict and extra_outputs.
#pragma once

#include "core/dtype.h"
#include "core/shape.h"
#include "core/source.h"
#include "parser/ast.h"

#include <memory>
#include <string>
#include <vector>

namespace teval::parser {

/// One input_dict entry: `"name": {"dtype": "float32", "shape": [4, 8]}`
/// or `"name": "float32[4, 8]"`.
struct InputSpec {
  std::string name;
  core::DType dtype = core::DType::Float32;
  core::Shape shape;
  core::Span span;
};

/// A name listed in extra_outputs.
struct OutputName {
  std::string name;
  core::Span span;
};

/// What an Antares source says: the parsed program and its declarations.
struct AntaresSource {
  ast::Program program;
  /// Where the program text is: the einstein_v2 string argument, or the
  /// whole file for a bare program.
  core::Span program_span;
  std::vector<InputSpec> inputs;
  std::vector<OutputName> extra_outputs;
};

/// Reads \p file in any of the three forms. The preamble is evaluated
/// exactly (integers are 64-bit, `//` and `%` floor as in Python, overflow
/// is an error); f-string fields `{expr}` are expanded, and every byte of
/// the expanded program keeps its source position for diagnostics.
/// Throws Error.
AntaresSource read_antares(const core::SourceFile& file);

} // namespace teval::parser
