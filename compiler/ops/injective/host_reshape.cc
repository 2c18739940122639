#include "compiler/ops/injective/host_reshape.h"

#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::injective {

HostTransform ReshapeArrays(std::vector<std::vector<int64_t>> shapes) {
  return [shapes = std::move(shapes)](const std::vector<runtime::NDArray>& in)
             -> absl::StatusOr<std::vector<runtime::NDArray>> {
    TESSEL_CHECK(in.size() == shapes.size()) << in.size() << " arrays for " << shapes.size();
    std::vector<runtime::NDArray> out;
    for (size_t i = 0; i < in.size(); ++i) {
      TESSEL_CHECK(in[i].NumElements() == nn::NumElements(shapes[i]) && in[i].IsContiguous())
          << "array " << i;
      runtime::NDArray a = runtime::NDArray::Empty(shapes[i], in[i].dtype());
      TESSEL_RETURN_IF_ERROR(a.CopyFromBytes(in[i].data<char>(), in[i].NumBytes()));
      out.push_back(std::move(a));
    }
    return out;
  };
}

}  // namespace tessel::ops::injective
