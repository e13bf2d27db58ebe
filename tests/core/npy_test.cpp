// .npy reading and writing: numpy-made files, round trips, and every
// malformed-file error.
#include "core/error.h"
#include "core/npy.h"
#include "core/npz.h"
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

TEST(Npy, ReadsFortranOrderRowMajor) {
  // numpy wrote np.asfortranarray(arange(6).reshape(2, 3) + 0.5): the file
  // holds 0.5 3.5 1.5 4.5 2.5 5.5, the array is [[0.5 1.5 2.5] [3.5 4.5 5.5]].
  auto dir = test::source_dir() / "tests/data/npy";
  core::Tensor f = core::read_npy((dir / "f32_2x3_fortran.npy").string());
  EXPECT_EQ(f.shape(), (core::Shape{2, 3}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(f.get(i).f, static_cast<double>(i) + 0.5) << i;
  // Three dimensions: arange(24).reshape(2, 3, 4) - 5 in Fortran order.
  core::Tensor g = core::read_npy((dir / "i16_2x3x4_fortran.npy").string());
  EXPECT_EQ(g.dtype(), DType::Int16);
  EXPECT_EQ(g.shape(), (core::Shape{2, 3, 4}));
  for (int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(g.get(i).i, i - 5) << i;
}

TEST(Npz, ReadsStoredAndCompressedArchivesNumpyWrote) {
  auto dir = test::source_dir() / "tests/data/npy";
  for (const char* file : {"pair.npz", "pair_compressed.npz"}) {
    std::string path = (dir / file).string();
    EXPECT_EQ(core::npz_keys(path), (std::vector<std::string>{"x", "idx"})) << file;
    core::Tensor x = core::read_npz(path, "x");
    EXPECT_EQ(x.dtype(), DType::Float32);
    EXPECT_EQ(x.shape(), (core::Shape{3}));
    EXPECT_EQ(x.get(0).f, 1.5);
    EXPECT_EQ(x.get(1).f, -2.0);
    EXPECT_EQ(x.get(2).f, 3.25);
    core::Tensor idx = core::read_npz(path, "idx");
    EXPECT_EQ(idx.dtype(), DType::Int32);
    EXPECT_EQ(idx.shape(), (core::Shape{2, 2}));
    EXPECT_EQ(idx.get(1).i, 2);
    EXPECT_EQ(idx.get(2).i, 1);
  }
}

std::string npz_error(const std::string& bytes, const std::string& key = "x") {
  static const auto path = test::scratch_dir("npz-errors") / "bad.npz";
  test::write_file(path, bytes);
  try {
    core::read_npz(path.string(), key);
  } catch (const core::Error& e) {
    std::string r = e.render();
    return r.substr(r.find("error: "));
  }
  return "no error";
}

TEST(Npz, Errors) {
  std::string good = test::read_file(test::source_dir() / "tests/data/npy/pair.npz");
  std::string packed = test::read_file(test::source_dir() / "tests/data/npy/pair_compressed.npz");
  EXPECT_EQ(npz_error(good, "y"), "error: no array 'y' in the archive; it holds x, idx\n");
  EXPECT_EQ(npz_error("PK"), "error: not a valid .npz file (too short for a zip archive)\n");
  EXPECT_EQ(npz_error(std::string(100, 'z')), "error: not a valid .npz file (no zip end record)\n");
  // Every truncation is an error, never a crash or a read past the end.
  for (size_t n = 0; n < good.size(); n += 7)
    EXPECT_NE(npz_error(good.substr(0, n)), "no error") << n;
  for (size_t n = 0; n < packed.size(); n += 5)
    EXPECT_NE(npz_error(packed.substr(0, n)), "no error") << n;
  // A flipped byte inside x's data breaks its CRC.
  std::string corrupt = good;
  size_t data = corrupt.find("x.npy");
  ASSERT_NE(data, std::string::npos);
  size_t value = corrupt.find(std::string("\x00\x00\xc0\x3f", 4), data); // 1.5f
  ASSERT_NE(value, std::string::npos);
  corrupt[value + 3] ^= 0x40;
  EXPECT_EQ(npz_error(corrupt), "error: member 'x.npy' is corrupt (CRC mismatch)\n");
  // Every single-byte change either still reads or is an error.
  for (size_t i = 0; i < packed.size(); ++i) {
    std::string mutated = packed;
    mutated[i] = static_cast<char>(mutated[i] ^ 0xA5);
    npz_error(mutated);
    npz_error(mutated, "idx");
  }
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
    if (core::carrier(d) == d) {
      EXPECT_TRUE(core::identical(t, back));
    } else { // int2 ... uint4 travel as int8 and uint8, the minifloats as float32
      EXPECT_EQ(back.dtype(), core::carrier(d));
      EXPECT_EQ(back.get(3).as_double(), 1.0);
      EXPECT_EQ(back.get(0).as_double(), t.get(0).as_double()); // 0, but f8E8M0FNU's 2^-127
    }
  }
}

// uint16 is its own dtype, never bfloat16 (both are 2 bytes; a bfloat16
// .npy holds the bits as 2-byte void).
TEST(Npy, Uint16IsNotBfloat16) {
  std::string bytes = {'\xe8', '\x03', '\xff', '\xff'}; // 1000, 65535
  core::Tensor t = core::decode_npy(
      npy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", bytes), "x");
  EXPECT_EQ(t.dtype(), DType::UInt16);
  EXPECT_EQ(t.get(0).i, 1000);
  EXPECT_EQ(t.get(1).i, 65535);
}

TEST(Npy, Errors) {
  EXPECT_EQ(error_of("not numpy"), "x.npy: error: not a .npy file (bad magic string)\n");
  // Fortran order is read; its data must still be all there.
  EXPECT_EQ(error_of(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                         std::string(8, '\0'))),
            "x.npy: error: truncated data: shape [2, 2] of float32 needs 16 bytes, the file has "
            "8\n");
  EXPECT_EQ(error_of(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                         std::string(8, '\0'))),
            "x.npy: error: big-endian data ('>f4') is not supported; convert with "
            "a.astype(a.dtype.newbyteorder('<'))\n");
  EXPECT_EQ(error_of(npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", "")),
            "x.npy: error: object arrays are not supported\n");
  EXPECT_EQ(error_of(npy("{'descr': '<m8[s]', 'fortran_order': False, 'shape': (1,), }", "")),
            "x.npy: error: unsupported .npy dtype '<m8[s]'; teval reads bool, int8/16/32/64, "
            "uint8/16/32/64, float16/32/64, complex64/128 and bfloat16 (<V2)\n");
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
  // A zero extent leaves no element, but the other extents still make the
  // strides: they must multiply within int64, in either order (found by the
  // npy harness: the Fortran reorder computed strides past int64).
  for (const char* order : {"True", "False"})
    EXPECT_EQ(error_of(npy(std::string("{'descr': '<i2', 'fortran_order': ") + order +
                               ", 'shape': (0, 4294967296, 4294967296), }",
                           "")),
              "x.npy: error: tensor of shape [0, 4294967296, 4294967296] and dtype int16 has no "
              "element, but its other extents multiply past 2^63, beyond the strides teval can "
              "compute\n");
  // numpy's own rank limit, 64: a 65th extent is an error in the header.
  std::string ones;
  for (int i = 0; i < 65; ++i)
    ones += "1, ";
  EXPECT_EQ(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + ones + "), }",
                         std::string(4, '\0'))),
            "x.npy: error: malformed .npy header: a shape of rank above 64\n");
  ones.resize(ones.size() - 3);
  EXPECT_EQ(error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + ones + "), }",
                         std::string(4, '\0'))),
            "no error");
}

TEST(Npy, Version2Header) {
  std::string bytes = npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
                          std::string("\x05\x00\x00\x00", 4), 2);
  EXPECT_EQ(core::decode_npy(bytes, "v2").get(0).i, 5);
}

// read_npy reads what the header declares and no more; a header longer
// than 1 MiB is refused before it is read.
TEST(Npy, ReadingStopsWhereTheHeaderSays) {
  auto dir = test::scratch_dir("npy-read-limits");
  auto error_of_file = [&](const std::string& bytes) {
    test::write_file(dir / "x.npy", bytes);
    try {
      core::read_npy((dir / "x.npy").string());
    } catch (const core::Error& e) {
      std::string r = e.render();
      return r.substr(r.find("error: "));
    }
    return std::string("no error");
  };
  std::string huge_header =
      std::string("\x93NUMPY\x02\x00", 8) + std::string("\x00\x00\x00\x80", 4);
  EXPECT_EQ(error_of_file(huge_header + std::string(100, ' ')),
            "error: malformed .npy header: it claims to be 2147483648 bytes long\n");
  // Two floats declared, three stored: the extra bytes are noticed.
  std::string two =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(12, '\0'));
  EXPECT_EQ(error_of_file(two), "error: unexpected 4 bytes after the data\n");
  EXPECT_EQ(error_of_file("\x93NU"), "error: not a .npy file (bad magic string)\n");
}

TEST(Npy, MissingFile) {
  try {
    core::read_npy("/nonexistent/in.npy");
    ADD_FAILURE();
  } catch (const core::Error& e) {
    EXPECT_EQ(e.render(),
              "/nonexistent/in.npy: error: cannot open file: No such file or directory\n");
  }
}

} // namespace
} // namespace teval
