// teval as another project's dependency: configured with add_subdirectory,
// it needs none of the test and benchmark packages, and a target that links
// one of its libraries gets C++20 without asking.
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

namespace fs = std::filesystem;

// A consumer project that adds the checkout as a subdirectory, with the
// packages only teval's own tests and benchmarks use made unfindable.
test::Result configure_consumer(const fs::path& dir, const std::string& options) {
  test::write_file(dir / "src/CMakeLists.txt",
                   "cmake_minimum_required(VERSION 3.25)\n"
                   "project(consumer LANGUAGES C CXX)\n"
                   "add_subdirectory(" +
                       test::source_dir().string() +
                       " teval)\n"
                       "add_executable(consumer consumer.cpp)\n"
                       "target_link_libraries(consumer PRIVATE teval_interp)\n");
  test::write_file(dir / "src/consumer.cpp",
                   "#include \"interp/interpreter.h\"\n"
                   "#include <span>\n" // C++20
                   "int main() { return 0; }\n");
  return test::run_shell("cmake -S src -B out -G Ninja " + options +
                             " -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON"
                             " -DCMAKE_DISABLE_FIND_PACKAGE_rapidcheck=ON"
                             " -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON 2>&1",
                         dir);
}

TEST(Package, SubdirectoryNeedsNoTestPackagesAndGivesCxx20) {
  fs::path dir = test::scratch_dir("package_subdirectory");
  test::Result r = configure_consumer(dir, "");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // The consumer's own object is compiled as C++20 (a usage requirement).
  std::string ninja = test::read_file(dir / "out/build.ninja");
  size_t object = ninja.find("consumer.cpp.o:");
  ASSERT_NE(object, std::string::npos);
  size_t flags = ninja.find("FLAGS = ", object);
  ASSERT_NE(flags, std::string::npos);
  std::string line = ninja.substr(flags, ninja.find('\n', flags) - flags);
  EXPECT_NE(line.find("++20"), std::string::npos) << line; // c++20 or gnu++20
  // Neither the command, the tests nor the benchmarks are configured.
  EXPECT_EQ(ninja.find("teval_bench"), std::string::npos);
  EXPECT_EQ(ninja.find("oracle_test"), std::string::npos);
}

TEST(Package, FetchContentOfTheCheckoutWorksToo) {
  fs::path dir = test::scratch_dir("package_fetchcontent");
  test::write_file(dir / "src/CMakeLists.txt",
                   "cmake_minimum_required(VERSION 3.25)\n"
                   "project(consumer LANGUAGES C CXX)\n"
                   "include(FetchContent)\n"
                   "FetchContent_Declare(teval SOURCE_DIR " +
                       test::source_dir().string() +
                       ")\n"
                       "FetchContent_MakeAvailable(teval)\n"
                       "add_executable(consumer consumer.cpp)\n"
                       "target_link_libraries(consumer PRIVATE teval::jit)\n");
  test::write_file(dir / "src/consumer.cpp",
                   "#include <teval/teval.h>\nint main() { return 0; }\n");
  test::Result r = test::run_shell("cmake -S src -B out -G Ninja"
                                   " -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON"
                                   " -DCMAKE_DISABLE_FIND_PACKAGE_rapidcheck=ON"
                                   " -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON 2>&1",
                                   dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(test::read_file(dir / "out/build.ninja").find("consumer.cpp.o"), std::string::npos);
}

TEST(Package, TheInterpreterAloneNeedsNoLlvm) {
  fs::path dir = test::scratch_dir("package_no_jit");
  test::Result r =
      configure_consumer(dir, "-DTEVAL_BUILD_JIT=OFF -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("teval: Boost"), std::string::npos);
  EXPECT_NE(r.out.find("no JIT"), std::string::npos) << r.out;
}

// A real install into a fresh prefix, and examples/cpp_consumer built
// against it with find_package(teval) and run.
TEST(Package, AnInstalledPackageBuildsAndRunsTheConsumerExample) {
#if defined(TEVAL_TEST_ASAN)
  GTEST_SKIP() << "the sanitized libraries need the sanitizer's runtime in the consumer";
#endif
  fs::path dir = test::scratch_dir("package_install");
  test::Result r = test::run_shell(
      "cmake --install " + test::binary_dir().string() + " --prefix prefix 2>&1", dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir / "prefix/lib/cmake/teval/tevalConfig.cmake"));
  EXPECT_TRUE(fs::exists(dir / "prefix/include/teval/teval.h"));
  EXPECT_TRUE(fs::exists(dir / "prefix/bin/teval"));
  r = test::run_shell("cmake -S " + (test::source_dir() / "examples/cpp_consumer").string() +
                          " -B consumer -G Ninja -DCMAKE_PREFIX_PATH=$PWD/prefix 2>&1 && "
                          "cmake --build consumer 2>&1",
                      dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // The split-K kernel is not bit-equal to the sequential sum, and legal.
  r = test::run_shell("consumer/check_matmul", dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("check_matmul: output0: within-bound: ", 0), 0u) << r.out;
  r = test::run_shell("consumer/jit_matmul", dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "jit_matmul: the JIT computes the interpreter's results bit for bit\n");
  // Only the consumer of the jit component links LLVM.
  r = test::run_shell("readelf -d consumer/check_matmul consumer/jit_matmul", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t jit = r.out.find("jit_matmul");
  ASSERT_NE(jit, std::string::npos);
  EXPECT_EQ(r.out.substr(0, jit).find("libLLVM"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libLLVM", jit), std::string::npos) << r.out;
#ifdef TEVAL_PYTHON
  // The Python package is installed under the prefix, in the site
  // directory's layout, and imports from there.
  std::string site = (dir / "prefix" / TEVAL_PYTHON_SITE).string();
  r = test::run_shell("PYTHONPATH=" + site +
                          " " TEVAL_PYTHON " -c 'import teval, numpy; print(teval.__file__); "
                          "print(teval.run(\"output0[N] = input0[N] * 2\", "
                          "{\"input0\": numpy.array([1, 2], numpy.int32)})[\"output0\"])'",
                      dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, site + "/teval/__init__.py\n[2 4]\n");
#endif
  // The installed command runs too.
  r = test::run_shell("prefix/bin/teval run -e 'output0[N] = N where N in 3'", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

} // namespace
} // namespace teval
