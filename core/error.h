// Diagnostics, the user-error type and internal assertions.
#pragma once

#include "core/source.h"

#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace teval::core {

enum class Severity { Error, Warning, Note };

/// One message about one place: a span in a source, or only a path (for
/// example a malformed .npy file), or nothing.
struct Diagnostic {
  Severity severity = Severity::Error;
  Span span;
  /// Used as the location when span is invalid; may be empty.
  std::string path;
  std::string message;
};

/// Renders \p d clang-style: "file:line:col: error: message", then the
/// source line and a caret under the span ("^~~~"). Without a span the
/// location is the path ("x.npy: error: ...") or nothing.
std::string render(const Diagnostic& d);

/// What went wrong, for callers that branch on it and for tests.
enum class ErrorKind {
  Syntax,      ///< the text does not parse
  Name,        ///< unknown or redefined name
  Type,        ///< dtype rule violated
  Shape,       ///< shapes or extents disagree
  Range,       ///< out-of-range index or value
  Arithmetic,  ///< integer division by zero, overflow, invalid cast
  Input,       ///< malformed input file or argument
  Limit,       ///< a size beyond what teval will allocate or count
  Unsupported, ///< valid in some notation, but without a defined meaning here
  Interrupted, ///< the evaluation was stopped (Ctrl-C, a time budget)
};

/// The one exception for mistakes in a user's program or inputs. Rendered
/// once, at the edge (tools/), as clang-style diagnostics.
class Error : public std::exception {
public:
  Error(ErrorKind kind, Span span, std::string message);
  /// An error about a file (or argument) with no source position.
  Error(ErrorKind kind, std::string path, std::string message);

  /// Adds a note pointing at \p span; returns *this so notes chain.
  Error& note(Span span, std::string message);
  /// Adds a note with no position.
  Error& note(std::string message);

  ErrorKind kind() const { return kind_; }
  const Diagnostic& diagnostic() const { return main_; }
  const std::vector<Diagnostic>& notes() const { return notes_; }
  const std::string& message() const { return main_.message; }
  const char* what() const noexcept override { return main_.message.c_str(); }
  /// The error and its notes, rendered.
  std::string render() const;

private:
  void keep(Span span);

  ErrorKind kind_;
  Diagnostic main_;
  std::vector<Diagnostic> notes_;
  // Sources the spans point into, kept alive as long as the error.
  std::vector<std::shared_ptr<const SourceFile>> sources_;
};

[[noreturn]] void assertion_failed(const char* condition, const char* file, int line,
                                   const std::string& message);

} // namespace teval::core

/// Checks an internal invariant; a failure is a bug in teval, not in the
/// user's program, and aborts with the message.
#define TEVAL_ASSERT(cond, msg)                                                                    \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      ::teval::core::assertion_failed(#cond, __FILE__, __LINE__, (msg));                           \
  } while (false)

#define TEVAL_UNREACHABLE(msg)                                                                     \
  ::teval::core::assertion_failed("unreachable", __FILE__, __LINE__, (msg))
