#include "search/measure/worker_protocol.h"

#include <absl/strings/str_cat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/support/status_macros.h"
#include "compiler/target/facts_json.h"

namespace tessel::search::worker {
namespace {

// Reads field `key` of `json` as T; an error names `prefix.key` and what is wrong. The files are
// written by this protocol, so a bad one means a mismatched worker binary or a damaged file.
template <typename T>
absl::StatusOr<T> Field(const nlohmann::json& json, const std::string& prefix,
                        const std::string& key) {
  const std::string name = absl::StrCat(prefix, ".", key);
  if (!json.is_object()) return absl::InvalidArgumentError(absl::StrCat(prefix, ": not an object"));
  auto it = json.find(key);
  if (it == json.end()) return absl::InvalidArgumentError(absl::StrCat(name, ": missing"));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", e.what()));
  }
}

nlohmann::json RunToJson(const RunOptions& run) {
  return {{"number", run.number},
          {"repeat", run.repeat},
          {"min_repeat_ms", run.min_repeat_ms},
          {"flush_cache", run.flush_cache},
          {"threads", run.threads},
          {"timeout_seconds", run.timeout_seconds},
          {"check_correctness", run.check_correctness},
          {"input_seed", run.input_seed},
          {"atol", run.atol},
          {"rtol", run.rtol}};
}

absl::StatusOr<RunOptions> RunFromJson(const nlohmann::json& json) {
  const std::string p = "request.run";
  RunOptions run;
  TESSEL_ASSIGN_OR_RETURN(run.number, Field<int>(json, p, "number"));
  TESSEL_ASSIGN_OR_RETURN(run.repeat, Field<int>(json, p, "repeat"));
  TESSEL_ASSIGN_OR_RETURN(run.min_repeat_ms, Field<double>(json, p, "min_repeat_ms"));
  TESSEL_ASSIGN_OR_RETURN(run.flush_cache, Field<bool>(json, p, "flush_cache"));
  TESSEL_ASSIGN_OR_RETURN(run.threads, Field<int>(json, p, "threads"));
  TESSEL_ASSIGN_OR_RETURN(run.timeout_seconds, Field<double>(json, p, "timeout_seconds"));
  TESSEL_ASSIGN_OR_RETURN(run.check_correctness, Field<bool>(json, p, "check_correctness"));
  TESSEL_ASSIGN_OR_RETURN(run.input_seed, Field<uint32_t>(json, p, "input_seed"));
  TESSEL_ASSIGN_OR_RETURN(run.atol, Field<double>(json, p, "atol"));
  TESSEL_ASSIGN_OR_RETURN(run.rtol, Field<double>(json, p, "rtol"));
  return run;
}

}  // namespace

nlohmann::json ToJson(const Request& request) {
  return {{"task", request.task.ToJson()},
          {"config", request.config},
          {"facts", target::FactsToJson(request.facts)},
          {"library", request.library},
          {"result", request.result},
          {"inputs", request.inputs},
          {"references", request.references},
          {"run", RunToJson(request.run)},
          {"parent_pid", request.parent_pid}};
}

absl::StatusOr<Request> RequestFromJson(const nlohmann::json& json) {
  const std::string p = "request";
  Request request;
  TESSEL_ASSIGN_OR_RETURN(nlohmann::json task, Field<nlohmann::json>(json, p, "task"));
  TESSEL_ASSIGN_OR_RETURN(request.task, Task::FromJson(task));
  TESSEL_ASSIGN_OR_RETURN(request.config, Field<nlohmann::json>(json, p, "config"));
  TESSEL_ASSIGN_OR_RETURN(nlohmann::json facts, Field<nlohmann::json>(json, p, "facts"));
  TESSEL_ASSIGN_OR_RETURN(request.facts, target::FactsFromJson(facts, "request.facts"));
  TESSEL_ASSIGN_OR_RETURN(request.library, Field<std::string>(json, p, "library"));
  TESSEL_ASSIGN_OR_RETURN(request.result, Field<std::string>(json, p, "result"));
  TESSEL_ASSIGN_OR_RETURN(request.inputs, Field<std::vector<std::string>>(json, p, "inputs"));
  TESSEL_ASSIGN_OR_RETURN(request.references,
                          Field<std::vector<std::string>>(json, p, "references"));
  TESSEL_ASSIGN_OR_RETURN(nlohmann::json run, Field<nlohmann::json>(json, p, "run"));
  TESSEL_ASSIGN_OR_RETURN(request.run, RunFromJson(run));
  TESSEL_ASSIGN_OR_RETURN(request.parent_pid, Field<int64_t>(json, p, "parent_pid"));
  return request;
}

nlohmann::json ToJson(const Result& result) {
  return {{"error", ErrorKindName(result.error)},
          {"setup_error", result.setup_error},
          {"message", result.message},
          {"costs", result.costs},
          {"step_seconds", result.step_seconds}};
}

absl::StatusOr<Result> ResultFromJson(const nlohmann::json& json) {
  const std::string p = "result";
  Result result;
  TESSEL_ASSIGN_OR_RETURN(std::string error, Field<std::string>(json, p, "error"));
  TESSEL_ASSIGN_OR_RETURN(result.error, ErrorKindFromName(error));
  TESSEL_ASSIGN_OR_RETURN(result.setup_error, Field<bool>(json, p, "setup_error"));
  TESSEL_ASSIGN_OR_RETURN(result.message, Field<std::string>(json, p, "message"));
  TESSEL_ASSIGN_OR_RETURN(result.costs, Field<std::vector<double>>(json, p, "costs"));
  TESSEL_ASSIGN_OR_RETURN(result.step_seconds, Field<nlohmann::json>(json, p, "step_seconds"));
  return result;
}

absl::Status WriteJsonAtomically(const std::string& path, const nlohmann::json& json) {
  const std::string tmp = absl::StrCat(path, ".tmp", getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << json.dump() << "\n";
    out.close();
    if (!out) {
      const std::string reason = std::strerror(errno);
      std::filesystem::remove(tmp);
      return absl::InternalError(absl::StrCat("cannot write '", tmp, "': ", reason));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::filesystem::remove(tmp);
    return absl::InternalError(absl::StrCat("cannot rename '", tmp, "' to '", path, "': ", reason));
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat("'", path, "': no such file"));
    return absl::InternalError(absl::StrCat("cannot read '", path, "': ", std::strerror(errno)));
  }
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    return absl::InvalidArgumentError(absl::StrCat("'", path, "': not JSON"));
  return json;
}

}  // namespace tessel::search::worker
