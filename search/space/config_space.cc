#include "search/space/config_space.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <limits>

#include "compiler/support/check.h"
#include "search/space/config_space_impl.h"

namespace tessel::search {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// With its article, for messages.
const char* KindName(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSplit:
      return "a split";
    case KnobKind::kReorder:
      return "a reorder";
    case KnobKind::kAnnotate:
      return "an annotate";
    case KnobKind::kChoice:
      return "a choice";
  }
  return "?";
}

}  // namespace

// ConfigSpaceImpl ---------------------------------------------------------------------------------

int ConfigSpaceImpl::KnobOfKind(const std::string& name, KnobKind kind,
                                const char* accessor) const {
  auto it = knob_by_name.find(name);
  TESSEL_CHECK(it != knob_by_name.end()) << "Config::" << accessor << "(\"" << name
                                         << "\"): the space declares no knob '" << name << "'";
  const Knob& knob = knobs[it->second];
  TESSEL_CHECK(knob.kind == kind) << "Config::" << accessor << "(\"" << name << "\"): knob '"
                                  << name << "' is " << KindName(knob.kind) << " knob, not "
                                  << KindName(kind) << " knob";
  return it->second;
}

bool ConfigSpaceImpl::Accepts(const Config& config) const {
  for (const auto& [name, accept] : filters) {
    if (!accept(config)) return false;
  }
  return true;
}

int64_t ConfigSpaceImpl::IndexOf(const std::vector<int64_t>& value_indices) const {
  // Horner's rule from the slowest knob; 128-bit so that an overflow is seen, not wrapped.
  unsigned __int128 index = 0;
  for (size_t i = knobs.size(); i-- > 0;) {
    index =
        index * static_cast<uint64_t>(knobs[i].size()) + static_cast<uint64_t>(value_indices[i]);
    if (index >= static_cast<unsigned __int128>(kInt64Max)) return -1;
  }
  return static_cast<int64_t>(index);
}

bool SameDeclarations(const ConfigSpaceImpl& a, const ConfigSpaceImpl& b) {
  return &a == &b || a.knobs == b.knobs;
}

// Config ------------------------------------------------------------------------------------------

const std::vector<int64_t>& Config::split(const std::string& name) const {
  TESSEL_CHECK(space_ != nullptr) << "Config::split(\"" << name << "\") on an empty Config";
  const int k = space_->KnobOfKind(name, KnobKind::kSplit, "split");
  return space_->knobs[k].splits[value_indices_[k]];
}

const std::vector<int>& Config::reorder(const std::string& name) const {
  TESSEL_CHECK(space_ != nullptr) << "Config::reorder(\"" << name << "\") on an empty Config";
  const int k = space_->KnobOfKind(name, KnobKind::kReorder, "reorder");
  return space_->knobs[k].orders[value_indices_[k]];
}

const std::vector<Annotation>& Config::annotate(const std::string& name) const {
  TESSEL_CHECK(space_ != nullptr) << "Config::annotate(\"" << name << "\") on an empty Config";
  const int k = space_->KnobOfKind(name, KnobKind::kAnnotate, "annotate");
  return space_->knobs[k].annotations[value_indices_[k]];
}

int64_t Config::knob(const std::string& name) const {
  TESSEL_CHECK(space_ != nullptr) << "Config::knob(\"" << name << "\") on an empty Config";
  const int k = space_->KnobOfKind(name, KnobKind::kChoice, "knob");
  return space_->knobs[k].choices[value_indices_[k]];
}

nlohmann::json Config::ToJson() const {
  nlohmann::json knobs = nlohmann::json::object();
  if (space_ != nullptr) {
    for (size_t i = 0; i < space_->knobs.size(); ++i) {
      knobs[space_->knobs[i].name] = ValueToJson(space_->knobs[i], value_indices_[i]);
    }
  }
  nlohmann::json out = nlohmann::json::object();
  if (index_ >= 0) out["index"] = index_;
  out["knobs"] = std::move(knobs);
  return out;
}

std::string Config::ToString() const {
  if (space_ == nullptr) return "";
  std::vector<std::string> parts;
  for (size_t i = 0; i < space_->knobs.size(); ++i) {
    parts.push_back(absl::StrCat(space_->knobs[i].name, "=",
                                 ValueToString(space_->knobs[i], value_indices_[i])));
  }
  return absl::StrJoin(parts, " ");
}

bool Config::operator==(const Config& other) const {
  if (space_ == nullptr || other.space_ == nullptr) return space_ == other.space_;
  return value_indices_ == other.value_indices_ && SameDeclarations(*space_, *other.space_);
}

// ConfigSpace: declarations -----------------------------------------------------------------------

ConfigSpace::ConfigSpace() : impl_(std::make_shared<ConfigSpaceImpl>()) {}

void ConfigSpace::AddKnob(Knob knob) {
  TESSEL_CHECK(!knob.name.empty()) << "a knob needs a name";
  TESSEL_CHECK(!impl_->frozen.load())
      << "knob '" << knob.name << "' is declared after a Config of the space was taken";
  TESSEL_CHECK(!impl_->knob_by_name.contains(knob.name))
      << "knob '" << knob.name << "' is declared twice";
  const int64_t n = knob.size();
  impl_->size = impl_->size > kInt64Max / n ? kInt64Max : impl_->size * n;
  impl_->knob_by_name.emplace(knob.name, static_cast<int>(impl_->knobs.size()));
  impl_->knobs.push_back(std::move(knob));
}

void ConfigSpace::define_split(const std::string& name, int64_t extent,
                               const SplitOptions& options) {
  TESSEL_CHECK(!impl_->knob_by_name.contains(name)) << "knob '" << name << "' is declared twice";
  AddKnob(MakeSplitKnob(name, extent, options));
}

void ConfigSpace::define_reorder(const std::string& name, int num_axes,
                                 const ReorderOptions& options) {
  TESSEL_CHECK(!impl_->knob_by_name.contains(name)) << "knob '" << name << "' is declared twice";
  AddKnob(MakeReorderKnob(name, num_axes, options));
}

void ConfigSpace::define_annotate(const std::string& name, int num_axes,
                                  const AnnotateOptions& options) {
  TESSEL_CHECK(!impl_->knob_by_name.contains(name)) << "knob '" << name << "' is declared twice";
  AddKnob(MakeAnnotateKnob(name, num_axes, options));
}

void ConfigSpace::define_knob(const std::string& name, std::vector<int64_t> values) {
  TESSEL_CHECK(!impl_->knob_by_name.contains(name)) << "knob '" << name << "' is declared twice";
  AddKnob(MakeChoiceKnob(name, std::move(values)));
}

void ConfigSpace::AddFilter(const std::string& name, std::function<bool(const Config&)> accept) {
  TESSEL_CHECK(accept != nullptr) << "filter '" << name << "' has no function";
  for (const auto& [existing, f] : impl_->filters) {
    TESSEL_CHECK(existing != name) << "filter '" << name << "' is added twice";
  }
  impl_->filters.emplace_back(name, std::move(accept));
}

// ConfigSpace: queries ----------------------------------------------------------------------------

int64_t ConfigSpace::size() const { return impl_->size; }

int ConfigSpace::num_knobs() const { return static_cast<int>(impl_->knobs.size()); }

const std::string& ConfigSpace::knob_name(int i) const {
  TESSEL_CHECK(i >= 0 && i < num_knobs()) << "knob " << i << " of " << num_knobs();
  return impl_->knobs[i].name;
}

KnobKind ConfigSpace::knob_kind(int i) const {
  TESSEL_CHECK(i >= 0 && i < num_knobs()) << "knob " << i << " of " << num_knobs();
  return impl_->knobs[i].kind;
}

int64_t ConfigSpace::knob_size(int i) const {
  TESSEL_CHECK(i >= 0 && i < num_knobs()) << "knob " << i << " of " << num_knobs();
  return impl_->knobs[i].size();
}

Config ConfigSpace::MakeConfig(int64_t index, std::vector<int64_t> value_indices) const {
  impl_->frozen.store(true);
  Config config;
  config.space_ = impl_;
  config.index_ = index;
  config.value_indices_ = std::move(value_indices);
  return config;
}

Config ConfigSpace::ConfigAt(int64_t index) const {
  std::vector<int64_t> value_indices(impl_->knobs.size());
  int64_t rest = index;
  for (size_t i = 0; i < impl_->knobs.size(); ++i) {
    const int64_t n = impl_->knobs[i].size();
    value_indices[i] = rest % n;
    rest /= n;
  }
  return MakeConfig(index, std::move(value_indices));
}

absl::StatusOr<Config> ConfigSpace::Get(int64_t index) const {
  if (index < 0 || index >= size()) {
    return absl::OutOfRangeError(
        absl::StrCat("config index ", index, " is outside the space [0, ", size(), ")"));
  }
  return ConfigAt(index);
}

absl::StatusOr<Config> ConfigSpace::FromValueIndices(
    const std::vector<int64_t>& value_indices) const {
  if (value_indices.size() != impl_->knobs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("config has ", value_indices.size(),
                                                   " value indices; the space has ",
                                                   impl_->knobs.size(), " knobs"));
  }
  for (size_t i = 0; i < value_indices.size(); ++i) {
    const Knob& knob = impl_->knobs[i];
    if (value_indices[i] < 0 || value_indices[i] >= knob.size()) {
      return absl::InvalidArgumentError(absl::StrCat("knob '", knob.name, "' has no value index ",
                                                     value_indices[i], " (it has ", knob.size(),
                                                     " values)"));
    }
  }
  return MakeConfig(impl_->IndexOf(value_indices), value_indices);
}

absl::StatusOr<Config> ConfigSpace::FromJson(const nlohmann::json& json) const {
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a config must be a JSON object, got ", json.dump()));
  }
  auto knobs_it = json.find("knobs");
  if (knobs_it == json.end() || !knobs_it->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a config needs an object \"knobs\", got ", json.dump()));
  }
  const nlohmann::json& knobs = *knobs_it;
  for (auto it = knobs.begin(); it != knobs.end(); ++it) {
    if (!impl_->knob_by_name.contains(it.key())) {
      std::vector<std::string> names;
      for (const Knob& knob : impl_->knobs) names.push_back(knob.name);
      return absl::InvalidArgumentError(absl::StrCat("config names unknown knob '", it.key(),
                                                     "' = ", it.value().dump(),
                                                     "; knobs: ", absl::StrJoin(names, ", ")));
    }
  }
  std::vector<int64_t> value_indices;
  for (const Knob& knob : impl_->knobs) {
    auto it = knobs.find(knob.name);
    if (it == knobs.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("config has no value for knob '", knob.name, "' (", knob.description, ")"));
    }
    absl::StatusOr<int64_t> v = ValueFromJson(knob, *it);
    if (!v.ok()) return v.status();
    value_indices.push_back(*v);
  }
  const int64_t index = impl_->IndexOf(value_indices);
  Config config = MakeConfig(index, std::move(value_indices));
  auto index_it = json.find("index");
  if (index_it != json.end()) {
    if (!index_it->is_number_integer() ||
        (index_it->is_number_unsigned() && index_it->get<uint64_t>() > uint64_t{kInt64Max})) {
      return absl::InvalidArgumentError(
          absl::StrCat("config \"index\" must be an integer, got ", index_it->dump()));
    }
    if (index_it->get<int64_t>() != config.index()) {
      return absl::InvalidArgumentError(
          absl::StrCat("config \"index\" ", index_it->dump(), " disagrees with its knob values ",
                       config.ToString(), ", whose index is ", config.index()));
    }
  }
  return config;
}

absl::Status ConfigSpace::Validate(const Config& config) const {
  if (config.space_ == nullptr) {
    return absl::InvalidArgumentError("an empty Config is no point of any space");
  }
  if (!SameDeclarations(*impl_, *config.space_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("config ", config.ToString(), " belongs to another space"));
  }
  for (const auto& [name, accept] : impl_->filters) {
    if (!accept(config)) {
      return absl::InvalidArgumentError(
          absl::StrCat("config ", config.ToString(), " is rejected by filter '", name, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::search
