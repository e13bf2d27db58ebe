// .npy reading and writing: numpy-made files, round trips, and every
// malformed-file error.
#include "core/error.h"
#include "core/npy.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using core::DType;

std::string npy(const std::string& header_dict, const std::string& data, char major = 1) {
  std::string h = header_dict;
  while ((10 + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += major;
  out += '\0';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  if (major != 1) {
    out += '\0';
    out += '\0';
  }
  return out + h + data;
}

std::string error_of(const std::string& bytes) {
  try {
    core::decode_npy(bytes, "x.npy");
  } catch (const core::Error& e) {
    return e.render();
  }
  return "no error";
}

TEST(Npy, ReadsFilesNumpyWrote) {
  // tests/data/npy was written by numpy (make_npy_samples.py there).
  auto dir = test::source_dir() / "tests/data/npy";
  core::Tensor f = core::read_npy((dir / "f32_2x3.npy").string());
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(f.shape(), (core::Shape{2, 3}));
  EXPECT_EQ(f.get(5).f, 5.5);
  core::Tensor h = core::read_npy((dir / "f16_4.npy").string());
  EXPECT_EQ(h.dtype(), DType::Float16);
  EXPECT_EQ(h.get(1).f, 0x1.998p-4); // float16(0.1)
  core::Tensor b = core::read_npy((dir / "bool_3.npy").string());
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.get(1).i, 1);
  core::Tensor s = core::read_npy((dir / "i64_scalar.npy").string());
  EXPECT_EQ(s.shape(), core::Shape{});
  EXPECT_EQ(s.get(0).i, -7);
  core::Tensor v2 = core::read_npy((dir / "u8_v2.npy").string());
  EXPECT_EQ(v2.dtype(), DType::UInt8);
  EXPECT_EQ(v2.get(2).i, 255);
}

TEST(Npy, WritesWhatNumpyWrites) {
  auto dir = test::source_dir() / "tests/data/npy";
  for (const char* name : {"f32_2x3.npy", "f16_4.npy", "bool_3.npy", "i64_scalar.npy"}) {
    SCOPED_TRACE(name);
    std::string file = test::read_file(dir / name);
    EXPECT_EQ(core::encode_npy(core::decode_npy(file, name)), file);
  }
}

TEST(Npy, RoundTripsEveryDtype) {
  for (DType d : core::kAllDTypes) {
    SCOPED_TRACE(std::string(core::name(d)));
    core::Tensor t(d, {2, 2});
    t.set(3, core::constant(d, 1));
    core::Tensor back = core::decode_npy(core::encode_npy(t), "t");
    EXPECT_TRUE(core::identical(t, back));
  }
}

TEST(Npy, Errors) {
  EXPECT_EQ(error_of("not numpy"), "x.npy: error: not a .npy file (bad magic string)\n");
  EXPECT_EQ(error_of(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
                         std::string(8, '\0'))),
            "x.npy: error: Fortran-order arrays are not supported; save with "
            "np.ascontiguousarray(a)\n");
  EXPECT_EQ(error_of(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                         std::string(8, '\0'))),
            "x.npy: error: big-endian data ('>f4') is not supported; convert with "
            "a.astype(a.dtype.newbyteorder('<'))\n");
  EXPECT_EQ(error_of(npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", "")),
            "x.npy: error: object arrays are not supported\n");
  EXPECT_EQ(error_of(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "")),
            "x.npy: error: unsupported .npy dtype '<c8'; teval reads bool, int8/16/32/64, uint8, "
            "float16/32/64 and bfloat16 (<V2)\n");
  EXPECT_EQ(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                         std::string(20, '\0'))),
            "x.npy: error: truncated data: shape [2, 3] of float32 needs 24 bytes, the file has "
            "20\n");
  EXPECT_EQ(error_of(npy("{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }",
                         std::string(3, '\0'))),
            "x.npy: error: unexpected 1 bytes after the data\n");
  EXPECT_EQ(error_of(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "")),
            "x.npy: error: malformed .npy header: structured arrays (a list descr) are not "
            "supported\n");
  EXPECT_EQ(error_of(npy("{'descr': '<f4', 'shape': (1,), }", "")),
            "x.npy: error: malformed .npy header: header lacks one of 'descr', 'fortran_order', "
            "'shape'\n");
  EXPECT_EQ(error_of(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)),
            "x.npy: error: truncated .npy header\n");
  EXPECT_EQ(error_of(std::string("\x93NUMPY\x07\x00\x00\x00", 10)),
            "x.npy: error: unsupported .npy format version 7.0\n");
  EXPECT_EQ(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, "
                         "99999999999), }",
                         "")),
            "x.npy: error: tensor of shape [99999999999, 99999999999] and dtype float32 is larger "
            "than teval's limit of 17179869184 bytes\n");
}

TEST(Npy, Version2Header) {
  std::string bytes = npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
                          std::string("\x05\x00\x00\x00", 4), 2);
  EXPECT_EQ(core::decode_npy(bytes, "v2").get(0).i, 5);
}

TEST(Npy, MissingFile) {
  try {
    core::read_npy("/nonexistent/in.npy");
    ADD_FAILURE();
  } catch (const core::Error& e) {
    EXPECT_EQ(e.render(), "/nonexistent/in.npy: error: cannot open file\n");
  }
}

} // namespace
} // namespace teval
