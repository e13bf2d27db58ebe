// Clang-style rendering of diagnostics: location, source line, caret.
#include "core/error.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using core::Error;
using core::ErrorKind;
using core::SourceFile;
using core::Span;

TEST(Diagnostic, LineColumnAndCaret) {
  auto f = SourceFile::make("p.antares", "first line\nout[N] = in[N + 1]\nlast");
  Error e(ErrorKind::Range, Span{f.get(), 20, 28}, "read out of range");
  EXPECT_EQ(e.render(), "p.antares:2:10: error: read out of range\n"
                        "out[N] = in[N + 1]\n"
                        "         ^~~~~~~~\n");
}

TEST(Diagnostic, PieceOfALongerInputReportsItsLines) {
  // A REPL script entry that starts on line 7 of the script.
  auto f = SourceFile::make("<stdin>", "a = 1\nout[N] = in[N + 1]", 7);
  Error e(ErrorKind::Range, Span{f.get(), 15, 23}, "read out of range");
  EXPECT_EQ(e.render(), "<stdin>:8:10: error: read out of range\n"
                        "out[N] = in[N + 1]\n"
                        "         ^~~~~~~~\n");
}

TEST(Diagnostic, CaretStopsAtTheEndOfTheLineAndKeepsTabs) {
  auto f = SourceFile::make("t", "\tab\ncd");
  Error e(ErrorKind::Syntax, Span{f.get(), 1, 6}, "spans lines");
  EXPECT_EQ(e.render(), "t:1:2: error: spans lines\n\tab\n\t^~\n");
}

TEST(Diagnostic, LongLinesShowAWindowAroundTheCaret) {
  // A 1000-byte line (over 400): the excerpt is 320 bytes from 80 before
  // the caret, with `...` on each side where text was left out.
  std::string line;
  for (int i = 0; i < 100; ++i)
    line += "abcdefghi" + std::to_string(i % 10);
  auto f = SourceFile::make("long", line);
  Error e(ErrorKind::Syntax, Span{f.get(), 500, 503}, "here");
  std::string shown = "..." + line.substr(420, 320) + "...";
  EXPECT_EQ(e.render(),
            "long:1:501: error: here\n" + shown + "\n" + std::string(83, ' ') + "^~~\n");

  // Near the start nothing is left out before the caret.
  Error start(ErrorKind::Syntax, Span{f.get(), 2, 3}, "here");
  EXPECT_EQ(start.render(), "long:1:3: error: here\n" + line.substr(0, 320) + "...\n  ^\n");

  // A line of 400 bytes is shown whole.
  auto whole = SourceFile::make("whole", line.substr(0, 400));
  Error all(ErrorKind::Syntax, Span{whole.get(), 390, 391}, "here");
  EXPECT_EQ(all.render(), "whole:1:391: error: here\n" + line.substr(0, 400) + "\n" +
                              std::string(390, ' ') + "^\n");

  // A window never splits a UTF-8 character: "\xc3\xa9" is one, and the cut
  // that would fall between its bytes moves to keep it whole.
  std::string wide = std::string(79, 'x') + "\xc3\xa9" + std::string(500, 'y');
  auto g = SourceFile::make("wide", wide);
  Error mid(ErrorKind::Syntax, Span{g.get(), 160, 161}, "here");
  EXPECT_EQ(mid.render(), "wide:1:161: error: here\n..." + wide.substr(79, 321) + "...\n" +
                              std::string(3 + 81, ' ') + "^\n");
}

TEST(Diagnostic, NotesAndPathOnlyErrors) {
  auto f = SourceFile::make("s", "x = 1");
  Error e(ErrorKind::Shape, "in.npy", "wrong shape");
  e.note(Span{f.get(), 4, 5}, "declared here").note("no position");
  EXPECT_EQ(e.render(), "in.npy: error: wrong shape\n"
                        "s:1:5: note: declared here\n"
                        "x = 1\n"
                        "    ^\n"
                        "note: no position\n");
}

TEST(Diagnostic, EmptySpanAtEndOfInput) {
  auto f = SourceFile::make("e", "abc");
  Error e(ErrorKind::Syntax, Span{f.get(), 3, 3}, "expected ']'");
  EXPECT_EQ(e.render(), "e:1:4: error: expected ']'\nabc\n   ^\n");
}

TEST(Diagnostic, ErrorsKeepTheirSourceAlive) {
  std::optional<Error> e;
  {
    auto f = SourceFile::make("gone", "text");
    e.emplace(ErrorKind::Syntax, Span{f.get(), 0, 4}, "m");
  }
  EXPECT_EQ(e->render(), "gone:1:1: error: m\ntext\n^~~~\n");
}

TEST(Diagnostic, WarningSeverity) {
  auto f = SourceFile::make("w", "010");
  core::Diagnostic d{core::Severity::Warning, Span{f.get(), 0, 3}, {}, "octal constant"};
  EXPECT_EQ(core::render(d), "w:1:1: warning: octal constant\n010\n^~~\n");
}

} // namespace
} // namespace teval
