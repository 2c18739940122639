#pragma once

#include <absl/status/status.h>

#include <chrono>
#include <optional>
#include <string>

#include "compiler/ops/template.h"
#include "search/measure/worker_protocol.h"

// The two phases of measure_worker.h, private to the worker.
namespace tessel::search::worker {

// A result with the candidate's error.
Result Failure(ErrorKind kind, const absl::Status& status);
// A result saying the worker cannot measure the task at all.
Result SetupFailure(const std::string& message);

// Fills `program` with the program of the request's config, or returns why not: a setup failure
// when the template or its space is not there (the worker binary is the wrong one), else
// kInstantiation (the config is not a valid point, or the template rejects it).
std::optional<Result> Instantiate(const Request& request, ops::OpProgram& program);

// Adds the seconds since `since` to result.step_seconds[step] and restarts `since`.
void RecordStep(Result& result, const std::string& step,
                std::chrono::steady_clock::time_point& since);

// measure_worker build: instantiate, lower, compile, save request.library. Errors:
// kInstantiation, kHostCompile (kDeviceCompile when a GPU target's compiler refuses it).
Result BuildCandidate(const Request& request);

// measure_worker run: load request.library, prepare the inputs, one warm-up call, the check
// against the references (kWrongAnswer), then the timed calls. Errors: kRuntime, kWrongAnswer.
Result RunCandidate(const Request& request);

}  // namespace tessel::search::worker
