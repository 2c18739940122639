#include <cstdlib>

#include "costmodels/cost_model.h"

namespace tessel::costmodels {

// The closer a config is to the fastest one measured (in knob steps), the better.
class ClosestModel : public CostModel {
 public:
  std::string name() const override { return "closest"; }
  absl::Status Fit(const std::vector<Sample>& samples) override {
    best_ = {};
    for (const Sample& s : samples)
      if (s.throughput > best_.throughput) best_ = s;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<double>> Predict(const search::Task&,
                                              const std::vector<search::Config>& configs) override {
    std::vector<double> scores;
    for (const search::Config& c : configs) {
      const std::vector<int64_t>& a = c.value_indices();
      const std::vector<int64_t>& b = best_.config.value_indices();
      int64_t steps = 0;
      for (size_t k = 0; k < b.size(); ++k) steps += std::abs(a[k] - b[k]);
      scores.push_back(-static_cast<double>(steps));
    }
    return scores;
  }
  absl::Status Save(const std::string& p) const override { return absl::UnimplementedError(p); }
  absl::Status Load(const std::string& p) override { return absl::UnimplementedError(p); }
  Sample best_;
};

TESSEL_REGISTER_COST_MODEL("closest", [](const CostModelOptions&) {
  return std::make_unique<ClosestModel>();
});

}  // namespace tessel::costmodels
