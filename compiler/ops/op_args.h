#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// The arguments of an operator: a JSON object such as
//   {"n": 1, "ic": 64, "h": 56, "w": 56, "oc": 64, "kh": 3, "kw": 3,
//    "stride": [1, 1], "pad": [1, 1, 1, 1], "dilation": [1, 1], "groups": 1}
// (each operator's keys are listed in compiler/ops/OPERATORS.md). Tasks and tuning logs record
// them as they are; templates read them through ArgReader, whose errors name the operator, the key
// and what was expected.
namespace tessel::ops {

using OpArgs = nlohmann::json;

class ArgReader {
 public:
  // what: the reader of the arguments, for messages (e.g. "conv2d_nchwc.x86").
  ArgReader(std::string what, const OpArgs& args) : what_(std::move(what)), args_(args) {}

  // An integer >= min_value.
  absl::StatusOr<int64_t> Int(const std::string& key, int64_t min_value = 1) const;
  // Int, or fallback when the key is absent.
  absl::StatusOr<int64_t> IntOr(const std::string& key, int64_t fallback,
                                int64_t min_value = 1) const;
  // A list of integers >= min_value; length must equal `length` unless it is -1.
  absl::StatusOr<std::vector<int64_t>> Ints(const std::string& key, int length,
                                            int64_t min_value = 1) const;
  // Ints, or fallback when the key is absent.
  absl::StatusOr<std::vector<int64_t>> IntsOr(const std::string& key, int length,
                                              std::vector<int64_t> fallback,
                                              int64_t min_value = 1) const;
  absl::StatusOr<double> Float(const std::string& key) const;
  absl::StatusOr<double> FloatOr(const std::string& key, double fallback) const;
  absl::StatusOr<std::string> String(const std::string& key) const;
  absl::StatusOr<std::string> StringOr(const std::string& key, std::string fallback) const;
  absl::StatusOr<bool> BoolOr(const std::string& key, bool fallback) const;
  // An integer used as an extent: at least 1 and below 2^31 (index arithmetic is int32, so a
  // larger extent would not survive as a tensor's shape).
  absl::StatusOr<int64_t> Extent(const std::string& key) const;
  // A non-empty list of such extents: a tensor's shape.
  absl::StatusOr<std::vector<int64_t>> Shape(const std::string& key) const;

  // An error "what: message" for a constraint between keys.
  absl::Status Error(const std::string& message) const;
  // An error of what was computed from argument `key` (a compute refusing it, say), attributed
  // to that argument: "what: argument 'key': <status's message>".
  absl::Status ErrorIn(const std::string& key, const absl::Status& status) const;

 private:
  std::string what_;
  const OpArgs& args_;
};

}  // namespace tessel::ops
