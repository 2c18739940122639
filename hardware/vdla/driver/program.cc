#include "hardware/vdla/driver/program.h"

#include <absl/strings/str_cat.h>

#include <cstring>

namespace tessel::hardware::vdla {

int64_t EntryBytes(const Config& c, MemType type) {
  switch (type) {
    case MemType::kUop:
      return Config::kUopBytes;
    case MemType::kWeight:
      return c.weight_entry_bytes();
    case MemType::kInput:
      return c.input_entry_bytes();
    case MemType::kAccumulator:
      return c.accumulator_entry_bytes();
    case MemType::kOutput:
      return c.output_entry_bytes();
  }
  return 1;
}

absl::StatusOr<RunReport> RunProgram(Device& device, const Program& program,
                                     const std::vector<uint64_t>& args) {
  if (args.size() != program.params.size()) {
    return absl::InvalidArgumentError(absl::StrCat(program.name, " takes ", program.params.size(),
                                                   " buffers, got ", args.size()));
  }
  const Config& config = device.options().config;
  const uint64_t image_bytes = program.uops.size() * Config::kUopBytes;
  absl::StatusOr<uint64_t> image = device.Allocate(image_bytes, 64);
  if (!image.ok()) return image.status();
  struct FreeImage {
    Device& device;
    uint64_t offset;
    ~FreeImage() { (void)device.Free(offset); }
  } free_image{device, *image};
  for (size_t i = 0; i < program.uops.size(); ++i) {
    absl::StatusOr<uint32_t> bits = EncodeUop(program.uops[i]);
    if (!bits.ok()) return bits.status();
    std::memcpy(device.data() + *image + i * Config::kUopBytes, &*bits, Config::kUopBytes);
  }

  std::vector<EncodedInsn> encoded;
  encoded.reserve(program.insns.size());
  for (size_t i = 0; i < program.insns.size(); ++i) {
    Insn insn = program.insns[i];
    const int of = program.dram_of[i];
    if (auto* mem = std::get_if<MemInsn>(&insn); mem != nullptr && of != Program::kNoDram) {
      const uint64_t base = of == Program::kUopImage ? *image : args[of];
      const int64_t entry = EntryBytes(config, mem->type);
      if (base % entry != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            program.name, ": buffer ", of == Program::kUopImage ? "uops" : program.params[of],
            " at DRAM offset ", base, " is not on a ", entry, "-byte entry"));
      }
      mem->dram_base += static_cast<uint32_t>(base / entry);
    }
    absl::StatusOr<EncodedInsn> bits = Encode(insn);
    if (!bits.ok()) return bits.status();
    encoded.push_back(*bits);
  }
  return device.Run(encoded);
}

std::string ToString(const Program& program) {
  std::string out;
  for (size_t i = 0; i < program.insns.size(); ++i) {
    absl::StrAppend(&out, i, ": ", ToString(program.insns[i]));
    const int of = program.dram_of[i];
    if (of == Program::kUopImage) absl::StrAppend(&out, " (dram: uops)");
    if (of >= 0) absl::StrAppend(&out, " (dram: ", program.params[of], ")");
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace tessel::hardware::vdla
