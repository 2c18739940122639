#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// One nightly run as data: what was measured (figures), on what (machine, build, libraries), and
// how its history is kept (one JSON object per line, a run appended as it ends).
//
// A figure is a ratio against a reference timed in the same run where one exists (ours over
// oneDNN, libtorch, OpenBLAS: > 1 is faster than the reference), so that machine noise common
// to both sides cancels; otherwise (compile seconds, trials per minute) the value itself. Each
// figure keeps its per-repeat values, from which the verdict reads this run's spread, and the
// absolute times of both sides for people.
namespace tessel::experiments::nightly {

struct Figure {
  std::string name;    // unique in a run: "gemm_1024", "table2/C6", "network/resnet18", ...
  std::string family;  // what a trend plot groups: "gemm", "table2", "networks", "compile", ...
  std::string unit;    // "x" (a ratio), "s", "trials/min", "MB"
  bool higher_is_better = true;
  double value = 0;             // the figure: the median of `repeats` where there are repeats
                                // (NaN when not measured: null in JSON)
  std::vector<double> repeats;  // per-repeat values (ratios of one round each); may be empty
  // For people: the absolute medians this run measured, e.g. {"tessel_ms": 3.1, "onednn_ms":
  // 4.2}; never compared.
  nlohmann::json absolute = nlohmann::json::object();
};

// A figure of value 0, without repeats or absolute times: the caller measures the rest.
Figure MakeFigure(const std::string& name, const std::string& family, const std::string& unit,
                  bool higher_is_better);

struct Record {
  std::string date;     // UTC, ISO 8601
  std::string commit;   // short hash (build_info.h), "unknown" outside git
  std::string state;    // "clean", "modified", "unknown"
  std::string suite;    // "quick" or "full"
  std::string machine;  // the CPU model, e.g. "AMD EPYC 7B13"
  std::string cpu;      // LLVM's name for it: "znver3"
  int threads = 2;
  nlohmann::json versions = nlohmann::json::object();  // library -> version
  std::vector<Figure> figures;
  // 1 for a run. A baseline merged from several runs (verdict.h, BaselineFromRuns) has more:
  // each figure's value is then the median of the runs' values, and its `repeats` are those
  // values, one per run, so that the verdict knows how precise the baseline is.
  int runs = 1;

  const Figure* Find(const std::string& name) const;
};

nlohmann::json ToJson(const Record& r);
// Errors name the JSON path of what is missing or of the wrong type.
absl::StatusOr<Record> RecordFromJson(const nlohmann::json& j);

// The records of a history file, oldest first; a missing file is an empty history. Errors name
// the file and line.
absl::StatusOr<std::vector<Record>> ReadHistory(const std::string& path);
// Appends r as one line, creating the file (and its folder) if needed; the line is written
// whole or not at all (written to a temporary file beside the history and renamed over it).
absl::Status AppendHistory(const std::string& path, const Record& r);

// A baseline file holds one record (pretty-printed JSON). Errors name the file.
absl::StatusOr<Record> ReadBaseline(const std::string& path);
absl::Status WriteBaseline(const std::string& path, const Record& r);

}  // namespace tessel::experiments::nightly
