// RapidCheck generators of random, well-typed programs, size-bounded and
// shrinking toward smaller programs: fewer statements, shallower
// expressions, smaller extents, simpler dtypes.
#pragma once

#include "verify/program.h"

#include <rapidcheck.h>

namespace teval::verify {

/// Antares einstein_v2 programs: 1 to 4 statements over ranks 0 to 4
/// (extents 0 to 4), each statement one of
/// = += *= >= <= &= |=, reading new inputs of every dtype and earlier
/// statements' outputs through affine and non-affine indices (+ - * by
/// constants, // and % by constants, gathers through int32 tensors), with
/// reads that may fall outside their tensor, some guarded by .when; casts,
/// math calls, comparisons, logical operators, shifts, max/min in every
/// spelling (a list or a single argument, f_op, an output dtype); dtypes
/// named by strings or `.dtype()` (of an expression or a bare tensor name);
/// `const(k, dtype)`, `AXIS.val()` and `t.val(d)`; axes left to extent
/// inference where they index whole dimensions of their extent. An earlier
/// statement's result is mostly an extra output, else a temp (rank 0 more
/// often than the rest: a global reduction that later statements read and
/// broadcast).
rc::Gen<Program> antares_program();

/// Tile functions `f` of one or two inputs (ranks 1 to 3, extents 0 to 5,
/// float32 mostly): one contraction with + max min * = aggregation of one
/// access or two combined by * + == over 1 to 4 index variables, each bound whole or through a
/// compound index (negative coefficients, sums with earlier variables, offsets: ranges bounded only
/// by validity and starting below zero), strided, offset, summed and exactly divided indices
/// elsewhere, constraints, and an output sized from the inputs' dimensions (larger or smaller than
/// the index range); often an elementwise epilogue on its result (arithmetic with literals and
/// dimensions, integer / and % by values that may be zero, comparisons, select, negation, math
/// functions); a scalar result (a temp of rank 0) is often broadcast
/// against the inputs there, as a softmax subtracts its maximum.
///
/// Each choice has the probability its call site states, whatever the
/// RapidCheck size (verify/choice.h).
rc::Gen<Program> tile_program();

/// MLIR functions (`func.func @main`) of 1 to 5 ops over arguments and
/// earlier results of every element type, ranks 0 to 3 (extents 0 to 4):
/// add, subtract, multiply, divide, maximum, minimum (with splat constants),
/// negate, abs, exp, log, tanh, sqrt, rsqrt, convert, broadcast_in_dim (a
/// scalar tensor<f32> into a tensor), reshape, and every ByteIR custom call
/// with each value of its attributes (softmax, log_softmax, gelu in both
/// forms, erf, layer_norm with 1 or 3 results and eps_outside_sqrt, l2_norm,
/// addn, arg_max and arg_min with keep_dims and select_last_index, top_k
/// sorted or not, quantize and dequantize per tensor and per axis, one_hot,
/// resize by sizes or scales in every mode, rng_uniform), in the mhlo and
/// the stablehlo spellings. Results no later op reads are returned.
rc::Gen<Program> mlir_program();

/// Functions of mlir_program()'s ops and of ops without an einstein_v2
/// decomposition, which IREval and the JIT run natively between the
/// segments they compile (ops/split.h): sort (one or two inputs, every
/// comparison type), while and if whose regions read values of the
/// function, reduce with a body of two ops, map, scatter-add, remainder of
/// floats, next_after, erf_inv, dot_general with a tf32, bf16, f16 or f32
/// algorithm, compare TOTALORDER, power of integers,
/// reduce_precision, bitcast_convert, and a detour through ui64.
rc::Gen<Program> mlir_graph_program();

} // namespace teval::verify
