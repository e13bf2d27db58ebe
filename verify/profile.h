// Generator profiles: campaigns narrowed to what a compiler supports (its
// dtypes, its operators, no gathers), so that its cases reach it instead
// of being declined.
#pragma once

#include "core/kernel.h"

#include <optional>
#include <string>
#include <vector>

namespace teval::verify {

/// What a generated program may contain. Empty lists allow everything.
struct Profile {
  /// The dtypes of every tensor and of every value computed outside index
  /// expressions (bool conditions excepted).
  std::vector<core::DType> dtypes;
  /// The operators applied outside index arithmetic (a `.when` condition's
  /// comparisons of indices are free), by their JSON names
  /// (core::json_name: "add", "exp", "lt", ...).
  std::vector<core::Op> ops;
  /// No read at an index computed from another read (a gather).
  bool no_gather = false;
  /// Only programs MLIR's linalg on tensors expresses (`teval emit --to
  /// mlir` does not decline them): no Tile constraint or point skipped for
  /// an access out of range, each write one element per point of its
  /// dimensions, no bfloat16, ...
  bool linalg = false;

  bool empty() const { return dtypes.empty() && ops.empty() && !no_gather && !linalg; }
  /// The canonical text ("dtypes=float32 no-gather"), which parse() reads
  /// back; "" for the empty profile.
  std::string text() const;
  /// \p text (the canonical form, or the words of the command-line options
  /// it stands for); nothing and \p why set when a word is unknown.
  static std::optional<Profile> parse(const std::string& text, std::string* why);
  /// A named profile: "float32-dense" (float32 tensors and values, no
  /// gathers), "float-dense" (float16, bfloat16, float32, float64, no
  /// gathers), "linalg" (what MLIR's linalg expresses); nothing for another
  /// name.
  static std::optional<Profile> named(const std::string& name);
};

/// The names of Profile::named, for messages.
std::string profile_names();

/// True when \p k contains nothing \p p leaves out.
bool admits(const Profile& p, const core::Kernel& k);

} // namespace teval::verify
