#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>

#include "compiler/ops/template.h"

// The config the development benchmarks (template_bench, fused_tail_bench) time: the template's
// fallback, with the knobs given on the command line ({"knob": value, ...}) replaced.
namespace tessel::ops::x86 {

inline absl::StatusOr<search::Config> FallbackWithOverrides(const Template& t, const OpArgs& args,
                                                            const target::TargetFacts& facts,
                                                            const nlohmann::json& overrides) {
  absl::StatusOr<search::ConfigSpace> space = t.space(args, facts);
  if (!space.ok()) return space.status();
  search::Config config = t.fallback(*space, args, facts);
  if (overrides.empty()) return config;
  return WithKnobs(*space, config, overrides);
}

}  // namespace tessel::ops::x86
