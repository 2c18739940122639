#include "search/measure/measure_worker.h"

#include <absl/strings/str_cat.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <exception>
#include <iostream>
#include <string>

#include "search/measure/worker_protocol.h"
#include "search/measure/worker_steps.h"

namespace tessel::search {
namespace worker {

Result Failure(ErrorKind kind, const absl::Status& status) {
  Result result;
  result.error = kind;
  result.message = std::string(status.message());
  return result;
}

Result SetupFailure(const std::string& message) {
  Result result;
  result.setup_error = true;
  result.message = message;
  return result;
}

void RecordStep(Result& result, const std::string& step,
                std::chrono::steady_clock::time_point& since) {
  const auto now = std::chrono::steady_clock::now();
  result.step_seconds[step] = std::chrono::duration<double>(now - since).count();
  since = now;
}

}  // namespace worker

namespace {

constexpr int kBadRequest = 2;
constexpr int kCannotWriteResult = 3;
constexpr int kParentGone = 4;

// The phase, with an exception escaping a template turned into the candidate's error.
worker::Result RunPhase(const std::string& mode, const worker::Request& request) {
  const ErrorKind kind = mode == "build" ? ErrorKind::kHostCompile : ErrorKind::kRuntime;
  try {
    return mode == "build" ? worker::BuildCandidate(request) : worker::RunCandidate(request);
  } catch (const std::exception& e) {
    return worker::Failure(kind,
                           absl::InternalError(absl::StrCat("uncaught exception: ", e.what())));
  }
}

}  // namespace

int MeasureWorkerMain(int argc, char** argv) {
  const std::string usage = "usage: measure_worker build|run REQUEST.json";
  if (argc != 3) {
    std::cerr << usage << "\n";
    return kBadRequest;
  }
  const std::string mode = argv[1];
  if (mode != "build" && mode != "run") {
    std::cerr << "unknown mode '" << mode << "'; " << usage << "\n";
    return kBadRequest;
  }
  absl::StatusOr<nlohmann::json> json = worker::ReadJsonFile(argv[2]);
  absl::StatusOr<worker::Request> request =
      json.ok() ? worker::RequestFromJson(*json) : absl::StatusOr<worker::Request>(json.status());
  if (!request.ok()) {
    std::cerr << "bad request: " << request.status().message() << "\n";
    return kBadRequest;
  }
  // Die with the process that asked (a tuner killed with kill -9 leaves no worker spinning).
  if (request->parent_pid != 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != request->parent_pid) return kParentGone;
  }
  const worker::Result result = RunPhase(mode, *request);
  if (absl::Status written = worker::WriteJsonAtomically(request->result, worker::ToJson(result));
      !written.ok()) {
    std::cerr << written.message() << "\n";
    return kCannotWriteResult;
  }
  return 0;
}

}  // namespace tessel::search
