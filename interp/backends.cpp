// The interpreter and IREval as Backends.
#include "interp/backends.h"

#include "core/lower.h"
#include "interp/ireval.h"

namespace teval::interp {

namespace {

class InterpreterExecutable : public core::Executable {
public:
  InterpreterExecutable(const core::Kernel& k, Options o) : kernel_(k), options_(o) {}
  std::vector<core::Tensor> run(std::span<const core::Tensor> inputs) override {
    return interp::run(kernel_, inputs, options_);
  }

private:
  core::Kernel kernel_;
  Options options_;
};

class InterpreterBackend : public core::Backend {
public:
  explicit InterpreterBackend(Options o) : options_(o) {}
  std::string name() const override { return options_.blocks ? "interp" : "interp-definitional"; }
  std::unique_ptr<core::Executable> prepare(const core::Kernel& k) override {
    return std::make_unique<InterpreterExecutable>(k, options_);
  }

private:
  Options options_;
};

class IREvalExecutable : public core::Executable {
public:
  explicit IREvalExecutable(const core::Kernel& k) : nest_(core::lower(k)) {}
  std::vector<core::Tensor> run(std::span<const core::Tensor> inputs) override {
    return ireval(nest_, inputs);
  }

private:
  core::LoopNest nest_;
};

class IREvalBackend : public core::Backend {
public:
  std::string name() const override { return "ireval"; }
  std::unique_ptr<core::Executable> prepare(const core::Kernel& k) override {
    return std::make_unique<IREvalExecutable>(k);
  }
};

} // namespace

std::unique_ptr<core::Backend> interpreter_backend(Options options) {
  return std::make_unique<InterpreterBackend>(options);
}

std::unique_ptr<core::Backend> ireval_backend() {
  return std::make_unique<IREvalBackend>();
}

} // namespace teval::interp
