// Reading whole input files with a size limit (see files.h).
#include "core/files.h"

#include "core/error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace teval::core {

namespace {

std::string too_large(uint64_t limit, const std::string& what) {
  return "larger than teval reads for " + what + " (" + std::to_string(limit >> 20) + " MiB)";
}

} // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  // Non-blocking only for the open: a pipe without a writer must not hold
  // teval before it can look at what it opened.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0)
    throw Error(ErrorKind::Input, path, std::string("cannot open file: ") + std::strerror(errno));
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd_);
    throw Error(ErrorKind::Input, path, "is a directory, not a file");
  }
  if (S_ISREG(st.st_mode))
    size_ = uint64_t(st.st_size);
}

InputFile::~InputFile() {
  ::close(fd_);
}

void InputFile::read(std::string& out, uint64_t n) {
  char buffer[1 << 16];
  while (n > 0) {
    ssize_t got = ::read(fd_, buffer, size_t(std::min<uint64_t>(n, sizeof buffer)));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      throw Error(ErrorKind::Input, path_,
                  std::string("cannot read file: ") + std::strerror(errno));
    if (got == 0)
      return;
    out.append(buffer, size_t(got));
    n -= uint64_t(got);
  }
}

std::string read_file(const std::string& path, uint64_t limit, const std::string& what) {
  InputFile in(path);
  if (in.size() && *in.size() > limit)
    throw Error(ErrorKind::Limit, path, too_large(limit, what));
  std::string out;
  if (in.size())
    out.reserve(size_t(*in.size()));
  in.read(out, limit + 1); // one byte more tells an endless device
  if (out.size() > limit)
    throw Error(ErrorKind::Limit, path, too_large(limit, what));
  return out;
}

std::string read_stream(std::istream& in, uint64_t limit, const std::string& name,
                        const std::string& what) {
  std::string out;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    if (out.size() + size_t(in.gcount()) > limit)
      throw Error(ErrorKind::Limit, name, too_large(limit, what));
    out.append(buffer, size_t(in.gcount()));
  }
  return out;
}

} // namespace teval::core
