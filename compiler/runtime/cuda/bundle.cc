#include "compiler/runtime/cuda/bundle.h"

#include <absl/strings/str_cat.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "compiler/runtime/compare.h"
#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/runtime/cuda/driver_api.h"
#include "compiler/runtime/cuda/entry_workers.h"
#include "compiler/runtime/cuda/kernel_timer.h"
#include "compiler/runtime/device_api.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/npy.h"
#include "compiler/support/atomic_file.h"

namespace tessel::runtime::cuda {
namespace {

constexpr char kFormat[] = "tessel-cuda-bundle";
constexpr int kVersion = 2;  // 2: entries may carry inputs and an expected output
constexpr DLDataType kFloat32{kDLFloat, 32, 1};
constexpr DLDevice kGpu{kDLCUDA, 0};

using Json = nlohmann::json;

// The GPU's name and "sm_XY".
absl::Status DescribeGpu(const DriverApi& api, BundleResult& out) {
  if (absl::Status s = UseDevice(api, 0); !s.ok()) return s;
  CUdevice device = 0;
  if (absl::Status s = CheckCuda(api, api.cuDeviceGet(&device, 0), "cuDeviceGet"); !s.ok()) {
    return s;
  }
  char name[256] = {};
  if (absl::Status s =
          CheckCuda(api, api.cuDeviceGetName(name, sizeof name, device), "cuDeviceGetName");
      !s.ok()) {
    return s;
  }
  int major = 0, minor = 0;
  api.cuDeviceGetAttribute(&major, kDeviceAttributeComputeCapabilityMajor, device);
  api.cuDeviceGetAttribute(&minor, kDeviceAttributeComputeCapabilityMinor, device);
  out.device = name;
  out.arch = absl::StrCat("sm_", major, minor);
  return absl::OkStatus();
}

// An entry's input tensor t: its file, or uniform random numbers from rng.
absl::StatusOr<NDArray> EntryInput(const std::string& dir, const BundleEntry& entry, size_t t,
                                   std::mt19937& rng) {
  if (entry.inputs.empty()) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    NDArray host = NDArray::Empty(entry.tensors[t], kFloat32);
    for (int64_t e = 0; e < host.NumElements(); ++e) host.data<float>()[e] = uniform(rng);
    return host;
  }
  absl::StatusOr<NDArray> read = LoadNpy(absl::StrCat(dir, "/", entry.inputs[t]));
  if (!read.ok()) return read.status();
  if (read->shape() != entry.tensors[t] || read->dl()->dtype.code != kDLFloat ||
      read->dl()->dtype.bits != 32) {
    return absl::InvalidArgumentError(absl::StrCat(entry.inputs[t],
                                                   ": not a float32 array of the shape of tensor ",
                                                   t, " of entry '", entry.name, "'"));
  }
  return read;
}

// One entry: inputs, a checked call (against the expected output, or with its tensors written to
// arrays_dir), then the timer. A wrong output sets error_kind to "wrong_answer"; `timing` says how
// the calls were timed.
absl::StatusOr<std::vector<double>> RunEntry(const std::string& dir, const BundleEntry& entry,
                                             int position, const TimerOptions& timer,
                                             const std::string& arrays_dir, std::string& error_kind,
                                             std::string& timing) {
  absl::StatusOr<Module> module = LoadCudaModule(absl::StrCat(dir, "/", entry.module));
  if (!module.ok()) return module.status();
  absl::StatusOr<Function> kernel = module->GetFunction(entry.function);
  if (!kernel.ok()) return kernel.status();
  std::mt19937 rng(1000 + position);
  std::vector<NDArray> device;
  for (size_t t = 0; t < entry.tensors.size(); ++t) {
    absl::StatusOr<NDArray> host = NDArray::Empty(entry.tensors[t], kFloat32);
    if (t + 1 == entry.tensors.size()) {
      for (int64_t e = 0; e < host->NumElements(); ++e) host->data<float>()[e] = std::nanf("");
    } else {
      host = EntryInput(dir, entry, t, rng);
      if (!host.ok()) return host.status();
    }
    absl::StatusOr<NDArray> on_gpu = host->CopyTo(kGpu);
    if (!on_gpu.ok()) return on_gpu.status();
    device.push_back(*std::move(on_gpu));
  }
  std::vector<Arg> args;
  for (NDArray& d : device) args.push_back(d.dl());
  for (int64_t v : entry.scalars) args.push_back(v);
  auto call = [&] { return (*kernel)(args); };
  if (absl::Status s = call(); !s.ok()) return s;
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(kGpu);
  if (!api.ok()) return api.status();
  if (absl::Status s = (*api)->Synchronize(kGpu); !s.ok()) return s;
  if (!entry.expected.empty()) {
    absl::StatusOr<NDArray> want = LoadNpy(absl::StrCat(dir, "/", entry.expected));
    if (!want.ok()) return want.status();
    absl::StatusOr<NDArray> got = device.back().CopyTo({kDLCPU, 0});
    if (!got.ok()) return got.status();
    absl::Status same = CompareOutputs({*got}, {*want}, {.atol = entry.atol, .rtol = entry.rtol},
                                       "the expected output");
    if (!same.ok()) {
      error_kind = "wrong_answer";
      return same;
    }
  } else {
    for (size_t t = 0; t < device.size(); ++t) {
      absl::StatusOr<NDArray> back = device[t].CopyTo({kDLCPU, 0});
      if (!back.ok()) return back.status();
      const std::string path = absl::StrCat(arrays_dir, "/", entry.name, ".", t, ".npy");
      if (absl::Status s = SaveNpy(path, *back); !s.ok()) return s;
    }
  }
  absl::StatusOr<KernelTiming> timed = TimeKernelReplayed(call, timer);
  if (!timed.ok()) return timed.status();
  timing = timed->how;
  return timed->seconds;
}

// Past it an entry's worker is killed: a kernel that never ends must not stop the bundle.
constexpr int kEntryTimeoutSeconds = 120;

// The JSON document in the file at path; errors name it.
absl::StatusOr<Json> ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  Json j = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not JSON"));
  return j;
}

template <class T>
absl::StatusOr<T> Field(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": missing '", key, "'"));
  }
  try {
    return j.at(key).get<T>();
  } catch (const Json::exception&) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": '", key, "' has the wrong type: ", j.at(key).dump()));
  }
}

}  // namespace

absl::Status WriteBundle(const std::string& dir, const Bundle& bundle,
                         const std::vector<Module>& modules) {
  if (modules.size() != bundle.entries.size()) {
    return absl::InvalidArgumentError(absl::StrCat("bundle '", dir, "': ", bundle.entries.size(),
                                                   " entries but ", modules.size(), " modules"));
  }
  std::set<std::string> names;
  Json entries = Json::array();
  for (size_t i = 0; i < modules.size(); ++i) {
    const BundleEntry& e = bundle.entries[i];
    if (!names.insert(e.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("bundle '", dir, "': two entries are named '", e.name, "'"));
    }
    if (absl::Status s = support::MakeDirectories(dir); !s.ok()) return s;
    if (absl::Status s = modules[i].Save(absl::StrCat(dir, "/", e.module)); !s.ok()) return s;
    if (!e.inputs.empty() && e.inputs.size() + 1 != e.tensors.size()) {
      return absl::InvalidArgumentError(absl::StrCat("bundle '", dir, "': entry '", e.name,
                                                     "' has ", e.inputs.size(), " input files for ",
                                                     e.tensors.size() - 1, " input tensors"));
    }
    Json entry = {{"name", e.name},          {"module", e.module},   {"function", e.function},
                  {"tensors", e.tensors},    {"scalars", e.scalars}, {"flops", e.flops},
                  {"reference", e.reference}};
    if (!e.inputs.empty()) entry["inputs"] = e.inputs;
    if (!e.expected.empty()) {
      entry["expected"] = e.expected;
      entry["atol"] = e.atol;
      entry["rtol"] = e.rtol;
    }
    entries.push_back(std::move(entry));
  }
  const Json j = {{"format", kFormat},
                  {"version", kVersion},
                  {"target", bundle.target},
                  {"timer",
                   {{"number", bundle.timer.number},
                    {"repeat", bundle.timer.repeat},
                    {"min_repeat_ms", bundle.timer.min_repeat_ms},
                    {"warmup", bundle.timer.warmup}}},
                  {"entries", entries}};
  return support::WriteFileAtomically(dir + "/bundle.json", j.dump(1) + "\n");
}

absl::StatusOr<Bundle> ReadBundle(const std::string& dir) {
  const std::string path = dir + "/bundle.json";
  absl::StatusOr<Json> read = ReadJson(path);
  if (!read.ok()) return read.status();
  const Json& j = *read;
  absl::StatusOr<std::string> format = Field<std::string>(j, "format", path);
  if (!format.ok()) return format.status();
  absl::StatusOr<int> version = Field<int>(j, "version", path);
  if (!version.ok()) return version.status();
  if (*format != kFormat || *version < 1 || *version > kVersion) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a ", kFormat, " of version 1 to ",
                                                   kVersion, " (format '", *format, "', version ",
                                                   *version, ")"));
  }
  Bundle b;
  absl::StatusOr<std::string> target = Field<std::string>(j, "target", path);
  if (!target.ok()) return target.status();
  b.target = *target;
  const std::string timer_where = path + ": timer";
  if (!j.contains("timer")) return absl::InvalidArgumentError(path + ": missing 'timer'");
  const Json& t = j.at("timer");
  absl::StatusOr<int> number = Field<int>(t, "number", timer_where);
  absl::StatusOr<int> repeat = Field<int>(t, "repeat", timer_where);
  absl::StatusOr<double> min_ms = Field<double>(t, "min_repeat_ms", timer_where);
  absl::StatusOr<int> warmup = Field<int>(t, "warmup", timer_where);
  for (const absl::Status& s :
       {number.status(), repeat.status(), min_ms.status(), warmup.status()}) {
    if (!s.ok()) return s;
  }
  b.timer = {*number, *repeat, *min_ms, *warmup};
  if (absl::Status s = ValidateTimerOptions(b.timer); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(timer_where, ": ", s.message()));
  }
  absl::StatusOr<Json> entries = Field<Json>(j, "entries", path);
  if (!entries.ok()) return entries.status();
  if (!entries->is_array()) return absl::InvalidArgumentError(path + ": 'entries' is no list");
  for (size_t i = 0; i < entries->size(); ++i) {
    const Json& e = (*entries)[i];
    const std::string where = absl::StrCat(path, ": entries[", i, "]");
    BundleEntry out;
    absl::StatusOr<std::string> name = Field<std::string>(e, "name", where);
    absl::StatusOr<std::string> module = Field<std::string>(e, "module", where);
    absl::StatusOr<std::string> function = Field<std::string>(e, "function", where);
    absl::StatusOr<std::vector<std::vector<int64_t>>> tensors =
        Field<std::vector<std::vector<int64_t>>>(e, "tensors", where);
    absl::StatusOr<std::vector<int64_t>> scalars = Field<std::vector<int64_t>>(e, "scalars", where);
    absl::StatusOr<double> flops = Field<double>(e, "flops", where);
    absl::StatusOr<std::string> reference = Field<std::string>(e, "reference", where);
    for (const absl::Status& s :
         {name.status(), module.status(), function.status(), tensors.status(), scalars.status(),
          flops.status(), reference.status()}) {
      if (!s.ok()) return s;
    }
    if (tensors->empty()) return absl::InvalidArgumentError(where + ": no tensors");
    BundleEntry& entry = b.entries.emplace_back(BundleEntry{.name = *name,
                                                            .module = *module,
                                                            .function = *function,
                                                            .tensors = *tensors,
                                                            .scalars = *scalars,
                                                            .flops = *flops,
                                                            .reference = *reference});
    if (e.contains("inputs")) {
      absl::StatusOr<std::vector<std::string>> inputs =
          Field<std::vector<std::string>>(e, "inputs", where);
      if (!inputs.ok()) return inputs.status();
      if (inputs->size() + 1 != tensors->size()) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": ", inputs->size(),
                                                       " input files for ", tensors->size() - 1,
                                                       " input tensors"));
      }
      entry.inputs = *std::move(inputs);
    }
    if (e.contains("expected")) {
      absl::StatusOr<std::string> expected = Field<std::string>(e, "expected", where);
      absl::StatusOr<double> atol = Field<double>(e, "atol", where);
      absl::StatusOr<double> rtol = Field<double>(e, "rtol", where);
      for (const absl::Status& s : {expected.status(), atol.status(), rtol.status()}) {
        if (!s.ok()) return s;
      }
      entry.expected = *expected;
      entry.atol = *atol;
      entry.rtol = *rtol;
    }
  }
  return b;
}

absl::StatusOr<BundleResult> RunBundle(const std::string& dir, const std::string& arrays_dir) {
  absl::StatusOr<Bundle> bundle = ReadBundle(dir);
  if (!bundle.ok()) return bundle.status();
  if (absl::Status s = support::MakeDirectories(arrays_dir); !s.ok()) return s;
  // The GPU, described by a worker as every entry is run by one: this process never initializes
  // CUDA, so a kernel that faults or hangs spoils only its worker's context.
  const absl::StatusOr<std::string> described = RunInWorkers(
      1,
      [](size_t) {
        absl::StatusOr<const DriverApi*> api = Driver();
        BundleResult r;
        absl::Status s = api.ok() ? DescribeGpu(**api, r) : api.status();
        if (!s.ok()) {
          return WorkerStep{
              Json{{"code", static_cast<int>(s.code())}, {"error", s.message()}}.dump()};
        }
        return WorkerStep{Json{{"device", r.device}, {"arch", r.arch}}.dump()};
      },
      kEntryTimeoutSeconds)[0];
  if (!described.ok()) return described.status();
  const Json gpu = Json::parse(*described, nullptr, /*allow_exceptions=*/false);
  if (gpu.contains("error")) {
    return absl::Status(static_cast<absl::StatusCode>(gpu.value("code", 2)),
                        gpu.value("error", std::string()));
  }
  BundleResult result;
  result.device = gpu.value("device", std::string());
  result.arch = gpu.value("arch", std::string());
  // A worker goes on after a correct or a wrong answer; after any other error (a fault may have
  // spoilt its context) the next entry gets a new worker.
  const std::vector<absl::StatusOr<std::string>> ran = RunInWorkers(
      bundle->entries.size(),
      [&](size_t i) {
        absl::StatusOr<const DriverApi*> api = Driver();
        std::string kind, timing;
        absl::StatusOr<std::vector<double>> seconds =
            api.ok() ? RunEntry(dir, bundle->entries[i], static_cast<int>(i), bundle->timer,
                                arrays_dir, kind, timing)
                     : api.status();
        if (seconds.ok()) return WorkerStep{Json{{"seconds", *seconds}, {"timing", timing}}.dump()};
        if (kind.empty()) kind = "runtime";
        return WorkerStep{Json{{"error", seconds.status().message()}, {"error_kind", kind}}.dump(),
                          /*go_on=*/kind == "wrong_answer"};
      },
      kEntryTimeoutSeconds);
  for (size_t i = 0; i < bundle->entries.size(); ++i) {
    EntryResult r{.name = bundle->entries[i].name, .seconds = {}, .error = ""};
    const Json j = ran[i].ok() ? Json::parse(*ran[i], nullptr, /*allow_exceptions=*/false) : Json();
    if (!ran[i].ok() || !j.is_object()) {
      r.error = ran[i].ok() ? "the entry's process wrote no result"
                            : std::string(ran[i].status().message());
      r.error_kind = "runtime";
    } else if (j.contains("error")) {
      r.error = j.value("error", std::string());
      r.error_kind = j.value("error_kind", std::string("runtime"));
    } else {
      r.seconds = j.value("seconds", std::vector<double>());
      r.timing = j.value("timing", std::string());
    }
    result.entries.push_back(std::move(r));
  }
  return result;
}

std::string BundleResultToJson(const BundleResult& result) {
  Json entries = Json::array();
  for (const EntryResult& e : result.entries) {
    entries.push_back({{"name", e.name},
                       {"seconds", e.seconds},
                       {"error", e.error},
                       {"error_kind", e.error_kind},
                       {"timing", e.timing}});
  }
  return Json{{"device", result.device}, {"arch", result.arch}, {"entries", entries}}.dump(1) +
         "\n";
}

absl::StatusOr<BundleResult> ReadBundleResult(const std::string& path) {
  absl::StatusOr<Json> j = ReadJson(path);
  if (!j.ok()) return j.status();
  BundleResult result;
  absl::StatusOr<std::string> device = Field<std::string>(*j, "device", path);
  absl::StatusOr<std::string> arch = Field<std::string>(*j, "arch", path);
  absl::StatusOr<Json> entries = Field<Json>(*j, "entries", path);
  for (const absl::Status& s : {device.status(), arch.status(), entries.status()}) {
    if (!s.ok()) return s;
  }
  if (!entries->is_array()) return absl::InvalidArgumentError(path + ": 'entries' is no list");
  result.device = *device;
  result.arch = *arch;
  for (size_t i = 0; i < entries->size(); ++i) {
    const Json& e = (*entries)[i];
    const std::string where = absl::StrCat(path, ": entries[", i, "]");
    absl::StatusOr<std::string> name = Field<std::string>(e, "name", where);
    absl::StatusOr<std::vector<double>> seconds = Field<std::vector<double>>(e, "seconds", where);
    absl::StatusOr<std::string> error = Field<std::string>(e, "error", where);
    for (const absl::Status& s : {name.status(), seconds.status(), error.status()}) {
      if (!s.ok()) return s;
    }
    EntryResult r{*name, *seconds, *error, "", ""};
    if (e.contains("timing")) {  // results of runners before it existed have none
      absl::StatusOr<std::string> timing = Field<std::string>(e, "timing", where);
      if (!timing.ok()) return timing.status();
      r.timing = *timing;
    }
    if (!r.error.empty()) {
      // Results of runners before error_kind existed: every error was a runtime one.
      absl::StatusOr<std::string> kind =
          e.contains("error_kind") ? Field<std::string>(e, "error_kind", where) : "runtime";
      if (!kind.ok()) return kind.status();
      if (*kind != "runtime" && *kind != "wrong_answer") {
        return absl::InvalidArgumentError(absl::StrCat(where, ": 'error_kind' is '", *kind,
                                                       "', not 'runtime' or 'wrong_answer'"));
      }
      r.error_kind = *kind;
    } else if (r.seconds.empty()) {
      return absl::InvalidArgumentError(where + ": neither times nor an error");
    }
    result.entries.push_back(std::move(r));
  }
  return result;
}

}  // namespace tessel::runtime::cuda
