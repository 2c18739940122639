#include "hardware/vdla/driver/program_json.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

namespace tessel::hardware::vdla {
namespace {

using Json = nlohmann::json;

absl::Status FieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("VDLA program: '", field, "' ", what));
}

template <class T>
absl::StatusOr<T> Get(const Json& j, const std::string& field) {
  const auto it = j.find(field);
  if (it == j.end()) return FieldError(field, "is missing");
  try {
    return it->get<T>();
  } catch (const Json::exception&) {
    return FieldError(field, absl::StrCat("is not of the expected type: ", it->dump()));
  }
}

// `digits` hex digits into 64-bit words, least significant word first.
absl::StatusOr<std::vector<uint64_t>> ParseHex(const std::string& text, size_t digits,
                                               const std::string& field) {
  if (text.size() != digits) {
    return FieldError(field, absl::StrCat("holds '", text, "', not ", digits, " hex digits"));
  }
  std::vector<uint64_t> words;
  for (size_t end = digits; end > 0; end = end > 16 ? end - 16 : 0) {
    const size_t begin = end > 16 ? end - 16 : 0;
    uint64_t word = 0;
    if (!absl::SimpleHexAtoi(text.substr(begin, end - begin), &word)) {
      return FieldError(field, absl::StrCat("holds '", text, "', not hex digits"));
    }
    words.push_back(word);
  }
  return words;
}

}  // namespace

absl::StatusOr<Json> ProgramToJson(const Program& p) {
  Json insns = Json::array(), uops = Json::array();
  for (const Insn& insn : p.insns) {
    absl::StatusOr<EncodedInsn> bits = Encode(insn);
    if (!bits.ok()) return bits.status();
    insns.push_back(absl::StrFormat("%016x%016x", bits->words[1], bits->words[0]));
  }
  for (const Uop& uop : p.uops) {
    absl::StatusOr<uint32_t> bits = EncodeUop(uop);
    if (!bits.ok()) return bits.status();
    uops.push_back(absl::StrFormat("%08x", *bits));
  }
  return Json{{"name", p.name},
              {"params", p.params},
              {"param_bytes", p.param_bytes},
              {"dram_of", p.dram_of},
              {"insns", insns},
              {"uops", uops},
              {"macs", p.macs},
              {"entries",
               {{"input", p.input_entries},
                {"weight", p.weight_entries},
                {"accumulator", p.acc_entries},
                {"uop", p.uop_entries}}}};
}

absl::StatusOr<Program> ProgramFromJson(const Json& j) {
  if (!j.is_object()) return FieldError("", "is not a JSON object");
  Program p;
  absl::StatusOr<std::string> name = Get<std::string>(j, "name");
  absl::StatusOr<std::vector<std::string>> params = Get<std::vector<std::string>>(j, "params");
  absl::StatusOr<std::vector<int64_t>> bytes = Get<std::vector<int64_t>>(j, "param_bytes");
  absl::StatusOr<std::vector<int>> dram_of = Get<std::vector<int>>(j, "dram_of");
  absl::StatusOr<std::vector<std::string>> insns = Get<std::vector<std::string>>(j, "insns");
  absl::StatusOr<std::vector<std::string>> uops = Get<std::vector<std::string>>(j, "uops");
  absl::StatusOr<int64_t> macs = Get<int64_t>(j, "macs");
  absl::StatusOr<Json> entries = Get<Json>(j, "entries");
  for (const absl::Status& s : {name.status(), params.status(), bytes.status(), dram_of.status(),
                                insns.status(), uops.status(), macs.status(), entries.status()}) {
    if (!s.ok()) return s;
  }
  p.name = *name;
  p.params = *params;
  p.param_bytes = *bytes;
  p.dram_of = *dram_of;
  p.macs = *macs;
  if (p.param_bytes.size() != p.params.size()) {
    return FieldError("param_bytes", absl::StrCat("has ", p.param_bytes.size(), " sizes for ",
                                                  p.params.size(), " params"));
  }
  if (p.dram_of.size() != insns->size()) {
    return FieldError("dram_of", absl::StrCat("has ", p.dram_of.size(), " entries for ",
                                              insns->size(), " instructions"));
  }
  for (size_t i = 0; i < insns->size(); ++i) {
    const std::string field = absl::StrCat("insns[", i, "]");
    absl::StatusOr<std::vector<uint64_t>> words = ParseHex((*insns)[i], 32, field);
    if (!words.ok()) return words.status();
    absl::StatusOr<Insn> insn = Decode(EncodedInsn{{(*words)[0], (*words)[1]}});
    if (!insn.ok()) return FieldError(field, std::string(insn.status().message()));
    p.insns.push_back(*insn);
    const int of = p.dram_of[i];
    if (of != Program::kNoDram && of != Program::kUopImage &&
        (of < 0 || of >= static_cast<int>(p.params.size()))) {
      return FieldError(absl::StrCat("dram_of[", i, "]"),
                        absl::StrCat("is ", of, ", which names no parameter"));
    }
  }
  for (size_t i = 0; i < uops->size(); ++i) {
    absl::StatusOr<std::vector<uint64_t>> words =
        ParseHex((*uops)[i], 8, absl::StrCat("uops[", i, "]"));
    if (!words.ok()) return words.status();
    p.uops.push_back(DecodeUop(static_cast<uint32_t>((*words)[0])));
  }
  for (const auto& [key, value] : {std::pair<const char*, int64_t*>{"input", &p.input_entries},
                                   {"weight", &p.weight_entries},
                                   {"accumulator", &p.acc_entries},
                                   {"uop", &p.uop_entries}}) {
    absl::StatusOr<int64_t> n = Get<int64_t>(*entries, key);
    if (!n.ok()) return FieldError(absl::StrCat("entries.", key), "is missing or not an integer");
    *value = *n;
  }
  return p;
}

}  // namespace tessel::hardware::vdla
