#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <variant>

// Host functions that interpreted IR calls through call_extern("name", args...).
//
// Each argument after the name reaches the function as one ExternArg: an integer or bool
// argument as int64_t, a float as double, a string constant as std::string_view, and a buffer's
// data variable as void* (the address of the buffer's element 0). Arguments must be scalars.
// The function returns an int64_t or a double, which the interpreter converts to the call's
// type (an integer for an integer or bool call, a double for a float call); an error status
// aborts the run with the function's name and message. A call used as a statement
// (Evaluate) has its result dropped.
namespace tessel::interp {

using ExternArg = std::variant<int64_t, double, std::string_view, void*>;
using ExternResult = std::variant<int64_t, double>;
using ExternFunction = std::function<absl::StatusOr<ExternResult>(std::span<const ExternArg>)>;

// A set of host functions by name. Compiling a PrimFunc looks its call_extern names up once;
// the compiled program keeps its own copy of each function. Safe to use from several threads.
class ExternRegistry {
 public:
  // The registry Compile uses unless given another.
  static ExternRegistry& Global();

  // Adds fn under name; an error if the name is taken.
  absl::Status Register(std::string name, ExternFunction fn);
  // Removes name's function; an error if there is none.
  absl::Status Unregister(const std::string& name);
  // The function registered under name, or an empty function.
  ExternFunction Find(const std::string& name) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, ExternFunction, std::less<>> functions_;
};

}  // namespace tessel::interp
