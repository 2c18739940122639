#include "cli/nightly_command.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "cli/command_args.h"
#include "compiler/support/atomic_file.h"
#include "compiler/support/status_macros.h"
#include "experiments/nightly/confirm.h"
#include "experiments/nightly/history_plot.h"
#include "experiments/nightly/record.h"
#include "experiments/nightly/report.h"
#include "experiments/nightly/suite.h"
#include "experiments/nightly/verdict.h"

namespace tessel::cli {
namespace {

namespace nightly = experiments::nightly;

// How many runs a refreshed baseline is the median of (this one and the history's latest).
constexpr int kBaselineRuns = 5;

const ArgSpec& NightlySpec() {
  static const ArgSpec spec{
      .flags = {{"baseline",
                 "the baseline record (default results/nightly/<cpu>/baseline_<suite>.json)"},
                {"history", "the history (default results/nightly/<cpu>/history_<suite>.jsonl)"},
                {"out", "the report's folder (default results/nightly/<cpu>/out_<suite>)"},
                {"threads", "threads of both sides of every figure (default 2)"},
                {"only", "comma-separated figure name prefixes (default: every figure)"},
                {"results", "where the committed tuning logs are (default results)"},
                {"plant", "regressions to plant: poor_config, unfused, slow_compile"}},
      .switches = {{"quick", "the quick suite (under 10 minutes on 2 cores)"},
                   {"update-baseline", "make this run (with the history's latest) the baseline"}},
      .aliases = {}};
  return spec;
}

absl::StatusOr<nightly::Plants> ReadPlants(const std::string& text) {
  nightly::Plants p;
  for (absl::string_view word : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    if (word == "poor_config") {
      p.poor_config = true;
    } else if (word == "unfused") {
      p.unfused = true;
    } else if (word == "slow_compile") {
      p.slow_compile = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--plant: '", word,
                       "' is not a plantable regression; known: poor_config, unfused, "
                       "slow_compile"));
    }
  }
  return p;
}

// The history's runs of r's suite, cpu and threads, oldest first.
std::vector<nightly::Record> SameKind(const std::vector<nightly::Record>& history,
                                      const nightly::Record& r) {
  std::vector<nightly::Record> same;
  for (const nightly::Record& h : history) {
    if (h.suite == r.suite && h.cpu == r.cpu && h.threads == r.threads) same.push_back(h);
  }
  return same;
}

}  // namespace

absl::Status BenchNightly(std::span<const std::string> args, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(const CommandArgs a,
                          CommandArgs::Parse("bench nightly", args, NightlySpec()));
  if (!a.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bench nightly: unexpected word '", a.positional().front(), "'"));
  }
  nightly::SuiteOptions options;
  options.quick = a.Switch("quick");
  TESSEL_ASSIGN_OR_RETURN(const int64_t threads, a.Int("threads", 2));
  if (threads < 1 || threads > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads must be between 1 and 1024, got ", threads));
  }
  options.threads = static_cast<int>(threads);
  TESSEL_ASSIGN_OR_RETURN(options.results_dir, a.Value("results", "results"));
  TESSEL_ASSIGN_OR_RETURN(const std::string only, a.Value("only", ""));
  options.only = absl::StrSplit(only, ',', absl::SkipEmpty());
  TESSEL_ASSIGN_OR_RETURN(const std::string plant, a.Value("plant", ""));
  TESSEL_ASSIGN_OR_RETURN(options.plants, ReadPlants(plant));
  const bool planted = !plant.empty();
  const bool update = a.Switch("update-baseline");
  if (planted && update) {
    return absl::InvalidArgumentError(
        "--plant and --update-baseline: a planted run is never a baseline");
  }
  // Paths per CPU and suite. The history and the baseline are read before anything runs: a bad
  // file is an error before an hour of measuring, and nothing is written.
  TESSEL_ASSIGN_OR_RETURN(const std::string cpu, nightly::HostCpu());
  const std::string suite = options.quick ? "quick" : "full";
  const std::string base = absl::StrCat(options.results_dir, "/nightly/", cpu, "/");
  TESSEL_ASSIGN_OR_RETURN(const std::string baseline_path,
                          a.Value("baseline", absl::StrCat(base, "baseline_", suite, ".json")));
  TESSEL_ASSIGN_OR_RETURN(const std::string history_path,
                          a.Value("history", absl::StrCat(base, "history_", suite, ".jsonl")));
  TESSEL_ASSIGN_OR_RETURN(const std::string out_dir,
                          a.Value("out", absl::StrCat(base, "out_", suite)));
  TESSEL_ASSIGN_OR_RETURN(std::vector<nightly::Record> history, nightly::ReadHistory(history_path));
  std::optional<nightly::Record> baseline;
  if (absl::StatusOr<nightly::Record> read = nightly::ReadBaseline(baseline_path); read.ok()) {
    baseline = *std::move(read);
    if (!options.only.empty()) {
      // Only the figures this run was asked for are judged; the others are not missing.
      std::erase_if(baseline->figures, [&](const nightly::Figure& f) {
        return std::none_of(
            options.only.begin(), options.only.end(),
            [&](const std::string& prefix) { return f.name.rfind(prefix, 0) == 0; });
      });
    }
  } else if (read.status().code() != absl::StatusCode::kNotFound) {
    return read.status();
  }
  if (baseline &&
      (baseline->cpu != cpu || baseline->suite != suite || baseline->threads != options.threads)) {
    return absl::FailedPreconditionError(
        absl::StrCat(baseline_path, ": a baseline of the ", baseline->suite, " suite on ",
                     baseline->cpu, " with ", baseline->threads, " threads cannot judge the ",
                     suite, " suite on ", cpu, " with ", options.threads, " threads"));
  }

  // Scratch (the exported models, the tuning run) in a fresh folder of its own.
  std::string scratch = (std::filesystem::temp_directory_path() / "tessel-nightly-XXXXXX").string();
  if (mkdtemp(scratch.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a scratch folder ", scratch));
  }
  options.work_dir = scratch;
  struct RemoveScratch {
    std::string path;
    ~RemoveScratch() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove_scratch{scratch};
  TESSEL_ASSIGN_OR_RETURN(const nightly::Record record, nightly::RunSuite(options, out));
  if (!planted) {
    TESSEL_RETURN_IF_ERROR(nightly::AppendHistory(history_path, record));
    history.push_back(record);
  } else {
    out << "planted regressions: this run is not added to the history\n";
  }
  std::optional<nightly::Verdict> verdict;
  if (baseline) {
    TESSEL_ASSIGN_OR_RETURN(verdict, nightly::Judge(record, *baseline, history));
    // A regression stands only if it shows again (confirm.h); the history keeps the first run.
    TESSEL_RETURN_IF_ERROR(nightly::ConfirmRegressions(
        *verdict, *baseline, history, [&](const std::vector<std::string>& figures) {
          out << "measuring again what regressed: " << absl::StrJoin(figures, ", ") << "\n";
          nightly::SuiteOptions again = options;
          again.only = figures;
          return nightly::RunSuite(again, out);
        }));
  } else {
    out << "no baseline at " << baseline_path
        << ": nothing to judge (--update-baseline writes one)\n";
  }

  // The report: what was measured, and the verdict where there is one.
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(out_dir + "/record.json",
                                                      nightly::ToJson(record).dump(2) + "\n"));
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(
      out_dir + "/benchmark.json", nightly::GoogleBenchmarkJson(record).dump(2) + "\n"));
  if (verdict) {
    TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(out_dir + "/report.md",
                                                        nightly::MarkdownReport(record, *verdict)));
  }
  absl::StatusOr<std::string> script = nightly::FindHistoryPlotScript();
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      script.ok()
          ? nightly::PlotHistory(*script, history_path, out_dir + "/plots",
                                 absl::StrCat("nightly ", record.suite, ", ", record.cpu))
          : absl::StatusOr<std::vector<std::pair<std::string, std::string>>>(script.status());
  if (!plots.ok()) out << "no trend plots: " << plots.status().message() << "\n";
  out << "report in " << out_dir << "\n";

  if (update) {
    std::vector<nightly::Record> runs = SameKind(history, record);
    if (runs.size() > kBaselineRuns) runs.erase(runs.begin(), runs.end() - kBaselineRuns);
    TESSEL_ASSIGN_OR_RETURN(const nightly::Record merged, nightly::BaselineFromRuns(runs));
    TESSEL_RETURN_IF_ERROR(nightly::WriteBaseline(baseline_path, merged));
    out << "baseline " << baseline_path << " updated: the median of " << runs.size() << " run(s)\n";
    if (runs.size() < 3) {
      out << "warning: a baseline of fewer than 3 runs is their mean, which one disturbed run "
             "(a busy machine) moves; update it again after more runs\n";
    }
    return absl::OkStatus();
  }
  if (!verdict) return absl::OkStatus();
  const std::vector<std::string> failures = nightly::FailureLines(*verdict);
  int improved = 0;
  for (const nightly::FigureVerdict& f : verdict->figures) {
    improved += f.status == nightly::FigureStatus::kImproved;
  }
  if (verdict->passed) {
    out << "nightly: PASS (" << verdict->figures.size() << " figures, " << improved
        << " improved, against the baseline of " << verdict->baseline_date << ")\n";
    return absl::OkStatus();
  }
  for (const std::string& line : failures) out << line << "\n";
  return absl::FailedPreconditionError(
      absl::StrCat("nightly: FAIL: ", failures.size(), " figure(s) regressed or missing (",
                   verdict->commit_range, "), see ", out_dir, "/report.md"));
}

}  // namespace tessel::cli
