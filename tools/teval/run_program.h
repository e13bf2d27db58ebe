// What `teval run`, `lower`, `jit` and the commands that load programs
// share (tools/teval/run_command.cpp), and the MLIR functions' part
// (tools/teval/run_mlir.cpp). Internal to tools/teval.
#pragma once

#include "core/files.h"
#include "core/graph.h"
#include "core/kernel.h"
#include "core/source.h"
#include "core/tensor.h"
#include "tools/teval/run_options.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace teval::tools::run_detail {

/// The files a program's spans point into: the source, and for an MLIR
/// function the text of its decomposition.
struct Sources {
  std::shared_ptr<const core::SourceFile> file;
  std::shared_ptr<const core::SourceFile> decomposition;
};

// run_command.cpp

/// The program's source: FILE, or the text given on the command line.
std::shared_ptr<const core::SourceFile> source_file(const Options& o);
/// Every -i must name one of \p names, the program's inputs.
void check_input_names(const Options& o, const std::set<std::string>& names);
/// \p kernel on \p inputs with the engine --engine (or --exact) names.
std::vector<core::Tensor> evaluate(const Options& o, const core::Kernel& kernel,
                                   const std::vector<core::Tensor>& inputs);
/// Runs \p f, within --timeout when one is given, showing its progress.
void evaluate_within(const Options& o, const core::SourceFile& file,
                     const std::function<void()>& f);

// run_mlir.cpp

/// The op graph of the MLIR function the options name; \p given gets the
/// inputs read from .npy files.
core::Graph elaborate_graph(const Options& o, const core::SourceFile& file,
                            std::map<std::string, core::Tensor>& given);
/// `dir/name.npy` holding \p t, written from the tensor itself (\p t must
/// outlive files.commit()); a minifloat's float32 form is kept in
/// \p widened until then.
void add_npy(core::OutputSet& files, const std::string& dir, const std::string& name,
             const core::Tensor& t, std::deque<core::Tensor>& widened);
/// One tensor per graph input: given, or seeded random data.
std::vector<core::Tensor>
graph_inputs(const core::Graph& g, const std::map<std::string, core::Tensor>& given, uint64_t seed);
/// The kernel of the graph's einstein_v2 decomposition, its constants added
/// to \p given.
core::Kernel decomposition_kernel(const core::Graph& g, Sources& sources,
                                  std::map<std::string, core::Tensor>& given);
/// The graph of the MLIR function the options name, the values named in
/// \p values appended to its outputs in order; \p found gets their names.
core::Graph graph_with_values(const Options& o, Sources& sources,
                              std::map<std::string, core::Tensor>& given,
                              const std::vector<std::string>& values,
                              std::vector<std::string>* found);
/// `--given NAME=PATH`: the value \p name of \p g becomes a new input
/// holding \p t (in \p given).
void give_value(core::Graph& g, std::map<std::string, core::Tensor>& given, const std::string& name,
                core::Tensor t);
/// `teval run FILE.mlir`.
int run_mlir(const Options& o);

} // namespace teval::tools::run_detail
