#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/target/target.h"

// What a schedule template needs to know about the machine it schedules for.
namespace tessel::ops {

struct TargetFacts {
  std::string target;              // the target string the program will be built for
  int vector_bits = 128;           // widest vector register
  int vector_registers = 16;       // vector registers of that width (32 with AVX-512, 16 with AVX2)
  int cores = 1;                   // threads the program may use
  int64_t l1_bytes = 32 * 1024;    // per core, data
  int64_t l2_bytes = 1024 * 1024;  // per core

  // float32 lanes of one vector register.
  int lanes() const { return vector_bits / 32; }
};

// Facts for a target string (today: `llvm` targets; vector width from the resolved CPU features,
// cores from the thread pool's size). An error names a bad target.
absl::StatusOr<TargetFacts> DescribeTarget(const std::string& target);

}  // namespace tessel::ops
