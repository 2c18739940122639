#include "search/measure/vdla_measure.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"
#include "compiler/transforms/pipeline.h"
#include "hardware/vdla/driver/device.h"
#include "hardware/vdla/driver/program.h"

namespace tessel::search {
namespace {

using Clock = std::chrono::steady_clock;
using runtime::NDArray;

// What every config of one task shares.
struct TaskContext {
  Task task;
  target::TargetFacts facts;
  const ops::Template* t = nullptr;
  ConfigSpace space;
  std::vector<NDArray> inputs;     // logical
  std::vector<NDArray> reference;  // logical outputs
  int64_t cycle_limit = 0;
};

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

MeasureResult Failed(ErrorKind kind, const absl::Status& status) {
  MeasureResult r;
  r.error = kind;
  r.error_message = std::string(status.message());
  return r;
}

// The program's arrays placed in a fresh device's DRAM, the program run, the outputs read back.
absl::StatusOr<hardware::vdla::RunReport> RunOnDevice(const TaskContext& c,
                                                      const hardware::vdla::Program& program,
                                                      const std::vector<NDArray>& inputs,
                                                      std::vector<NDArray>& outputs) {
  hardware::vdla::DeviceOptions options;
  options.config = *c.facts.vdla;
  options.rtl.max_cycles = c.cycle_limit;
  // The arrays and the program's micro-op image (RunProgram places it), each aligned.
  uint64_t bytes = program.uops.size() * hardware::vdla::Config::kUopBytes + 4096;
  for (const NDArray& a : inputs) bytes += static_cast<uint64_t>(a.NumBytes()) + 256;
  for (const NDArray& a : outputs) bytes += static_cast<uint64_t>(a.NumBytes()) + 256;
  options.dram_bytes = bytes;
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<hardware::vdla::Device> device,
                          hardware::vdla::Device::Open(options));
  std::vector<uint64_t> at;
  for (const NDArray& a : inputs) {
    TESSEL_ASSIGN_OR_RETURN(uint64_t offset, device->Allocate(a.NumBytes(), 256));
    std::memcpy(device->data() + offset, a.data<uint8_t>(), a.NumBytes());
    at.push_back(offset);
  }
  for (const NDArray& a : outputs) {
    TESSEL_ASSIGN_OR_RETURN(uint64_t offset, device->Allocate(a.NumBytes(), 256));
    at.push_back(offset);
  }
  TESSEL_ASSIGN_OR_RETURN(hardware::vdla::RunReport report,
                          hardware::vdla::RunProgram(*device, program, at));
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::memcpy(outputs[i].data<uint8_t>(), device->data() + at[inputs.size() + i],
                outputs[i].NumBytes());
  }
  return report;
}

// Compiles and runs one config; every failure is the result's error kind.
MeasureResult MeasureOne(const TaskContext& c, const Config& config) {
  const Clock::time_point start = Clock::now();
  auto build_seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  if (absl::Status valid = c.space.Validate(config); !valid.ok()) {
    return Failed(ErrorKind::kInstantiation, valid);
  }
  absl::StatusOr<ops::OpProgram> p = c.t->instantiate(config, c.task.args, c.facts);
  if (!p.ok()) return Failed(ErrorKind::kInstantiation, p.status());
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(p->schedule, p->args, "candidate");
  if (!f.ok()) return Failed(ErrorKind::kHostCompile, f.status());
  absl::StatusOr<hardware::vdla::Program> program = codegen::vdla::EmitProgram(*f, *c.facts.vdla);
  if (!program.ok()) {
    return Failed(absl::IsResourceExhausted(program.status()) ? ErrorKind::kResourceLimit
                                                              : ErrorKind::kHostCompile,
                  program.status());
  }
  const double built = build_seconds();

  MeasureResult r = [&]() -> MeasureResult {
    absl::StatusOr<std::vector<NDArray>> inputs = ops::PrepareInputs(*p, c.inputs);
    if (!inputs.ok()) return Failed(ErrorKind::kRuntime, inputs.status());
    std::vector<NDArray> outputs = ops::AllocateOutputs(*p);
    absl::StatusOr<hardware::vdla::RunReport> report = RunOnDevice(c, *program, *inputs, outputs);
    if (!report.ok()) return Failed(ErrorKind::kRuntime, report.status());
    absl::StatusOr<std::vector<NDArray>> got = p->finish ? p->finish(outputs) : outputs;
    if (!got.ok()) return Failed(ErrorKind::kRuntime, got.status());
    // Integers: exactly equal.
    if (absl::Status same =
            ops::CompareOutputs(*got, c.reference, {.atol = 0, .rtol = 0}, "the reference");
        !same.ok()) {
      return Failed(ErrorKind::kWrongAnswer, same);
    }
    MeasureResult ok;
    ok.costs = {static_cast<double>(report->cycles) / (c.facts.vdla->clock_mhz * 1e6)};
    return ok;
  }();
  r.build_seconds = built;
  r.timestamp = Now();
  return r;
}

absl::StatusOr<TaskContext> Prepare(const Task& task, const VdlaMeasureOptions& options) {
  auto fail = [&](const std::string& what, const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat("cannot measure ", task.Key(),
                                                    " on VDLA: ", what, status.message()));
  };
  TaskContext c;
  c.task = task;
  c.cycle_limit = options.cycle_limit;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  if (!facts.ok()) return fail("", facts.status());
  if (!facts->vdla) {
    return fail("", absl::InvalidArgumentError(absl::StrCat("target '", task.target.ToString(),
                                                            "' is not a vdla target")));
  }
  c.facts = *facts;
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
  if (!t.ok()) return fail("", t.status());
  c.t = *t;
  absl::StatusOr<ops::Instantiated> fallback = ops::InstantiateFallback(**t, task.args, c.facts);
  if (!fallback.ok()) return fail("the fallback config: ", fallback.status());
  c.space = fallback->space;
  c.inputs = ops::RandomInputs(fallback->program.logical_inputs, options.input_seed);
  if (!options.reference) return fail("", absl::InvalidArgumentError("no reference given"));
  absl::StatusOr<std::vector<NDArray>> want = options.reference(task, c.inputs);
  if (!want.ok()) return fail("the reference failed: ", want.status());
  c.reference = std::move(*want);
  return c;
}

}  // namespace

MeasureFn VdlaMeasureFn(VdlaMeasureOptions options) {
  // The last task's context, kept between batches of the same task.
  auto cached = std::make_shared<std::optional<TaskContext>>();
  return [options, cached](
             const Task& task,
             const std::vector<Config>& configs) -> absl::StatusOr<std::vector<MeasureResult>> {
    if (!*cached || !((*cached)->task == task)) {
      TESSEL_ASSIGN_OR_RETURN(TaskContext c, Prepare(task, options));
      *cached = std::move(c);
    }
    const TaskContext& c = **cached;
    std::vector<MeasureResult> results(configs.size());
    const size_t workers = std::max<size_t>(1, std::min<size_t>(options.threads, configs.size()));
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        for (size_t i = w; i < configs.size(); i += workers) results[i] = MeasureOne(c, configs[i]);
      });
    }
    for (std::thread& t : threads) t.join();
    return results;
  };
}

}  // namespace tessel::search
