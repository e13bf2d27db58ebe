// numpy .npy files: read and write.
#include "core/npy.h"

#include "core/error.h"
#include "core/fault.h"
#include "core/files.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <optional>

namespace teval::core {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// Only the forms numpy writes are accepted: string keys, a string, a bool
// and a tuple of non-negative integers.
class HeaderReader {
public:
  HeaderReader(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
  };

  Header read() {
    Header h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (!peek('}')) {
      std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek('['))
          fail("structured arrays (a list descr) are not supported");
        h.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        fail("unknown header key '" + key + "'");
      }
      if (!peek('}'))
        expect(',');
    }
    expect('}');
    if (!have_descr || !have_order || !have_shape)
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

private:
  [[noreturn]] void fail(const std::string& what) {
    throw Error(ErrorKind::Input, origin_, "malformed .npy header: " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c))
      fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      fail("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  bool boolean() {
    skip_space();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  Shape tuple() {
    Shape shape;
    expect('(');
    while (!peek(')')) {
      skip_space();
      size_t start = pos_;
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v))
          fail("shape extent too large");
        ++pos_;
      }
      if (pos_ == start)
        fail("expected a non-negative integer in the shape");
      // numpy 1.x on some platforms writes 3L for Python 2 longs.
      if (pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_;
      if (shape.size() == kMaxRank)
        fail("a shape of rank above " + std::to_string(kMaxRank));
      shape.push_back(v);
      if (!peek(')'))
        expect(',');
    }
    expect(')');
    return shape;
  }

  std::string_view text_;
  const std::string& origin_;
  size_t pos_ = 0;
};

DType dtype_of_descr(const std::string& descr, const std::string& origin) {
  auto fail = [&](const std::string& why) -> DType { throw Error(ErrorKind::Input, origin, why); };
  if (descr.size() < 2)
    return fail("unsupported .npy dtype '" + descr + "'");
  char order = descr[0];
  std::string code = descr.substr(1);
  if (code == "O" || code.starts_with("O"))
    return fail("object arrays are not supported");
  if (order == '>' && code != "i1" && code != "u1" && code != "b1")
    return fail("big-endian data ('" + descr +
                "') is not supported; convert with "
                "a.astype(a.dtype.newbyteorder('<'))");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return fail("unsupported .npy dtype '" + descr + "'");
  if (code == "V2")
    return DType::BFloat16;
  for (DType t : kAllDTypes) {
    if (t == DType::BFloat16)
      continue;
    if (npy_descr(t).substr(1) == code)
      return t;
  }
  return fail("unsupported .npy dtype '" + descr +
              "'; teval reads bool, int8/16/32/64, uint8/16/32/64, float16/32/64, complex64/128 "
              "and bfloat16 (<V2)");
}

uint32_t read_le(std::string_view bytes, size_t offset, int width) {
  uint32_t v = 0;
  for (int i = width - 1; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return v;
}

} // namespace

Tensor decode_npy(std::string_view bytes, const std::string& origin) {
  auto fail = [&](const std::string& why) -> Tensor { throw Error(ErrorKind::Input, origin, why); };
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic)
    return fail("not a .npy file (bad magic string)");
  int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    return fail("unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(static_cast<unsigned char>(bytes[7])));
  int len_width = major == 1 ? 2 : 4;
  size_t header_start = 8 + len_width;
  if (bytes.size() < header_start)
    return fail("truncated .npy header");
  size_t header_len = read_le(bytes, 8, len_width);
  if (bytes.size() < header_start + header_len)
    return fail("truncated .npy header");
  std::string_view header_text = bytes.substr(header_start, header_len);
  HeaderReader::Header h = HeaderReader(header_text, origin).read();
  DType dtype = dtype_of_descr(h.descr, origin);
  std::string_view data = bytes.substr(header_start + header_len);
  // The data must be all there before anything is allocated: a header may
  // claim any shape.
  std::optional<int64_t> count = checked_numel(h.shape);
  int64_t needed = 0;
  if (count && !__builtin_mul_overflow(*count, int64_t{size_bytes(dtype)}, &needed) &&
      static_cast<uint64_t>(needed) > data.size())
    return fail("truncated data: shape " + to_string(h.shape) + " of " + std::string(name(dtype)) +
                " needs " + std::to_string(needed) + " bytes, the file has " +
                std::to_string(data.size()));
  Tensor t;
  try {
    t = Tensor(dtype, h.shape);
  } catch (const Error& e) {
    return fail(e.message());
  }
  if (data.size() > t.bytes().size())
    return fail("unexpected " + std::to_string(data.size() - t.bytes().size()) +
                " bytes after the data");
  // fault 35: every array read as Fortran order, whatever its header says
  if ((!h.fortran_order && !planted(35)) || h.shape.size() < 2) {
    if (!data.empty())
      std::memcpy(t.bytes().data(), data.data(), data.size());
    return t;
  }
  // Fortran order: the first index varies fastest in the file. Walk the
  // file's elements in order, keeping their index and its row-major place.
  size_t width = static_cast<size_t>(size_bytes(dtype));
  std::vector<int64_t> index(h.shape.size(), 0);
  std::vector<int64_t> strides = core::strides(h.shape);
  int64_t place = 0;
  for (int64_t f = 0; f < t.numel(); ++f) {
    std::memcpy(t.bytes().data() + static_cast<size_t>(place) * width,
                data.data() + static_cast<size_t>(f) * width, width);
    for (size_t d = 0; d < index.size(); ++d) {
      place += strides[d];
      if (++index[d] < h.shape[d])
        break;
      place -= strides[d] * h.shape[d];
      index[d] = 0;
    }
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  // The header says how many bytes follow: nothing beyond them (and one more
  // byte, to notice extra data) is read, so an endless or huge file costs
  // only what a valid one of its shape would.
  InputFile in(path);
  std::string bytes;
  in.read(bytes, 12);
  if (bytes.size() < 12 || bytes.substr(0, 6) != kMagic || bytes[6] < 1 || bytes[6] > 3)
    return decode_npy(bytes, path); // the error a prefix like that deserves
  size_t len_width = bytes[6] == 1 ? 2 : 4;
  uint64_t header_len = read_le(bytes, 8, int(len_width));
  if (header_len > (uint64_t{1} << 20))
    throw Error(ErrorKind::Input, path,
                "malformed .npy header: it claims to be " + std::to_string(header_len) +
                    " bytes long");
  uint64_t header_end = 8 + len_width + header_len;
  in.read(bytes, header_end - bytes.size());
  uint64_t data = kMaxDataFileBytes;
  if (bytes.size() == header_end) {
    try {
      HeaderReader::Header h =
          HeaderReader(std::string_view(bytes).substr(8 + len_width), path).read();
      std::optional<int64_t> count = checked_numel(h.shape);
      int64_t needed = 0;
      if (count && !__builtin_mul_overflow(
                       *count, int64_t{size_bytes(dtype_of_descr(h.descr, path))}, &needed))
        data = std::min<uint64_t>(data, uint64_t(needed));
    } catch (const Error&) {
      // decode_npy reports it
    }
  }
  in.read(bytes, data + 1);
  // More than declared: a regular file says how much more.
  if (bytes.size() == header_end + data + 1 && data < kMaxDataFileBytes && in.size())
    throw Error(ErrorKind::Input, path,
                "unexpected " + std::to_string(*in.size() - header_end - data) +
                    " bytes after the data");
  return decode_npy(bytes, path);
}

std::string npy_header(DType dtype, const Shape& dims) {
  std::string shape = "(";
  if (planted(34) && dims.empty()) // fault 34: a rank-0 array written as shape (1,)
    shape += "1,";
  for (size_t i = 0; i < dims.size(); ++i) {
    shape += std::to_string(dims[i]);
    shape += dims.size() == 1 ? "," : (i + 1 < dims.size() ? ", " : "");
  }
  shape += ")";
  std::string dict = "{'descr': '" + std::string(npy_descr(dtype)) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // magic(6) + version(2) + length(2 or 4) + dict + padding + '\n'
  int major = dict.size() + 1 + 10 > 65535 ? 2 : 1;
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string out(kMagic);
  out += static_cast<char>(major);
  out += '\0';
  uint32_t len = static_cast<uint32_t>(dict.size());
  for (size_t i = 0; i < prefix - 8; ++i)
    out += static_cast<char>((len >> (8 * i)) & 0xff);
  return out + dict;
}

Tensor npy_form(const Tensor& t) {
  if (size_bytes(carrier(t.dtype())) == size_bytes(t.dtype()))
    return t;
  Tensor wide(carrier(t.dtype()), t.shape()); // a minifloat's values, exactly
  for (int64_t i = 0; i < t.numel(); ++i)
    wide.set(i, Scalar::of_float(wide.dtype(), t.get(i).f));
  return wide;
}

std::string encode_npy(const Tensor& t) {
  if (size_bytes(carrier(t.dtype())) != size_bytes(t.dtype()))
    return encode_npy(npy_form(t));
  std::string out = npy_header(t.dtype(), t.shape());
  out.append(reinterpret_cast<const char*>(t.bytes().data()), t.bytes().size());
  return out;
}

void write_npy(const Tensor& t, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  std::string bytes = encode_npy(t);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    throw Error(ErrorKind::Input, path, "cannot write file");
}

} // namespace teval::core
