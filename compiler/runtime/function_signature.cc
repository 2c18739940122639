#include "compiler/runtime/function_signature.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include <nlohmann/json.hpp>

namespace tessel::runtime {
namespace {

using nlohmann::json;

const char* KindName(ParamSpec::Kind kind) {
  switch (kind) {
    case ParamSpec::Kind::kTensor:
      return "tensor";
    case ParamSpec::Kind::kInt:
      return "int";
    case ParamSpec::Kind::kFloat:
      return "float";
  }
  return "tensor";
}

json DimsToJson(const std::vector<DimSpec>& dims) {
  json out = json::array();
  for (const DimSpec& d : dims) {
    out.push_back(d.is_constant() ? json{{"value", d.value}} : json{{"slot", d.slot}});
  }
  return out;
}

std::vector<DimSpec> DimsFromJson(const json& j) {
  std::vector<DimSpec> dims;
  for (const json& d : j) {
    DimSpec spec;
    if (d.contains("slot")) {
      spec.slot = d.at("slot").get<int>();
    } else {
      spec.value = d.at("value").get<int64_t>();
    }
    dims.push_back(spec);
  }
  return dims;
}

}  // namespace

std::string SignaturesToJson(const std::vector<FunctionSignature>& signatures) {
  json out = json::array();
  for (const FunctionSignature& s : signatures) {
    json params = json::array();
    for (const ParamSpec& p : s.params) {
      params.push_back({{"name", p.name},
                        {"kind", KindName(p.kind)},
                        {"dtype", {p.dtype.code, p.dtype.bits, p.dtype.lanes}},
                        {"shape", DimsToJson(p.shape)},
                        {"strides", DimsToJson(p.strides)},
                        {"alignment", p.alignment},
                        {"written", p.written}});
    }
    json vars = json::array();
    for (const SlotVar& v : s.bound_vars) vars.push_back({{"name", v.name}, {"bits", v.bits}});
    out.push_back({{"name", s.name}, {"params", params}, {"bound_vars", vars}});
  }
  return out.dump();
}

absl::StatusOr<std::vector<FunctionSignature>> SignaturesFromJson(const std::string& text) {
  std::vector<FunctionSignature> signatures;
  try {
    const json j = json::parse(text);
    for (const json& f : j) {
      FunctionSignature& s = signatures.emplace_back();
      s.name = f.at("name").get<std::string>();
      for (const json& p : f.at("params")) {
        ParamSpec& spec = s.params.emplace_back();
        spec.name = p.at("name").get<std::string>();
        const std::string kind = p.at("kind").get<std::string>();
        if (kind == "tensor") {
          spec.kind = ParamSpec::Kind::kTensor;
        } else if (kind == "int") {
          spec.kind = ParamSpec::Kind::kInt;
        } else if (kind == "float") {
          spec.kind = ParamSpec::Kind::kFloat;
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("function '", s.name, "': unknown parameter kind '", kind, "'"));
        }
        const json& t = p.at("dtype");
        spec.dtype =
            DLDataType{t.at(0).get<uint8_t>(), t.at(1).get<uint8_t>(), t.at(2).get<uint16_t>()};
        spec.shape = DimsFromJson(p.at("shape"));
        spec.strides = DimsFromJson(p.at("strides"));
        spec.alignment = p.at("alignment").get<int>();
        spec.written = p.at("written").get<bool>();
        if (spec.alignment < 1 || (spec.alignment & (spec.alignment - 1)) != 0) {
          return absl::InvalidArgumentError(absl::StrCat("function '", s.name, "' parameter '",
                                                         spec.name, "': alignment ", spec.alignment,
                                                         " is not a power of 2"));
        }
      }
      for (const json& v : f.at("bound_vars")) {
        s.bound_vars.push_back({v.at("name").get<std::string>(), v.at("bits").get<int>()});
      }
      // Slots must name existing slots.
      for (const ParamSpec& p : s.params) {
        for (const auto* dims : {&p.shape, &p.strides}) {
          for (const DimSpec& d : *dims) {
            if (d.slot >= s.num_slots()) {
              return absl::InvalidArgumentError(absl::StrCat("function '", s.name, "' parameter '",
                                                             p.name, "' names slot ", d.slot,
                                                             " of ", s.num_slots()));
            }
          }
        }
      }
    }
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed function signatures: ", e.what()));
  }
  return signatures;
}

}  // namespace tessel::runtime
