// The random choices the program generators are made of.
//
// RapidCheck scales inRange's range by the size parameter (0 to 99 in a
// property run, the case index modulo 100 in a campaign), so a plain
// inRange(0, 100) >= 100 - p is never true below size 100 - p and
// choices among kinds collapse to the first few at small sizes. These draw
// at the nominal size instead: every choice has the probability its call
// site states, whatever the size, and still shrinks toward its smallest
// value (the simplest program).
#pragma once

#include <rapidcheck.h>

namespace teval::verify {

/// An integer in [lo, hi], uniformly; shrinks toward lo.
inline int pick(int lo, int hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi + 1));
}

/// True with probability \p percent / 100; shrinks to false.
inline bool chance(int percent) {
  return pick(1, 100) > 100 - percent;
}

} // namespace teval::verify
