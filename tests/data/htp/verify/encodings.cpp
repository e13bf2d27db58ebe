// clang-format off
// Constraints on encodings that random draws almost never meet: graphs are
// drawn with the dtypes the constraint tests for, the quantization of the
// tags it compares made equal, the zero offsets it names.
// Sound: quantized alike, addition commutes.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"), AND(IS_QUINT8("a"), EQ(STEPSIZE_OF("a"), STEPSIZE_OF("b")), EQ(ZERO_OFFSET_OF("a"), ZERO_OFFSET_OF("b"))), Op("Add", "b", "a"))
// Sound: a ReLU of QUInt8 values whose zero is 0 changes nothing.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), AND(EQ(DTYPE_OF("x"), DType::QUInt8), EQ(ZERO_OFFSET_OF("x"), 0)), "x")
// Unsound: with the zero at 128, it clamps half the values.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), AND(EQ(DTYPE_OF("x"), DType::QUInt8), EQ(ZERO_OFFSET_OF("x"), 128)), "x")
// Sound: the dtype tested on the root, the encodings compared as a whole.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"), AND(EQ(DType::QInt16, DTYPE_OF("*")), SAME_ENCODING("a", "b")), Op("Add", "b", "a"))
