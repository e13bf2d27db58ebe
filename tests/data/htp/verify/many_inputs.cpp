// clang-format off
// Matches with many inputs that must share a shape: a draw in four gives
// every input the base shape (independent picks almost never agree), and a
// guided draw gives the whole graph the dtype the constraint tests for.
// Sound: integer additions re-associated, eight inputs.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", Op("Add", Op("Add", "a", "b"), Op("Add", "c", "d")), Op("Add", Op("Add", "e", "f"), Op("Add", "g", "h"))), IS_QINT32("a"),
    Op("Add", Op("Add", Op("Add", "a", "c"), Op("Add", "b", "d")), Op("Add", Op("Add", "e", "g"), Op("Add", "f", "h"))))
// Unsound: a + b - (c + d) is not a + c - (b + d).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", Op("Add", "a", "b"), Op("Add", "c", "d")), IS_QINT32("a"),
    Op("Sub", Op("Add", "a", "c"), Op("Add", "b", "d")))
