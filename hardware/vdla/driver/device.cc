#include "hardware/vdla/driver/device.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include <cstdlib>
#include <cstring>

#include "hardware/vdla/fsim/fsim.h"

namespace tessel::hardware::vdla {

absl::StatusOr<std::unique_ptr<Device>> Device::Open(const DeviceOptions& options) {
  if (absl::Status s = CheckBuildable(options.config); !s.ok()) return s;
  if (options.dram_bytes == 0 || options.dram_bytes > (uint64_t{1} << 31)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "VDLA DRAM of ", options.dram_bytes, " bytes; the simulators address 1 byte to 2 GiB"));
  }
  std::unique_ptr<Device> device(new Device(options));
  if (device->dram_ == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("VDLA DRAM of ", options.dram_bytes, " bytes: the host has no such memory"));
  }
  return device;
}

constexpr uint64_t kDramAlignment = 4096;

void Device::FreeDram::operator()(uint8_t* p) const { std::free(p); }

Device::Device(const DeviceOptions& options)
    : options_(options),
      dram_(static_cast<uint8_t*>(std::aligned_alloc(
          kDramAlignment,
          (options.dram_bytes + kDramAlignment - 1) / kDramAlignment * kDramAlignment))),
      free_{{0, options.dram_bytes}} {
  if (dram_ != nullptr) std::memset(dram_.get(), 0, options.dram_bytes);
}

absl::StatusOr<uint64_t> Device::Allocate(uint64_t bytes, uint64_t alignment) {
  if (alignment < 16 || (alignment & (alignment - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("VDLA allocation alignment ", alignment, " is not a power of two >= 16"));
  }
  const uint64_t size = std::max<uint64_t>(bytes, 1);  // distinct offsets for empty regions
  uint64_t largest = 0;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const auto [offset, length] = *it;
    largest = std::max(largest, length);
    const uint64_t start = (offset + alignment - 1) & ~(alignment - 1);
    if (start + size > offset + length) continue;
    free_.erase(it);
    if (start > offset) free_[offset] = start - offset;
    if (offset + length > start + size) free_[start + size] = offset + length - start - size;
    used_[start] = size;
    return start;
  }
  return absl::ResourceExhaustedError(absl::StrCat("VDLA DRAM: no ", bytes,
                                                   " bytes free at alignment ", alignment,
                                                   " (largest free region ", largest, " bytes)"));
}

absl::Status Device::Free(uint64_t offset) {
  auto it = used_.find(offset);
  if (it == used_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("VDLA DRAM: offset ", offset, " is not an allocated region"));
  }
  uint64_t start = offset, length = it->second;
  used_.erase(it);
  // Merge with the free neighbours.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = length;
  return absl::OkStatus();
}

uint64_t Device::allocated_bytes() const {
  uint64_t total = 0;
  for (const auto& [offset, length] : used_) total += length;
  return total;
}

absl::StatusOr<RunReport> Device::Run(const std::vector<EncodedInsn>& program) {
  RunReport report;
  if (options_.engine == Engine::kFunctional) {
    absl::StatusOr<RunStats> stats =
        Simulate(options_.config, program, {dram_.get(), options_.dram_bytes});
    if (!stats.ok()) return stats.status();
    report.instructions = stats->instructions;
    report.macs = stats->macs;
    return report;
  }
  absl::StatusOr<RtlResult> result =
      SimulateRtl(options_.config, program, {dram_.get(), options_.dram_bytes}, options_.rtl);
  if (!result.ok()) return result.status();
  report.instructions = result->instructions;
  report.cycles = result->cycles;
  report.gemm_steps = result->gemm_steps;
  report.macs = result->gemm_steps * options_.config.macs_per_cycle();
  return report;
}

}  // namespace tessel::hardware::vdla
