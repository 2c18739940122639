#pragma once

#include <ostream>
#include <string>

#include "compiler/ir/stmt.h"

namespace tessel::ir {

// Readable text of IR, stable enough for golden tests. Variables print by name; distinct
// variables that share a name within one printing get suffixes (i, i_1, ...), so the text shows
// identity. Integer immediates print bare for int32 and with a suffix otherwise (5i64, 3u8);
// floats as 1.5f (float32), 1.5 (float64), 1.5h (float16). Truncating division and modulo print as
// truncdiv/truncmod on integers, floor division as floordiv/floormod.
std::string ToString(const Expr& e);
std::string ToString(const Stmt& s);
std::string ToString(const PrimFunc& f);

std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);
std::ostream& operator<<(std::ostream& os, const PrimFunc& f);

}  // namespace tessel::ir
