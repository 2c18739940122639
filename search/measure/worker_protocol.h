#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/target/target_facts.h"
#include "search/measure/measure_options.h"
#include "search/records/record.h"
#include "search/task/task.h"

// What the Measurer and its worker processes say to each other, through files.
//
// The parent writes a request (JSON) and runs `measure_worker build|run REQUEST`. The worker
// writes a result (JSON) to the request's result path, atomically (a temporary renamed over it),
// and exits 0. Anything else (a signal, a non-zero exit, a timeout, no result file) is the
// parent's to classify. A request carries the facts the parent's space was built with, so that
// the worker instantiates exactly the space the configs come from.
//
// The build function of every candidate library is named kCandidateFunction.
namespace tessel::search::worker {

inline constexpr char kCandidateFunction[] = "candidate";

struct Request {
  Task task;
  nlohmann::json config;  // Config::ToJson()
  target::TargetFacts facts;
  std::string library;  // the candidate's shared library: written by build, loaded by run
  std::string result;   // where the worker writes its Result
  // Logical inputs and reference outputs as .npy files (run only; no references: no check).
  std::vector<std::string> inputs;
  std::vector<std::string> references;
  RunOptions run;
  // The worker exits at once when this process is not (or no longer) its parent (0: no check).
  int64_t parent_pid = 0;
};

nlohmann::json ToJson(const Request& request);
// Errors name the missing or ill-typed field ("request.run.repeat: ...").
absl::StatusOr<Request> RequestFromJson(const nlohmann::json& json);

struct Result {
  // kNone, or the candidate's fault: kInstantiation, kHostCompile (build); kRuntime,
  // kWrongAnswer (run).
  ErrorKind error = ErrorKind::kNone;
  // The worker cannot measure this task at all, whatever the config (its binary lacks the
  // template, an input file is unreadable): the parent stops measuring. `error` is then unused.
  bool setup_error = false;
  std::string message;        // why, when error != kNone or setup_error
  std::vector<double> costs;  // run: seconds per call, one per repeat
  // Wall seconds of each step the worker took, for reports: e.g. {"lower": 0.01, ...}.
  nlohmann::json step_seconds = nlohmann::json::object();
};

nlohmann::json ToJson(const Result& result);
absl::StatusOr<Result> ResultFromJson(const nlohmann::json& json);

// Writes `json` to path through a temporary beside it renamed over it, so that a reader never
// sees a partial file. Errors name the path and the system's reason.
absl::Status WriteJsonAtomically(const std::string& path, const nlohmann::json& json);
// Reads a JSON file; errors name the path (NotFound when there is no file).
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

}  // namespace tessel::search::worker
