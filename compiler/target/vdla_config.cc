#include "compiler/target/vdla_config.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

namespace tessel::target {
namespace {

bool PowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

absl::StatusOr<VdlaConfig> ReadVdlaConfig(const std::string& path) {
  auto error = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("VDLA config '", path, "': ", why));
  };
  std::ifstream in(path);
  if (!in) return error("cannot be read");
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return error("is not valid JSON");
  if (!doc.is_object()) return error("must be a JSON object");

  VdlaConfig c;
  // key -> (field, whether it must be a power of two)
  struct Field {
    std::function<void(int64_t)> set;
    bool power_of_two;
  };
  const std::map<std::string, Field> fields = {
      {"batch", {[&](int64_t v) { c.batch = static_cast<int>(v); }, true}},
      {"block_in", {[&](int64_t v) { c.block_in = static_cast<int>(v); }, true}},
      {"block_out", {[&](int64_t v) { c.block_out = static_cast<int>(v); }, true}},
      {"input_bits", {[&](int64_t v) { c.input_bits = static_cast<int>(v); }, true}},
      {"weight_bits", {[&](int64_t v) { c.weight_bits = static_cast<int>(v); }, true}},
      {"accumulator_bits", {[&](int64_t v) { c.accumulator_bits = static_cast<int>(v); }, true}},
      {"input_buffer_bytes", {[&](int64_t v) { c.input_buffer_bytes = v; }, false}},
      {"weight_buffer_bytes", {[&](int64_t v) { c.weight_buffer_bytes = v; }, false}},
      {"accumulator_buffer_bytes", {[&](int64_t v) { c.accumulator_buffer_bytes = v; }, false}},
      {"uop_buffer_bytes", {[&](int64_t v) { c.uop_buffer_bytes = v; }, false}},
      {"clock_mhz", {[&](int64_t v) { c.clock_mhz = static_cast<int>(v); }, false}},
  };
  for (const auto& [key, value] : doc.items()) {
    auto field = fields.find(key);
    if (field == fields.end()) {
      std::vector<std::string> known;
      for (const auto& [name, unused] : fields) known.push_back(name);
      return error(
          absl::StrCat("unknown key '", key, "' (known: ", absl::StrJoin(known, ", "), ")"));
    }
    if (!value.is_number_integer() || value.get<int64_t>() <= 0 ||
        value.get<int64_t>() > (int64_t{1} << 40)) {
      return error(absl::StrCat("'", key, "' must be a positive integer, got ", value.dump()));
    }
    const int64_t v = value.get<int64_t>();
    if (field->second.power_of_two && !PowerOfTwo(v)) {
      return error(absl::StrCat("'", key, "' must be a power of two, got ", v));
    }
    field->second.set(v);
  }
  // Each buffer must hold at least one block of its operand.
  const int64_t input_block = int64_t{c.batch} * c.block_in * c.input_bits / 8;
  const int64_t weight_block = int64_t{c.block_in} * c.block_out * c.weight_bits / 8;
  const int64_t acc_block = int64_t{c.batch} * c.block_out * c.accumulator_bits / 8;
  if (c.input_buffer_bytes < input_block) {
    return error(absl::StrCat("input_buffer_bytes ", c.input_buffer_bytes,
                              " does not hold one input block (", input_block, " bytes)"));
  }
  if (c.weight_buffer_bytes < weight_block) {
    return error(absl::StrCat("weight_buffer_bytes ", c.weight_buffer_bytes,
                              " does not hold one weight block (", weight_block, " bytes)"));
  }
  if (c.accumulator_buffer_bytes < acc_block) {
    return error(absl::StrCat("accumulator_buffer_bytes ", c.accumulator_buffer_bytes,
                              " does not hold one accumulator block (", acc_block, " bytes)"));
  }
  return c;
}

}  // namespace tessel::target
