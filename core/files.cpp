// Reading whole input files with a size limit (see files.h).
#include "core/files.h"

#include "core/error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <sys/types.h>
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

void OutputSet::add(const std::string& dir, const std::string& name, std::string head,
                    std::span<const std::byte> body) {
  files_.push_back({dir, name, std::move(head), body});
}

void OutputSet::commit() {
  namespace fs = std::filesystem;
  std::vector<fs::path> created_dirs; // innermost last
  std::vector<std::string> temps, placed;
  auto undo = [&] {
    for (const std::string& t : temps)
      ::unlink(t.c_str());
    for (const std::string& p : placed)
      ::unlink(p.c_str());
    for (auto it = created_dirs.rbegin(); it != created_dirs.rend(); ++it)
      ::rmdir(it->c_str()); // only if still empty
  };
  auto fail = [&](const std::string& where, const std::string& why) {
    undo();
    throw Error(ErrorKind::Input, where, why);
  };
  // Directories, then every target checked, before anything is written.
  for (const File& f : files_) {
    fs::path dir = f.dir.empty() ? fs::path(".") : fs::path(f.dir);
    std::vector<fs::path> missing;
    for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p)); p = p.parent_path())
      missing.push_back(p);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST)
        fail(it->string(), std::string("cannot create directory: ") + std::strerror(errno));
      created_dirs.push_back(*it);
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      fail(dir.string(), "is not a directory");
    std::string target = (dir / f.name).string();
    if (::lstat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      fail(target, S_ISLNK(st.st_mode)
                       ? "exists and is a symbolic link; teval does not write through links"
                       : "exists and is not a regular file");
  }
  mode_t mask = ::umask(0);
  ::umask(mask);
  for (const File& f : files_) {
    fs::path dir = f.dir.empty() ? fs::path(".") : fs::path(f.dir);
    std::string pattern = (dir / ("." + f.name + ".XXXXXX")).string();
    int fd = ::mkstemp(pattern.data()); // O_CREAT | O_EXCL: a fresh file, never a link
    if (fd < 0)
      fail((dir / f.name).string(), std::string("cannot write file: ") + std::strerror(errno));
    temps.push_back(pattern);
    auto write_all = [&](const char* data, size_t left) {
      while (left > 0) {
        ssize_t n = ::write(fd, data, left);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          int e = errno;
          ::close(fd);
          fail((dir / f.name).string(), std::string("cannot write file: ") + std::strerror(e));
        }
        data += n;
        left -= size_t(n);
      }
    };
    write_all(f.head.data(), f.head.size());
    write_all(reinterpret_cast<const char*>(f.body.data()), f.body.size());
    ::fchmod(fd, 0666 & ~mask);
    if (::close(fd) != 0)
      fail((dir / f.name).string(), std::string("cannot write file: ") + std::strerror(errno));
  }
  for (size_t i = 0; i < files_.size(); ++i) {
    fs::path dir = files_[i].dir.empty() ? fs::path(".") : fs::path(files_[i].dir);
    std::string target = (dir / files_[i].name).string();
    if (::rename(temps[i].c_str(), target.c_str()) != 0)
      fail(target, std::string("cannot write file: ") + std::strerror(errno));
    placed.push_back(target);
    temps[i].clear();
  }
}

} // namespace teval::core
