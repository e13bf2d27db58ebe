// clang-format off
// Rules over examples/htp/ops.txt, whose arithmetic on quantized tensors is
// on their codes, wrapping (RulesCli.ProveVerdictsOnCodes).

// Proved: a subtraction of codes is the addition of the negation, modulo
// the dtype's range.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "a", "b"), AND(IS_QUINT8("a"), IS_QUINT8("b")),
  Op("Add", "a", Op("Neg", "b")))

// Refuted: the codes' subtraction does not commute.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "a", "b"), AND(IS_QINT8("a"), IS_QINT8("b")),
  Op("Sub", "b", "a"))
