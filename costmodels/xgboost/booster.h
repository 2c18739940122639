#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

// A thin owner of XGBoost's C API handles. Every call's return code is checked: a failure is an
// absl error (Internal unless stated) whose message is the call and XGBGetLastError's text.
namespace tessel::costmodels::xgb {

// A dense row-major matrix of float features, for training or prediction.
class DMatrix {
 public:
  // rows x width values, row-major. NaN would mean "missing" to XGBoost; features never are.
  static absl::StatusOr<DMatrix> Create(const std::vector<float>& values, int64_t rows,
                                        int64_t width);
  DMatrix(DMatrix&& other) noexcept;
  DMatrix& operator=(DMatrix&& other) noexcept;
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  ~DMatrix();

  absl::Status SetLabels(const std::vector<float>& labels);
  // Query groups for ranking: consecutive rows, sizes summing to the number of rows.
  absl::Status SetGroups(const std::vector<unsigned>& sizes);
  // A per-row margin added to the trees' output, in training and in prediction.
  absl::Status SetBaseMargin(const std::vector<float>& margin);

  void* handle() const { return handle_; }

 private:
  explicit DMatrix(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

class Booster {
 public:
  // A booster that trains on `train` (its prediction cache covers it), with these parameters
  // (XGBoost's names and string values).
  static absl::StatusOr<Booster> Create(const DMatrix& train,
                                        const std::map<std::string, std::string>& params);
  // A booster read back from Serialize's bytes; `threads` for its predictions.
  static absl::StatusOr<Booster> Deserialize(const std::string& bytes, int threads);
  Booster(Booster&& other) noexcept;
  Booster& operator=(Booster&& other) noexcept;
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  ~Booster();

  // One of XGBoost's parameters, e.g. "nthread".
  absl::Status SetParam(const std::string& name, const std::string& value);
  // Boosting round `iteration` (0, 1, ...) on the training matrix.
  absl::Status UpdateOneIter(int iteration, const DMatrix& train);
  // Margins (the raw ranking scores) of every row, with the matrix's base margin.
  absl::StatusOr<std::vector<float>> Predict(const DMatrix& data) const;
  // A booster of the first `rounds` rounds only.
  absl::StatusOr<Booster> Slice(int rounds) const;
  // The model in XGBoost's JSON format (the booster's own parameters included).
  absl::StatusOr<std::string> Serialize() const;

 private:
  explicit Booster(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

}  // namespace tessel::costmodels::xgb
