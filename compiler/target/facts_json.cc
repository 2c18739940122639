#include "compiler/target/facts_json.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/status_macros.h"

namespace tessel::target {
namespace {

// An integer field of an object, or an error naming it ("facts.gpu.warp_size: missing").
template <class T>
absl::Status Read(const nlohmann::json& json, const std::string& where, const char* name, T& out) {
  const std::string path = absl::StrCat(where, ".", name);
  if (!json.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, ": not an object"));
  auto it = json.find(name);
  if (it == json.end()) return absl::InvalidArgumentError(absl::StrCat(path, ": missing"));
  if (!it->is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected an integer, got ", it->dump()));
  }
  out = it->get<T>();
  return absl::OkStatus();
}

}  // namespace

nlohmann::json FactsToJson(const TargetFacts& f) {
  nlohmann::json j = {{"target", f.target.ToString()},
                      {"vector_bits", f.vector_bits},
                      {"vector_registers", f.vector_registers},
                      {"cores", f.cores},
                      {"l1_bytes", f.l1_bytes},
                      {"l2_bytes", f.l2_bytes}};
  if (f.gpu) {
    j["gpu"] = {{"max_threads_per_block", f.gpu->max_threads_per_block},
                {"warp_size", f.gpu->warp_size},
                {"shared_memory_per_block", f.gpu->shared_memory_per_block},
                {"registers_per_thread", f.gpu->registers_per_thread},
                {"registers_per_block", f.gpu->registers_per_block}};
  }
  if (f.vdla) {
    j["vdla"] = {{"batch", f.vdla->batch},
                 {"block_in", f.vdla->block_in},
                 {"block_out", f.vdla->block_out},
                 {"input_bits", f.vdla->input_bits},
                 {"weight_bits", f.vdla->weight_bits},
                 {"accumulator_bits", f.vdla->accumulator_bits},
                 {"input_buffer_bytes", f.vdla->input_buffer_bytes},
                 {"weight_buffer_bytes", f.vdla->weight_buffer_bytes},
                 {"accumulator_buffer_bytes", f.vdla->accumulator_buffer_bytes},
                 {"uop_buffer_bytes", f.vdla->uop_buffer_bytes},
                 {"clock_mhz", f.vdla->clock_mhz}};
  }
  return j;
}

absl::StatusOr<TargetFacts> FactsFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, ": not an object"));
  TargetFacts f;
  auto target = j.find("target");
  if (target == j.end() || !target->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".target: missing or not a string"));
  }
  absl::StatusOr<Target> parsed = Target::Parse(target->get<std::string>());
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".target: ", parsed.status().message()));
  }
  f.target = *std::move(parsed);
  TESSEL_RETURN_IF_ERROR(Read(j, where, "vector_bits", f.vector_bits));
  if (j.contains("vector_registers")) {
    TESSEL_RETURN_IF_ERROR(Read(j, where, "vector_registers", f.vector_registers));
  }
  TESSEL_RETURN_IF_ERROR(Read(j, where, "cores", f.cores));
  TESSEL_RETURN_IF_ERROR(Read(j, where, "l1_bytes", f.l1_bytes));
  TESSEL_RETURN_IF_ERROR(Read(j, where, "l2_bytes", f.l2_bytes));
  if (auto gpu = j.find("gpu"); gpu != j.end()) {
    const std::string w = where + ".gpu";
    GpuFacts g;
    TESSEL_RETURN_IF_ERROR(Read(*gpu, w, "max_threads_per_block", g.max_threads_per_block));
    TESSEL_RETURN_IF_ERROR(Read(*gpu, w, "warp_size", g.warp_size));
    TESSEL_RETURN_IF_ERROR(Read(*gpu, w, "shared_memory_per_block", g.shared_memory_per_block));
    TESSEL_RETURN_IF_ERROR(Read(*gpu, w, "registers_per_thread", g.registers_per_thread));
    TESSEL_RETURN_IF_ERROR(Read(*gpu, w, "registers_per_block", g.registers_per_block));
    f.gpu = g;
  }
  if (auto vdla = j.find("vdla"); vdla != j.end()) {
    const std::string w = where + ".vdla";
    VdlaConfig v;
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "batch", v.batch));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "block_in", v.block_in));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "block_out", v.block_out));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "input_bits", v.input_bits));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "weight_bits", v.weight_bits));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "accumulator_bits", v.accumulator_bits));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "input_buffer_bytes", v.input_buffer_bytes));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "weight_buffer_bytes", v.weight_buffer_bytes));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "accumulator_buffer_bytes", v.accumulator_buffer_bytes));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "uop_buffer_bytes", v.uop_buffer_bytes));
    TESSEL_RETURN_IF_ERROR(Read(*vdla, w, "clock_mhz", v.clock_mhz));
    f.vdla = v;
  }
  return f;
}

}  // namespace tessel::target
