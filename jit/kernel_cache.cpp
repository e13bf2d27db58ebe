// The on-disk kernel cache (see kernel_cache.h).
#include "jit/kernel_cache.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SHA256.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

namespace teval::jit {

namespace fs = std::filesystem;

namespace {

// An entry: this magic line, the number of objects, then each object's
// size and bytes, then the SHA-256 of everything before it.
constexpr std::string_view kMagic = "teval-kernel-cache 1\n";

std::string hex(llvm::ArrayRef<uint8_t> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

std::string sha256(std::string_view text) {
  llvm::SHA256 h;
  h.update(llvm::StringRef(text.data(), text.size()));
  std::array<uint8_t, 32> digest = h.final();
  return hex(digest);
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((v >> (8 * i)) & 0xff);
}

bool get_u64(std::string_view in, size_t& at, uint64_t& v) {
  if (in.size() - at < 8)
    return false;
  v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  at += 8;
  return true;
}

// The file holding this code (teval, libteval.so or the Python module),
// with its size and modification time: a rebuilt teval has another.
const std::string& build_identity() {
  static const std::string identity = [] {
    Dl_info info{};
    std::string file = dladdr(reinterpret_cast<void*>(&build_identity), &info) && info.dli_fname
                           ? info.dli_fname
                           : "";
    struct stat st {};
    if (file.empty() || stat(file.c_str(), &st) != 0)
      return std::string("unknown build ") + __DATE__ + " " + __TIME__;
    return file + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }();
  return identity;
}

std::optional<uint64_t> parse_size(const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  if (end == text || !(v >= 0))
    return std::nullopt;
  std::string unit(end);
  double scale = unit.empty()  ? 1
                 : unit == "K" ? 1024.0
                 : unit == "M" ? 1048576.0
                 : unit == "G" ? 1073741824.0
                               : -1;
  if (scale < 0)
    return std::nullopt;
  return static_cast<uint64_t>(v * scale);
}

} // namespace

KernelCache::KernelCache(fs::path dir, uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {}

std::optional<KernelCache> KernelCache::from_environment() {
  const char* off = std::getenv("TEVAL_NO_CACHE");
  if (off && *off && std::string(off) != "0")
    return std::nullopt;
  fs::path dir;
  if (const char* d = std::getenv("TEVAL_CACHE_DIR"); d && *d)
    dir = d;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    dir = fs::path(x) / "teval";
  else if (const char* h = std::getenv("HOME"); h && *h)
    dir = fs::path(h) / ".cache" / "teval";
  else
    return std::nullopt;
  uint64_t size = uint64_t{256} << 20;
  if (const char* s = std::getenv("TEVAL_CACHE_SIZE"); s && *s)
    size = parse_size(s).value_or(size);
  return KernelCache(dir, size);
}

std::string KernelCache::key(std::string_view content) {
  return sha256(build_identity() + "\n" + std::string(content));
}

std::optional<std::vector<std::string>> KernelCache::load(const std::string& key) const {
  fs::path path = dir_ / (key + ".o");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto corrupt = [&]() -> std::optional<std::vector<std::string>> {
    std::error_code ec;
    fs::remove(path, ec); // a torn or damaged entry is rebuilt
    return std::nullopt;
  };
  if (data.size() < kMagic.size() + 8 + 32 || data.compare(0, kMagic.size(), kMagic) != 0)
    return corrupt();
  std::string_view body(data.data(), data.size() - 32);
  if (hex(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(data.data()) + body.size(),
                                  32)) != sha256(body))
    return corrupt();
  size_t at = kMagic.size();
  uint64_t count = 0;
  if (!get_u64(body, at, count) || count > 4096)
    return corrupt();
  std::vector<std::string> objects;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    if (!get_u64(body, at, size) || size > body.size() - at)
      return corrupt();
    objects.emplace_back(body.substr(at, size));
    at += size;
  }
  if (at != body.size())
    return corrupt();
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec); // recently used
  return objects;
}

void KernelCache::store(const std::string& key, const std::vector<std::string>& objects) const {
  std::string data(kMagic);
  put_u64(data, objects.size());
  for (const std::string& o : objects) {
    put_u64(data, o.size());
    data += o;
  }
  llvm::SHA256 h;
  h.update(llvm::StringRef(data));
  std::array<uint8_t, 32> digest = h.final();
  data.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  std::error_code ec;
  fs::create_directories(dir_, ec);
  static std::atomic<uint64_t> serial{0};
  fs::path temp =
      dir_ / (key + "." + std::to_string(getpid()) + "." + std::to_string(serial++) + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary);
    if (!out)
      return;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out.flush()) {
      out.close();
      fs::remove(temp, ec);
      return;
    }
  }
  fs::rename(temp, dir_ / (key + ".o"), ec);
  if (ec) {
    fs::remove(temp, ec);
    return;
  }
  evict();
}

void KernelCache::evict() const {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t size;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".o")
      continue;
    std::error_code e2;
    uint64_t size = it->file_size(e2);
    fs::file_time_type time = it->last_write_time(e2);
    if (e2)
      continue;
    entries.push_back({it->path(), time, size});
    total += size;
  }
  if (total <= max_bytes_)
    return;
  // The least recently used first, down to three quarters of the budget.
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.time < b.time; });
  for (const Entry& e : entries) {
    if (total <= max_bytes_ / 4 * 3)
      break;
    std::error_code e2;
    if (fs::remove(e.path, e2))
      total -= e.size;
  }
}

} // namespace teval::jit
