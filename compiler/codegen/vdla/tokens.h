#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <array>
#include <cstdint>
#include <vector>

#include "hardware/vdla/isa.h"

// Dependency tokens from buffer hazards. VDLA's three modules run their queues independently; an
// instruction that must wait for another module's instruction pops a token that instruction
// pushes (isa.h). The planner takes a program's instructions in order, each with the on-chip
// entries it reads and writes, and sets the flags: the new instruction waits for the latest
// instruction of each neighbouring module it conflicts with (both touch an entry, one writes),
// unless it already waited for that one or a later one. Instructions of one module run in order
// and need no tokens.
//
// So latency hiding needs no tokens from the schedule: when tiles use different entries (two
// virtual threads, or double buffering), the load of one tile does not conflict with the
// computation of the other and the two overlap; when they share entries, the load waits.
namespace tessel::codegen::vdla {

enum class Sram : uint8_t { kInput, kWeight, kAcc, kUop };

// Entries [begin, end) of an on-chip buffer, read or written. kAcc stands for the accumulators
// and the outputs beside them (one index).
struct Access {
  Sram buffer = Sram::kInput;
  int64_t begin = 0, end = 0;
  bool write = false;
};

class TokenPlanner {
 public:
  // Appends `insn` (its flags are set here: pass them clear) with its accesses. Internal when a
  // load and a store conflict (they share no token queue; no VDLA program makes them).
  absl::Status Add(hardware::vdla::Insn insn, std::vector<Access> accesses);
  // Appends FINISH, after every instruction of every module, and returns the program.
  absl::StatusOr<std::vector<hardware::vdla::Insn>> Finish();

  size_t size() const { return insns_.size(); }

 private:
  static constexpr int kModules = 3;
  // Makes instruction `index` (module `to`) wait for instruction `from_index` (module `from`).
  absl::Status Wait(int from, int64_t from_index, int to, int64_t index);

  std::vector<hardware::vdla::Insn> insns_;
  std::vector<int> module_;                               // per instruction
  std::vector<std::vector<Access>> accesses_;             // per instruction
  std::array<std::vector<int64_t>, kModules> by_module_;  // instruction indices, in order
  // waited_[from][to]: the latest instruction of `from` an instruction of `to` waited for.
  std::array<std::array<int64_t, kModules>, kModules> waited_ = {
      {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}};
};

}  // namespace tessel::codegen::vdla
