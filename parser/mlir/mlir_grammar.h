// The Spirit X3 grammar of the MLIR text teval reads (seed 002): a module of
// `func.func`s whose bodies hold mhlo/stablehlo operations, ByteIR's
// coarse-grained ops among them as custom calls, in the generic form
// (exactly as `mlir-opt --mlir-print-op-generic` prints it) and in the
// pretty forms of the ops teval knows.
//
// Everything lands in the one AST (ast.h), desugared so that elaboration
// sees one shape per construct whatever the spelling:
//   - a function is a Function: its parameters `%arg0` with their types
//     (Param::type_expr), its result types as a Tuple, its body;
//   - `%0 = OP` is an Assign to the Name `%0`; `%0:2 = OP` to the Tuple
//     (`%0#0`, `%0#1`); an operand `%0#1` is the Name `%0#1`;
//   - an operation is `(: (OP operands... :attr value...) TYPE)`: the Call
//     named by the op ("mhlo.custom_call", "stablehlo.add") with its
//     operands (and, in pretty forms, positional attributes such as a
//     constant's `dense<...>`) as arguments, its properties and attributes
//     as keywords, inside the Call ":" that gives its type;
//   - `stablehlo.custom_call @byteir.top_k(%a)` gets the keyword
//     call_target_name = "byteir.top_k", as the generic form spells it;
//   - `return %0 : T` and "func.return"(%0) are a Return of a Tuple;
//   - types: `tensor<4x?xf32>` is the Call tensor(4, ?, f32), a scalar type
//     the Name f32, `(A, B) -> C` the Call "->"(tuple(A, B), tuple(C));
//   - attributes: integers and floats (a sign as Unary), strings, `true`,
//     `false`, `[...]` List, `{k = v}` Dict (a unit attribute's value is the
//     Name unit), `dense<...>` and `array<i64: ...>` Calls, `@sym` and
//     `#dialect<...>` Names as written, and `VALUE : TYPE` the Call ":".
// Comments (`//`), locations (`loc(...)` and `#loc = loc(...)` aliases) and
// the module wrapper are skipped.
#pragma once

#include "parser/ast.h"
#include "parser/text.h"

#include <string_view>

namespace teval::parser {

/// Parses an MLIR module (or a bare list of functions). Throws
/// Error(Syntax) at the offending token.
ast::Program parse_mlir(std::string_view text, const TextOrigin& origin);

} // namespace teval::parser
