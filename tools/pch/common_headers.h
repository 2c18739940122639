// The headers nearly every Tessel source parses, precompiled once per build (BUILD): Abseil's
// status types, nlohmann::json (tuning records, operator arguments) and the standard library
// parts they pull in. Only headers from outside the tree: a change here rebuilds everything.
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/strings/str_cat.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>
