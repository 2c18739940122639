#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>

#include "hardware/vdla/driver/program.h"

// A Program as JSON, for saving compiled modules:
//   {"name": "conv2d", "params": ["data", ...], "param_bytes": [...], "dram_of": [...],
//    "insns": ["<32 hex digits>", ...], "uops": ["<8 hex digits>", ...], "macs": N,
//    "entries": {"input": N, "weight": N, "accumulator": N, "uop": N}}
// Instructions and micro-ops are their encodings (isa.h), bits 127..0 most significant first, so
// the file holds what the hardware reads, before DRAM addresses are relocated.
namespace tessel::hardware::vdla {

// InvalidArgument when an instruction or micro-op does not encode (a field past its width).
absl::StatusOr<nlohmann::json> ProgramToJson(const Program& program);
// Errors name the field: missing or ill-typed, an encoding that does not decode, lists of
// different lengths, a dram_of that names no parameter.
absl::StatusOr<Program> ProgramFromJson(const nlohmann::json& json);

}  // namespace tessel::hardware::vdla
