#include "hardware/vdla/config.h"

#include <absl/strings/str_cat.h>

#include "hardware/vdla/isa.h"

namespace tessel::hardware::vdla {
namespace {

absl::Status CheckEntries(const char* buffer, int64_t entries, int64_t entry_bytes,
                          int index_bits) {
  const int64_t most = int64_t{1} << index_bits;
  if (entries < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("VDLA ", buffer, " buffer holds no entry of ", entry_bytes, " bytes"));
  }
  if (entries > most) {
    return absl::InvalidArgumentError(absl::StrCat("VDLA ", buffer, " buffer of ", entries,
                                                   " entries is more than its ", index_bits,
                                                   "-bit micro-op index reaches (", most, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckBuildable(const Config& c) {
  if (c.input_bits != 8 || c.weight_bits != 8 || c.accumulator_bits != 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "VDLA hardware multiplies 8-bit inputs and weights into 32-bit accumulators; the config "
        "has input_bits ",
        c.input_bits, ", weight_bits ", c.weight_bits, ", accumulator_bits ", c.accumulator_bits));
  }
  if (c.batch < 1 || c.block_in < 1 || c.block_out < 1) {
    return absl::InvalidArgumentError(absl::StrCat("VDLA GEMM shape ", c.batch, " x ", c.block_in,
                                                   " x ", c.block_out, " is empty"));
  }
  if (absl::Status s = CheckEntries("input", c.input_entries(), c.input_entry_bytes(), kUopInpBits);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckEntries("weight", c.weight_entries(), c.weight_entry_bytes(), kUopWgtBits);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckEntries("accumulator", c.accumulator_entries(),
                                    c.accumulator_entry_bytes(), kUopAccBits);
      !s.ok()) {
    return s;
  }
  return CheckEntries("micro-op", c.uop_entries(), Config::kUopBytes, kUopIndexBits);
}

}  // namespace tessel::hardware::vdla
