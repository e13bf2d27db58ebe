// Running program texts in tests.
#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/lower.h"
#include "interp/backends.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "jit/hexagon/hexagon.h"
#include "jit/jit.h"
#include "parser/antares/antares.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"

#include <chrono>
#include <exception>
#include <memory>

namespace teval::test {

std::vector<std::unique_ptr<core::Backend>> make_backends() {
  std::vector<std::unique_ptr<core::Backend>> b;
  b.push_back(interp::interpreter_backend());
  b.push_back(interp::interpreter_backend({.blocks = false}));
  b.push_back(interp::ireval_backend());
  b.push_back(jit::jit_backend());
  // The DSP under qemu-hexagon.
  b.push_back(jit::hexagon_backend());
  return b;
}

core::Tensor tensor(core::DType dtype, const core::Shape& shape,
                    std::initializer_list<double> values) {
  core::Tensor t(dtype, shape);
  TEVAL_ASSERT(static_cast<int64_t>(values.size()) == t.numel(), "wrong number of test values");
  int64_t i = 0;
  for (double v : values)
    t.set(i++, core::is_float(dtype) ? core::Scalar::of_float(dtype, v)
                                     : core::Scalar::of_int(dtype, static_cast<int64_t>(v)));
  return t;
}

std::vector<double> values(const core::Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.get(i).as_double());
  return out;
}

namespace {

// The source must outlive the kernel's spans.
std::shared_ptr<const core::SourceFile> keep(const std::string& program) {
  static std::vector<std::shared_ptr<const core::SourceFile>> files;
  files.push_back(core::SourceFile::make("test.antares", program));
  return files.back();
}

std::map<std::string, parser::InputType> types(const parser::AntaresSource& source,
                                               const std::map<std::string, core::Tensor>& inputs) {
  std::map<std::string, parser::InputType> t = parser::declared_inputs(source);
  for (const auto& [name, tensor] : inputs)
    t[name] = {tensor.dtype(), tensor.shape(), {}};
  return t;
}

} // namespace

core::Kernel elaborate(const std::string& program,
                       const std::map<std::string, core::Tensor>& inputs) {
  auto file = keep(program);
  parser::AntaresSource source = parser::read_antares(*file);
  return parser::elaborate_antares(source, types(source, inputs));
}

namespace {

std::vector<std::unique_ptr<core::Backend>>& backends() {
  static std::vector<std::unique_ptr<core::Backend>> all = make_backends();
  return all;
}

} // namespace

std::vector<core::Tensor> run_everywhere(const core::Kernel& k,
                                         const std::vector<core::Tensor>& in) {
  core::Backend& interpreter = *backends().front();
  std::exception_ptr failure;
  std::vector<core::Tensor> out;
  auto start = std::chrono::steady_clock::now();
  try {
    out = interpreter.prepare(k)->run(in);
  } catch (const core::Error&) {
    failure = std::current_exception();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string error;
  try {
    if (failure)
      std::rethrow_exception(failure);
  } catch (const core::Error& e) {
    error = e.render();
  }
  for (size_t b = 1; b < backends().size(); ++b) {
    core::Backend& backend = *backends()[b];
    core::Outcome o = core::evaluate(backend, k, in, core::hang_budget(seconds));
    if (o.unsupported) { // every backend runs every unit-test program
      ADD_FAILURE() << backend.name() << " cannot run\n"
                    << core::to_string(core::lower(k)) << o.error;
      continue;
    }
    if (o.hang) {
      ADD_FAILURE() << backend.name() << " ran past its time budget (a hang) on\n"
                    << core::to_string(core::lower(k));
      continue;
    }
    EXPECT_EQ(error, o.error) << backend.name() << " and the interpreter disagree on\n"
                              << core::to_string(core::lower(k));
    if (!o.error.empty())
      continue;
    for (size_t i = 0; i < out.size() && i < o.outputs.size(); ++i)
      EXPECT_TRUE(core::identical(out[i], o.outputs[i]))
          << backend.name() << " and the interpreter disagree on output " << i << " of\n"
          << core::to_string(core::lower(k));
  }
  if (failure)
    std::rethrow_exception(failure);
  return out;
}

std::map<std::string, core::Tensor> run(const std::string& program,
                                        const std::map<std::string, core::Tensor>& inputs) {
  core::Kernel k = elaborate(program, inputs);
  std::vector<core::Tensor> out = run_everywhere(k, interp::make_inputs(k, inputs, 0));
  std::map<std::string, core::Tensor> named;
  for (size_t i = 0; i < out.size(); ++i)
    named.emplace(k.tensors[k.outputs[i]].name, std::move(out[i]));
  return named;
}

core::Tensor out(const std::string& program, const std::map<std::string, core::Tensor>& inputs,
                 const std::string& name) {
  return run(program, inputs).at(name);
}

core::Tensor run_tile(const std::string& source, const std::map<std::string, core::Tensor>& inputs,
                      const std::string& entry,
                      const std::map<std::string, std::vector<int64_t>>& params) {
  auto file = keep(source);
  ast::Program program = parser::read_tile(*file);
  std::map<std::string, parser::InputType> types;
  for (const auto& [name, t] : inputs)
    types[name] = {t.dtype(), t.shape(), {}};
  std::map<std::string, parser::TileParam> p;
  for (const auto& [name, values] : params)
    p[name] = {values, values.size() != 1};
  core::Kernel k = parser::elaborate_tile(program, entry, types, p);
  return run_everywhere(k, interp::make_inputs(k, inputs, 0)).at(0);
}

std::string tile_error_of(const std::string& source,
                          const std::map<std::string, core::Tensor>& inputs,
                          const std::string& entry,
                          const std::map<std::string, std::vector<int64_t>>& params) {
  try {
    run_tile(source, inputs, entry, params);
  } catch (const core::Error& e) {
    return e.render();
  }
  return "no error";
}

std::string error_of(const std::string& program,
                     const std::map<std::string, core::Tensor>& inputs) {
  try {
    run(program, inputs);
  } catch (const core::Error& e) {
    return e.render();
  }
  return "no error";
}

} // namespace teval::test
