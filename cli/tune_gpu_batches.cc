#include "cli/tune_gpu_batches.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "compiler/runtime/cuda/bundle.h"
#include "compiler/support/status_macros.h"
#include "search/records/log.h"

namespace tessel::cli {
namespace {

namespace fs = std::filesystem;

// The configs of `key` the log already holds, by their JSON.
absl::StatusOr<std::set<std::string>> LoggedConfigs(const std::string& log,
                                                    const std::string& key) {
  std::set<std::string> seen;
  if (!fs::exists(log)) return seen;
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::Record> records, search::ReadLog(log));
  for (const search::Record& r : records) {
    if (r.task.Key() == key) seen.insert(r.config.dump());
  }
  return seen;
}

// Whether the log holds records of a task of task's template other than task (the prior a
// model's later tasks start from, as search::TuneTasks gives it).
absl::StatusOr<bool> HoldsAnotherOf(const std::string& log, const search::Task& task) {
  if (!fs::exists(log)) return false;
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::Record> records, search::ReadLog(log));
  const std::string key = task.Key();
  return std::any_of(records.begin(), records.end(), [&](const search::Record& r) {
    return r.task.template_name == task.template_name && r.task.Key() != key;
  });
}

// "3 device_compile, 1 instantiation".
std::string ErrorCounts(const std::vector<search::Record>& records) {
  std::map<std::string, int> counts;
  for (const search::Record& r : records) ++counts[search::ErrorKindName(r.result.error)];
  std::string text;
  for (const auto& [kind, n] : counts)
    absl::StrAppend(&text, text.empty() ? "" : ", ", n, " ", kind);
  return text;
}

// Reads DIR's measured batch into the log (records the log has already are skipped, so reading a
// batch twice adds nothing) and removes DIR. Nothing to do when DIR does not exist.
absl::Status AbsorbMeasuredBatch(const std::vector<GpuBatchTask>& tasks, const std::string& log,
                                 const std::string& dir, std::ostream& out) {
  if (!fs::exists(dir)) return absl::OkStatus();
  const std::string result_path = dir + "/results.json";
  if (!fs::exists(dir + "/batch.json")) {
    return absl::FailedPreconditionError(
        absl::StrCat("--bundle '", dir,
                     "' exists and is not a batch (no batch.json); name a "
                     "folder that does not exist yet"));
  }
  if (!fs::exists(result_path)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--bundle '", dir, "' holds a batch that has not been measured (no ", result_path,
        "): run it on the GPU machine and put cuda_runner's result there, or remove the folder "
        "to give up the batch"));
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::Record> records,
                          search::ReadCudaBatchResults(dir, result_path));
  if (records.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--bundle '", dir, "' is an empty batch"));
  }
  const std::string key = records.front().task.Key();
  if (std::none_of(tasks.begin(), tasks.end(),
                   [&](const GpuBatchTask& t) { return t.task.Key() == key; })) {
    return absl::InvalidArgumentError(
        absl::StrCat("--bundle '", dir, "' is a batch of ", key, ", not of ",
                     tasks.size() == 1 ? tasks.front().task.Key() : "a task of this model"));
  }
  TESSEL_ASSIGN_OR_RETURN(std::set<std::string> seen, LoggedConfigs(log, key));
  std::vector<search::Record> fresh;
  for (search::Record& r : records) {
    if (!seen.contains(r.config.dump())) fresh.push_back(std::move(r));
  }
  TESSEL_ASSIGN_OR_RETURN(search::LogWriter writer, search::LogWriter::Open(log));
  TESSEL_RETURN_IF_ERROR(writer.Append(fresh));
  TESSEL_ASSIGN_OR_RETURN(runtime::cuda::BundleResult result,
                          runtime::cuda::ReadBundleResult(result_path));
  std::vector<search::Record> failed;
  double best = 0;
  for (const search::Record& r : fresh) {
    if (r.result.error != search::ErrorKind::kNone) {
      failed.push_back(r);
    } else if (best == 0 || search::MeanCost(r.result) < best) {
      best = search::MeanCost(r.result);
    }
  }
  out << absl::StrFormat("read %d results of %s, measured on %s (%s): %d timed%s%s\n", fresh.size(),
                         dir, result.device, result.arch, fresh.size() - failed.size(),
                         failed.empty() ? "" : absl::StrCat(", failed: ", ErrorCounts(failed)),
                         best > 0 ? absl::StrFormat(", best %.4f ms", best * 1e3) : "");
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot remove '", dir, "': ", ec.message()));
  return absl::OkStatus();
}

void PrintBest(const search::TuneResult& so_far, std::ostream& out) {
  if (!so_far.best) {
    out << "best     none yet\n";
    return;
  }
  out << absl::StrFormat("best     %.4f ms, %.2f GFLOPS, config %d %s\n",
                         search::MeanCost(so_far.best->result) * 1e3, so_far.best_gflops,
                         so_far.best->config_index, so_far.best->config["knobs"].dump());
}

}  // namespace

absl::Status TuneOnGpuBatches(const std::vector<GpuBatchTask>& tasks,
                              const search::TunerOptions& options, search::Measurer& measurer,
                              const search::ReferenceFn& reference, const GpuBatchTuning& tuning,
                              std::ostream& out) {
  TESSEL_RETURN_IF_ERROR(AbsorbMeasuredBatch(tasks, options.log_path, tuning.dir, out));
  for (size_t i = 0; i < tasks.size(); ++i) {
    const search::Task& task = tasks[i].task;
    const std::string label =
        tasks.size() == 1 ? task.Key()
                          : absl::StrCat("[", i + 1, "/", tasks.size(), "] ", tasks[i].label);
    search::TunerOptions task_options = options;
    if (tasks.size() > 1 && tuning.transfer && !options.cost_model.empty()) {
      TESSEL_ASSIGN_OR_RETURN(const bool prior, HoldsAnotherOf(options.log_path, task));
      if (prior) task_options.transfer_from.push_back(options.log_path);
    }
    // A batch whose every candidate is refused here teaches the model nothing it can wait for:
    // the next one is proposed at once.
    while (true) {
      TESSEL_ASSIGN_OR_RETURN(search::Proposal proposal,
                              search::ProposeNext(task, task_options, tuning.bundle_size));
      const search::TuneResult& so_far = proposal.so_far;
      if (proposal.configs.empty()) {
        out << absl::StrFormat("task     %s\n", label);
        out << absl::StrFormat("trials   %d of %d in %s (%d failed); tuning is over: %s\n",
                               so_far.trials, options.trials, options.log_path, so_far.errors,
                               so_far.stop_reason);
        PrintBest(so_far, out);
        break;
      }
      TESSEL_ASSIGN_OR_RETURN(search::WrittenBatch written,
                              search::WriteCudaBatch(tuning.dir, task, proposal.configs, measurer,
                                                     reference, tuning.batch));
      TESSEL_ASSIGN_OR_RETURN(search::LogWriter writer, search::LogWriter::Open(options.log_path));
      TESSEL_RETURN_IF_ERROR(writer.Append(written.failed));
      if (written.bundled == 0) {
        std::error_code ec;
        fs::remove_all(tuning.dir, ec);
        continue;
      }
      out << absl::StrFormat("task     %s\n", label);
      out << absl::StrFormat("trials   %d of %d in %s (%d failed)\n",
                             so_far.trials + written.failed.size(), options.trials,
                             options.log_path, so_far.errors + written.failed.size());
      PrintBest(so_far, out);
      out << absl::StrFormat(
          "batch    %d configs: %d refused here%s and logged, %d in %s\n", proposal.configs.size(),
          written.failed.size(),
          written.failed.empty() ? "" : absl::StrCat(" (", ErrorCounts(written.failed), ")"),
          written.bundled, tuning.dir);
      out << "next     measure it on the GPU machine (experiments/gpu/README.md):\n"
          << "           experiments/gpu/stage.sh " << tuning.dir << " gpu_stage\n"
          << "           there: LD_LIBRARY_PATH=gpu_stage/lib gpu_stage/bin/cuda_runner "
             "gpu_stage/bundle results.json arrays\n"
          << "         put results.json in " << tuning.dir
          << "/ and run this command again for the next batch\n";
      return absl::OkStatus();
    }
  }
  if (tasks.size() > 1) {
    out << "every task is tuned; `tessel compile --target " << tasks.front().task.target.ToString()
        << " --log " << options.log_path << "` uses each task's best config\n";
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
