#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/task/task.h"

// One measurement of one config of one task: a line of a tuning log (log.h).
//
// JSON form (one object; keys are sorted when written):
//   {"version": 1,
//    "task": {"template": "conv2d_nchwc.x86", "args": {...}, "target": "llvm -mcpu=native"},
//    "config": {"index": 17, "knobs": {...}},          // Config::ToJson
//    "config_index": 17,
//    "result": {"costs": [1.2e-4, ...], "error": "none", "error_message": "",
//               "build_seconds": 0.8, "timestamp": 1.7e9}}
// A reader rejects a version it does not know, so a newer format is never misread.
namespace tessel::search {

// Why a measurement has no costs. The names below are the JSON form.
enum class ErrorKind {
  kNone,           // "none": measured; costs hold the timings
  kInstantiation,  // "instantiation": the template rejected the config
  kHostCompile,    // "host_compile": lowering or host code generation failed
  kDeviceCompile,  // "device_compile": the device compiler (NVRTC, OpenCL) failed
  kRuntime,        // "runtime": the program crashed or returned an error
  kWrongAnswer,    // "wrong_answer": the outputs disagree with the reference
  kBuildTimeout,   // "build_timeout"
  kRunTimeout,     // "run_timeout"
  kResourceLimit,  // "resource_limit": the program needs more of the device than it has (VDLA's
                   // on-chip buffers)
  kUnknown,        // "unknown"
};
const char* ErrorKindName(ErrorKind kind);
// The kind named `name`; InvalidArgument listing the names otherwise.
absl::StatusOr<ErrorKind> ErrorKindFromName(const std::string& name);

struct MeasureResult {
  std::vector<double> costs;  // seconds per run of the program; empty when error != kNone
  ErrorKind error = ErrorKind::kNone;
  std::string error_message;  // one line for people; empty when error == kNone
  double build_seconds = 0;   // wall time spent building the candidate
  double timestamp = 0;       // when the measurement finished, seconds since the Unix epoch
};

struct Record {
  Task task;
  nlohmann::json config;      // Config::ToJson(); read back with ConfigSpace::FromJson
  int64_t config_index = -1;  // Config::index() (-1: the point has no number, see config_space.h)
  MeasureResult result;
  int version = 1;
};

// The record format this build writes and reads.
inline constexpr int kRecordVersion = 1;

// Mean of the costs in seconds; +infinity for an error or no costs, so "lower is better" always
// holds.
double MeanCost(const MeasureResult& result);

nlohmann::json ToJson(const Record& record);
// Reads ToJson's form. An error names the missing or ill-typed field ("result.costs: ...") or an
// unknown version.
absl::StatusOr<Record> RecordFromJson(const nlohmann::json& json);

}  // namespace tessel::search
