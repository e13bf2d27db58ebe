// MLIR functions of mhlo/stablehlo ops and ByteIR custom calls (seed 002):
// reading a file and elaborating one function into the op graph
// (core/graph.h), with every operand, result and attribute checked against
// the op it belongs to.
#pragma once

#include "core/graph.h"
#include "core/source.h"
#include "parser/antares/antares.h"
#include "parser/ast.h"

#include <map>
#include <string>
#include <vector>

namespace teval::parser {

/// Parses \p file (parse_mlir). Throws Error(Syntax).
ast::Program read_mlir(const core::SourceFile& file);

/// An argument of the function: its input name (arg0, ...), dtype and
/// shape as declared, a `?` dimension as -1.
struct MlirArgument {
  std::string name;
  core::ValueType type;
  core::Span span;
};

/// The arguments of function \p entry of \p program (empty: `@main`, or the
/// only function). Throws Error.
std::vector<MlirArgument> mlir_arguments(const ast::Program& program, const std::string& entry);

/// Elaborates function \p entry (as mlir_arguments() picks it). \p inputs
/// gives, by input name, the type of each argument the caller has data for;
/// it must agree with the declaration, and gives a `?` dimension its
/// extent. An argument without an entry must be fully static. Throws Error.
core::Graph elaborate_mlir(const ast::Program& program, const std::string& entry,
                           const std::map<std::string, InputType>& inputs);

} // namespace teval::parser
