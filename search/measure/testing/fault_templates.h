#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

// A schedule template that misbehaves on purpose, for the measurement tests:
// "fault_injection.test", the logical operator relu (`shape`, OPERATORS.md), with one knob
// "behaviour" (a FaultBehaviour). Its fallback is kCorrect. The faults that happen at run time are
// in the generated program itself (compiled code has no bounds checks), not in host code.
namespace tessel::search::testing {

inline constexpr char kFaultTemplate[] = "fault_injection.test";

enum FaultBehaviour : int64_t {
  kCorrect = 0,    // max(x, 0)
  kSegfault = 1,   // reads x about 6 GB past its end: SIGSEGV when run
  kHang = 2,       // adds a reduction of 2^60 steps: runs until killed
  kWrong = 3,      // max(x, 0) + 0.5
  kReject = 4,     // instantiate returns an error
  kAbort = 5,      // instantiate calls std::abort (the build worker dies of SIGABRT)
  kBuildHang = 6,  // instantiate sleeps for ten minutes
};
inline constexpr int kNumFaultBehaviours = 7;

// The config JSON (ConfigSpace::FromJson) of a behaviour.
inline nlohmann::json FaultConfig(FaultBehaviour behaviour) {
  return {{"knobs", {{"behaviour", static_cast<int64_t>(behaviour)}}}};
}

}  // namespace tessel::search::testing
