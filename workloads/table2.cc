#include "workloads/table2.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

namespace tessel::workloads {
namespace {

Layer Conv(std::string name, int64_t hw, int64_t ic, int64_t oc, int64_t k, int64_t s) {
  return {std::move(name), LayerKind::kConv, hw, hw, ic, oc, k, s, k / 2};
}

Layer Depthwise(std::string name, int64_t hw, int64_t c, int64_t s) {
  return {std::move(name), LayerKind::kDepthwise, hw, hw, c, c, 3, s, 1};
}

}  // namespace

const std::vector<Layer>& Table2() {
  static const std::vector<Layer>* layers = new std::vector<Layer>{
      Conv("C1", 224, 3, 64, 7, 2),    Conv("C2", 56, 64, 64, 3, 1),
      Conv("C3", 56, 64, 64, 1, 1),    Conv("C4", 56, 64, 128, 3, 2),
      Conv("C5", 56, 64, 128, 1, 2),   Conv("C6", 28, 128, 128, 3, 1),
      Conv("C7", 28, 128, 256, 3, 2),  Conv("C8", 28, 128, 256, 1, 2),
      Conv("C9", 14, 256, 256, 3, 1),  Conv("C10", 14, 256, 512, 3, 2),
      Conv("C11", 14, 256, 512, 1, 2), Conv("C12", 7, 512, 512, 3, 1),
      Depthwise("D1", 112, 32, 1),     Depthwise("D2", 112, 64, 2),
      Depthwise("D3", 56, 128, 1),     Depthwise("D4", 56, 128, 2),
      Depthwise("D5", 28, 256, 1),     Depthwise("D6", 28, 256, 2),
      Depthwise("D7", 14, 512, 1),     Depthwise("D8", 14, 512, 2),
      Depthwise("D9", 7, 1024, 1),
  };
  return *layers;
}

absl::StatusOr<Layer> FindLayer(const std::string& name) {
  std::string names;
  for (const Layer& layer : Table2()) {
    if (layer.name == name) return layer;
    absl::StrAppend(&names, names.empty() ? "" : ", ", layer.name);
  }
  return absl::NotFoundError(
      absl::StrCat("no layer '", name, "' in Table 2; the layers are ", names));
}

ops::OpArgs Conv2dArgs(const Layer& layer) {
  const int64_t p = layer.pad;
  return {{"n", 1},
          {"ic", layer.ic},
          {"h", layer.h},
          {"w", layer.w},
          {"oc", layer.oc},
          {"kh", layer.k},
          {"kw", layer.k},
          {"stride", {layer.stride, layer.stride}},
          {"pad", {p, p, p, p}},
          {"dilation", {1, 1}},
          {"groups", layer.kind == LayerKind::kDepthwise ? layer.ic : 1}};
}

int64_t OutHeight(const Layer& layer) {
  return (layer.h + 2 * layer.pad - layer.k) / layer.stride + 1;
}

int64_t OutWidth(const Layer& layer) {
  return (layer.w + 2 * layer.pad - layer.k) / layer.stride + 1;
}

double Gflop(const Layer& layer) {
  const int64_t reduction =
      (layer.kind == LayerKind::kDepthwise ? 1 : layer.ic) * layer.k * layer.k;
  const double macs =
      static_cast<double>(OutHeight(layer) * OutWidth(layer) * layer.oc * reduction);
  return 2 * macs * 1e-9;
}

}  // namespace tessel::workloads
