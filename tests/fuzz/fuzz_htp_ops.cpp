// libFuzzer harness: HTP ops files (the op definitions rule verification
// evaluates graphs with). Each definition is then applied to a small node
// (its fields replaced, its program read and typed) and evaluated on
// seeded inputs, as rule verification does.
#include "core/interrupt.h"
#include "interp/random_inputs.h"
#include "rules/htp_eval.h"
#include "rules/htp_ops.h"
#include "tests/fuzz/fuzz_support.h"

#include <chrono>
#include <regex>

namespace {

using namespace teval;

// The number of inputs \p program reads (in0, in1, ...), at most 4.
int input_count(const std::string& program) {
  static const std::regex in(R"(\bin([0-3])\b)");
  int n = 1;
  for (auto it = std::sregex_iterator(program.begin(), program.end(), in);
       it != std::sregex_iterator(); ++it)
    n = std::max(n, std::stoi((*it)[1].str()) + 1);
  return n;
}

// \p def applied to inputs of one small float32 and one quantized type.
void apply(const rules::OpSet& ops, const rules::OpDef& def) {
  for (rules::HtpType dtype : {rules::HtpType::Float32, rules::HtpType::QUInt8}) {
    rules::Graph g;
    std::map<int, core::Tensor> inputs;
    std::vector<int> ids;
    for (int i = 0; i < input_count(def.program); ++i) {
      rules::Node n;
      n.kind = rules::Node::Kind::Input;
      n.op = "*Input";
      n.type = {dtype, {1, 2, 2, 3}, dtype == rules::HtpType::Float32 ? 0 : 128, 0.05f};
      ids.push_back(g.add(n));
      inputs[ids.back()] =
          interp::random_tensor(rules::storage(dtype), n.type.shape, 1, "in" + std::to_string(i));
    }
    try {
      rules::Node op;
      op.op = def.name;
      op.inputs = ids;
      op.type = rules::infer_type(ops, g, def.name, ids, std::nullopt);
      g.output = g.add(op);
      // A definition may walk a range of any size: a second is enough.
      core::run_within(std::chrono::seconds(1), [&] { rules::evaluate(g, ops, inputs); });
    } catch (const rules::IllTyped&) {
    } catch (const rules::NotEvaluable&) {
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = core::SourceFile::make("<fuzz>.ops", fuzz::text_of(data, size));
  fuzz::guarded([&] {
    rules::OpSet ops = rules::OpSet::read(file);
    for (const auto& [name, defs] : ops.definitions())
      for (const rules::OpDef& def : defs)
        fuzz::guarded([&] { apply(ops, def); });
  });
  return 0;
}
