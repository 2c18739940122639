#include "search/measure/measure.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_replace.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/runtime/npy.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "search/measure/child_process.h"
#include "search/measure/worker_protocol.h"

namespace tessel::search {
namespace {

namespace fs = std::filesystem;

// The longest message a result keeps: the tuner's logs hold one line per trial.
constexpr size_t kMaxMessage = 500;

absl::Status OptionError(const std::string& option, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("MeasureOptions.", option, " ", what));
}

absl::Status CheckCounts(const MeasureOptions& o) {
  auto at_least = [](const std::string& option, double value, double min, bool strict) {
    const bool ok = strict ? value > min : value >= min;  // false for NaN
    return ok ? absl::OkStatus()
              : OptionError(option,
                            absl::StrCat("must be ", strict ? "> " : ">= ", min, ", got ", value));
  };
  TESSEL_RETURN_IF_ERROR(at_least("build.workers", o.build.workers, 1, false));
  TESSEL_RETURN_IF_ERROR(at_least("build.timeout_seconds", o.build.timeout_seconds, 0, true));
  TESSEL_RETURN_IF_ERROR(at_least("run.number", o.run.number, 1, false));
  TESSEL_RETURN_IF_ERROR(at_least("run.repeat", o.run.repeat, 1, false));
  TESSEL_RETURN_IF_ERROR(at_least("run.min_repeat_ms", o.run.min_repeat_ms, 0, false));
  TESSEL_RETURN_IF_ERROR(at_least("run.threads", o.run.threads, 0, false));
  TESSEL_RETURN_IF_ERROR(at_least("run.timeout_seconds", o.run.timeout_seconds, 0, true));
  TESSEL_RETURN_IF_ERROR(at_least("run.atol", o.run.atol, 0, false));
  TESSEL_RETURN_IF_ERROR(at_least("run.rtol", o.run.rtol, 0, false));
  if (o.run.check_correctness && !o.reference) {
    return OptionError("reference", "is required when run.check_correctness is set");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> CheckWorker(std::string path) {
  if (path.empty()) {
    absl::StatusOr<std::string> found = DefaultWorkerPath();
    if (!found.ok()) {
      return OptionError("worker_path",
                         absl::StrCat("is empty and ", std::string(found.status().message())));
    }
    path = *found;
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || access(path.c_str(), X_OK) != 0) {
    return OptionError("worker_path", absl::StrCat("'", path, "' is not an executable file"));
  }
  return fs::absolute(path).string();
}

// The work directory: `dir` created if needed, or a fresh temporary one (owned).
absl::StatusOr<std::string> MakeWorkDir(const std::string& dir, bool& owned) {
  owned = dir.empty();
  if (owned) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        (fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / "tessel-measure-XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return OptionError("work_dir", absl::StrCat("is empty and no temporary directory '", pattern,
                                                  "' can be made: ", std::strerror(errno)));
    }
    return pattern;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || access(dir.c_str(), W_OK) != 0) {
    return OptionError("work_dir", absl::StrCat("'", dir, "' is not a writable directory",
                                                ec ? absl::StrCat(": ", ec.message()) : ""));
  }
  return fs::absolute(dir).string();
}

// One line of at most kMaxMessage characters.
std::string OneLine(const std::string& text) {
  std::string line = absl::StrReplaceAll(text, {{"\r", ""}, {"\n", " | "}});
  if (line.size() > kMaxMessage) line = line.substr(0, kMaxMessage - 3) + "...";
  return line;
}

double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// What the worker's log ends with, as " (last output: ...)", or nothing.
std::string LogTail(const std::string& log) {
  const std::string last = LastLogLine(log);
  return last.empty() ? "" : absl::StrCat("; last output: ", last);
}

// The files one candidate uses in the work directory.
// A kept library (Measurer::Build) is the caller's: Remove leaves it.
struct CandidateFiles {
  explicit CandidateFiles(const std::string& base, const std::string& kept_library = "")
      : build_request(base + ".build.json"),
        run_request(base + ".run.json"),
        build_result(base + ".build.result.json"),
        run_result(base + ".run.result.json"),
        build_log(base + ".build.log"),
        run_log(base + ".run.log"),
        library(kept_library.empty() ? base + ".so" : kept_library),
        keep_library(!kept_library.empty()) {}
  void Remove() const {
    std::error_code ec;
    for (const std::string* p :
         {&build_request, &run_request, &build_result, &run_result, &build_log, &run_log}) {
      fs::remove(*p, ec);
    }
    if (!keep_library) fs::remove(library, ec);
  }
  std::string build_request, run_request, build_result, run_result, build_log, run_log, library;
  bool keep_library;
};

struct Candidate {
  CandidateFiles files;
  MeasureResult result;
  bool built = false;
};

// A task's inputs and reference outputs, drawn and computed once, in the work directory.
struct TaskFiles {
  target::TargetFacts facts;
  std::vector<std::string> inputs;
  std::vector<std::string> references;  // empty when run.check_correctness is off
};

}  // namespace

struct Measurer::State {
  MeasureOptions options;
  bool owns_work_dir = false;
  int64_t next_candidate = 0;
  std::map<std::string, TaskFiles> tasks;  // by Task::Key()

  ~State() {
    if (owns_work_dir) {
      std::error_code ec;
      fs::remove_all(options.work_dir, ec);
    }
  }

  absl::StatusOr<const TaskFiles*> PrepareTask(const Task& task);
  // The facts a task's candidates are built for.
  absl::StatusOr<target::TargetFacts> BuildFacts(const Task& task) const {
    TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(task.target));
    // The programs run on options.run.threads: their parallel loops are sized for them.
    if (options.run.threads > 0) facts.cores = options.run.threads;
    return facts;
  }
  // A candidate per config, its build request (and, with task_files, its run request) written.
  absl::StatusOr<std::vector<Candidate>> Prepare(const Task& task,
                                                 const std::vector<Config>& configs,
                                                 const target::TargetFacts& facts,
                                                 const TaskFiles* task_files,
                                                 const std::vector<std::string>& kept_libraries);
  // The worker's exit and result for a phase: the candidate's outcome (result.error, built),
  // or an error when the worker cannot measure at all.
  absl::Status Classify(bool build, const ChildExit& exit, Candidate& candidate);
  absl::Status BuildAll(std::vector<Candidate>& candidates);
  absl::Status Run(Candidate& candidate);
  absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const char* mode, const std::string& request,
                                                      const std::string& log, double timeout);
};

absl::StatusOr<const TaskFiles*> Measurer::State::PrepareTask(const Task& task) {
  const std::string key = task.Key();
  if (auto it = tasks.find(key); it != tasks.end()) return &it->second;
  auto fail = [&](const std::string& what, const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat("cannot measure ", key, ": ", what,
                                                    std::string(status.message())));
  };
  TaskFiles files;
  absl::StatusOr<target::TargetFacts> facts = BuildFacts(task);
  if (!facts.ok()) return fail("", facts.status());
  files.facts = *facts;
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
  if (!t.ok()) return fail("", t.status());
  // The logical inputs are the operator's, the same for every config: the fallback's say which.
  absl::StatusOr<ops::Instantiated> fallback = ops::InstantiateFallback(**t, task.args, *facts);
  if (!fallback.ok()) return fail("the fallback config: ", fallback.status());
  const std::vector<runtime::NDArray> inputs =
      ops::RandomInputs(fallback->program.logical_inputs, options.run.input_seed);

  const fs::path dir = fs::path(options.work_dir) / absl::StrCat("task", tasks.size());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail("", absl::InternalError(absl::StrCat(dir.string(), ": ", ec.message())));
  for (size_t i = 0; i < inputs.size(); ++i) {
    files.inputs.push_back((dir / absl::StrCat("input", i, ".npy")).string());
    if (absl::Status s = runtime::SaveNpy(files.inputs.back(), inputs[i]); !s.ok()) {
      return fail("", s);
    }
  }
  if (options.run.check_correctness) {
    absl::StatusOr<std::vector<runtime::NDArray>> want = options.reference(task, inputs);
    if (!want.ok()) return fail("the reference failed: ", want.status());
    for (size_t i = 0; i < want->size(); ++i) {
      files.references.push_back((dir / absl::StrCat("reference", i, ".npy")).string());
      if (absl::Status s = runtime::SaveNpy(files.references.back(), (*want)[i]); !s.ok()) {
        return fail("", s);
      }
    }
  }
  return &tasks.emplace(key, std::move(files)).first->second;
}

absl::StatusOr<std::unique_ptr<ChildProcess>> Measurer::State::Start(const char* mode,
                                                                     const std::string& request,
                                                                     const std::string& log,
                                                                     double timeout) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn({options.worker_path, mode, request}, log, timeout);
  if (!child.ok()) {
    return absl::Status(child.status().code(), absl::StrCat("the measure worker cannot start: ",
                                                            std::string(child.status().message())));
  }
  return child;
}

absl::Status Measurer::State::Classify(bool build, const ChildExit& exit, Candidate& candidate) {
  const CandidateFiles& files = candidate.files;
  MeasureResult& r = candidate.result;
  const std::string& log = build ? files.build_log : files.run_log;
  const char* phase = build ? "build" : "run";
  auto fail = [&](ErrorKind kind, const std::string& message) {
    r.error = kind;
    r.error_message = OneLine(message);
    return absl::OkStatus();
  };
  auto broken_worker = [&](const std::string& what) {
    return absl::FailedPreconditionError(OneLine(absl::StrCat(
        "the measure worker '", options.worker_path, "' ", what, " (", phase, ")", LogTail(log))));
  };
  if (exit.kind == ChildExit::Kind::kTimedOut) {
    const double timeout = build ? options.build.timeout_seconds : options.run.timeout_seconds;
    return fail(build ? ErrorKind::kBuildTimeout : ErrorKind::kRunTimeout,
                absl::StrCat(phase, " did not finish within ", timeout, " s; worker killed"));
  }
  const ErrorKind crash = build ? ErrorKind::kHostCompile : ErrorKind::kRuntime;
  if (exit.kind == ChildExit::Kind::kSignaled) {
    return fail(crash, absl::StrCat(phase, " worker ", DescribeExit(exit), LogTail(log)));
  }
  if (exit.code != 0) {
    // 2-4: the worker refused the request or could not answer (measure_worker.h); any other
    // status comes from code the candidate ran (e.g. LLVM's fatal errors exit with 1).
    if (exit.code >= 2 && exit.code <= 4) return broken_worker(DescribeExit(exit));
    return fail(crash, absl::StrCat(phase, " worker ", DescribeExit(exit), LogTail(log)));
  }
  absl::StatusOr<nlohmann::json> json =
      worker::ReadJsonFile(build ? files.build_result : files.run_result);
  if (!json.ok()) return broken_worker("exited without a result; is it a measure worker?");
  absl::StatusOr<worker::Result> result = worker::ResultFromJson(*json);
  if (!result.ok()) {
    return broken_worker(
        absl::StrCat("wrote a bad result: ", std::string(result.status().message())));
  }
  if (result->setup_error) return broken_worker(absl::StrCat("cannot measure: ", result->message));
  if (result->error != ErrorKind::kNone) return fail(result->error, result->message);
  if (build) {
    candidate.built = true;
  } else {
    r.costs = std::move(result->costs);
  }
  return absl::OkStatus();
}

absl::Status Measurer::State::BuildAll(std::vector<Candidate>& candidates) {
  std::map<size_t, std::unique_ptr<ChildProcess>> running;  // by candidate
  size_t next = 0;
  while (next < candidates.size() || !running.empty()) {
    while (next < candidates.size() && static_cast<int>(running.size()) < options.build.workers) {
      const CandidateFiles& files = candidates[next].files;
      TESSEL_ASSIGN_OR_RETURN(running[next], Start("build", files.build_request, files.build_log,
                                                   options.build.timeout_seconds));
      ++next;
    }
    std::vector<ChildProcess*> children;
    for (auto& [i, child] : running) children.push_back(child.get());
    ChildProcess::WaitForAny(children, 1.0);
    for (auto it = running.begin(); it != running.end();) {
      std::optional<ChildExit> exit = it->second->Check();
      if (!exit) {
        ++it;
        continue;
      }
      Candidate& candidate = candidates[it->first];
      candidate.result.build_seconds = exit->seconds;
      TESSEL_RETURN_IF_ERROR(Classify(/*build=*/true, *exit, candidate));
      if (!candidate.built) candidate.result.timestamp = UnixSeconds();
      it = running.erase(it);
    }
  }
  return absl::OkStatus();
}

absl::Status Measurer::State::Run(Candidate& candidate) {
  const CandidateFiles& files = candidate.files;
  TESSEL_ASSIGN_OR_RETURN(
      std::unique_ptr<ChildProcess> child,
      Start("run", files.run_request, files.run_log, options.run.timeout_seconds));
  const ChildExit exit = child->Wait();
  TESSEL_RETURN_IF_ERROR(Classify(/*build=*/false, exit, candidate));
  candidate.result.timestamp = UnixSeconds();
  return absl::OkStatus();
}

absl::StatusOr<Measurer> Measurer::Create(MeasureOptions options) {
  TESSEL_RETURN_IF_ERROR(CheckCounts(options));
  TESSEL_ASSIGN_OR_RETURN(options.worker_path, CheckWorker(options.worker_path));
  auto state = std::make_unique<State>();
  bool owned = false;
  TESSEL_ASSIGN_OR_RETURN(options.work_dir, MakeWorkDir(options.work_dir, owned));
  state->owns_work_dir = owned;
  state->options = std::move(options);
  return Measurer(std::move(state));
}

Measurer::Measurer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Measurer::Measurer(Measurer&&) noexcept = default;
Measurer& Measurer::operator=(Measurer&&) noexcept = default;
Measurer::~Measurer() = default;

absl::StatusOr<std::vector<Candidate>> Measurer::State::Prepare(
    const Task& task, const std::vector<Config>& configs, const target::TargetFacts& facts,
    const TaskFiles* task_files, const std::vector<std::string>& kept_libraries) {
  std::vector<Candidate> candidates;
  candidates.reserve(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::string base =
        (fs::path(options.work_dir) / absl::StrCat("c", next_candidate++)).string();
    Candidate& candidate = candidates.emplace_back(Candidate{
        CandidateFiles(base, kept_libraries.empty() ? "" : kept_libraries[i]), {}, false});
    worker::Request request{.task = task,
                            .config = configs[i].ToJson(),
                            .facts = facts,
                            .library = candidate.files.library,
                            .result = candidate.files.build_result,
                            .inputs = {},
                            .references = {},
                            .run = options.run,
                            .parent_pid = getpid()};
    TESSEL_RETURN_IF_ERROR(
        worker::WriteJsonAtomically(candidate.files.build_request, worker::ToJson(request)));
    if (task_files == nullptr) continue;
    request.result = candidate.files.run_result;
    request.inputs = task_files->inputs;
    request.references = task_files->references;
    TESSEL_RETURN_IF_ERROR(
        worker::WriteJsonAtomically(candidate.files.run_request, worker::ToJson(request)));
  }
  return candidates;
}

namespace {

// Removes every candidate's files (a kept library stays) when it goes out of scope.
struct Cleanup {
  std::vector<Candidate>& candidates;
  ~Cleanup() {
    for (const Candidate& c : candidates) c.files.Remove();
  }
};

}  // namespace

absl::StatusOr<std::vector<MeasureResult>> Measurer::Measure(const Task& task,
                                                             const std::vector<Config>& configs) {
  State& s = *state_;
  if (configs.empty()) return std::vector<MeasureResult>{};
  TESSEL_ASSIGN_OR_RETURN(const TaskFiles* task_files, s.PrepareTask(task));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Candidate> candidates,
                          s.Prepare(task, configs, task_files->facts, task_files, {}));
  Cleanup cleanup{candidates};
  TESSEL_RETURN_IF_ERROR(s.BuildAll(candidates));
  for (Candidate& candidate : candidates) {
    if (!candidate.built) continue;
    TESSEL_RETURN_IF_ERROR(s.Run(candidate));
    candidate.files.Remove();  // the library can be large: free the disk as we go
  }
  std::vector<MeasureResult> results;
  for (Candidate& candidate : candidates) results.push_back(std::move(candidate.result));
  return results;
}

absl::StatusOr<std::vector<MeasureResult>> Measurer::Build(
    const Task& task, const std::vector<Config>& configs,
    const std::vector<std::string>& libraries) {
  TESSEL_CHECK(libraries.size() == configs.size())
      << libraries.size() << " libraries for " << configs.size() << " configs";
  State& s = *state_;
  if (configs.empty()) return std::vector<MeasureResult>{};
  absl::StatusOr<target::TargetFacts> facts = s.BuildFacts(task);
  if (!facts.ok()) {
    return absl::Status(facts.status().code(),
                        absl::StrCat("cannot build ", task.Key(), ": ", facts.status().message()));
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<Candidate> candidates,
                          s.Prepare(task, configs, *facts, nullptr, libraries));
  Cleanup cleanup{candidates};
  TESSEL_RETURN_IF_ERROR(s.BuildAll(candidates));
  std::vector<MeasureResult> results;
  for (Candidate& candidate : candidates) {
    if (!candidate.built) {
      std::error_code ec;
      fs::remove(candidate.files.library, ec);
    }
    results.push_back(std::move(candidate.result));
  }
  return results;
}

}  // namespace tessel::search
