#include "experiments/nightly/report.h"

#include <absl/strings/match.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_replace.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

namespace tessel::experiments::nightly {
namespace {

// Table cells: a '|' would end the cell.
std::string Cell(const std::string& text) { return absl::StrReplaceAll(text, {{"|", "\\|"}}); }

// {"tessel_ms": 3.1, "onednn_ms": 4.2} -> "tessel 3.10 ms, onednn 4.20 ms".
std::string Absolute(const nlohmann::json& absolute) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : absolute.items()) {
    if (!value.is_number()) {
      parts.push_back(
          absl::StrCat(key, " ", value.is_string() ? value.get<std::string>() : value.dump()));
      continue;
    }
    std::string side = key;
    std::string unit;
    for (const char* suffix : {"_ms", "_us", "_ns", "_s", "_mb"}) {
      if (absl::EndsWith(key, suffix) && key.size() > std::string(suffix).size()) {
        side = key.substr(0, key.size() - std::string(suffix).size());
        unit = std::string(suffix + 1);
        if (unit == "mb") unit = "MB";
        break;
      }
    }
    parts.push_back(absl::StrCat(side, " ", FormatValue(value.get<double>(), unit)));
  }
  return absl::StrJoin(parts, ", ");
}

std::string Versions(const nlohmann::json& versions) {
  std::vector<std::string> parts;
  for (const auto& [library, version] : versions.items()) {
    parts.push_back(absl::StrCat(
        library, " ", version.is_string() ? version.get<std::string>() : version.dump()));
  }
  return parts.empty() ? "none recorded" : absl::StrJoin(parts, ", ");
}

std::string StatusCell(const FigureVerdict& f) {
  const std::string name = FigureStatusName(f.status);
  const std::string status =
      f.status == FigureStatus::kRegressed || f.status == FigureStatus::kMissing
          ? absl::StrCat("**", name, "**")
          : name;
  if (!std::isfinite(f.rerun_value)) return status;
  return absl::StrCat(status, " (measured again: ", FormatValue(f.rerun_value, f.unit), ")");
}

// Families in order of first appearance.
std::vector<std::string> Families(const Verdict& verdict) {
  std::vector<std::string> families;
  for (const FigureVerdict& f : verdict.figures) {
    if (std::find(families.begin(), families.end(), f.family) == families.end()) {
      families.push_back(f.family);
    }
  }
  return families;
}

// Our side's absolute time and its Google Benchmark time unit, if the figure has one.
bool OurTime(const Figure& f, double* time, std::string* unit) {
  for (const char* u : {"ms", "s", "us", "ns"}) {
    auto it = f.absolute.find(absl::StrCat("tessel_", u));
    if (it != f.absolute.end() && it->is_number()) {
      *time = it->get<double>();
      *unit = u;
      return true;
    }
  }
  return false;
}

// Keys Google Benchmark's own fields use: a counter must not take them.
bool Reserved(const std::string& key) {
  static const char* const kReserved[] = {"name",
                                          "family_index",
                                          "per_family_instance_index",
                                          "run_name",
                                          "run_type",
                                          "repetitions",
                                          "repetition_index",
                                          "threads",
                                          "iterations",
                                          "real_time",
                                          "cpu_time",
                                          "time_unit",
                                          "label",
                                          "aggregate_name",
                                          "error_occurred",
                                          "error_message"};
  for (const char* r : kReserved) {
    if (key == r) return true;
  }
  return false;
}

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

std::string MarkdownReport(const Record& current, const Verdict& verdict) {
  std::string out = absl::StrCat("# Nightly benchmarks: ", current.suite, " suite\n\n");
  absl::StrAppend(&out, "- date: ", current.date, "\n");
  absl::StrAppend(&out, "- commit: ", current.commit, " (", current.state, ")\n");
  absl::StrAppend(&out, "- suite: ", current.suite, "\n");
  absl::StrAppend(&out, "- machine: ", current.machine, "\n");
  absl::StrAppend(&out, "- cpu: ", current.cpu, ", threads: ", current.threads, "\n");
  absl::StrAppend(&out, "- libraries: ", Versions(current.versions), "\n");
  const std::string baseline_commit =
      verdict.commit_range.substr(0, verdict.commit_range.find(".."));
  absl::StrAppend(&out, "- baseline: commit ", baseline_commit, " (", verdict.baseline_date, ")",
                  verdict.baseline_runs > 1
                      ? absl::StrCat(", the median of ", verdict.baseline_runs, " runs")
                      : std::string(),
                  "\n");
  absl::StrAppend(&out, "- history: ", verdict.history_runs,
                  " earlier runs of this suite, cpu and thread count\n\n");

  const std::vector<std::string> failures = FailureLines(verdict);
  int improved = 0;
  int added = 0;
  for (const FigureVerdict& f : verdict.figures) {
    improved += f.status == FigureStatus::kImproved;
    added += f.status == FigureStatus::kNew;
  }
  if (verdict.passed) {
    absl::StrAppend(&out, "**PASS**: no figure regressed beyond its noise (commits ",
                    verdict.commit_range, "; ", improved, " improved, ", added, " new)\n\n");
  } else {
    absl::StrAppend(&out, "**FAIL**: ", failures.size(),
                    failures.size() == 1 ? " failure" : " failures", "\n\n");
    for (const std::string& line : failures) absl::StrAppend(&out, "- ", line, "\n");
    absl::StrAppend(&out, "\n");
  }

  for (const std::string& family : Families(verdict)) {
    absl::StrAppend(&out, "## ", family.empty() ? "(no family)" : family, "\n\n");
    absl::StrAppend(&out,
                    "| figure | baseline | this run | change | threshold | status | absolute |\n"
                    "|---|---:|---:|---:|---:|---|---|\n");
    for (const FigureVerdict& f : verdict.figures) {
      if (f.family != family) continue;
      const Figure* now = current.Find(f.name);
      absl::StrAppend(&out, "| ", Cell(f.name), " | ", FormatValue(f.old_value, f.unit), " | ",
                      FormatValue(f.new_value, f.unit), " | ", FormatPercent(f.change, true), " | ",
                      FormatPercent(f.threshold, false), " | ", StatusCell(f), " | ",
                      Cell(now != nullptr ? Absolute(now->absolute) : ""), " |\n");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out,
                  "A figure is a ratio ours / reference (> 1: faster than the reference) or a "
                  "value; its threshold is its measured noise (this run's repeats, the "
                  "baseline's and the run-to-run spread of the history) times k.\n");
  return out;
}

HostFacts ThisHost() {
  HostFacts host;
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0) host.host_name = name;
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) host.executable = exe.string();
  host.num_cpus = static_cast<int>(std::thread::hardware_concurrency());
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (!absl::StartsWith(line, "cpu MHz")) continue;
    const std::vector<std::string> parts = absl::StrSplit(line, ':');
    double mhz = 0;
    if (parts.size() == 2 && absl::SimpleAtod(parts[1], &mhz)) {
      host.mhz_per_cpu = static_cast<int>(std::lround(mhz));
    }
    break;
  }
  const std::string governor = FirstLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  host.cpu_scaling_enabled = !governor.empty() && governor != "performance";
  for (absl::string_view part : absl::StrSplit(FirstLine("/proc/loadavg"), ' ')) {
    double load = 0;
    if (host.load_avg.size() < 3 && absl::SimpleAtod(part, &load)) host.load_avg.push_back(load);
  }
  return host;
}

nlohmann::json GoogleBenchmarkJson(const Record& r, const HostFacts& host) {
  nlohmann::json context;
  context["date"] = r.date;
  context["host_name"] = host.host_name;
  context["executable"] = host.executable;
  context["num_cpus"] = host.num_cpus;
  context["mhz_per_cpu"] = host.mhz_per_cpu;
  context["cpu_scaling_enabled"] = host.cpu_scaling_enabled;
  context["caches"] = nlohmann::json::array();
  context["load_avg"] = host.load_avg;
#ifdef NDEBUG
  context["library_build_type"] = "release";
#else
  context["library_build_type"] = "debug";
#endif
  context["json_schema_version"] = 1;
  // Custom context (benchmark::AddCustomContext): strings.
  context["tessel_commit"] = r.commit;
  context["tessel_state"] = r.state;
  context["nightly_suite"] = r.suite;
  context["machine"] = r.machine;
  context["cpu"] = r.cpu;
  for (const auto& [library, version] : r.versions.items()) {
    context[absl::StrCat(library, "_version")] =
        version.is_string() ? version.get<std::string>() : version.dump();
  }

  std::map<std::string, int> family_index;
  std::map<std::string, int> instances;
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const Figure& f : r.figures) {
    const auto [it, added] = family_index.emplace(f.family, static_cast<int>(family_index.size()));
    (void)added;
    nlohmann::json b;
    b["name"] = f.name;
    b["family_index"] = it->second;
    b["per_family_instance_index"] = instances[f.family]++;
    b["run_name"] = f.name;
    b["run_type"] = "iteration";
    b["repetitions"] = 1;
    b["repetition_index"] = 0;
    b["threads"] = r.threads;
    b["iterations"] = 1;
    double time = 0;
    std::string unit;
    if (!OurTime(f, &time, &unit)) {
      time = f.value;
      const bool is_time = f.unit == "s" || f.unit == "ms" || f.unit == "us" || f.unit == "ns";
      unit = is_time ? f.unit : "s";
    }
    const nlohmann::json t = std::isfinite(time) ? nlohmann::json(time) : nlohmann::json(nullptr);
    b["real_time"] = t;
    b["cpu_time"] = t;
    b["time_unit"] = unit;
    b["value"] = std::isfinite(f.value) ? nlohmann::json(f.value) : nlohmann::json(nullptr);
    b["repeats"] = f.repeats.size();
    for (const auto& [key, value] : f.absolute.items()) {
      if (value.is_number() && !Reserved(key) && !b.contains(key)) b[key] = value;
    }
    b["label"] = absl::StrCat(FormatValue(f.value, f.unit), " (",
                              f.higher_is_better ? "higher" : "lower", " is better)");
    benchmarks.push_back(std::move(b));
  }
  nlohmann::json out;
  out["context"] = std::move(context);
  out["benchmarks"] = std::move(benchmarks);
  return out;
}

}  // namespace tessel::experiments::nightly
