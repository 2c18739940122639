#include "experiments/onednn_baseline.h"

#include <absl/time/clock.h>
#include <absl/time/time.h>

#include <algorithm>
#include <random>

#include "baselines/dnnl/conv2d.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "hardware/host/machine.h"

namespace tessel::experiments {
namespace {

runtime::NDArray RandomArray(std::vector<int64_t> shape, std::mt19937& rng) {
  runtime::NDArray array = runtime::NDArray::Empty(std::move(shape), DLDataType{kDLFloat, 32, 1});
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  float* data = array.data<float>();
  for (int64_t i = 0; i < array.NumElements(); ++i) data[i] = uniform(rng);
  return array;
}

}  // namespace

absl::StatusOr<BaselineTime> MeasureOnednnConv2d(const ops::OpArgs& args, int threads, int repeat) {
  TESSEL_ASSIGN_OR_RETURN(ops::nn::Conv2dAttrs a, ops::nn::ReadConv2dAttrs("onednn", args));
  std::mt19937 rng(1);
  runtime::NDArray data = RandomArray({a.n, a.ic, a.h, a.w}, rng);
  runtime::NDArray weight = RandomArray({a.oc, a.ic / a.groups, a.kh, a.kw}, rng);
  // The primitive is sized for the thread count in force when it is created.
  baselines::SetDnnlThreads(threads);
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<baselines::DnnlConv2d> conv,
                          baselines::DnnlConv2d::Create(args));
  TESSEL_RETURN_IF_ERROR(conv->SetInputs(data, weight));
  runtime::TimerOptions timer;
  timer.repeat = std::max(7, repeat);
  timer.warmup = 2;
  timer.min_repeat_ms = 50;
  BaselineTime time;
  TESSEL_ASSIGN_OR_RETURN(time.repeats, runtime::TimeRepeats([&] { conv->Run(); }, timer));
  time.seconds = runtime::Median(time.repeats);
  time.implementation = conv->implementation();
  time.measured_at = absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::Now(), absl::UTCTimeZone());
  return time;
}

nlohmann::json BaselineKey(const ops::OpArgs& args, int threads, const std::string& target) {
  return {{"args", args},
          {"threads", threads},
          {"target", target},
          {"machine", hardware::DescribeHost()}};
}

std::optional<BaselineTime> FindRecordedBaseline(const nlohmann::json& recorded,
                                                 const std::string& workload,
                                                 const nlohmann::json& key) {
  if (!recorded.is_object() || recorded.value("version", 0) != 1) return std::nullopt;
  const nlohmann::json& all = recorded.value("workloads", nlohmann::json::object());
  if (!all.is_object() || !all.contains(workload)) return std::nullopt;
  const nlohmann::json& entry = all[workload];
  if (!entry.is_object() || entry.value("key", nlohmann::json()) != key) return std::nullopt;
  try {
    BaselineTime time;
    time.seconds = entry.at("seconds").get<double>();
    time.repeats = entry.at("repeats").get<std::vector<double>>();
    time.implementation = entry.at("implementation").get<std::string>();
    time.measured_at = entry.at("measured_at").get<std::string>();
    if (!(time.seconds > 0)) return std::nullopt;
    return time;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

nlohmann::json RecordBaseline(nlohmann::json recorded, const std::string& workload,
                              const nlohmann::json& key, const BaselineTime& time) {
  if (!recorded.is_object() || recorded.value("version", 0) != 1) {
    recorded = {{"version", 1}, {"workloads", nlohmann::json::object()}};
  }
  if (!recorded["workloads"].is_object()) recorded["workloads"] = nlohmann::json::object();
  recorded["workloads"][workload] = {{"key", key},
                                     {"seconds", time.seconds},
                                     {"repeats", time.repeats},
                                     {"implementation", time.implementation},
                                     {"measured_at", time.measured_at}};
  return recorded;
}

}  // namespace tessel::experiments
