// teval's standard ops (OpSet::standard, `teval rules ops`): models of the
// HTP and QNN ops that public op packages' rules match and build.
#include "rules/htp_ops.h"

namespace teval::rules {

const char* OpSet::standard_text() {
  return R"ops(# teval's standard ops: models of the HTP and QNN ops public op packages'
# optimization rules match and build. `teval rules verify` and graph
# evaluation use them for every op an ops file given with --ops does not
# define (a file's definitions of an op replace all of that op's models).
# Each line is "OpName"[selector]: <einstein_v2 program>; the selector picks
# the definition by the first input's dtype and the number of inputs
# (docs/HTP_RULES.md, "Op meanings: the ops file").
#
# Sources: the QNN SDK's op definitions (ElementWiseAdd ... ElementWiseNeg,
# Relu, Relu1, Relu6, ReluMinMax, Softmax, Quantize, Dequantize, Cast,
# Conv2d, MatMul), whose HTP-internal names (Add, Mul, ...) public rules
# match with the same meaning; the HTP core headers (optimize.h documents
# Slice_shape and SlicePad_shape; op_def.h and tensor_info.h make the layout
# and TCM ops move data without changing it); the QNN quantization
# documentation: real = (q - zero) * step. Where the documentation leaves a
# choice open, the comment above a model says which one teval makes.
#
# Tensors are rank 4, [batch, height, width, depth]. A quantized op computes
# on real values and requantizes into its output's encoding ($quantize:
# real / step + zero, clamped to the dtype's range, rounded to nearest; the
# QNN pages say "round", teval breaks ties to even). A float16 op computes
# in float32 and rounds once, which is float16 arithmetic correctly rounded.

# Elementwise arithmetic on equal shapes (QNN ElementWiseAdd, ...Subtract,
# ...Multiply, ...Divide, ...Maximum, ...Minimum; HTP Add, Sub, Mul, ...).
"Add"[float]: out0[N, H, W, C] = in0[N, H, W, C] + in1[N, H, W, C]
"Add"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]) + $real(in1[N, H, W, C]))
"ElementWiseAdd"[float]: out0[N, H, W, C] = in0[N, H, W, C] + in1[N, H, W, C]
"ElementWiseAdd"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]) + $real(in1[N, H, W, C]))
"Sub"[float]: out0[N, H, W, C] = in0[N, H, W, C] - in1[N, H, W, C]
"Sub"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]) - $real(in1[N, H, W, C]))
"ElementWiseSubtract"[float]: out0[N, H, W, C] = in0[N, H, W, C] - in1[N, H, W, C]
"ElementWiseSubtract"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]) - $real(in1[N, H, W, C]))
"Mul"[float]: out0[N, H, W, C] = in0[N, H, W, C] * in1[N, H, W, C]
"Mul"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]) * $real(in1[N, H, W, C]))
"ElementWiseMultiply"[float]: out0[N, H, W, C] = in0[N, H, W, C] * in1[N, H, W, C]
"ElementWiseMultiply"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]) * $real(in1[N, H, W, C]))
"ElementWiseDivide"[float]: out0[N, H, W, C] = in0[N, H, W, C] / in1[N, H, W, C]
"Maximum"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [in1[N, H, W, C]])
"Maximum"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]).call(`max`, [$real(in1[N, H, W, C])]))
"ElementWiseMaximum"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [in1[N, H, W, C]])
"Minimum"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`min`, [in1[N, H, W, C]])
"Minimum"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]).call(`min`, [$real(in1[N, H, W, C])]))
"ElementWiseMinimum"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`min`, [in1[N, H, W, C]])

# Elementwise functions of floats (QNN ElementWiseNeg, ElementWiseExp,
# ElementWiseSquareRoot, Tanh, Sigmoid). HTP computes quantized ones by
# table lookup, which is not modelled: quantized inputs have no definition.
"Neg"[float]: out0[N, H, W, C] = -in0[N, H, W, C]
"ElementWiseNeg"[float]: out0[N, H, W, C] = -in0[N, H, W, C]
"Exp"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`exp`)
"ElementWiseExp"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`exp`)
"ElementWiseSquareRoot"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`sqrt`)
"Tanh"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`tanh`)
"Sigmoid"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`sigmoid`)

# ReLU variants (QNN Relu, Relu1, Relu6, ReluMinMax; HTP's ReluX(in, x)
# clamps to [0, x]). A quantized input's real value is clamped and
# requantized in the input's encoding: q clamped to the bounds' codes.
"Relu": out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [const($in0.zero).cast(`$in0.dtype`)])
"Relu1"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [const(-1).cast(`$in0.dtype`)]).call(`min`, [const(1).cast(`$in0.dtype`)])
"Relu1"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]).call(`max`, [const(-1.0, dtype=`float64`)]).call(`min`, [const(1.0, dtype=`float64`)]))
"Relu6"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [const(0).cast(`$in0.dtype`)]).call(`min`, [const(6).cast(`$in0.dtype`)])
"Relu6"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]).call(`max`, [const(0.0, dtype=`float64`)]).call(`min`, [const(6.0, dtype=`float64`)]))
"ReluX"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [const(0).cast(`$in0.dtype`)]).call(`min`, [in1[0, 0, 0, 0].cast(`$in0.dtype`)])
"ReluX"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]).call(`max`, [const(0.0, dtype=`float64`)]).call(`min`, [in1[0, 0, 0, 0].cast(`float64`)]))
"ReluMinMax"[float]: out0[N, H, W, C] = in0[N, H, W, C].call(`max`, [in1[0, 0, 0, 0].cast(`$in0.dtype`)]).call(`min`, [in2[0, 0, 0, 0].cast(`$in0.dtype`)])
"ReluMinMax"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]).call(`max`, [in1[0, 0, 0, 0].cast(`float64`)]).call(`min`, [in2[0, 0, 0, 0].cast(`float64`)]))

# Softmax along depth: Softmax(in), and the QNN form Softmax(in, beta[,
# axis]) that the SDK's rules match: exp(beta * (x - max)) / sum; the axis
# operand is not read (HTP's Softmax takes the last axis). Of quantized
# input, on its real values, into the output's encoding, quantized or
# float (the SDK's Softmax registers a quint8-to-float32 form).
"Softmax"[float, 1 input]: m[N, H, W] >=! in0[N, H, W, C]; e[N, H, W, C] = (in0[N, H, W, C] - m[N, H, W]).call(`exp`); s[N, H, W] +=! e[N, H, W, C]; out0[N, H, W, C] = e[N, H, W, C] / s[N, H, W]
"Softmax"[quantized, 1 input]: m[N, H, W] >=! $real(in0[N, H, W, C]); e[N, H, W, C] = ($real(in0[N, H, W, C]) - m[N, H, W]).call(`exp`); s[N, H, W] +=! e[N, H, W, C]; out0[N, H, W, C] = $encode(e[N, H, W, C] / s[N, H, W])
"Softmax"[quantized]: m[N, H, W] >=! $real(in0[N, H, W, C]); e[N, H, W, C] = (($real(in0[N, H, W, C]) - m[N, H, W]) * in1[0, 0, 0, 0].cast(`float64`)).call(`exp`); s[N, H, W] +=! e[N, H, W, C]; out0[N, H, W, C] = $encode(e[N, H, W, C] / s[N, H, W])
"Softmax"[float]: m[N, H, W] >=! in0[N, H, W, C]; e[N, H, W, C] = ((in0[N, H, W, C] - m[N, H, W]) * in1[0, 0, 0, 0].cast(`$in0.dtype`)).call(`exp`); s[N, H, W] +=! e[N, H, W, C]; out0[N, H, W, C] = e[N, H, W, C] / s[N, H, W]

# Matrix product over the last two dimensions (QNN MatMul without
# transposes): [b, h, m, k] x [b, h, k, n].
"MatMul"[float]: out0[N, H, M, C] +=! in0[N, H, M, K] * in1[N, H, K, C]

# 2-D convolution, valid, stride 1, no bias (QNN Conv2d's filter layout
# [filter_height, filter_width, in_depth, out_depth]); the forms with
# stride, padding and bias operands are HTP-internal and not modelled.
"Conv2d"[float]: out0[N, H, W, C] +=! in0[N, H + KH, W + KW, D] * in1[KH, KW, D, C] where H in $($in0[1] - $in1[0] + 1), W in $($in0[2] - $in1[1] + 1)

# Slices (optimize.h): Slice_shape(in, start, size) takes the box of extents
# size at start; SlicePad_shape(in, before, start, size, pad) pads `before`
# elements of value pad in front of the input, then takes that box, reading
# pad outside the input (SlicePad_shape_inplace.tcm, its TCM form, too); the
# pad value is converted to the input's dtype (of a quantized input, a
# code).
"Slice_shape": out0[N, H, W, C] = in0[N + $in1[0], H + $in1[1], W + $in1[2], C + $in1[3]] where N in $in2[0], H in $in2[1], W in $in2[2], C in $in2[3]
"SlicePad_shape": out0[N, H, W, C] = in0[N + $($in2[0] - $in1[0]), H + $($in2[1] - $in1[1]), W + $($in2[2] - $in1[2]), C + $($in2[3] - $in1[3])].when([N + $($in2[0] - $in1[0]) >= 0, N + $($in2[0] - $in1[0]) < $in0[0], H + $($in2[1] - $in1[1]) >= 0, H + $($in2[1] - $in1[1]) < $in0[1], W + $($in2[2] - $in1[2]) >= 0, W + $($in2[2] - $in1[2]) < $in0[2], C + $($in2[3] - $in1[3]) >= 0, C + $($in2[3] - $in1[3]) < $in0[3]], in4[0, 0, 0, 0].cast(`$in0.dtype`)) where N in $in3[0], H in $in3[1], W in $in3[2], C in $in3[3]
"SlicePad_shape_inplace.tcm": out0[N, H, W, C] = in0[N + $($in2[0] - $in1[0]), H + $($in2[1] - $in1[1]), W + $($in2[2] - $in1[2]), C + $($in2[3] - $in1[3])].when([N + $($in2[0] - $in1[0]) >= 0, N + $($in2[0] - $in1[0]) < $in0[0], H + $($in2[1] - $in1[1]) >= 0, H + $($in2[1] - $in1[1]) < $in0[1], W + $($in2[2] - $in1[2]) >= 0, W + $($in2[2] - $in1[2]) < $in0[2], C + $($in2[3] - $in1[3]) >= 0, C + $($in2[3] - $in1[3]) < $in0[3]], in4[0, 0, 0, 0].cast(`$in0.dtype`)) where N in $in3[0], H in $in3[1], W in $in3[2], C in $in3[3]

# Reshape (HTP core; QNN Reshape): the elements in row-major order, in the
# output's extents; a different element count is ill-typed (the first
# extent is then off by the square of the difference). Reshape_to_h1 and
# Reshape_to_h8, HTP core reshapes of height-1 sequences that the SDK's
# Softmax rules use, are read as the same reshape (teval's reading of
# their names and uses; they are not documented), height1_sequence as a
# marker that changes nothing, of a tensor of height 1 (by its name).
"Reshape": out0[N, H, W, C] = in0[(((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $($in0[1] * $in0[2] * $in0[3]), (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $($in0[2] * $in0[3]) % $in0[1], (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $in0[3] % $in0[2], (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) % $in0[3]] where N in $($out0[0] + ($in0[0] * $in0[1] * $in0[2] * $in0[3] - $out0[0] * $out0[1] * $out0[2] * $out0[3]) * ($in0[0] * $in0[1] * $in0[2] * $in0[3] - $out0[0] * $out0[1] * $out0[2] * $out0[3])), H in $out0[1], W in $out0[2], C in $out0[3]
"Reshape_to_h1": out0[N, H, W, C] = in0[(((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $($in0[1] * $in0[2] * $in0[3]), (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $($in0[2] * $in0[3]) % $in0[1], (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $in0[3] % $in0[2], (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) % $in0[3]] where N in $($out0[0] + ($in0[0] * $in0[1] * $in0[2] * $in0[3] - $out0[0] * $out0[1] * $out0[2] * $out0[3]) * ($in0[0] * $in0[1] * $in0[2] * $in0[3] - $out0[0] * $out0[1] * $out0[2] * $out0[3])), H in $out0[1], W in $out0[2], C in $out0[3]
"Reshape_to_h8": out0[N, H, W, C] = in0[(((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $($in0[1] * $in0[2] * $in0[3]), (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $($in0[2] * $in0[3]) % $in0[1], (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) // $in0[3] % $in0[2], (((N * $out0[1] + H) * $out0[2] + W) * $out0[3] + C) % $in0[3]] where N in $($out0[0] + ($in0[0] * $in0[1] * $in0[2] * $in0[3] - $out0[0] * $out0[1] * $out0[2] * $out0[3]) * ($in0[0] * $in0[1] * $in0[2] * $in0[3] - $out0[0] * $out0[1] * $out0[2] * $out0[3])), H in $out0[1], W in $out0[2], C in $out0[3]
"height1_sequence": out0[N, H, W, C] = in0[N, H, W, C] where H in 1

# Layout markers and moves between DDR and TCM (op_def.h, tensor_info.h):
# the values are unchanged. The q:: names are the HTP core's qualified
# names of the same ops, which some packages write.
"ForceFormat_Flat": out0[N, H, W, C] = in0[N, H, W, C]
"ForceFormat_Crouton": out0[N, H, W, C] = in0[N, H, W, C]
"flat_to_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"flat_from_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"crouton_to_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"crouton_from_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"constant_flat_to_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"constant_flat_from_ddr": out0[N, H, W, C] = in0[N, H, W, C]
"constant_crouton_to_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"constant_crouton_from_ddr": out0[N, H, W, C] = in0[N, H, W, C]
"ConvLayer.opt.activations_to_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"ConvLayer.opt.activations_from_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"q::flat_to_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"q::flat_from_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"q::crouton_to_vtcm": out0[N, H, W, C] = in0[N, H, W, C]
"q::crouton_from_vtcm": out0[N, H, W, C] = in0[N, H, W, C]

# Quantization (QNN Quantize, Dequantize; HTP Requantize, Quantize.tcm, the
# TCM form of Quantize): into the output's
# encoding; out of the input's, to float16 when the output is float16 (a
# rule's WITH_OUTPUT_TYPE(DType::Float16, ...)), else float32, the real
# value rounded once.
"Quantize"[float]: out0[N, H, W, C] = $quantize(in0[N, H, W, C].cast(`float64`))
"Dequantize"[quantized]: out0[N, H, W, C] = $real(in0[N, H, W, C]).cast(`$out0.float`)
"Requantize"[quantized]: out0[N, H, W, C] = $quantize($real(in0[N, H, W, C]))
"Quantize.tcm"[float]: out0[N, H, W, C] = $quantize(in0[N, H, W, C].cast(`float64`))

# TableLookup(x, table), the HTP core's lookup of 8-bit codes: the table's
# element at x's code (the table a [1, 1, 1, 256] tensor of codes in the
# output's encoding, as the SDK's Relu example builds it).
"TableLookup"[quint8, 2 inputs]: out0[N, H, W, C] = in1[0, 0, 0, in0[N, H, W, C].cast(`int32`)]

# Casts (QNN Cast: a value conversion to the output's dtype, rounding to
# nearest even; of a quantized dtype, its stored integers).
"Cast": out0[N, H, W, C] = in0[N, H, W, C].cast(`$out0.dtype`)
"QNN_Cast": out0[N, H, W, C] = in0[N, H, W, C].cast(`$out0.dtype`)
"Cast_fp32_to_fp16_plain"[Float32]: out0[N, H, W, C] = in0[N, H, W, C].cast(`float16`)
"Cast_fp16_to_fp32_plain"[Float16]: out0[N, H, W, C] = in0[N, H, W, C].cast(`float32`)
)ops";
}

} // namespace teval::rules
