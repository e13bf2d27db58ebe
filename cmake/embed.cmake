# cmake -DINPUT=FILE -DOUTPUT=FILE.cpp -DSYMBOL=NAME -P embed.cmake
# Writes FILE's bytes as a C++ array `NAME` (namespace teval::generated) and
# its size `NAME_size`, so a binary made at build time ships inside teval.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" length)
math(EXPR bytes "${length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," array "${hex}")
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT} by cmake/embed.cmake; do not edit.\n"
  "#include <cstddef>\n"
  "namespace teval::generated {\n"
  "extern const unsigned char ${SYMBOL}[] = {${array}};\n"
  "extern const std::size_t ${SYMBOL}_size = ${bytes};\n"
  "}\n")
