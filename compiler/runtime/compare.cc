#include "compiler/runtime/compare.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cmath>

namespace tessel::runtime {

absl::Status CompareOutputs(const std::vector<NDArray>& got, const std::vector<NDArray>& want,
                            const Tolerance& tolerance, const std::string& reference) {
  if (got.size() != want.size()) {
    return absl::InternalError(
        absl::StrCat("the program gives ", got.size(), " outputs, ", reference, " ", want.size()));
  }
  for (size_t o = 0; o < got.size(); ++o) {
    if (got[o].shape() != want[o].shape()) {
      return absl::InternalError(
          absl::StrCat("output ", o, " has shape [", absl::StrJoin(got[o].shape(), ", "), "], ",
                       reference, " gives [", absl::StrJoin(want[o].shape(), ", "), "]"));
    }
    const bool exact = want[o].dl()->dtype.code != kDLFloat;
    for (int64_t i = 0; i < got[o].NumElements(); ++i) {
      const double g = ElementAsDouble(got[o], i);
      const double w = ElementAsDouble(want[o], i);
      const double allowed = exact ? 0 : tolerance.atol + tolerance.rtol * std::fabs(w);
      if (!(std::fabs(g - w) <= allowed)) {
        return absl::InternalError(absl::StrCat("output ", o, " at ", IndexText(want[o].shape(), i),
                                                " is ", g, " but ", reference, " gives ", w));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::runtime
