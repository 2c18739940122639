#pragma once

#include <absl/status/statusor.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

// A compilation target, written as a string: a kind followed by options,
//   "llvm -mcpu=znver3 -mattr=+avx2,+fma -fast-math-contract"
//   "cuda -arch=sm_90 -host='llvm -mcpu=znver3'"
// Options are `-key=value` or a bare `-flag`; a value with spaces is quoted with '...'. Each kind
// accepts its own options (KindInfo below lists them, `tessel list` prints them):
//   llvm:   -mtriple=T (default: the host's), -mcpu=NAME or native (default: generic),
//           -mattr=+f,-g (CPU features), -opt-level=0..3 (default 3),
//           -fast-math (every fast-math flag), -fast-math-contract (only fusing a*b+c into fma),
//           -num-cores=N (threads the programs may use; default: this machine's, for a host
//           target). Without a fast-math option, floating point is strict IEEE (see ir/node.h).
//   cuda:   -arch=sm_NN (default sm_90), -fast-math-contract (a*b+c into fma, as nvcc does by
//           default; without it, strict IEEE), -host=T
//   opencl: -device=mali (default: any OpenCL device), -host=T
//   vdla:   -config=FILE (the accelerator's hardware parameters), -host=T
// A device kind (cuda, opencl, vdla) runs its kernels from a host program compiled for its host
// target, an llvm target, by default `llvm` (this machine).
// Keys say what a target is, as TVM's target keys do, most specific first: an llvm target is a
// `cpu` (`arm_cpu`, `cpu` for an ARM triple); cuda is `cuda`, `gpu`; opencl is `opencl`, `gpu`
// (`mali`, `opencl`, `gpu` with -device=mali); vdla is `vdla`. Templates are chosen by key.
namespace tessel::target {

// What a kind accepts, for messages and `tessel list`.
struct KindInfo {
  std::string name;
  std::vector<std::string> options;  // -key=value
  std::vector<std::string> flags;    // -flag
  bool device = false;               // runs from a host program (-host)
};

class Target {
 public:
  // The kinds a target string may start with.
  static std::vector<std::string> Kinds();
  static std::vector<KindInfo> KindInfos();
  // Parses text; an error names the unknown kind or option, the malformed word or a bad value.
  static absl::StatusOr<Target> Parse(std::string_view text);
  // `llvm`: this machine's triple, LLVM's generic CPU (what a bare "llvm" parses to).
  static Target Llvm();

  const std::string& kind() const { return kind_; }
  // The value of `-key=value` (key without the dash), if given.
  std::optional<std::string> Option(std::string_view key) const;
  // Whether the bare flag `-name` is given.
  bool HasFlag(std::string_view name) const;
  // A copy with `-key=value` set: replaced where the key is given, appended otherwise.
  Target WithOption(std::string_view key, std::string_view value) const;
  // A copy with the bare flag `-name` appended (as given when it already is).
  Target WithFlag(std::string_view name) const;
  // The canonical string (options in the order given; values with spaces quoted).
  std::string ToString() const;

  // What the target is, most specific first (see above).
  std::vector<std::string> keys() const;
  bool HasKey(std::string_view key) const;
  // Whether the kind runs from a host program; its host target (`llvm` unless -host says; an
  // llvm target is its own host).
  bool is_device() const;
  Target host() const;

  // Targets are equal when their canonical strings are.
  friend bool operator==(const Target& a, const Target& b) { return a.ToString() == b.ToString(); }
  friend std::ostream& operator<<(std::ostream& os, const Target& t) { return os << t.ToString(); }

 private:
  std::string kind_;
  // (key, value); a flag has an empty value and `is_flag`.
  struct Entry {
    std::string key, value;
    bool is_flag = false;
  };
  std::vector<Entry> entries_;
};

}  // namespace tessel::target
