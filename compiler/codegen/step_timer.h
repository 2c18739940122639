#pragma once

#include <chrono>
#include <ostream>

#include "compiler/codegen/build.h"

// A backend's step, timed: prints "<step>: <microseconds> us" to BuildOptions::timing, when set,
// as the object goes out of scope.
namespace tessel::codegen {

class StepTimer {
 public:
  StepTimer(const BuildOptions& options, const char* step)
      : out_(options.timing), step_(step), start_(std::chrono::steady_clock::now()) {}
  ~StepTimer() {
    if (out_ == nullptr) return;
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start_);
    *out_ << step_ << ": " << us.count() << " us\n";
  }
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;

 private:
  std::ostream* out_;
  const char* step_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tessel::codegen
