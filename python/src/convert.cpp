// Conversions between numpy arrays and the public API's tensors.
#include "python/src/convert.h"

#include <optional>
#include <string>

namespace teval::python {

namespace {

const DType kAll[] = {DType::Bool,    DType::Int8,      DType::Int16,     DType::Int32,
                      DType::Int64,   DType::UInt8,     DType::Float16,   DType::BFloat16,
                      DType::Float32, DType::Float64,   DType::UInt16,    DType::UInt32,
                      DType::UInt64,  DType::Int2,      DType::Int4,      DType::UInt2,
                      DType::UInt4,   DType::Complex64, DType::Complex128};

// The numpy dtype that holds \p t's elements.
py::dtype numpy_dtype(DType t) {
  switch (t) {
  case DType::Bool:
    return py::dtype("bool");
  case DType::Int8:
  case DType::Int2: // numpy has no narrower integers: int8 and uint8 hold them
  case DType::Int4:
    return py::dtype("int8");
  case DType::Int16:
    return py::dtype("int16");
  case DType::Int32:
    return py::dtype("int32");
  case DType::Int64:
    return py::dtype("int64");
  case DType::UInt8:
  case DType::UInt2:
  case DType::UInt4:
    return py::dtype("uint8");
  case DType::UInt16:
    return py::dtype("uint16");
  case DType::UInt32:
    return py::dtype("uint32");
  case DType::UInt64:
    return py::dtype("uint64");
  case DType::Float16:
    return py::dtype("float16");
  case DType::BFloat16:
    return py::dtype("V2"); // the bits, as teval's .npy files hold them
  case DType::Float32:
    return py::dtype("float32");
  case DType::Float64:
    return py::dtype("float64");
  case DType::Complex64:
    return py::dtype("complex64");
  case DType::Complex128:
    return py::dtype("complex128");
  case DType::Float8E4M3FN:
  case DType::Float8E5M2:
  case DType::Float8E4M3:
  case DType::Float8E3M4:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2FNUZ:
  case DType::Float8E4M3B11FNUZ:
  case DType::Float6E2M3FN:
  case DType::Float6E3M2FN:
  case DType::Float4E2M1FN:
  case DType::Float8E8M0FNU:
    throw py::type_error("values of " + std::string(teval::name(t)) +
                         " have no numpy dtype in this module; teval run -o writes them as "
                         "float32 .npy files");
  }
  throw std::logic_error("unknown dtype");
}

// teval's dtype for a numpy dtype of kind \p kind and \p size bytes.
std::optional<DType> from_numpy(char kind, py::ssize_t size) {
  if (kind == 'b' && size == 1)
    return DType::Bool;
  if (kind == 'i') {
    switch (size) {
    case 1:
      return DType::Int8;
    case 2:
      return DType::Int16;
    case 4:
      return DType::Int32;
    case 8:
      return DType::Int64;
    }
  }
  if (kind == 'u' && size == 1)
    return DType::UInt8;
  if (kind == 'u' && size == 2)
    return DType::UInt16;
  if (kind == 'u' && size == 4)
    return DType::UInt32;
  if (kind == 'u' && size == 8)
    return DType::UInt64;
  if (kind == 'V' && size == 2)
    return DType::BFloat16;
  if (kind == 'f') {
    switch (size) {
    case 2:
      return DType::Float16;
    case 4:
      return DType::Float32;
    case 8:
      return DType::Float64;
    }
  }
  if (kind == 'c' && size == 8)
    return DType::Complex64;
  if (kind == 'c' && size == 16)
    return DType::Complex128;
  return std::nullopt;
}

} // namespace

DType dtype_named(const std::string& name) {
  for (DType t : kAll)
    if (teval::name(t) == name)
      return t;
  std::string names;
  for (DType t : kAll)
    names += (names.empty() ? "" : ", ") + std::string(teval::name(t));
  throw py::value_error("unknown dtype '" + name + "'; teval's dtypes are " + names);
}

InputArray input_array(const py::handle& object) {
  py::module_ numpy = py::module_::import("numpy");
  py::array array = numpy.attr("asarray")(object);
  // Elements in the other byte order are swapped into a native copy.
  if (!array.dtype().attr("isnative").cast<bool>())
    array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));
  char kind = array.dtype().kind();
  py::ssize_t size = array.itemsize();
  std::optional<DType> dtype =
      array.dtype().attr("names").is_none() ? from_numpy(kind, size) : std::nullopt;
  if (!dtype)
    throw py::type_error("teval has no dtype for numpy's " + std::string(py::str(array.dtype())) +
                         "; it reads bool, int8, int16, int32, int64, uint8, uint16, uint32, "
                         "uint64, float16, float32, float64 and teval.bfloat16 (2-byte void: the "
                         "bits of bfloat16)");
  // Strides that are not whole elements (a view into a record array) are
  // gathered by numpy first.
  for (py::ssize_t d = 0; d < array.ndim(); ++d)
    if (array.strides(d) % size != 0) {
      array = numpy.attr("ascontiguousarray")(array);
      break;
    }
  InputArray in{array, {}};
  in.ref.dtype = *dtype;
  in.ref.data = array.data();
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    in.ref.shape.push_back(array.shape(d));
    in.ref.strides.push_back(array.strides(d) / size);
  }
  return in;
}

OutArray out_array(const std::string& name, const py::handle& object) {
  if (!py::isinstance<py::array>(object))
    throw py::type_error("out['" + name + "'] must be a numpy array, not " +
                         std::string(py::str(py::type::of(object).attr("__name__"))));
  py::array array = py::reinterpret_borrow<py::array>(object);
  if (!array.writeable())
    throw py::value_error("out['" + name + "'] is read-only");
  if (!array.dtype().attr("isnative").cast<bool>())
    throw py::value_error("out['" + name + "'] is not in the machine's byte order");
  const py::ssize_t size = array.itemsize();
  std::optional<DType> dtype = from_numpy(array.dtype().kind(), size);
  if (!dtype)
    throw py::type_error("out['" + name + "'] has numpy's dtype " +
                         std::string(py::str(array.dtype())) + ", which teval has no dtype for");
  OutArray out{array, {}};
  out.out.dtype = *dtype;
  out.out.data = array.mutable_data();
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    if (array.strides(d) % size != 0)
      throw py::value_error("out['" + name + "'] has strides that are not whole elements");
    out.out.shape.push_back(array.shape(d));
    out.out.strides.push_back(array.strides(d) / size);
  }
  return out;
}

py::array output_array(Tensor&& t) {
  if (t.size_bytes() == 0)
    return py::array(numpy_dtype(t.dtype()),
                     std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
  auto* owned = new Tensor(std::move(t));
  py::capsule owner(owned, [](void* p) { delete static_cast<Tensor*>(p); });
  std::vector<py::ssize_t> shape(owned->shape().begin(), owned->shape().end());
  return py::array(numpy_dtype(owned->dtype()), shape, owned->data(), owner);
}

} // namespace teval::python
