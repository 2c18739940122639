#pragma once

#include <string>

namespace tessel::tools {

// {"a": 1} through nlohmann::json, declared by pch.h rather than by pch_check.cc.
std::string JsonOfOne();

}  // namespace tessel::tools
