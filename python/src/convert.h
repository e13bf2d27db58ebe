// Conversions between numpy arrays and the public API's tensors.
#pragma once

#include "teval/teval.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace teval::python {

namespace py = pybind11;

/// The dtype of \p name ("float32", ...); a ValueError for anything else.
DType dtype_named(const std::string& name);

/// An array and the reference to its elements that the API reads. The
/// array is kept: the reference points into it (no copy when it is in C or
/// any other order numpy strides can express in whole elements).
struct InputArray {
  py::array array;
  TensorRef ref;
};

/// \p object (a numpy array, or anything numpy.asarray takes: a torch
/// tensor's numpy(), a list) as a tensor. numpy has no bfloat16: a uint16
/// array holds bfloat16 words (teval has no uint16). A TypeError for a
/// dtype teval has no counterpart of.
InputArray input_array(const py::handle& object);

/// A writable numpy array and the memory a run writes an output into.
struct OutArray {
  py::array array;
  TensorOut out;
};

/// \p object, given as out[\p name], as a run's destination: a writable
/// numpy array of a dtype teval has (uint16 for bfloat16), in native byte
/// order, its strides whole elements; a TypeError or ValueError otherwise.
OutArray out_array(const std::string& name, const py::handle& object);

/// \p t as a numpy array that owns its storage (no copy). bfloat16 comes
/// back as uint16 words.
py::array output_array(Tensor&& t);

} // namespace teval::python
