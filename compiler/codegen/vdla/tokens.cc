#include "compiler/codegen/vdla/tokens.h"

#include <absl/strings/str_cat.h>

#include <variant>

namespace tessel::codegen::vdla {
namespace {

using hardware::vdla::Deps;
using hardware::vdla::Insn;

Deps& DepsOf(Insn& insn) {
  return std::visit([](auto& i) -> Deps& { return i.deps; }, insn);
}

bool Conflict(const std::vector<Access>& a, const std::vector<Access>& b) {
  for (const Access& x : a) {
    for (const Access& y : b) {
      if (x.buffer == y.buffer && (x.write || y.write) && x.begin < y.end && y.begin < x.end) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

absl::Status TokenPlanner::Wait(int from, int64_t from_index, int to, int64_t index) {
  if (from_index <= waited_[from][to]) return absl::OkStatus();
  if (from - to != 1 && to - from != 1) {
    return absl::InternalError(absl::StrCat(
        "instruction ", index, " (", hardware::vdla::ToString(insns_[index]), ") depends on ",
        from_index, " (", hardware::vdla::ToString(insns_[from_index]),
        "), and their modules share no token queue"));
  }
  // The module before another in the pipeline (load, compute, store) is its "prev".
  if (from < to) {
    DepsOf(insns_[from_index]).push_next = true;
    DepsOf(insns_[index]).pop_prev = true;
  } else {
    DepsOf(insns_[from_index]).push_prev = true;
    DepsOf(insns_[index]).pop_next = true;
  }
  waited_[from][to] = from_index;
  return absl::OkStatus();
}

absl::Status TokenPlanner::Add(Insn insn, std::vector<Access> accesses) {
  absl::StatusOr<hardware::vdla::Module> module = hardware::vdla::Route(insn);
  if (!module.ok()) return module.status();
  const int to = static_cast<int>(*module);
  const int64_t index = static_cast<int64_t>(insns_.size());
  insns_.push_back(std::move(insn));
  module_.push_back(to);
  accesses_.push_back(std::move(accesses));
  for (int from = 0; from < kModules; ++from) {
    if (from == to) continue;
    const std::vector<int64_t>& earlier = by_module_[from];
    // The latest conflicting instruction not yet waited for; the search stops at the last one
    // waited for, since everything before it is done when this instruction starts.
    for (auto it = earlier.rbegin(); it != earlier.rend() && *it > waited_[from][to]; ++it) {
      if (Conflict(accesses_[*it], accesses_[index])) {
        if (absl::Status s = Wait(from, *it, to, index); !s.ok()) return s;
        break;
      }
    }
  }
  by_module_[to].push_back(index);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Insn>> TokenPlanner::Finish() {
  const int compute = static_cast<int>(hardware::vdla::Module::kCompute);
  const int64_t index = static_cast<int64_t>(insns_.size());
  insns_.push_back(hardware::vdla::FinishInsn{});
  module_.push_back(compute);
  accesses_.emplace_back();
  for (int from = 0; from < kModules; ++from) {
    if (from == compute || by_module_[from].empty()) continue;
    if (absl::Status s = Wait(from, by_module_[from].back(), compute, index); !s.ok()) return s;
  }
  by_module_[compute].push_back(index);
  return std::move(insns_);
}

}  // namespace tessel::codegen::vdla
