#include "compiler/target/llvm_target.h"

#include <absl/status/status.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>

namespace tessel::target {
namespace {

// The host CPU's features, each on or off (empty when LLVM cannot tell).
const llvm::StringMap<bool>& HostFeatureMap() {
  static const auto* const host = [] {
    auto* features = new llvm::StringMap<bool>;
    if (!llvm::sys::getHostCPUFeatures(*features)) features->clear();
    return features;
  }();
  return *host;
}

// Features of the host CPU, "+a,-b,...".
std::string HostFeatures() {
  std::vector<std::string> list;
  for (const auto& f : HostFeatureMap()) {
    list.push_back(absl::StrCat(f.getValue() ? "+" : "-", f.getKey().str()));
  }
  std::sort(list.begin(), list.end());
  return absl::StrJoin(list, ",");
}

// Whether a feature decides which instructions compiled kernels may use. On x86 the vector and
// bit-manipulation extensions; the rest (mwaitx, shstk, xsave, ...) never appear in kernels and
// differ between a CPU model and a virtual machine's view of it. Elsewhere every feature.
bool IsCodeFeature(const llvm::Triple& triple, std::string_view feature) {
  if (!triple.isX86()) return true;
  static constexpr std::string_view kPrefixes[] = {"sse",  "ssse3",      "avx",    "fma",   "f16c",
                                                   "amx",  "bmi",        "popcnt", "lzcnt", "gfni",
                                                   "vaes", "vpclmulqdq", "xop"};
  for (std::string_view prefix : kPrefixes) {
    if (feature.starts_with(prefix)) return true;
  }
  return false;
}

// The code features of the host whose state differs between `info` (a CPU and features) and
// this CPU: "+f" where the host has f and info not, "-f" the other way round; sorted.
std::vector<std::string> CodeFeatureDifferences(const llvm::Triple& triple,
                                                const llvm::MCSubtargetInfo& info) {
  std::vector<std::string> out;
  for (const auto& f : HostFeatureMap()) {
    const std::string name = f.getKey().str();
    if (!IsCodeFeature(triple, name)) continue;
    const bool in_info = info.checkFeatures("+" + name);
    if (in_info != f.getValue()) out.push_back(absl::StrCat(f.getValue() ? "+" : "-", name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void InitializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

std::string LlvmTarget::ToString() const {
  std::string out = absl::StrCat("llvm -mtriple=", triple, " -mcpu=", cpu);
  if (!features.empty()) absl::StrAppend(&out, " -mattr=", features);
  if (opt_level != 3) absl::StrAppend(&out, " -opt-level=", opt_level);
  if (fast_math) {
    absl::StrAppend(&out, " -fast-math");
  } else if (fp_contract) {
    absl::StrAppend(&out, " -fast-math-contract");
  }
  return out;
}

absl::StatusOr<LlvmTarget> ResolveLlvmTarget(const Target& target) {
  InitializeLlvm();
  if (target.kind() != "llvm") {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", target.ToString(), "' is not an llvm target"));
  }
  LlvmTarget out;
  const std::string host_triple = llvm::sys::getDefaultTargetTriple();
  out.triple = llvm::Triple::normalize(target.Option("mtriple").value_or(host_triple));
  const llvm::Triple triple(out.triple);
  const llvm::Triple host(host_triple);
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(out.triple, error);
  if (llvm_target == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "target '", target.ToString(), "': unknown -mtriple '", out.triple, "': ", error));
  }
  out.is_host = triple.getArch() == host.getArch() && triple.getOS() == host.getOS();
  out.cpu = target.Option("mcpu").value_or("generic");
  std::string features;
  if (out.cpu == "native") {
    if (triple.getArch() != host.getArch()) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", target.ToString(), "': -mcpu=native describes this host (",
                       host.getArchName().str(), "), not ", triple.getArchName().str()));
    }
    out.cpu = llvm::sys::getHostCPUName().str();
    features = HostFeatures();
  }
  if (std::optional<std::string> mattr = target.Option("mattr")) {
    for (absl::string_view f : absl::StrSplit(*mattr, ',')) {
      if (f.size() < 2 || (f[0] != '+' && f[0] != '-')) {
        return absl::InvalidArgumentError(absl::StrCat("target '", target.ToString(),
                                                       "': -mattr entry '", std::string(f),
                                                       "' must start with + or -"));
      }
    }
    features = features.empty() ? *mattr : absl::StrCat(features, ",", *mattr);
  }
  out.features = features;
  if (std::optional<std::string> level = target.Option("opt-level")) {
    if (!absl::SimpleAtoi(*level, &out.opt_level) || out.opt_level < 0 || out.opt_level > 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target '", target.ToString(), "': -opt-level must be 0, 1, 2 or 3, not '", *level, "'"));
    }
  }
  out.fast_math = target.HasFlag("fast-math");
  out.fp_contract = out.fast_math || target.HasFlag("fast-math-contract");
  // Check the CPU and features against LLVM's tables for the triple.
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      llvm_target->createMCSubtargetInfo(out.triple, out.cpu, out.features));
  if (info == nullptr || !info->isCPUStringValid(out.cpu)) {
    return absl::InvalidArgumentError(absl::StrCat("target '", target.ToString(),
                                                   "': unknown -mcpu '", out.cpu, "' for ",
                                                   triple.getArchName().str()));
  }
  if (out.is_host) {
    // The code features the target has and this CPU lacks ("-f" from the host's side).
    std::vector<std::string> lacking;
    for (const std::string& d : CodeFeatureDifferences(triple, *info)) {
      if (d[0] == '-') lacking.push_back(d.substr(1));
    }
    out.missing_features = absl::StrJoin(lacking, ", ");
    out.runs_here = lacking.empty();
  }
  if (triple.isX86()) {
    const bool avx512 = info->checkFeatures("+avx512f");
    out.vector_bits = avx512 ? 512 : info->checkFeatures("+avx") ? 256 : 128;
    // zmm0-31 with AVX-512; ymm/xmm0-15 otherwise (x86-64).
    out.vector_registers = avx512 ? 32 : 16;
  } else {
    out.vector_bits = 128;
    out.vector_registers = triple.isAArch64() ? 32 : 16;  // v0-v31 on AArch64
  }
  return out;
}

absl::StatusOr<std::string> NameNativeCpu(const Target& target) {
  if (target.Option("mcpu") != "native") return target.ToString();
  // Resolving first checks the triple and that -mcpu=native describes its architecture.
  absl::StatusOr<LlvmTarget> resolved = ResolveLlvmTarget(target);
  if (!resolved.ok()) return resolved.status();
  const llvm::Triple triple(resolved->triple);
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(resolved->triple, error);
  std::unique_ptr<llvm::MCSubtargetInfo> defaults(
      llvm_target->createMCSubtargetInfo(resolved->triple, resolved->cpu, ""));
  std::vector<std::string> mattr = CodeFeatureDifferences(triple, *defaults);
  // The user's -mattr comes last: LLVM lets a later entry override an earlier one.
  if (std::optional<std::string> given = target.Option("mattr")) mattr.push_back(*given);
  Target named = target.WithOption("mcpu", resolved->cpu);
  if (!mattr.empty()) named = named.WithOption("mattr", absl::StrJoin(mattr, ","));
  return named.ToString();
}

}  // namespace tessel::target
