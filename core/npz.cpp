// numpy .npz archives (see npz.h): the zip container, read by hand from its
// central directory, with zip64 records as numpy writes them
// (force_zip64) and zlib for compressed members.
#include "core/npz.h"

#include "core/error.h"
#include "core/files.h"
#include "core/npy.h"

#include <zlib.h>

namespace teval::core {

namespace {

constexpr uint32_t kEndRecord = 0x06054b50;
constexpr uint32_t kZip64End = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kCentralEntry = 0x02014b50;
constexpr uint32_t kLocalHeader = 0x04034b50;

struct Member {
  std::string name;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0;
  uint64_t size = 0;
  uint64_t offset = 0; ///< of the local header
};

class Archive {
public:
  Archive(std::string bytes, std::string path) : bytes_(std::move(bytes)), path_(std::move(path)) {
    read_directory();
  }

  const std::vector<Member>& members() const { return members_; }

  std::string contents(const Member& m) const {
    uint64_t at = m.offset;
    if (u32(at) != kLocalHeader)
      fail("member '" + m.name + "' has no local header where the directory says");
    uint64_t data = at + 30 + u16(at + 26) + u16(at + 28);
    need(data, m.compressed);
    std::string_view raw(bytes_.data() + data, m.compressed);
    std::string out;
    if (m.method == 0) {
      if (m.compressed != m.size)
        fail("stored member '" + m.name + "' has two different sizes");
      out = std::string(raw);
    } else if (m.method == 8) {
      out = inflate(raw, m);
    } else {
      fail("member '" + m.name + "' uses compression method " + std::to_string(m.method) +
           "; .npz files are stored or deflated");
    }
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(out.data()), 0);
    for (size_t done = 0; done < out.size();) {
      uInt chunk = static_cast<uInt>(std::min<size_t>(out.size() - done, 1u << 30));
      crc = crc32(crc, reinterpret_cast<const Bytef*>(out.data() + done), chunk);
      done += chunk;
    }
    if (crc != m.crc)
      fail("member '" + m.name + "' is corrupt (CRC mismatch)");
    return out;
  }

private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorKind::Input, path_, why);
  }

  void need(uint64_t at, uint64_t count) const {
    if (at > bytes_.size() || count > bytes_.size() - at)
      fail("not a valid .npz file (truncated zip archive)");
  }

  uint64_t le(uint64_t at, int width) const {
    need(at, static_cast<uint64_t>(width));
    uint64_t v = 0;
    for (int i = width; i-- > 0;)
      v = v << 8 | static_cast<unsigned char>(bytes_[at + static_cast<uint64_t>(i)]);
    return v;
  }
  uint16_t u16(uint64_t at) const { return static_cast<uint16_t>(le(at, 2)); }
  uint32_t u32(uint64_t at) const { return static_cast<uint32_t>(le(at, 4)); }
  uint64_t u64(uint64_t at) const { return le(at, 8); }

  void read_directory() {
    if (bytes_.size() < 22)
      fail("not a valid .npz file (too short for a zip archive)");
    // The end record is within the last 22 + 65535 bytes (its comment).
    uint64_t end = bytes_.size() - 22;
    uint64_t lowest = end > 65535 ? end - 65535 : 0;
    while (u32(end) != kEndRecord) {
      if (end == lowest)
        fail("not a valid .npz file (no zip end record)");
      --end;
    }
    uint64_t count = u16(end + 10);
    uint64_t directory = u32(end + 16);
    if (end >= 20 && u32(end - 20) == kZip64Locator) {
      uint64_t record = u64(end - 20 + 8);
      if (u32(record) != kZip64End)
        fail("not a valid .npz file (bad zip64 end record)");
      count = u64(record + 32);
      directory = u64(record + 48);
    }
    uint64_t at = directory;
    for (uint64_t i = 0; i < count; ++i) {
      if (u32(at) != kCentralEntry)
        fail("not a valid .npz file (bad zip directory entry)");
      Member m;
      m.method = u16(at + 10);
      m.crc = u32(at + 16);
      m.compressed = u32(at + 20);
      m.size = u32(at + 24);
      uint64_t name_length = u16(at + 28), extra_length = u16(at + 30);
      uint64_t comment_length = u16(at + 32);
      m.offset = u32(at + 42);
      need(at + 46, name_length + extra_length);
      m.name = bytes_.substr(at + 46, name_length);
      read_zip64_extra(at + 46 + name_length, extra_length, m);
      members_.push_back(std::move(m));
      at += 46 + name_length + extra_length + comment_length;
    }
  }

  // Sizes and offsets that do not fit 32 bits are in the zip64 extra
  // field, in this order, each only when its 32-bit field is all ones.
  void read_zip64_extra(uint64_t at, uint64_t length, Member& m) const {
    for (uint64_t end = at + length; at + 4 <= end;) {
      uint16_t id = u16(at), size = u16(at + 2);
      uint64_t field = at + 4;
      if (id == 1) {
        for (uint64_t* v : {&m.size, &m.compressed, &m.offset})
          if (*v == 0xFFFFFFFFu) {
            if (field + 8 > at + 4 + size)
              fail("not a valid .npz file (short zip64 field)");
            *v = u64(field);
            field += 8;
          }
      }
      at += 4 + size;
    }
  }

  std::string inflate(std::string_view raw, const Member& m) const {
    // Deflate expands at most 1032 to 1: a larger claim is false, and is
    // refused before anything is allocated for it.
    if (m.size / 1032 > raw.size() + 1)
      fail("member '" + m.name + "' claims " + std::to_string(m.size) +
           " bytes, more than its compressed data can hold");
    if (m.size > kMaxMember)
      fail("member '" + m.name + "' is larger than teval reads (" + std::to_string(m.size) +
           " bytes)");
    std::string out(m.size, '\0');
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
      fail("cannot start decompressing");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    int status = Z_OK;
    size_t in_left = raw.size(), out_left = out.size();
    while (status == Z_OK) {
      z.avail_in = static_cast<uInt>(std::min<size_t>(in_left, 1u << 30));
      z.avail_out = static_cast<uInt>(std::min<size_t>(out_left, 1u << 30));
      uInt in_before = z.avail_in, out_before = z.avail_out;
      status = ::inflate(&z, Z_NO_FLUSH);
      in_left -= in_before - z.avail_in;
      out_left -= out_before - z.avail_out;
      if (status == Z_OK && in_before == z.avail_in && out_before == z.avail_out)
        break; // no progress: truncated input or more output than declared
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END || out_left != 0)
      fail("member '" + m.name + "' does not decompress to its declared size");
    return out;
  }

  // Compressed members are inflated into memory; beyond this they are
  // refused rather than allowed to exhaust it.
  static constexpr uint64_t kMaxMember = uint64_t{1} << 34;

  std::string bytes_;
  std::string path_;
  std::vector<Member> members_;
};

Archive open(const std::string& path) {
  // A zip archive is read from its end, so it must be a regular file (as
  // numpy requires too); a pipe or a device is refused before it is read.
  InputFile in(path);
  if (!in.size())
    throw Error(ErrorKind::Input, path, "a .npz archive must be a regular file");
  if (*in.size() > kMaxDataFileBytes)
    throw Error(ErrorKind::Limit, path, "larger than teval reads for a .npz file");
  std::string bytes;
  in.read(bytes, *in.size());
  return Archive(std::move(bytes), path);
}

} // namespace

std::vector<std::string> npz_keys(const std::string& path) {
  std::vector<std::string> keys;
  Archive a = open(path);
  for (const Member& m : a.members())
    keys.push_back(m.name.size() > 4 && m.name.substr(m.name.size() - 4) == ".npy"
                       ? m.name.substr(0, m.name.size() - 4)
                       : m.name);
  return keys;
}

Tensor read_npz(const std::string& path, const std::string& key) {
  Archive a = open(path);
  std::string names;
  for (const Member& m : a.members()) {
    if (m.name == key + ".npy" || m.name == key)
      return decode_npy(a.contents(m), path + ":" + key);
    std::string shown = m.name.size() > 4 && m.name.substr(m.name.size() - 4) == ".npy"
                            ? m.name.substr(0, m.name.size() - 4)
                            : m.name;
    names += (names.empty() ? "" : ", ") + shown;
  }
  throw Error(ErrorKind::Input, path,
              "no array '" + key + "' in the archive; it holds " +
                  (names.empty() ? std::string("nothing") : names));
}

} // namespace teval::core
