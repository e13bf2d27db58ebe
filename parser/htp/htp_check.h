// Checking HTP rules against the seed's grammar and restrictions. Internal
// to parser/ (read_rules calls it).
#pragma once

#include "parser/htp/htp_rules.h"

#include <set>
#include <string>

namespace teval::parser::htp {

/// Splits \p rule's invocation into its parts (pass, match, constraint,
/// replacement; or the op registration's fields), checks each against the
/// grammar, the type rules and the well-formedness rules of the seed, adds
/// a diagnostic for every violation, and finally expands the seed's macros
/// in the parts. \p warned: the forms beyond the seed's grammar the file
/// was already warned about, each warned about once per file.
void check_rule(Rule& rule, const std::vector<ExternalFunction>& externals,
                std::set<std::string>& warned);

/// The tags of the DType enum (Float32, QUInt8, ...).
bool is_dtype_tag(const std::string& name);

} // namespace teval::parser::htp
