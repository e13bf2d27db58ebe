// The einstein_v2 grammar: statements, operators and their precedence, and
// the Python forms it rejects.
#include "core/error.h"
#include "parser/python_grammar.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

std::string parse(const std::string& text) {
  auto file = core::SourceFile::make("g", text);
  return ast::dump(parser::parse_einstein(file->text(), parser::TextOrigin(file.get(), 0u)));
}

std::string error(const std::string& text) {
  try {
    parse(text);
  } catch (const core::Error& e) {
    return e.render();
  }
  return "no error";
}

TEST(EinsteinGrammar, Precedence) {
  // Python's: * / // % above + -, above << >>, above &, above |, above
  // comparisons; unary minus and ~ bind tightest.
  EXPECT_EQ(parse("o[N] = a[N] + b[N] * c[N] - 1"),
            "(= (sub o N) (- (+ (sub a N) (* (sub b N) (sub c N))) 1))\n");
  EXPECT_EQ(parse("o[N] = a[N] > 0 & b[N]"), "(= (sub o N) (> (sub a N) (& 0 (sub b N))))\n");
  EXPECT_EQ(parse("o[N] = (a[N] > 0) & (b[N] < 1)"),
            "(= (sub o N) (& (> (sub a N) 0) (< (sub b N) 1)))\n");
  EXPECT_EQ(parse("o[N] = a[N] | b[N] & ~c[N]"),
            "(= (sub o N) (| (sub a N) (& (sub b N) (~ (sub c N)))))\n");
  EXPECT_EQ(parse("o[N] = N << 2 + 1"), "(= (sub o N) (<< N (+ 2 1)))\n");
  EXPECT_EQ(parse("o[N] = -a[N] * 2 // 3 % 4"), "(= (sub o N) (% (// (* (- (sub a N)) 2) 3) 4))\n");
  EXPECT_EQ(parse("o[N] = a[N] ** 2"), "(= (sub o N) (** (sub a N) 2))\n");
}

TEST(EinsteinGrammar, LiteralsAndStrings) {
  EXPECT_EQ(parse("o[N] = 1e-5 + .5 + 2. + 0x10 + 3"),
            "(= (sub o N) (+ (+ (+ (+ 1e-5 .5) 2.) 0x10) 3))\n");
  EXPECT_EQ(parse("o[N] = x[N].cast(`float16`).call('exp').call(\"max\", [y[N]])"),
            "(= (sub o N) (.call (.call (.cast (sub x N) \"float16\") \"exp\") \"max\" (list (sub "
            "y N))))\n");
}

TEST(EinsteinGrammar, StatementsWhereAndOperators) {
  EXPECT_EQ(parse(";; a[N] +=! b[N, K] where K in 3, N in 2 ; c[N] >=! a[N];"),
            "(+=! (sub a N) (sub b N K) (in K 3) (in N 2))\n(>=! (sub c N) (sub a N))\n");
  EXPECT_EQ(parse("o[] <=! x[I]; o[] *=! x[I]; o[] &=! x[I]; o[] |=! x[I]; o[] += x[I]"),
            "(<=! (sub o) (sub x I))\n(*=! (sub o) (sub x I))\n(&=! (sub o) (sub x I))\n(|=! "
            "(sub o) (sub x I))\n(+= (sub o) (sub x I))\n");
  EXPECT_EQ(parse("d[i[B], M] =. u[B, M]; d[i[B], M] +=. u[B, M]"),
            "(=. (sub d (sub i B) M) (sub u B M))\n(+=. (sub d (sub i B) M) (sub u B M))\n");
  EXPECT_EQ(parse("o[N] = x[N].when([N > 0, N < 3], 0.0, merge_op=`any`)"),
            "(= (sub o N) (.when (sub x N) (list (> N 0) (< N 3)) 0.0 :merge_op \"any\"))\n");
}

TEST(EinsteinGrammar, ChainedComparisonIsAnError) {
  EXPECT_EQ(error("o[N] = 0 < x[N] < 1"),
            "g:1:17: error: chained comparison: `a < b < c` means `(a < b) and (b < c)` in "
            "Python, which einstein_v2 does not have (Antares silently keeps only the last "
            "comparison); write `(a < b) & (b < c)`\n"
            "o[N] = 0 < x[N] < 1\n"
            "                ^\n");
}

TEST(EinsteinGrammar, PythonKeywordsAreErrors) {
  EXPECT_EQ(error("o[N] = (x[N] > 0) and (x[N] < 1)"),
            "g:1:19: error: Python's `and` has no meaning here; for a logical and of two "
            "conditions write `(a) & (b)`\n"
            "o[N] = (x[N] > 0) and (x[N] < 1)\n"
            "                  ^~~\n");
  EXPECT_EQ(error("o[N] = x[N] if N > 0 else 0.0"),
            "g:1:13: error: Python's `if` has no meaning here; to choose between values write "
            "`x.when([cond], y)`\n"
            "o[N] = x[N] if N > 0 else 0.0\n"
            "            ^~\n");
  EXPECT_EQ(error("o[N] = not x[N]"),
            "g:1:8: error: Python's `not` has no meaning here; for a logical not write `~x`\n"
            "o[N] = not x[N]\n"
            "       ^~~\n");
  EXPECT_EQ(error("o[N] = x[N] or y[N]"),
            "g:1:13: error: Python's `or` has no meaning here; for a logical or of two conditions "
            "write `(a) | (b)`\n"
            "o[N] = x[N] or y[N]\n"
            "            ^~\n");
}

TEST(EinsteinGrammar, ExpectedTokens) {
  EXPECT_EQ(error("o[N] = x[N"), "g:1:11: error: expected ']' before end of input\n"
                                 "o[N] = x[N\n"
                                 "          ^\n");
  EXPECT_EQ(error("o[N] x[N]"), "g:1:6: error: expected assignment operator (=, +=!, >=!, <=!, "
                                "*=!, &=!, |=!, =. or +=.) before `x`\n"
                                "o[N] x[N]\n"
                                "     ^\n");
  EXPECT_EQ(error("o[N] = x[N] +"), "g:1:14: error: expected expression before end of input\n"
                                    "o[N] = x[N] +\n"
                                    "             ^\n");
  EXPECT_EQ(error("o[N] = x[N] y[N]"),
            "g:1:13: error: unexpected `y`; expected `;` or the end of the program\n"
            "o[N] = x[N] y[N]\n"
            "            ^\n");
  EXPECT_EQ(error("o[N] = x[N] where N 3"), "g:1:21: error: expected `in` before `3`\n"
                                            "o[N] = x[N] where N 3\n"
                                            "                    ^\n");
  EXPECT_EQ(error("o[N] = x[N] $ 2"),
            "g:1:13: error: unexpected `$`; expected `;` or the end of the program\n"
            "o[N] = x[N] $ 2\n"
            "            ^\n");
}

} // namespace
} // namespace teval
