// Reading whole input files with a size limit: programs, rule files,
// graphs, ops files, .npy and .npz data. A file teval needs is a regular
// file, a pipe or a device it can read to its end; never a directory, and
// never read beyond its limit (`teval run /dev/zero` is an error, not a hang).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace teval::core {

/// The largest program, rule, graph or ops text teval reads (also a REPL
/// script on stdin): 64 MiB.
inline constexpr uint64_t kMaxSourceBytes = uint64_t{64} << 20;

/// The largest .npy or .npz file teval reads: the largest tensor plus room
/// for headers.
inline constexpr uint64_t kMaxDataFileBytes = (uint64_t{1} << 34) + (uint64_t{1} << 20);

/// A file opened for reading in pieces (a format whose header says how much
/// follows reads no more than that). Closed with the object.
class InputFile {
public:
  /// Error(Input) at \p path when it cannot be opened or is a directory.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// Appends up to \p n more bytes to \p out (fewer only at the end).
  void read(std::string& out, uint64_t n);
  /// The file's size when it is a regular file.
  std::optional<uint64_t> size() const { return size_; }

private:
  std::string path_;
  int fd_ = -1;
  std::optional<uint64_t> size_;
};

/// The contents of the file at \p path. Error(Input) at \p path when it
/// cannot be opened or is a directory; Error(Limit) when it holds more than
/// \p limit bytes (\p what names the kind of file in the message).
std::string read_file(const std::string& path, uint64_t limit, const std::string& what);

/// Everything \p in holds, up to \p limit bytes; Error(Limit) at \p name
/// beyond.
std::string read_stream(std::istream& in, uint64_t limit, const std::string& name,
                        const std::string& what);

/// A set of files written all or nothing (`teval run -o DIR`): each is
/// written to a fresh temporary of a unique name in its directory (created
/// with O_EXCL, so no existing file or link is ever written through), and
/// only when all are written are they renamed into place. A target that
/// exists and is not a regular file (a link, a directory) is an error
/// before anything is written. On any failure nothing of the set remains:
/// temporaries and files already renamed are removed, and so are the
/// directories commit() created.
class OutputSet {
public:
  /// Adds `dir/name` with contents \p head followed by \p body. The body
  /// is not copied (a tensor's elements after its .npy header): its memory
  /// must stay valid until commit() returns.
  void add(const std::string& dir, const std::string& name, std::string head,
           std::span<const std::byte> body = {});
  /// Writes them all, or none; Error(Input) naming the file that failed.
  void commit();

private:
  struct File {
    std::string dir, name, head;
    std::span<const std::byte> body;
  };
  std::vector<File> files_;
};

} // namespace teval::core
