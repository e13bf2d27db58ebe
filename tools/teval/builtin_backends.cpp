// The built-in backends of teval fuzz (see builtin_backends.h).
#include "tools/teval/builtin_backends.h"

#include "tools/teval/cli_support.h"
#include "verify/emit_mlir.h"
#include "verify/program.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace teval::tools {

namespace {

bool installed(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

} // namespace

std::string builtin_backend(const std::string& name) {
  static const std::vector<std::string> names = {
      "cc:gcc",      "cc:clang",    "mlir:loops",         "mlir:affine",
      "mlir:vector", "torchscript", "torchscript:nofuse", "halide"};
  if (std::find(names.begin(), names.end(), name) == names.end())
    return "";
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string teval = verify::shell_quote(ec ? "teval" : self.string());
  const std::string inputs =
      "set -- ; for f in {inputs}/*.npy; do [ -e \"$f\" ] || continue; "
      "set -- \"$@\" -i \"$(basename \"$f\" .npy)=$f\"; done; "
      "[ -n {entry} ] && set -- \"$@\" --entry {entry}; d=$(dirname {outdir}); ";
  if (name.starts_with("cc:")) {
    const std::string cc = name == "cc:gcc" ? "gcc" : "clang-19";
    if (!installed(cc))
      throw UsageError{"--backend " + name + " needs " + cc + ", which is not installed"};
    return inputs + teval + " emit --to c --lang {lang} \"$@\" {program} > \"$d/program.c\" && " +
           cc +
           " -O3 -march=native -o \"$d/program\" \"$d/program.c\" -lm && "
           "\"$d/program\" {inputs} {outdir}";
  }
  // Debian's python3-torch and python3-halide are for Debian's interpreter,
  // which need not be the python3 first on PATH.
  const std::string python =
      std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (name == "halide") {
    if (std::system((python + " -c 'import numpy, halide' >/dev/null 2>&1").c_str()) != 0)
      throw UsageError{"--backend halide needs " + python +
                       " with numpy and halide (Debian's python3-halide), which are not installed"};
    // The schedule's seed is the program's (the script's default): a case
    // and its shrunk forms each get theirs, printed in stdout.txt.
    return inputs + "{ " + teval + " emit --to halide --lang {lang} \"$@\" {program} > " +
           "\"$d/program.py\"; s=$?; [ $s = 3 ] && exit 77; [ $s = 0 ] || exit $s; } && " + python +
           " \"$d/program.py\" {inputs} {outdir}";
  }
  if (name.starts_with("torchscript")) {
    if (std::system((python + " -c 'import numpy, torch' >/dev/null 2>&1").c_str()) != 0)
      throw UsageError{"--backend " + name + " needs " + python +
                       " with numpy and torch (Debian's python3-torch), which are not installed"};
    return inputs + "{ " + teval + " emit --to torchscript --lang {lang} \"$@\" {program} > " +
           "\"$d/program.py\"; s=$?; [ $s = 3 ] && exit 77; [ $s = 0 ] || exit $s; } && " + python +
           " \"$d/program.py\" {inputs} {outdir} --fuser " +
           (name == "torchscript" ? "nnc" : "none");
  }
  if (!installed("mlir-opt-19") || !installed("mlir-cpu-runner-19"))
    throw UsageError{"--backend " + name +
                     " needs mlir-opt-19 and mlir-cpu-runner-19 "
                     "(Debian's mlir-19-tools), which are not installed"};
  if (!std::filesystem::exists(verify::kMlirRunnerLibrary))
    throw UsageError{"--backend " + name + " needs " + verify::kMlirRunnerLibrary +
                     " (Debian's libmlir-19), which is not installed"};
  const std::string variant = name.substr(5);
  // teval emit's status 3 (linalg cannot express the program) declines it.
  return inputs + "mkdir -p {outdir} && { " + teval + " emit --to mlir" +
         (variant == "vector" ? " --vectorize" : "") +
         " --lang {lang} \"$@\" --input-dir {inputs} --output-dir {outdir} {program} > "
         "\"$d/emitted.mlir\"; s=$?; [ $s = 3 ] && exit 77; [ $s = 0 ] || exit $s; } && "
         "mlir-opt-19 " +
         verify::mlir_pipeline(variant) + " \"$d/emitted.mlir\" -o \"$d/lowered.mlir\" && " +
         verify::kMlirRunner + " \"$d/lowered.mlir\"";
}

// The generator profile a built-in backend campaigns with unless told:
// MLIR's only what linalg expresses (verify::Profile::linalg: no Tile
// constraint, no bfloat16, ...), Halide's no bfloat16, which their
// backends decline.
std::optional<std::string> backend_profile(const std::string& name) {
  const std::string dtypes = "dtypes=bool,int8,int16,int32,int64,uint8,float16,float32,float64";
  if (name.starts_with("mlir:"))
    return dtypes + " linalg";
  if (name == "halide")
    return dtypes;
  return std::nullopt;
}

} // namespace teval::tools
