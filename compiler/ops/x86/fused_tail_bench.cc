// A development tool: what a fused element-wise tail (Template::instantiate_with_tail) costs a
// template. Times the fallback program without a tail against the same program with a tail,
// interleaved (runtime::TimeInterleaved: a batch of one, then a batch of the other, per repeat),
// for two tails on the logical output l:
//   bias_relu           max(out + bias[l[1]], 0)                  (conv + batch norm + relu)
//   bias_relu_residual  max(out + bias[l[1]], 0) + residual[l]    (tail_check.h's test tail)
// and, with --block=B, a third whose residual is NCHW{B}c (the blocked templates' output layout,
// B their channel block) instead of logical NCHW, to tell what reading a logical residual from
// a blocked output stage costs (a strided gather per vector) from what its bytes cost:
//   bias_relu_residual_blocked  max(out + bias[l[1]], 0) + residual[n, c / B, h, w, c % B]
//
//   fused_tail_bench <template> <Table 2 layer | '<args JSON>'> [--threads=N] [--repeat=R]
//                    [--block=B] [knob=value ...]
//
// Without knob=value pairs the fallback config is used; a pair overrides one knob (value as
// Config::ToJson writes it).
// Prints, per tail, the median time of each program and the median of the per-repeat ratios.
#include <absl/strings/numbers.h>

#include <cstdio>
#include <string>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/bench_config.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/target/host_target.h"
#include "compiler/te/compute.h"
#include "workloads/table2.h"

namespace tessel::ops {
namespace {

const target::Target kTarget = target::NativeTarget();

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

// A program compiled with its prepared inputs and outputs, ready to call.
struct Runnable {
  runtime::Function f;
  std::vector<runtime::NDArray> inputs, outputs;
  std::vector<runtime::Arg> call;
};

absl::StatusOr<Runnable> MakeRunnable(const OpProgram& p) {
  Runnable r;
  absl::StatusOr<runtime::Function> f = CompileProgram(p, "op", kTarget);
  if (!f.ok()) return f.status();
  r.f = *std::move(f);
  absl::StatusOr<std::vector<runtime::NDArray>> in =
      PrepareInputs(p, RandomInputs(p.logical_inputs, 1));
  if (!in.ok()) return in.status();
  r.inputs = *std::move(in);
  r.outputs = AllocateOutputs(p);
  r.call = CallArguments(r.inputs, r.outputs);
  return r;
}

// residual: none (0), logical (1), or blocked by `block` (2; a 4-d NCHW shape).
OutputTail MakeTail(const std::vector<int64_t>& shape, int residual, int64_t block) {
  te::Tensor bias = te::placeholder({nn::Dim(shape[1])}, ir::kFloat32, "tail_bias");
  OutputTail tail{{bias}, nullptr};
  te::Tensor res;
  if (residual == 1) res = te::placeholder(nn::ShapeExprs(shape), ir::kFloat32, "tail_residual");
  if (residual == 2) {
    res = te::placeholder(nn::ShapeExprs({shape[0], shape[1] / block, shape[2], shape[3], block}),
                          ir::kFloat32, "tail_residual");
  }
  if (res.defined()) tail.inputs.push_back(res);
  tail.apply = [bias, res, residual, block](ir::Expr v, const std::vector<ir::Expr>& l) {
    ir::Expr out = ir::max(v + bias(l[1]), ir::MakeZero(ir::kFloat32));
    if (residual == 1) return out + res(l);
    if (residual == 2) {
      const ir::Expr b = nn::Dim(block);
      return out + res(l[0], ir::floordiv(l[1], b), l[2], l[3], ir::floormod(l[1], b));
    }
    return out;
  };
  return tail;
}

int Run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s <template> <Table 2 layer | '<args JSON>'> [--threads=N] "
                 "[--repeat=R]\n",
                 argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  OpArgs args;
  if (absl::StatusOr<workloads::Layer> layer = workloads::FindLayer(argv[2]); layer.ok()) {
    args = workloads::Conv2dArgs(*layer);
  } else {
    args = nlohmann::json::parse(argv[2], nullptr, false);
    if (args.is_discarded()) return std::fprintf(stderr, "bad arguments %s\n", argv[2]), 2;
  }
  int threads = 1, repeat = 9;
  int64_t block = 0;
  nlohmann::json overrides = nlohmann::json::object();
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--threads=", 0) == 0 && absl::SimpleAtoi(arg.substr(10), &threads) &&
        threads >= 1) {
      continue;
    }
    if (arg.rfind("--repeat=", 0) == 0 && absl::SimpleAtoi(arg.substr(9), &repeat) && repeat >= 1) {
      continue;
    }
    if (arg.rfind("--block=", 0) == 0 && absl::SimpleAtoi(arg.substr(8), &block) && block >= 1) {
      continue;
    }
    if (size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) != 0) {
      overrides[arg.substr(0, eq)] = nlohmann::json::parse(arg.substr(eq + 1), nullptr, false);
      continue;
    }
    return std::fprintf(stderr, "bad argument %s\n", argv[i]), 2;
  }
  runtime::ThreadPool::Global().SetNumThreads(threads);
  absl::StatusOr<const Template*> t = FindTemplate(name);
  if (!t.ok()) return Fail(t.status());
  if (!(*t)->instantiate_with_tail) return std::fprintf(stderr, "%s takes no tail\n", argv[1]), 1;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(kTarget);
  if (!facts.ok()) return Fail(facts.status());
  facts->cores = threads;
  absl::StatusOr<search::Config> chosen = x86::FallbackWithOverrides(**t, args, *facts, overrides);
  if (!chosen.ok()) return Fail(chosen.status());
  const search::Config config = *chosen;
  absl::StatusOr<OpProgram> plain = (*t)->instantiate(config, args, *facts);
  if (!plain.ok()) return Fail(plain.status());
  absl::StatusOr<Runnable> a = MakeRunnable(*plain);
  if (!a.ok()) return Fail(a.status());
  std::printf("%s %s threads=%d\n  config %s\n", name.c_str(), args.dump().c_str(), threads,
              config.ToString().c_str());
  for (int residual : {0, 1, 2}) {
    if (residual == 2 && block == 0) break;
    absl::StatusOr<OpProgram> fused = (*t)->instantiate_with_tail(
        config, args, *facts, MakeTail(plain->logical_outputs.at(0).shape, residual, block));
    if (!fused.ok()) return Fail(fused.status());
    absl::StatusOr<Runnable> b = MakeRunnable(*fused);
    if (!b.ok()) return Fail(b.status());
    bool failed = false;
    absl::StatusOr<runtime::Interleaved> times = runtime::TimeInterleaved(
        [&] { failed |= !a->f(a->call).ok(); }, [&] { failed |= !b->f(b->call).ok(); },
        {.number = 1, .repeat = repeat, .min_repeat_ms = 100, .warmup = 2});
    if (!times.ok()) return Fail(times.status());
    if (failed) return std::fprintf(stderr, "run failed\n"), 1;
    const char* names[] = {"bias_relu", "bias_relu_residual", "bias_relu_residual_blocked"};
    std::printf("  %-26s no tail %.4f ms  tail %.4f ms  ratio %.3f (median of %d)\n",
                names[residual], runtime::Median(times->a_seconds) * 1e3,
                runtime::Median(times->b_seconds) * 1e3, times->median_ratio, repeat);
  }
  return 0;
}

}  // namespace
}  // namespace tessel::ops

int main(int argc, char** argv) { return tessel::ops::Run(argc, argv); }
