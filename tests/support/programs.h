// Running program texts in tests (Antares and Tile): parse, elaborate,
// interpret both ways (blocks and the definitional walk) and compare.
#pragma once

#include "core/backend.h"
#include "core/kernel.h"
#include "core/tensor.h"

#include <initializer_list>
#include <map>
#include <memory>
#include <string>

namespace teval::test {

/// Every backend teval has, fresh: the interpreter (block and definitional
/// evaluation), IREval of the lowered loop nest, and compiled code.
std::vector<std::unique_ptr<core::Backend>> make_backends();

/// Runs \p k on \p in with every backend of make_backends(): results and
/// errors must agree with the interpreter's, which are returned (or
/// thrown). Every other backend runs under core::hang_budget() of the
/// interpreter's time, so a backend that never stops fails the test instead
/// of holding the run; one that cannot run the kernel fails it too.
std::vector<core::Tensor> run_everywhere(const core::Kernel& k,
                                         const std::vector<core::Tensor>& in);

/// A tensor of \p dtype and \p shape holding \p values (converted exactly;
/// the caller passes representable values).
core::Tensor tensor(core::DType dtype, const core::Shape& shape,
                    std::initializer_list<double> values);

/// The values of \p t as doubles, row-major.
std::vector<double> values(const core::Tensor& t);

/// Elaborates \p program (any Antares form) with \p inputs giving the input
/// types (and the input_dict for the rest).
core::Kernel elaborate(const std::string& program,
                       const std::map<std::string, core::Tensor>& inputs = {});

/// Runs \p program on \p inputs (inputs not given are seeded random data of
/// their declared type) and returns every output by name.
std::map<std::string, core::Tensor> run(const std::string& program,
                                        const std::map<std::string, core::Tensor>& inputs = {});

/// Output \p name of run().
core::Tensor out(const std::string& program, const std::map<std::string, core::Tensor>& inputs = {},
                 const std::string& name = "output0");

/// The rendered diagnostic of running \p program, or "no error".
std::string error_of(const std::string& program,
                     const std::map<std::string, core::Tensor>& inputs = {});

/// Runs Tile function \p entry of \p source (either spelling) on \p inputs
/// (which give the tensor parameters' types too) and returns the output.
core::Tensor run_tile(const std::string& source, const std::map<std::string, core::Tensor>& inputs,
                      const std::string& entry = "",
                      const std::map<std::string, std::vector<int64_t>>& params = {});

/// The rendered diagnostic of run_tile(), or "no error".
std::string tile_error_of(const std::string& source,
                          const std::map<std::string, core::Tensor>& inputs,
                          const std::string& entry = "",
                          const std::map<std::string, std::vector<int64_t>>& params = {});

} // namespace teval::test
