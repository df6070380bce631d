# Writes OUT, a C file defining bf_schema_json_text[] (common/schema_json.h)
# as the bytes of IN (docs/schema.json) and a NUL. Run with cmake -P at
# build time; see common/CMakeLists.txt.
file(READ ${IN} _hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" _bytes "${_bytes}")
file(WRITE ${OUT}.tmp "/* Generated from docs/schema.json by common/embed_schema.cmake: do not edit. */\n#include \"schema_json.h\"\n\nconst unsigned char bf_schema_json_text[] = {\n${_bytes}0x00};\n")
file(RENAME ${OUT}.tmp ${OUT})
