// An on-disk cache of compiled kernels' object code, shared by processes
// (as ccache or Triton's cache are): a kernel's key is a hash of its code
// before optimisation, the target, the options and the build of teval that
// compiles it, so a hit gives the very object a compilation would.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace teval::jit {

class KernelCache {
public:
  /// A cache in \p dir (created when first stored into) of at most
  /// \p max_bytes: past it the least recently used entries go.
  KernelCache(std::filesystem::path dir, uint64_t max_bytes);

  /// The cache the environment names (docs/PERFORMANCE.md): nothing when
  /// TEVAL_NO_CACHE is set to anything but "" or "0"; else in
  /// $TEVAL_CACHE_DIR, $XDG_CACHE_HOME/teval or $HOME/.cache/teval, of
  /// $TEVAL_CACHE_SIZE bytes (a number with K, M or G; default 256M).
  static std::optional<KernelCache> from_environment();

  /// The key of \p content: its SHA-256, in hex, with this build of teval's
  /// identity (the file holding this code: its path, size and time).
  static std::string key(std::string_view content);

  /// The objects stored under \p key, or nothing (a missing, partial or
  /// corrupt entry is a miss). A hit marks the entry as recently used.
  std::optional<std::vector<std::string>> load(const std::string& key) const;

  /// Stores \p objects under \p key: written to a file of its own and
  /// renamed into place, so that concurrent processes see it whole or not
  /// at all. A cache that cannot be written is no error: the kernel was
  /// compiled anyway.
  void store(const std::string& key, const std::vector<std::string>& objects) const;

  const std::filesystem::path& dir() const { return dir_; }

private:
  void evict() const;

  std::filesystem::path dir_;
  uint64_t max_bytes_;
};

} // namespace teval::jit
