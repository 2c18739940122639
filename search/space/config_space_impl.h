#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "search/space/config_space.h"

// Private to search/space: the knob declarations behind ConfigSpace and Config, the enumeration
// of each kind's values (knobs.cc) and the random draws sampling uses (sampling.cc).
namespace tessel::search {

// One declared knob and its values, in the order define_* enumerated them (value index = position).
// Exactly the vector of the knob's kind is filled.
struct Knob {
  std::string name;
  KnobKind kind = KnobKind::kChoice;
  // What the knob is, for messages: "split of 64 into 2 parts (factors)".
  std::string description;
  std::vector<std::vector<int64_t>> splits;
  std::vector<std::vector<int>> orders;
  std::vector<std::vector<Annotation>> annotations;
  std::vector<int64_t> choices;

  int64_t size() const;
  bool operator==(const Knob& other) const;  // name, kind and values; description is derived
};

struct ConfigSpaceImpl {
  std::vector<Knob> knobs;
  absl::flat_hash_map<std::string, int> knob_by_name;
  std::vector<std::pair<std::string, std::function<bool(const Config&)>>> filters;
  // Product of the knob sizes, saturated at INT64_MAX.
  int64_t size = 1;
  // Set once a Config of the space exists: later declarations would change what its value
  // indices mean, so they fail a check. Atomic because Configs are made from const methods that
  // tuners call from several threads.
  mutable std::atomic<bool> frozen{false};

  // The position of the knob called `name`, which must be of kind `kind`; a check fails naming the
  // knob and `accessor` otherwise.
  int KnobOfKind(const std::string& name, KnobKind kind, const char* accessor) const;
  // Whether every filter accepts the config.
  bool Accepts(const Config& config) const;
  // The mixed-radix index of these value indices, or -1 when it is not below INT64_MAX (a space
  // of more points than that numbers only its first INT64_MAX).
  int64_t IndexOf(const std::vector<int64_t>& value_indices) const;
};

// Same knobs, in the same order, with the same values (filters are not compared).
bool SameDeclarations(const ConfigSpaceImpl& a, const ConfigSpaceImpl& b);

// Largest number of values one knob may have; more fails a check naming the knob.
inline constexpr int64_t kMaxKnobValues = int64_t{1} << 20;

// Value enumeration (knobs.cc). Each fails a check naming the knob when the options make no sense
// or leave no value.
Knob MakeSplitKnob(const std::string& name, int64_t extent, const SplitOptions& options);
Knob MakeReorderKnob(const std::string& name, int num_axes, const ReorderOptions& options);
Knob MakeAnnotateKnob(const std::string& name, int num_axes, const AnnotateOptions& options);
Knob MakeChoiceKnob(const std::string& name, std::vector<int64_t> values);

// The value with index v of a knob, as Config::ToJson writes it and as Config::ToString prints it.
nlohmann::json ValueToJson(const Knob& knob, int64_t v);
std::string ValueToString(const Knob& knob, int64_t v);
// The index of the knob's value written as `json`; an error names the knob and the value, and
// lists the valid values when there are few.
absl::StatusOr<int64_t> ValueFromJson(const Knob& knob, const nlohmann::json& json);

// Draws [0, n) without replacement in random order, lazily: a Fisher-Yates shuffle whose
// displaced entries live in a hash map, so memory grows with the number of draws, not with n.
class LazyPermutation {
 public:
  explicit LazyPermutation(uint64_t n) : remaining_(n) {}
  bool empty() const { return remaining_ == 0; }
  uint64_t Next(std::mt19937_64& rng);  // requires !empty()

 private:
  uint64_t At(uint64_t i) const;
  uint64_t remaining_;
  absl::flat_hash_map<uint64_t, uint64_t> moved_;
};

}  // namespace tessel::search
