// Built with -Winvalid-pch (BUILD): compiling this library source at all checks pch.h's PCH.
#include "tools/pch/pch_check.h"

namespace tessel::tools {

std::string JsonOfOne() { return nlohmann::json{{"a", 1}}.dump(); }

}  // namespace tessel::tools
