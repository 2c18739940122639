#include "cli/gemm_commands.h"

#include <absl/strings/str_format.h>

#include <algorithm>
#include <thread>

#include "cli/flags.h"
#include "compiler/runtime/timer.h"
#include "compiler/target/host_target.h"
#include "experiments/bench_target.h"
#include "experiments/gemm_job.h"
#include "experiments/side_benches.h"
#include "hardware/host/fma_peak.h"

namespace tessel::cli {

using experiments::GemmJob;
using experiments::GemmShape;

absl::Status BenchGemm(std::span<const std::string> args, std::ostream& out) {
  absl::StatusOr<Flags> flags = Flags::Parse("bench gemm", args,
                                             {{"m", "rows of A and C"},
                                              {"n", "columns of B and C"},
                                              {"k", "columns of A, rows of B"},
                                              {"threads", "threads for both sides"},
                                              {"repeat", "timed repeats (>= 5)"}});
  if (!flags.ok()) return flags.status();
  GemmShape shape;
  absl::StatusOr<int64_t> m = flags->Int("m", 1024), n = flags->Int("n", 1024),
                          k = flags->Int("k", 1024), threads = flags->Int("threads", 1),
                          repeat = flags->Int("repeat", 7);
  for (const auto* v : {&m, &n, &k, &threads, &repeat}) {
    if (!v->ok()) return v->status();
  }
  if (*repeat < 5 || *repeat > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repeat must be between 5 and 1000, got ", *repeat));
  }
  shape = {*m, *n, *k};
  if (absl::Status s = experiments::CheckGemmJob(shape, *threads); !s.ok()) return s;
  experiments::RoundRobinOptions options;
  options.repeat = static_cast<int>(*repeat);
  options.warmup = 2;
  options.min_repeat_ms = 100;
  absl::StatusOr<experiments::GemmComparison> c =
      experiments::CompareGemm(shape, static_cast<int>(*threads), options);
  if (!c.ok()) return c.status();
  const double mine = c->timing.ours_ms / 1e3, theirs = c->timing.theirs_ms / 1e3;
  out << experiments::BenchMetadata(target::NativeTarget(), static_cast<int>(*threads));
  out << absl::StrFormat("gemm %dx%dx%d fp32; compile %.0f ms; output matches OpenBLAS\n", shape.m,
                         shape.n, shape.k, c->compile_ms);
  out << absl::StrFormat("tessel:   median %8.3f ms  %7.1f GFLOPS\n", mine * 1e3,
                         shape.Gflop() / mine);
  out << absl::StrFormat("openblas: median %8.3f ms  %7.1f GFLOPS\n", theirs * 1e3,
                         shape.Gflop() / theirs);
  out << absl::StrFormat(
      "(%d interleaved repeats after warm-up, each side in a process of its own and timed while "
      "the other is idle: the idle side used at most %.1f%% of a core; ratio = median of "
      "per-repeat openblas time / tessel time)\n",
      options.repeat, 100 * c->timing.interference);
  out << absl::StrFormat("tessel/openblas = %.3f\n", c->timing.ratio);
  return absl::OkStatus();
}

absl::Status BenchSchedules(std::span<const std::string> args, std::ostream& out) {
  absl::StatusOr<Flags> flags = Flags::Parse("bench schedules", args, {{"threads", "threads"}});
  if (!flags.ok()) return flags.status();
  absl::StatusOr<int64_t> threads =
      flags->Int("threads", std::max(1u, std::thread::hardware_concurrency()));
  if (!threads.ok()) return threads.status();
  const GemmShape shape;
  absl::StatusOr<GemmJob> job = GemmJob::Create(shape, static_cast<int>(*threads));
  if (!job.ok()) return job.status();
  out << experiments::BenchMetadata(target::NativeTarget(), job->threads());
  const hardware::FmaPeak peak = hardware::MeasureFmaPeak();
  const double peak_gflops = peak.GflopsFor(job->threads());
  out << absl::StrFormat(
      "peak: %d cores x %.1f fp32 FMA lanes x 2 x %.2f GHz = %.0f GFLOPS (measured by FMA loops)\n",
      job->threads(), peak.lanes, peak.ghz, peak_gflops);
  out << absl::StrFormat("matrix multiplication %dx%dx%d fp32\n\n", shape.m, shape.n, shape.k);

  struct Row {
    std::string name;
    double seconds;
  };
  std::vector<Row> rows;
  runtime::TimerOptions quick;  // the default schedule is slow: one run after one warm-up
  quick.repeat = 1;
  runtime::TimerOptions careful;
  careful.repeat = 5;
  careful.warmup = 2;
  careful.min_repeat_ms = 100;
  const ops::x86::GemmProgram naive = ops::x86::GemmDefault(shape.m, shape.n, shape.k);
  absl::StatusOr<ops::x86::GemmProgram> hand = job->HandSchedule();
  if (!hand.ok()) return hand.status();
  struct Candidate {
    const char* name;
    const ops::x86::GemmProgram* program;
    runtime::TimerOptions options;
  };
  for (const Candidate& c :
       {Candidate{"default", &naive, quick}, Candidate{"hand-written", &*hand, careful}}) {
    const char* name = c.name;
    const ops::x86::GemmProgram* program = c.program;
    const runtime::TimerOptions& options = c.options;
    double compile_seconds = 0;
    absl::StatusOr<runtime::Function> f = job->Compile(*program, &compile_seconds);
    if (!f.ok()) return f.status();
    if (absl::Status s = job->Check(*f); !s.ok()) {
      return absl::InternalError(absl::StrCat("the ", name, " schedule is wrong: ", s.message()));
    }
    absl::StatusOr<std::vector<double>> times =
        runtime::TimeRepeats([&] { job->Run(*f); }, options);
    if (!times.ok()) return times.status();
    rows.push_back({name, runtime::Median(*times)});
  }
  absl::StatusOr<std::vector<double>> blas =
      runtime::TimeRepeats([&] { job->RunOpenBlas(); }, careful);
  if (!blas.ok()) return blas.status();
  const double blas_seconds = runtime::Median(*blas);
  rows.push_back({"openblas", blas_seconds});

  out << absl::StrFormat("%-14s %10s %10s %18s %17s\n", "schedule", "ms", "GFLOPS",
                         "ratio to OpenBLAS", "fraction of peak");
  for (const Row& r : rows) {
    const double gflops = shape.Gflop() / r.seconds;
    out << absl::StrFormat("%-14s %10.2f %10.1f %18.3f %17.3f\n", r.name, r.seconds * 1e3, gflops,
                           blas_seconds / r.seconds, gflops / peak_gflops);
  }
  out << "\nBoth schedules were checked against OpenBLAS. For an interleaved comparison:\n"
         "  ./tessel bench gemm --m 1024 --n 1024 --k 1024 --threads 1\n";
  return absl::OkStatus();
}

}  // namespace tessel::cli
