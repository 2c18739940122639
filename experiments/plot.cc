#include "experiments/plot.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "experiments/runfiles.h"

namespace tessel::experiments {
namespace {

constexpr int kExitNoMatplotlib = 2;  // plot.py's exit status when matplotlib is missing

struct Outcome {
  int status = -1;     // exit status, -1 when killed or not started
  std::string output;  // stdout then stderr, interleaved as written
};

// Runs argv with stdout and stderr captured. An error only when it could not be started.
absl::StatusOr<Outcome> RunCaptured(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    const std::string message = absl::StrCat("cannot run ", argv[0], ": ", std::strerror(errno));
    [[maybe_unused]] ssize_t n = write(STDERR_FILENO, message.data(), message.size());
    _exit(127);
  }
  close(fds[1]);
  Outcome outcome;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    outcome.output.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) outcome.status = WEXITSTATUS(status);
  return outcome;
}

// The PNG file names the script printed, after checking how it ended.
absl::StatusOr<std::vector<std::string>> RunScript(const std::vector<std::string>& argv) {
  absl::StatusOr<Outcome> run = RunCaptured(argv);
  if (!run.ok()) return run.status();
  const std::string output(absl::StripTrailingAsciiWhitespace(run->output));
  if (run->status == kExitNoMatplotlib) return absl::FailedPreconditionError(output);
  if (run->status != 0) {
    return absl::InternalError(
        absl::StrCat("the plot script failed (exit ", run->status, "): ", output));
  }
  std::vector<std::string> pngs;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
    const std::string png(line);
    if (png.size() > 4 && png.compare(png.size() - 4, 4, ".png") == 0) pngs.push_back(png);
  }
  return pngs;
}

// The one PNG a run of the script for a single figure (`what`, plural, for the message) wrote.
absl::StatusOr<std::string> RunOneFigure(const std::vector<std::string>& argv,
                                         const std::string& what) {
  absl::StatusOr<std::vector<std::string>> pngs = RunScript(argv);
  if (!pngs.ok()) return pngs.status();
  if (pngs->size() != 1) {
    return absl::InternalError(
        absl::StrCat("the plot script wrote ", pngs->size(), " ", what, ", not one"));
  }
  return pngs->front();
}

}  // namespace

absl::StatusOr<std::string> FindPlotScript() { return FindRunfile("experiments/plot.py"); }

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> RunPlotScript(
    const std::string& script, const std::string& trials_csv, const std::string& out_dir,
    const std::string& title, const std::vector<std::string>& model_strategies,
    const std::string& python) {
  std::vector<std::string> argv = {python, script, trials_csv, out_dir, "--title", title};
  if (model_strategies.size() >= 2) {
    argv.push_back("--models");
    argv.push_back(absl::StrJoin(model_strategies, ","));
  }
  absl::StatusOr<std::vector<std::string>> pngs = RunScript(argv);
  if (!pngs.ok()) return pngs.status();
  std::vector<std::pair<std::string, std::string>> plots;
  for (const std::string& png : *pngs) {
    absl::string_view workload = png;
    absl::ConsumeSuffix(&workload, ".png");
    absl::ConsumeSuffix(&workload, "_models");
    plots.emplace_back(std::string(workload), png);
  }
  return plots;
}

absl::StatusOr<std::string> RunBarPlotScript(const std::string& script,
                                             const std::string& summary_csv,
                                             const std::string& out_dir, const std::string& title,
                                             const std::string& values, const std::string& png,
                                             const std::string& python) {
  return RunOneFigure(
      {python, script, "--bars", values, "--png", png, summary_csv, out_dir, "--title", title},
      "bar charts");
}

absl::StatusOr<std::string> RunRooflinePlotScript(const std::string& script,
                                                  const std::string& roofline_csv,
                                                  const std::string& out_dir,
                                                  const std::string& title, const std::string& png,
                                                  const std::string& python) {
  return RunOneFigure(
      {python, script, "--roofline", "--png", png, roofline_csv, out_dir, "--title", title},
      "rooflines");
}

}  // namespace tessel::experiments
