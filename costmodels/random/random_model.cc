#include "costmodels/random/random_model.h"

#include <absl/strings/str_cat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

namespace tessel::costmodels {
namespace {

constexpr char kName[] = "random";
constexpr int kFormatVersion = 1;

class RandomModel : public CostModel {
 public:
  explicit RandomModel(uint64_t seed) : seed_(seed), rng_(seed) {}

  std::string name() const override { return kName; }
  absl::Status Fit(const std::vector<Sample>&) override { return absl::OkStatus(); }

  absl::StatusOr<std::vector<double>> Predict(const search::Task&,
                                              const std::vector<search::Config>& configs) override {
    std::vector<double> scores(configs.size());
    // The top 53 bits as a fraction: <random>'s distributions differ between standard libraries.
    for (double& s : scores) s = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    draws_ += configs.size();
    return scores;
  }

  absl::Status Save(const std::string& path) const override {
    const nlohmann::json json = {
        {"model", kName}, {"version", kFormatVersion}, {"seed", seed_}, {"draws", draws_}};
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << json.dump() << "\n";
    out.close();
    if (!out) return absl::InternalError(absl::StrCat("cannot write cost model file ", path));
    return absl::OkStatus();
  }

  absl::Status Load(const std::string& path) override {
    std::ifstream in(path, std::ios::binary);
    if (!in) return absl::NotFoundError(absl::StrCat("cannot read cost model file ", path));
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, false);
    if (!json.is_object() || !json.contains("model") || json["model"] != kName ||
        !json.contains("version") || json["version"] != kFormatVersion || !json.contains("seed") ||
        !json["seed"].is_number_unsigned() || !json.contains("draws") ||
        !json["draws"].is_number_unsigned()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path,
          ": not a random cost model (expected {\"model\": \"random\", \"version\": 1, "
          "\"seed\": N, \"draws\": N})"));
    }
    seed_ = json["seed"].get<uint64_t>();
    draws_ = json["draws"].get<uint64_t>();
    rng_.seed(seed_);
    rng_.discard(draws_);
    return absl::OkStatus();
  }

 private:
  uint64_t seed_;
  uint64_t draws_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace

std::unique_ptr<CostModel> MakeRandomModel(const CostModelOptions& options) {
  return std::make_unique<RandomModel>(options.seed);
}

TESSEL_REGISTER_COST_MODEL(
    kName, [](const CostModelOptions& options) -> absl::StatusOr<std::unique_ptr<CostModel>> {
      return MakeRandomModel(options);
    });

}  // namespace tessel::costmodels
