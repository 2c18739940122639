#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/target/target.h"

// An `llvm` target string resolved against LLVM: triple, CPU and features (host detection for
// -mcpu=native), optimization level and fast-math.
namespace tessel::target {

struct LlvmTarget {
  std::string triple;
  std::string cpu;       // an LLVM CPU name, "generic" by default
  std::string features;  // "+avx2,+fma,..." as LLVM takes them
  int opt_level = 3;
  bool fast_math = false;    // every fast-math flag
  bool fp_contract = false;  // fuse a*b+c (implied by fast_math)
  // The host's architecture and OS: the code links with this machine's tools and the JIT.
  bool is_host = false;
  // is_host, and this CPU has every instruction-set feature the code may use (an AVX-512
  // target on an AVX2 machine compiles and links here, but must not run).
  bool runs_here = false;
  // Why not, when is_host but not runs_here: the features this CPU lacks, "avx512f, avx512bw".
  std::string missing_features;
  int vector_bits = 128;      // the widest vector register the features give
  int vector_registers = 16;  // architectural vector registers of that width

  // The target as a string that resolves to the same target (CPU and features spelled out).
  std::string ToString() const;
};

// Resolves an `llvm` target; errors name an unknown triple or CPU, or -mcpu=native for another
// architecture.
absl::StatusOr<LlvmTarget> ResolveLlvmTarget(const Target& target);

// target with `-mcpu=native` replaced by the host CPU's name and, in -mattr, the host's
// differences from that CPU's defaults in the instruction-set features compiled code can use
// (on x86: SSE, AVX*, FMA, F16C, AMX, BMI, POPCNT, LZCNT, GFNI, VAES, VPCLMULQDQ; features such
// as mwaitx or shstk that a virtual machine hides are left out). The result compiles to the same
// vector code as the input on this machine and names the CPU, so a tuning log keyed by it says
// which CPU it was tuned on. A target without -mcpu=native comes back as given. Errors as
// ResolveLlvmTarget's.
absl::StatusOr<std::string> NameNativeCpu(const Target& target);

// Registers LLVM's targets once per process.
void InitializeLlvm();

}  // namespace tessel::target
