#include "compiler/testing/schedule_check.h"

#include <absl/strings/str_cat.h>

#include "compiler/codegen/interp/interp.h"
#include "compiler/ir/op.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::testing {
namespace {

DLDataType ToDl(ir::DataType t) {
  return {static_cast<uint8_t>(t.is_float() ? kDLFloat : kDLInt), static_cast<uint8_t>(t.bits()),
          1};
}

}  // namespace

std::vector<std::unique_ptr<HostTensor>> MakeArgs(const std::vector<te::Tensor>& args,
                                                  size_t num_inputs, std::mt19937& rng) {
  std::vector<std::unique_ptr<HostTensor>> tensors;
  for (size_t k = 0; k < args.size(); ++k) {
    std::vector<int64_t> shape;
    for (const ir::Expr& e : args[k].shape()) shape.push_back(*ir::AsConstInt(e));
    tensors.push_back(std::make_unique<HostTensor>(shape, ToDl(args[k].dtype())));
    if (k < num_inputs) tensors.back()->FillRandom(rng);
  }
  return tensors;
}

absl::Status LowerAndRun(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
                         std::vector<std::unique_ptr<HostTensor>>& tensors, Backend backend) {
  transforms::LowerOptions options;
  options.verify_each_pass = true;
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(schedule, args, "f", options);
  if (!f.ok()) return f.status();
  std::vector<interp::Arg> call;
  for (auto& t : tensors) call.push_back(t->dl());
  return RunOn(backend, *f, call);
}

absl::Status CheckAgainstUnscheduled(const schedule::Schedule& schedule,
                                     const std::vector<te::Tensor>& args, size_t num_inputs,
                                     uint32_t seed, Backend backend) {
  std::mt19937 rng(seed);
  std::vector<std::unique_ptr<HostTensor>> expected = MakeArgs(args, num_inputs, rng);
  rng.seed(seed);
  std::vector<std::unique_ptr<HostTensor>> actual = MakeArgs(args, num_inputs, rng);
  std::vector<te::Operation> outputs;
  for (size_t k = num_inputs; k < args.size(); ++k) outputs.push_back(args[k].op());
  if (absl::Status s = LowerAndRun(schedule::create_schedule(outputs), args, expected); !s.ok()) {
    return absl::InternalError(absl::StrCat("the default schedule failed: ", s.message()));
  }
  if (absl::Status s = LowerAndRun(schedule, args, actual, backend); !s.ok()) return s;
  for (size_t k = num_inputs; k < args.size(); ++k) {
    std::string diff = Compare(*actual[k], *expected[k], 1e-4, 1e-4);
    if (!diff.empty()) {
      return absl::InternalError(absl::StrCat("output ", args[k].name(), " differs: ", diff));
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::testing
