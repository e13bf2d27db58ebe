// libFuzzer harness: Tile programs in both spellings. Each function is
// elaborated with its tensor parameters typed float32 of rank 1, 2 and 3
// (extent 3) and its integer parameters 2, then lowered and evaluated
// when small.
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"
#include "tests/fuzz/fuzz_support.h"

#include <variant>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  auto file = core::SourceFile::make("<fuzz>", fuzz::text_of(data, size));
  fuzz::guarded([&] {
    ast::Program program = parser::read_tile(*file);
    for (const std::string& name : parser::tile_functions(program)) {
      const ast::Function* f = nullptr;
      for (const ast::StmtPtr& s : program.statements)
        if (const auto* g = std::get_if<ast::Function>(&s->node); g && g->name == name)
          f = g;
      if (!f)
        continue;
      for (size_t rank = 1; rank <= 3; ++rank) {
        std::map<std::string, parser::InputType> inputs;
        std::map<std::string, parser::TileParam> params;
        for (const ast::Param& p : f->params) {
          if (p.type.find("Tensor") != std::string::npos || p.type.empty())
            inputs[p.name] = {core::DType::Float32, core::Shape(rank, 3), {}};
          else
            params[p.name] = parser::TileParam{{2}, false};
        }
        fuzz::guarded(
            [&] { fuzz::exercise(parser::elaborate_tile(program, name, inputs, params)); });
      }
    }
  });
  return 0;
}
