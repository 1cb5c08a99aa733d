# Writes OUT, a header defining kite::kRuntimeSource: the files in PARTS
# (separated by |), in order, as one raw string literal.
string(REPLACE "|" ";" PARTS "${PARTS}")
set(text "")
foreach(part ${PARTS})
  file(READ ${part} content)
  get_filename_component(name ${part} NAME)
  string(APPEND text "/* ---- ${name} ---- */\n" "${content}\n")
endforeach()
get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
file(WRITE ${OUT} "#pragma once\nnamespace kite {\ninline constexpr const char *kRuntimeSource = R\"KITECL(${text})KITECL\";\n}\n")
