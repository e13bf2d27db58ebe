// Elaboration of Antares einstein_v2 programs into the Kernel IR.
//
// The rules (each is written down in docs/SEMANTICS.md with its test):
// axes are the identifiers that start with an upper-case letter; the
// left-hand side's axes are data axes, every other axis of a statement is a
// reduce axis; an axis's extent comes from the where clause, else from the
// tensor dimensions it indexes whole, which must all agree; dtypes promote
// float64 > float32 > float16 > int64 > int32 > int16 > int8, integer
// literals are int32 and float literals float32; comparisons and `& | ~` are
// logical and give int8 0/1; the whole right-hand side is inside the
// reduction.
#pragma once

#include "core/kernel.h"
#include "parser/antares/antares_source.h"

#include <map>
#include <string>

namespace teval::parser {

/// The dtype and shape of one input, and where it was declared (an
/// input_dict entry, or nothing when it came from the command line).
struct InputType {
  core::DType dtype = core::DType::Float32;
  core::Shape shape;
  core::Span span;
};

/// Elaborates \p source. \p inputs gives the type of every input the
/// program may read (input_dict entries, command-line inputs); the kernel
/// keeps only those the program reads, in order of first use. Throws Error.
core::Kernel elaborate_antares(const AntaresSource& source,
                               const std::map<std::string, InputType>& inputs);

/// The input types an Antares source declares in its input_dict.
std::map<std::string, InputType> declared_inputs(const AntaresSource& source);

} // namespace teval::parser
