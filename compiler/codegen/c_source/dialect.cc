#include "compiler/codegen/c_source/dialect.h"

namespace tessel::codegen::c_source {

bool IsCKeyword(const std::string& word) {
  static const char* kWords[] = {
      "auto", "bool", "break", "case", "char", "class", "const", "continue", "default",
      "delete", "do", "double", "else", "enum", "extern", "false", "float", "for", "goto", "if",
      "inline", "int", "long", "new", "operator", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "template", "this", "true", "typedef",
      "typename", "union", "unsigned", "void", "volatile", "while"};
  for (const char* w : kWords) {
    if (word == w) return true;
  }
  return false;
}

}  // namespace tessel::codegen::c_source
