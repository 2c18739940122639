#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/template.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"

// One operator compiled with one config of its template and ready to time: seeded random logical
// inputs, the program's own inputs prepared from them once (layout changes and weight transforms
// stay outside the timed call), outputs allocated.
namespace tessel::experiments {

class OpJob {
 public:
  // Instantiates config (the template's fallback when null) and compiles it for facts.target.
  static absl::StatusOr<OpJob> Create(const ops::Template& t, const ops::OpArgs& args,
                                      const target::TargetFacts& facts, uint32_t seed,
                                      const search::Config* config = nullptr);

  // One call of the compiled program (arguments were checked by Create's first call).
  void Run();
  // The logical outputs of the last Run.
  absl::StatusOr<std::vector<runtime::NDArray>> LogicalOutputs() const;

  const std::vector<runtime::NDArray>& logical_inputs() const { return logical_inputs_; }
  double flops() const { return program_.flops; }
  const std::string& config_text() const { return config_text_; }
  double compile_seconds() const { return compile_seconds_; }

 private:
  OpJob() = default;

  ops::OpProgram program_;
  runtime::Function function_;
  std::vector<runtime::NDArray> logical_inputs_, inputs_, outputs_;
  std::vector<runtime::Arg> call_args_;
  std::string config_text_;
  double compile_seconds_ = 0;
};

}  // namespace tessel::experiments
