// What the `teval` subcommands share: usage errors, option values, files.
#pragma once

#include "core/dtype.h"
#include "core/shape.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace teval::tools {

/// A mistake in the command line: reported with the command's name and
/// exit status 2.
struct UsageError {
  std::string message;
};

/// The value \p v of option \p option as a non-negative decimal integer no
/// larger than \p max. Throws UsageError.
uint64_t parse_count(const std::string& option, const std::string& v, uint64_t max = UINT64_MAX);

/// The value \p v of option \p option as a positive byte count: an integer
/// with an optional binary suffix K, M, G or T (2^10 ... 2^40), at most
/// 2^62. Throws UsageError.
int64_t parse_bytes(const std::string& option, const std::string& v);

/// The value \p v of option \p option as a positive number of seconds
/// (decimals allowed), at most 10^6. Throws UsageError.
double parse_seconds(const std::string& option, const std::string& v);

/// The value \p v of option \p option as a duration: a positive number
/// with an optional unit s (the default), m or h ("90", "10m", "1.5h"), at
/// most 10^6 hours. Throws UsageError.
double parse_duration(const std::string& option, const std::string& v);

/// Throws a UsageError naming the first option in \p args that is not a
/// program option (FILE or -e, --lang, --entry, -p, -i, --seed,
/// --max-memory), for \p command ("teval check"), which takes only those.
void only_program_options(const std::vector<std::string>& args, const std::string& command);

/// The value \p v of option \p option as a shard "I/N": 0 <= I < N,
/// N >= 1. Throws UsageError.
std::pair<uint64_t, uint64_t> parse_shard(const std::string& option, const std::string& v);

/// The characters of a C identifier: the first is a letter or `_`, the
/// others letters, digits or `_`.
bool is_identifier_start(char c);
bool is_identifier_char(char c);

/// True for a C identifier.
bool is_identifier(const std::string& s);

/// \p spec split at its first '=' into a name (a C identifier) and a
/// non-empty value. Throws UsageError "<usage>, not '<spec>'" otherwise.
std::pair<std::string, std::string> name_value(const std::string& spec, const std::string& usage);

/// "float32[4, 8]": a dtype and shape as messages and listings write them.
std::string type_text(core::DType t, const core::Shape& s);

/// The whole file \p path. Throws Error(Input) when it cannot be read.
std::string read_source(const std::string& path);

} // namespace teval::tools
