#include "costmodels/xgboost/booster.h"

#include <absl/strings/str_cat.h>
#include <xgboost/c_api.h>

#include <cmath>
#include <utility>

namespace tessel::costmodels::xgb {
namespace {

absl::Status Check(int rc, const char* call) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("xgboost ", call, ": ", XGBGetLastError()));
}

#define XGB_RETURN_IF_ERROR(call)                                 \
  do {                                                            \
    if (absl::Status s = Check((call), #call); !s.ok()) return s; \
  } while (0)

}  // namespace

absl::StatusOr<DMatrix> DMatrix::Create(const std::vector<float>& values, int64_t rows,
                                        int64_t width) {
  if (static_cast<int64_t>(values.size()) != rows * width) {
    return absl::InvalidArgumentError(absl::StrCat("xgboost matrix of ", rows, " x ", width,
                                                   " given ", values.size(), " values"));
  }
  DMatrixHandle handle = nullptr;
  XGB_RETURN_IF_ERROR(XGDMatrixCreateFromMat(values.data(), static_cast<bst_ulong>(rows),
                                             static_cast<bst_ulong>(width), NAN, &handle));
  return DMatrix(handle);
}

DMatrix::DMatrix(DMatrix&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

DMatrix& DMatrix::operator=(DMatrix&& other) noexcept {
  std::swap(handle_, other.handle_);
  return *this;
}

DMatrix::~DMatrix() {
  if (handle_ != nullptr) XGDMatrixFree(handle_);
}

absl::Status DMatrix::SetLabels(const std::vector<float>& labels) {
  XGB_RETURN_IF_ERROR(XGDMatrixSetFloatInfo(handle_, "label", labels.data(), labels.size()));
  return absl::OkStatus();
}

absl::Status DMatrix::SetGroups(const std::vector<unsigned>& sizes) {
  XGB_RETURN_IF_ERROR(XGDMatrixSetUIntInfo(handle_, "group", sizes.data(), sizes.size()));
  return absl::OkStatus();
}

absl::Status DMatrix::SetBaseMargin(const std::vector<float>& margin) {
  XGB_RETURN_IF_ERROR(XGDMatrixSetFloatInfo(handle_, "base_margin", margin.data(), margin.size()));
  return absl::OkStatus();
}

absl::StatusOr<Booster> Booster::Create(const DMatrix& train,
                                        const std::map<std::string, std::string>& params) {
  BoosterHandle handle = nullptr;
  DMatrixHandle cache[] = {train.handle()};
  XGB_RETURN_IF_ERROR(XGBoosterCreate(cache, 1, &handle));
  Booster booster(handle);
  for (const auto& [name, value] : params) {
    XGB_RETURN_IF_ERROR(XGBoosterSetParam(handle, name.c_str(), value.c_str()));
  }
  return booster;
}

absl::StatusOr<Booster> Booster::Deserialize(const std::string& bytes, int threads) {
  BoosterHandle handle = nullptr;
  XGB_RETURN_IF_ERROR(XGBoosterCreate(nullptr, 0, &handle));
  Booster booster(handle);
  XGB_RETURN_IF_ERROR(XGBoosterLoadModelFromBuffer(handle, bytes.data(), bytes.size()));
  XGB_RETURN_IF_ERROR(XGBoosterSetParam(handle, "nthread", std::to_string(threads).c_str()));
  return booster;
}

Booster::Booster(Booster&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Booster& Booster::operator=(Booster&& other) noexcept {
  std::swap(handle_, other.handle_);
  return *this;
}

Booster::~Booster() {
  if (handle_ != nullptr) XGBoosterFree(handle_);
}

absl::Status Booster::SetParam(const std::string& name, const std::string& value) {
  XGB_RETURN_IF_ERROR(XGBoosterSetParam(handle_, name.c_str(), value.c_str()));
  return absl::OkStatus();
}

absl::Status Booster::UpdateOneIter(int iteration, const DMatrix& train) {
  XGB_RETURN_IF_ERROR(XGBoosterUpdateOneIter(handle_, iteration, train.handle()));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> Booster::Predict(const DMatrix& data) const {
  // type 0: the value (for ranking objectives, the margin); every tree.
  static constexpr char kConfig[] =
      R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0,)"
      R"( "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* result = nullptr;
  XGB_RETURN_IF_ERROR(
      XGBoosterPredictFromDMatrix(handle_, data.handle(), kConfig, &shape, &dims, &result));
  bst_ulong size = 1;
  for (bst_ulong i = 0; i < dims; ++i) size *= shape[i];
  return std::vector<float>(result, result + size);
}

absl::StatusOr<Booster> Booster::Slice(int rounds) const {
  BoosterHandle out = nullptr;
  XGB_RETURN_IF_ERROR(XGBoosterSlice(handle_, 0, rounds, 1, &out));
  return Booster(out);
}

absl::StatusOr<std::string> Booster::Serialize() const {
  bst_ulong size = 0;
  const char* data = nullptr;
  XGB_RETURN_IF_ERROR(XGBoosterSaveModelToBuffer(handle_, R"({"format": "json"})", &size, &data));
  return std::string(data, size);
}

}  // namespace tessel::costmodels::xgb
