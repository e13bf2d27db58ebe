// Helpers of the HTP rule engine's tests (tests/rules).
#pragma once

#include "core/error.h"
#include "rules/htp_graph.h"
#include "rules/htp_ops.h"

#include <string>

namespace teval::rules::htp_test {

/// The graph of the text format \p text (read as the file g.graph).
inline Graph graph(const std::string& text) {
  return read_graph(*core::SourceFile::make("g.graph", text));
}

/// The first line of the error reading the ops file \p text (named
/// ops.txt) gives, or "no error".
inline std::string ops_file_error(const std::string& text) {
  try {
    OpSet::read(core::SourceFile::make("ops.txt", text));
  } catch (const core::Error& e) {
    return e.render().substr(0, e.render().find('\n'));
  }
  return "no error";
}

} // namespace teval::rules::htp_test
