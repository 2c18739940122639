#include "search/measure/cuda_batch.h"

#include <absl/strings/str_cat.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/runtime/cuda/bundle.h"
#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/runtime/npy.h"
#include "compiler/support/atomic_file.h"
#include "compiler/support/status_macros.h"
#include "search/measure/worker_protocol.h"

namespace tessel::search {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr char kFormat[] = "tessel-cuda-batch";
constexpr int kVersion = 1;

double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The task's program on its logical tensors (the fallback's: every config has the same tensors).
absl::StatusOr<ops::OpProgram> LogicalProgram(const Task& task, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(task.template_name));
  TESSEL_ASSIGN_OR_RETURN(ops::Instantiated fallback,
                          ops::InstantiateFallback(*t, task.args, facts));
  if (fallback.program.prepare || fallback.program.finish ||
      fallback.program.logical_outputs.size() != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat(task.template_name,
                     ": a bundle runs one kernel on the logical tensors, but "
                     "this template transforms them on the host or has ",
                     fallback.program.logical_outputs.size(), " outputs"));
  }
  return std::move(fallback.program);
}

// The inputs and the expected output, written into dir; their file names.
absl::StatusOr<std::vector<std::string>> WriteTensors(const std::string& dir, const Task& task,
                                                      const ops::OpProgram& program,
                                                      const ReferenceFn& reference, uint32_t seed) {
  const std::vector<runtime::NDArray> inputs = ops::RandomInputs(program.logical_inputs, seed);
  absl::StatusOr<std::vector<runtime::NDArray>> want = reference(task, inputs);
  if (!want.ok()) {
    return absl::Status(want.status().code(), absl::StrCat("the reference of ", task.Key(),
                                                           " failed: ", want.status().message()));
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back(absl::StrCat("input", i, ".npy"));
    TESSEL_RETURN_IF_ERROR(runtime::SaveNpy(dir + "/" + names.back(), inputs[i]));
  }
  TESSEL_RETURN_IF_ERROR(runtime::SaveNpy(dir + "/expected.npy", want->at(0)));
  return names;
}

}  // namespace

absl::StatusOr<WrittenBatch> WriteCudaBatch(const std::string& dir, const Task& task,
                                            const std::vector<Config>& configs, Measurer& measurer,
                                            const ReferenceFn& reference,
                                            const CudaBatchOptions& options) {
  if (task.target.kind() != "cuda") {
    return absl::InvalidArgumentError(
        absl::StrCat("a CUDA batch needs a cuda target, not '", task.target.ToString(), "'"));
  }
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    return absl::AlreadyExistsError(absl::StrCat("'", dir, "' exists; a batch needs a new folder"));
  }
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(task.target));
  TESSEL_ASSIGN_OR_RETURN(ops::OpProgram program, LogicalProgram(task, facts));
  const std::string partial = dir + ".partial";
  fs::remove_all(partial, ec);
  TESSEL_RETURN_IF_ERROR(support::MakeDirectories(partial));
  struct RemovePartial {
    const std::string& path;
    ~RemovePartial() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_partial{partial};

  TESSEL_ASSIGN_OR_RETURN(std::vector<std::string> input_files,
                          WriteTensors(partial, task, program, reference, options.input_seed));
  std::vector<std::string> names, libraries;
  for (size_t i = 0; i < configs.size(); ++i) {
    names.push_back(absl::StrCat("c", i));
    libraries.push_back(absl::StrCat(partial, "/", names.back(), ".cubin"));
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<MeasureResult> built,
                          measurer.Build(task, configs, libraries));

  WrittenBatch written;
  runtime::cuda::Bundle bundle{
      .target = task.target.ToString(), .timer = options.timer, .entries = {}};
  std::vector<runtime::Module> modules;
  Json candidates = Json::array();
  std::vector<std::vector<int64_t>> tensors;
  for (const ops::TensorSpec& in : program.logical_inputs) tensors.push_back(in.shape);
  tensors.push_back(program.logical_outputs[0].shape);
  for (size_t i = 0; i < configs.size(); ++i) {
    Record record{.task = task,
                  .config = configs[i].ToJson(),
                  .config_index = configs[i].index(),
                  .result = built[i]};
    if (record.result.error != ErrorKind::kNone) {
      written.failed.push_back(std::move(record));
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(runtime::Module module, runtime::cuda::LoadCudaModule(libraries[i]));
    modules.push_back(std::move(module));
    bundle.entries.push_back({.name = names[i],
                              .module = names[i] + ".cubin",
                              .function = worker::kCandidateFunction,
                              .tensors = tensors,
                              .scalars = {},
                              .flops = program.flops,
                              .reference = "expected.npy",
                              .inputs = input_files,
                              .expected = "expected.npy",
                              .atol = options.atol,
                              .rtol = options.rtol});
    candidates.push_back({{"entry", names[i]},
                          {"config", record.config},
                          {"config_index", record.config_index},
                          {"build_seconds", record.result.build_seconds}});
  }
  written.bundled = static_cast<int>(modules.size());
  TESSEL_RETURN_IF_ERROR(runtime::cuda::WriteBundle(partial, bundle, modules));
  const Json batch = {{"format", kFormat},
                      {"version", kVersion},
                      {"task", task.ToJson()},
                      {"candidates", candidates}};
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(partial + "/batch.json", batch.dump(1)));
  fs::rename(partial, dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot rename '", partial, "' to '", dir, "': ", ec.message()));
  }
  return written;
}

absl::StatusOr<std::vector<Record>> ReadCudaBatchResults(const std::string& dir,
                                                         const std::string& result_path) {
  const std::string batch_path = dir + "/batch.json";
  TESSEL_ASSIGN_OR_RETURN(std::string text, support::ReadFile(batch_path));
  const Json batch = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (batch.is_discarded() || !batch.is_object() || batch.value("format", "") != kFormat ||
      batch.value("version", 0) != kVersion || !batch.contains("task") ||
      !batch.contains("candidates") || !batch["candidates"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(batch_path, ": not a ", kFormat, " of version ", kVersion));
  }
  TESSEL_ASSIGN_OR_RETURN(Task task, Task::FromJson(batch["task"]));
  TESSEL_ASSIGN_OR_RETURN(runtime::cuda::BundleResult result,
                          runtime::cuda::ReadBundleResult(result_path));
  std::map<std::string, const runtime::cuda::EntryResult*> by_name;
  for (const runtime::cuda::EntryResult& e : result.entries) by_name[e.name] = &e;
  std::vector<Record> records;
  const double now = UnixSeconds();
  for (const Json& c : batch["candidates"]) {
    const std::string entry = c.value("entry", "");
    auto it = by_name.find(entry);
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(absl::StrCat(result_path, ": no result for candidate '",
                                                     entry, "' of ", batch_path,
                                                     "; is it the result of this batch's bundle?"));
    }
    const runtime::cuda::EntryResult& e = *it->second;
    by_name.erase(it);
    MeasureResult r{.costs = e.seconds,
                    .error = ErrorKind::kNone,
                    .error_message = "",
                    .build_seconds = c.value("build_seconds", 0.0),
                    .timestamp = now};
    if (!e.error.empty()) {
      r.costs.clear();
      r.error = e.error_kind == "wrong_answer" ? ErrorKind::kWrongAnswer : ErrorKind::kRuntime;
      r.error_message = e.error;
    }
    records.push_back({.task = task,
                       .config = c.value("config", Json::object()),
                       .config_index = c.value("config_index", int64_t{-1}),
                       .result = std::move(r)});
  }
  if (!by_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(result_path, ": entry '", by_name.begin()->first,
                                                   "' is not a candidate of ", batch_path));
  }
  return records;
}

}  // namespace tessel::search
