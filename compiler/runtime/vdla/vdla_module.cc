#include "compiler/runtime/vdla/vdla_module.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "compiler/runtime/vdla/vdla_device_api.h"
#include "hardware/vdla/driver/program_json.h"

namespace tessel::runtime::vdla {
namespace {

constexpr char kFormat[] = "tessel-vdla-module";
constexpr int kVersion = 1;

// One device, one run at a time; the last run's report and the sums of all.
struct Runs {
  std::mutex mu;
  std::optional<hardware::vdla::RunReport> last;
  RunTotals totals;
};

Runs& GlobalRuns() {
  static Runs* runs = new Runs;
  return *runs;
}

absl::Status CheckMatches(const VdlaFunction& f) {
  const FunctionSignature& s = f.signature;
  for (const ParamSpec& p : s.params) {
    if (p.kind != ParamSpec::Kind::kTensor) {
      return absl::InvalidArgumentError(
          absl::StrCat("vdla function ", s.name, ": parameter '", p.name,
                       "' is a scalar; a VDLA program takes tensors only"));
    }
  }
  if (s.params.size() != f.program.params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("vdla function ", s.name, ": ", s.params.size(),
                                                   " tensors for a program of ",
                                                   f.program.params.size(), " buffers"));
  }
  return absl::OkStatus();
}

class VdlaModuleNode final : public ModuleNode {
 public:
  explicit VdlaModuleNode(std::vector<VdlaFunction> functions) : functions_(std::move(functions)) {
    for (const VdlaFunction& f : functions_) signatures_.push_back(f.signature);
  }

  std::string kind() const override { return "vdla"; }
  const std::vector<FunctionSignature>& signatures() const override { return signatures_; }
  DLDeviceType device_type() const override { return kDLExtDev; }

  absl::StatusOr<Invoker> Entry(const std::string& name) const override {
    for (const VdlaFunction& f : functions_) {
      if (f.signature.name != name) continue;
      return Invoker([&f](const uint64_t* slots) { return Run(f, slots); });
    }
    return absl::NotFoundError(absl::StrCat("no function '", name, "' in the vdla module"));
  }

  absl::Status Save(const std::string& path) const override {
    nlohmann::json programs = nlohmann::json::array();
    for (const VdlaFunction& f : functions_) {
      absl::StatusOr<nlohmann::json> p = hardware::vdla::ProgramToJson(f.program);
      if (!p.ok()) return p.status();
      programs.push_back(*p);
    }
    const nlohmann::json file = {
        {"format", kFormat},
        {"version", kVersion},
        {"signatures", nlohmann::json::parse(SignaturesToJson(signatures_))},
        {"programs", programs}};
    std::ofstream out(path);
    out << file.dump(1) << "\n";
    out.close();
    if (!out) return absl::InternalError(absl::StrCat(path, ": cannot be written"));
    return absl::OkStatus();
  }

 private:
  // The slots hold the tensors' data pointers, into the device's DRAM.
  static absl::Status Run(const VdlaFunction& f, const uint64_t* slots) {
    const DLDevice device{kDLExtDev, 0};
    absl::StatusOr<hardware::vdla::Device*> d = GetVdlaDevice(device);
    if (!d.ok()) return d.status();
    std::vector<uint64_t> offsets;
    for (size_t i = 0; i < f.program.params.size(); ++i) {
      absl::StatusOr<uint64_t> offset =
          DramOffset(device, reinterpret_cast<const void*>(static_cast<uintptr_t>(slots[i])));
      if (!offset.ok()) return offset.status();
      offsets.push_back(*offset);
    }
    Runs& runs = GlobalRuns();
    std::lock_guard<std::mutex> lock(runs.mu);
    absl::StatusOr<hardware::vdla::RunReport> report =
        hardware::vdla::RunProgram(**d, f.program, offsets);
    if (!report.ok()) {
      return absl::Status(report.status().code(),
                          absl::StrCat(f.signature.name, " on VDLA: ", report.status().message()));
    }
    runs.last = *report;
    ++runs.totals.runs;
    runs.totals.cycles += std::max<int64_t>(report->cycles, 0);
    runs.totals.instructions += report->instructions;
    runs.totals.macs += report->macs;
    return absl::OkStatus();
  }

  std::vector<VdlaFunction> functions_;
  std::vector<FunctionSignature> signatures_;
};

}  // namespace

absl::StatusOr<Module> MakeVdlaModule(std::vector<VdlaFunction> functions) {
  for (const VdlaFunction& f : functions) {
    if (absl::Status s = CheckMatches(f); !s.ok()) return s;
  }
  return Module(std::make_shared<VdlaModuleNode>(std::move(functions)));
}

absl::StatusOr<Module> LoadVdlaModule(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot be read"));
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  auto malformed = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  };
  if (j.is_discarded() || !j.is_object()) return malformed("not a JSON object");
  if (j.value("format", "") != kFormat || j.value("version", 0) != kVersion) {
    return malformed(absl::StrCat("not a ", kFormat, " of version ", kVersion));
  }
  if (!j.contains("signatures") || !j.contains("programs") || !j["programs"].is_array()) {
    return malformed("'signatures' and a 'programs' list are required");
  }
  absl::StatusOr<std::vector<FunctionSignature>> signatures =
      SignaturesFromJson(j["signatures"].dump());
  if (!signatures.ok()) return malformed(std::string(signatures.status().message()));
  if (signatures->size() != j["programs"].size()) {
    return malformed(
        absl::StrCat(signatures->size(), " signatures for ", j["programs"].size(), " programs"));
  }
  std::vector<VdlaFunction> functions;
  for (size_t i = 0; i < signatures->size(); ++i) {
    absl::StatusOr<hardware::vdla::Program> p = hardware::vdla::ProgramFromJson(j["programs"][i]);
    if (!p.ok()) return malformed(absl::StrCat("programs[", i, "]: ", p.status().message()));
    functions.push_back({(*signatures)[i], *std::move(p)});
  }
  absl::StatusOr<Module> m = MakeVdlaModule(std::move(functions));
  if (!m.ok()) return malformed(std::string(m.status().message()));
  return m;
}

absl::StatusOr<hardware::vdla::RunReport> LastRunReport() {
  Runs& runs = GlobalRuns();
  std::lock_guard<std::mutex> lock(runs.mu);
  if (!runs.last) return absl::NotFoundError("no vdla function has run in this process");
  return *runs.last;
}

RunTotals Totals() {
  Runs& runs = GlobalRuns();
  std::lock_guard<std::mutex> lock(runs.mu);
  return runs.totals;
}

}  // namespace tessel::runtime::vdla
