#include <absl/strings/str_cat.h>

#include "compiler/codegen/build.h"
#include "compiler/transforms/pipeline.h"
#include "search/measure/worker_steps.h"

namespace tessel::search::worker {

std::optional<Result> Instantiate(const Request& request, ops::OpProgram& program) {
  const Task& task = request.task;
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
  if (!t.ok()) {
    return SetupFailure(absl::StrCat("this worker cannot build template '", task.template_name,
                                     "': ", std::string(t.status().message())));
  }
  absl::StatusOr<ConfigSpace> space = (*t)->space(task.args, request.facts);
  if (!space.ok()) {
    return SetupFailure(absl::StrCat("the worker's space of ", task.Key(), ": ",
                                     std::string(space.status().message())));
  }
  absl::StatusOr<Config> config = space->FromJson(request.config);
  if (!config.ok()) return Failure(ErrorKind::kInstantiation, config.status());
  if (absl::Status valid = space->Validate(*config); !valid.ok()) {
    return Failure(ErrorKind::kInstantiation, valid);
  }
  absl::StatusOr<ops::OpProgram> p = (*t)->instantiate(*config, task.args, request.facts);
  if (!p.ok()) return Failure(ErrorKind::kInstantiation, p.status());
  program = std::move(*p);
  return std::nullopt;
}

Result BuildCandidate(const Request& request) {
  Result result;
  auto since = std::chrono::steady_clock::now();
  ops::OpProgram program;
  if (std::optional<Result> failure = Instantiate(request, program)) return *failure;
  RecordStep(result, "instantiate", since);
  absl::StatusOr<ir::PrimFunc> func =
      transforms::Lower(program.schedule, program.args, kCandidateFunction);
  if (!func.ok()) return Failure(ErrorKind::kHostCompile, func.status());
  RecordStep(result, "lower", since);
  absl::StatusOr<runtime::Module> module = codegen::Build({*func}, request.facts.target);
  if (!module.ok()) {
    // A GPU target's build is the device compiler's (NVRTC, ptxas, the limits' verifier).
    return Failure(request.facts.gpu ? ErrorKind::kDeviceCompile : ErrorKind::kHostCompile,
                   module.status());
  }
  RecordStep(result, "compile", since);
  if (absl::Status saved = module->Save(request.library); !saved.ok()) {
    return Failure(ErrorKind::kHostCompile, saved);
  }
  RecordStep(result, "save", since);
  return result;
}

}  // namespace tessel::search::worker
