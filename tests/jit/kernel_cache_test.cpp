// The JIT's on-disk kernel cache: entries round-trip, a damaged entry is a
// miss, the least recently used go past the size budget, concurrent
// writers leave whole entries; and a kernel loaded from the cache computes
// what the compiled one does, errors included (Jit with JitOptions::cache).
#include "core/error.h"
#include "core/lower.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "jit/jit.h"
#include "jit/kernel_cache.h"
#include "tests/support/programs.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <thread>

namespace teval::jit {
namespace {

namespace fs = std::filesystem;

size_t entries(const fs::path& dir) {
  size_t n = 0;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      n += e.path().extension() == ".o";
  return n;
}

TEST(KernelCache, EntriesRoundTripAndKeysFollowContent) {
  fs::path dir = test::scratch_dir("kernel_cache_round_trip");
  KernelCache cache(dir, 1 << 20);
  std::string key = KernelCache::key("module a");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(KernelCache::key("module a"), key);
  EXPECT_NE(KernelCache::key("module b"), key);
  EXPECT_FALSE(cache.load(key));
  std::vector<std::string> objects{"first object", std::string("\0\1\2binary", 9), ""};
  cache.store(key, objects);
  EXPECT_EQ(cache.load(key), objects);
  EXPECT_EQ(entries(dir), 1u);
}

TEST(KernelCache, ADamagedEntryIsAMissAndIsRemoved) {
  fs::path dir = test::scratch_dir("kernel_cache_damaged");
  KernelCache cache(dir, 1 << 20);
  std::string key = KernelCache::key("module");
  cache.store(key, {"an object of some length"});
  fs::path file = dir / (key + ".o");
  std::string bytes = test::read_file(file);
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{3}}) {
    test::write_file(file, bytes.substr(0, cut)); // torn
    EXPECT_FALSE(cache.load(key)) << cut;
    EXPECT_FALSE(fs::exists(file));
  }
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 1; // damaged
  test::write_file(file, flipped);
  EXPECT_FALSE(cache.load(key));
  cache.store(key, {"an object of some length"});
  EXPECT_TRUE(cache.load(key));
}

TEST(KernelCache, TheLeastRecentlyUsedGoPastTheBudget) {
  fs::path dir = test::scratch_dir("kernel_cache_evict");
  // Entries of about 10 KB, a budget of 35 KB: the fourth store evicts.
  KernelCache cache(dir, 35 << 10);
  std::string object(10 << 10, 'x');
  std::vector<std::string> keys;
  for (int i = 0; i < 3; ++i) {
    keys.push_back(KernelCache::key("m" + std::to_string(i)));
    cache.store(keys.back(), {object});
    fs::last_write_time(dir / (keys.back() + ".o"),
                        fs::file_time_type::clock::now() - std::chrono::hours(10 - i));
  }
  EXPECT_TRUE(cache.load(keys[0])); // used now: the most recent
  keys.push_back(KernelCache::key("m3"));
  cache.store(keys.back(), {object});
  EXPECT_TRUE(cache.load(keys[0]));
  EXPECT_FALSE(cache.load(keys[1])); // the least recently used
  EXPECT_TRUE(cache.load(keys[3]));
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(dir))
    total += fs::file_size(e.path());
  EXPECT_LE(total, uint64_t{35} << 10);
}

TEST(KernelCache, ConcurrentWritersLeaveWholeEntries) {
  fs::path dir = test::scratch_dir("kernel_cache_concurrent");
  KernelCache cache(dir, 64 << 20);
  std::string key = KernelCache::key("shared");
  std::vector<std::string> objects{std::string(1 << 20, 'k')};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        cache.store(key, objects);
        std::optional<std::vector<std::string>> got = cache.load(key);
        if (got) {
          EXPECT_EQ(*got, objects);
        }
      }
    });
  for (std::thread& w : writers)
    w.join();
  EXPECT_EQ(cache.load(key), objects);
  EXPECT_EQ(entries(dir), 1u); // and no temporary file left
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().extension(), ".o") << e.path();
}

// A kernel from the cache is the compiled one: the same outputs and the
// same error (an out-of-range read), with the cache written once.
TEST(KernelCache, ACachedKernelComputesAndFailsAsTheCompiledOne) {
  fs::path dir = test::scratch_dir("kernel_cache_jit");
  setenv("TEVAL_CACHE_DIR", dir.c_str(), 1);
  unsetenv("TEVAL_NO_CACHE");
  core::Kernel k = test::elaborate(
      "- einstein_v2(\"o[N] +=! a[N, K] * b[K]; e[N] = a[N, c[N]]\", input_dict={\"a\": "
      "{\"dtype\": \"float32\", \"shape\": [8, 64]}, \"b\": {\"dtype\": \"float32\", \"shape\": "
      "[64]}, \"c\": {\"dtype\": \"int32\", \"shape\": [8]}}, extra_outputs=[\"o\"])",
      {});
  std::vector<core::Tensor> in = interp::make_inputs(k, {}, 3);
  JitOptions cached;
  cached.cache = true;
  std::vector<core::Tensor> first = Jit(cached).compile(core::lower(k))->run(in);
  EXPECT_EQ(entries(dir), 1u);
  std::vector<core::Tensor> second = Jit(cached).compile(core::lower(k))->run(in);
  EXPECT_EQ(entries(dir), 1u);
  std::vector<core::Tensor> expected = interp::run(k, in);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(core::first_difference(expected[i], first[i]), -1);
    EXPECT_EQ(core::first_difference(expected[i], second[i]), -1);
  }
  // An index out of range: the same diagnostic from the cached code.
  in[2].set(5, core::Scalar::of_int(core::DType::Int32, 64));
  std::string want, got;
  try {
    interp::run(k, in);
  } catch (const core::Error& e) {
    want = e.message();
  }
  try {
    Jit(cached).compile(core::lower(k))->run(in);
  } catch (const core::Error& e) {
    got = e.message();
  }
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got, want);
  // TEVAL_NO_CACHE turns it off.
  fs::remove_all(dir);
  setenv("TEVAL_NO_CACHE", "1", 1);
  Jit(cached).compile(core::lower(k))->run(interp::make_inputs(k, {}, 3));
  EXPECT_EQ(entries(dir), 0u);
  unsetenv("TEVAL_NO_CACHE");
}

} // namespace
} // namespace teval::jit
