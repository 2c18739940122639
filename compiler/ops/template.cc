#include "compiler/ops/template.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <map>
#include <memory>

#include "compiler/ir/dl_type.h"
#include "compiler/support/check.h"

namespace tessel::ops {
namespace {

struct Registered {
  std::unique_ptr<Template> t;
  std::string key;
};

// Templates by name; node-based, so pointers handed out stay valid as more register.
std::map<std::string, Registered>& Registry() {
  static auto* registry = new std::map<std::string, Registered>();
  return *registry;
}

}  // namespace

void RegisterTemplate(const std::string& key, Template t) {
  TESSEL_CHECK(t.space && t.fallback && t.instantiate) << "template " << t.name << " is incomplete";
  TESSEL_CHECK(!key.empty()) << "template " << t.name << " registered without a target key";
  auto [it, inserted] = Registry().emplace(t.name, Registered{});
  TESSEL_CHECK(inserted) << "template " << t.name << " registered twice";
  it->second = Registered{std::make_unique<Template>(std::move(t)), key};
}

absl::StatusOr<const Template*> FindTemplate(const std::string& name) {
  auto it = Registry().find(name);
  if (it != Registry().end()) return it->second.t.get();
  std::vector<std::string> names;
  for (const auto& [n, t] : Registry()) names.push_back(n);
  return absl::NotFoundError(
      absl::StrCat("no schedule template named '", name, "'; known: ", absl::StrJoin(names, ", ")));
}

std::vector<const Template*> AllTemplates() {
  std::vector<const Template*> out;
  for (const auto& [n, r] : Registry()) out.push_back(r.t.get());
  return out;
}

const std::string& TemplateKey(const Template& t) {
  auto it = Registry().find(t.name);
  TESSEL_CHECK(it != Registry().end() && it->second.t.get() == &t)
      << "template " << t.name << " is not registered";
  return it->second.key;
}

absl::StatusOr<Instantiated> InstantiateFallback(const Template& t, const OpArgs& args,
                                                 const target::TargetFacts& facts) {
  absl::StatusOr<search::ConfigSpace> space = t.space(args, facts);
  if (!space.ok()) return space.status();
  search::Config config = t.fallback(*space, args, facts);
  TESSEL_CHECK(space->Validate(config).ok())
      << "template " << t.name << " falls back to an invalid config " << config.ToString();
  absl::StatusOr<OpProgram> program = t.instantiate(config, args, facts);
  if (!program.ok()) return program.status();
  return Instantiated{*std::move(space), std::move(config), *std::move(program)};
}

void AppendTailInputs(OpProgram& p, const OutputTail& tail) {
  const size_t num_inputs = p.args.size() - static_cast<size_t>(p.num_outputs);
  const size_t logical_inputs = p.logical_inputs.size();
  p.args.insert(p.args.begin() + static_cast<std::ptrdiff_t>(num_inputs), tail.inputs.begin(),
                tail.inputs.end());
  for (const te::Tensor& t : tail.inputs) {
    TensorSpec spec{t.name(), {}, ir::ToDLType(t.dtype())};
    for (const ir::Expr& e : t.shape()) {
      const ir::IntImmNode* imm = e.as<ir::IntImmNode>();
      TESSEL_CHECK(imm != nullptr) << "tail input " << spec.name << " has a symbolic shape";
      spec.shape.push_back(imm->value);
    }
    p.logical_inputs.push_back(std::move(spec));
  }
  if (p.prepare) {
    p.prepare = [own = std::move(p.prepare),
                 logical_inputs](const std::vector<runtime::NDArray>& in)
        -> absl::StatusOr<std::vector<runtime::NDArray>> {
      std::vector<runtime::NDArray> mine(in.begin(),
                                         in.begin() + static_cast<std::ptrdiff_t>(logical_inputs));
      absl::StatusOr<std::vector<runtime::NDArray>> out = own(mine);
      if (!out.ok()) return out.status();
      out->insert(out->end(), in.begin() + static_cast<std::ptrdiff_t>(logical_inputs), in.end());
      return out;
    };
  }
}

absl::StatusOr<search::Config> WithKnobs(const search::ConfigSpace& space,
                                         const search::Config& config,
                                         const nlohmann::json& knobs) {
  nlohmann::json j = config.ToJson();
  j.erase("index");
  for (const auto& [name, value] : knobs.items()) j["knobs"][name] = value;
  return space.FromJson(j);
}

Template TailFusingTemplate(
    std::string name, std::string op, std::string summary, decltype(Template::space) space,
    decltype(Template::fallback) fallback,
    std::function<absl::StatusOr<OpProgram>(const search::Config&, const OpArgs&,
                                            const target::TargetFacts&, const OutputTail*)>
        instantiate) {
  Template t;
  t.name = std::move(name);
  t.op = std::move(op);
  t.summary = std::move(summary);
  t.space = std::move(space);
  t.fallback = std::move(fallback);
  t.instantiate = [instantiate](const search::Config& config, const OpArgs& args,
                                const target::TargetFacts& facts) {
    return instantiate(config, args, facts, nullptr);
  };
  t.instantiate_with_tail = [instantiate](const search::Config& config, const OpArgs& args,
                                          const target::TargetFacts& facts,
                                          const OutputTail& tail) {
    return instantiate(config, args, facts, &tail);
  };
  return t;
}

}  // namespace tessel::ops
