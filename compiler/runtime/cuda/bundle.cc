#include "compiler/runtime/cuda/bundle.h"

#include <absl/strings/str_cat.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/runtime/cuda/driver_api.h"
#include "compiler/runtime/cuda/kernel_timer.h"
#include "compiler/runtime/device_api.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/npy.h"
#include "compiler/support/atomic_file.h"

namespace tessel::runtime::cuda {
namespace {

constexpr char kFormat[] = "tessel-cuda-bundle";
constexpr int kVersion = 1;
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
  if (absl::Status s = CheckCuda(api, api.cuDeviceGetName(name, sizeof name, device),
                                 "cuDeviceGetName");
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

// One entry: inputs, a checked call whose tensors go to arrays_dir, then the timer.
absl::StatusOr<std::vector<double>> RunEntry(const std::string& dir, const BundleEntry& entry,
                                             int position, const TimerOptions& timer,
                                             const std::string& arrays_dir) {
  absl::StatusOr<Module> module = LoadCudaModule(absl::StrCat(dir, "/", entry.module));
  if (!module.ok()) return module.status();
  absl::StatusOr<Function> kernel = module->GetFunction(entry.function);
  if (!kernel.ok()) return kernel.status();
  std::mt19937 rng(1000 + position);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<NDArray> device;
  for (size_t t = 0; t < entry.tensors.size(); ++t) {
    NDArray host = NDArray::Empty(entry.tensors[t], kFloat32);
    const bool output = t + 1 == entry.tensors.size();
    for (int64_t e = 0; e < host.NumElements(); ++e) {
      host.data<float>()[e] = output ? std::nanf("") : uniform(rng);
    }
    absl::StatusOr<NDArray> on_gpu = host.CopyTo(kGpu);
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
  for (size_t t = 0; t < device.size(); ++t) {
    absl::StatusOr<NDArray> back = device[t].CopyTo({kDLCPU, 0});
    if (!back.ok()) return back.status();
    const std::string path = absl::StrCat(arrays_dir, "/", entry.name, ".", t, ".npy");
    if (absl::Status s = SaveNpy(path, *back); !s.ok()) return s;
  }
  return TimeKernel(call, timer);
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
    entries.push_back({{"name", e.name},
                       {"module", e.module},
                       {"function", e.function},
                       {"tensors", e.tensors},
                       {"scalars", e.scalars},
                       {"flops", e.flops},
                       {"reference", e.reference}});
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
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  const Json j = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not JSON"));
  absl::StatusOr<std::string> format = Field<std::string>(j, "format", path);
  if (!format.ok()) return format.status();
  absl::StatusOr<int> version = Field<int>(j, "version", path);
  if (!version.ok()) return version.status();
  if (*format != kFormat || *version != kVersion) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a ", kFormat, " version ",
                                                   kVersion, " (format '", *format,
                                                   "', version ", *version, ")"));
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
  for (const absl::Status& s : {number.status(), repeat.status(), min_ms.status(),
                                warmup.status()}) {
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
    for (const absl::Status& s : {name.status(), module.status(), function.status(),
                                  tensors.status(), scalars.status(), flops.status(),
                                  reference.status()}) {
      if (!s.ok()) return s;
    }
    if (tensors->empty()) return absl::InvalidArgumentError(where + ": no tensors");
    b.entries.push_back({*name, *module, *function, *tensors, *scalars, *flops, *reference});
  }
  return b;
}

absl::StatusOr<BundleResult> RunBundle(const std::string& dir, const std::string& arrays_dir) {
  absl::StatusOr<Bundle> bundle = ReadBundle(dir);
  if (!bundle.ok()) return bundle.status();
  absl::StatusOr<const DriverApi*> api = Driver();
  if (!api.ok()) return api.status();
  BundleResult result;
  if (absl::Status s = DescribeGpu(**api, result); !s.ok()) return s;
  if (absl::Status s = support::MakeDirectories(arrays_dir); !s.ok()) return s;
  for (size_t i = 0; i < bundle->entries.size(); ++i) {
    const BundleEntry& entry = bundle->entries[i];
    absl::StatusOr<std::vector<double>> seconds =
        RunEntry(dir, entry, static_cast<int>(i), bundle->timer, arrays_dir);
    EntryResult r;
    r.name = entry.name;
    if (seconds.ok()) {
      r.seconds = *std::move(seconds);
    } else {
      r.error = std::string(seconds.status().message());
    }
    result.entries.push_back(std::move(r));
  }
  return result;
}

std::string BundleResultToJson(const BundleResult& result) {
  Json entries = Json::array();
  for (const EntryResult& e : result.entries) {
    entries.push_back({{"name", e.name}, {"seconds", e.seconds}, {"error", e.error}});
  }
  return Json{{"device", result.device}, {"arch", result.arch}, {"entries", entries}}.dump(1) +
         "\n";
}

}  // namespace tessel::runtime::cuda
