#include "workloads/network_ops.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <functional>
#include <map>
#include <utility>

#include "compiler/support/status_macros.h"

namespace tessel::workloads {
namespace {

// Collects a network's operators, merging repeats into counts.
class OpList {
 public:
  void Add(const std::string& op, ops::OpArgs args) {
    const std::string key = op + args.dump();
    const auto [it, fresh] = index_.emplace(key, ops_.size());
    if (fresh) {
      ops_.push_back({op, std::move(args), 1});
    } else {
      ++ops_[it->second].count;
    }
  }
  std::vector<OpShape> Take() { return std::move(ops_); }

 private:
  std::vector<OpShape> ops_;
  std::map<std::string, size_t> index_;
};

// An NCHW activation, batch 1.
struct Act {
  int64_t c, h, w;
};

ops::OpArgs ConvArgs(const Act& x, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                     int64_t groups) {
  return {{"n", 1},
          {"ic", x.c},
          {"h", x.h},
          {"w", x.w},
          {"oc", oc},
          {"kh", k},
          {"kw", k},
          {"stride", {stride, stride}},
          {"pad", {pad, pad, pad, pad}},
          {"dilation", {1, 1}},
          {"groups", groups}};
}

// conv2d (no bias); returns its output.
Act Conv(OpList& list, const Act& x, int64_t oc, int64_t k, int64_t stride, int64_t pad,
         int64_t groups = 1) {
  list.Add("conv2d", ConvArgs(x, oc, k, stride, pad, groups));
  return {oc, (x.h + 2 * pad - k) / stride + 1, (x.w + 2 * pad - k) / stride + 1};
}

ops::OpArgs Shape(const Act& x) { return {{"shape", {1, x.c, x.h, x.w}}}; }

void BatchNorm(OpList& list, const Act& x) {
  list.Add("batch_norm", {{"n", 1}, {"c", x.c}, {"h", x.h}, {"w", x.w}});
}

void Relu(OpList& list, const Act& x) { list.Add("relu", Shape(x)); }

Act ConvBnRelu(OpList& list, const Act& x, int64_t oc, int64_t k, int64_t stride, int64_t pad,
               int64_t groups = 1) {
  const Act y = Conv(list, x, oc, k, stride, pad, groups);
  BatchNorm(list, y);
  Relu(list, y);
  return y;
}

void Dense(OpList& list, int64_t m, int64_t n, int64_t k, bool bias) {
  list.Add("dense", {{"m", m}, {"n", n}, {"k", k}, {"bias", bias}});
}

// Global average pool, flatten and the classifier.
void Classifier(OpList& list, const Act& x, int64_t classes) {
  list.Add("global_avg_pool2d", {{"n", 1}, {"c", x.c}, {"h", x.h}, {"w", x.w}});
  list.Add("flatten", {{"shape", {1, x.c, 1, 1}}, {"axis", 1}});
  Dense(list, 1, classes, x.c, /*bias=*/true);
}

// torchvision's BasicBlock: two 3x3 convolutions, a 1x1 stride-s projection when the shape
// changes, the sum, relu.
Act BasicBlock(OpList& list, const Act& x, int64_t oc, int64_t stride) {
  const Act y = ConvBnRelu(list, x, oc, 3, stride, 1);
  const Act z = Conv(list, y, oc, 3, 1, 1);
  BatchNorm(list, z);
  if (stride != 1 || oc != x.c) {
    const Act shortcut = Conv(list, x, oc, 1, stride, 0);
    BatchNorm(list, shortcut);
  }
  list.Add("add", {{"a_shape", {1, z.c, z.h, z.w}}, {"b_shape", {1, z.c, z.h, z.w}}});
  Relu(list, z);
  return z;
}

absl::StatusOr<double> ConvGflop(const std::string& op, const ops::OpArgs& args) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t ic, reader.Int("ic"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t h, reader.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t w, reader.Int("w"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t oc, reader.Int("oc"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t kh, reader.Int("kh"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t kw, reader.Int("kw"));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> stride, reader.IntsOr("stride", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> pad, reader.IntsOr("pad", 4, {0, 0, 0, 0}, 0));
  if (op == "conv2d_transpose") return 2.0 * n * ic * h * w * oc * kh * kw * 1e-9;
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> dilation,
                          reader.IntsOr("dilation", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(const int64_t groups, reader.IntOr("groups", 1));
  const int64_t oh = (h + pad[0] + pad[2] - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (w + pad[1] + pad[3] - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
  if (oh < 1 || ow < 1) return reader.Error("the kernel exceeds the padded input ('h', 'w')");
  return 2.0 * n * oc * oh * ow * (ic / groups) * kh * kw * 1e-9;
}

}  // namespace

std::vector<OpShape> ResNet18Ops() {
  OpList list;
  Act x = ConvBnRelu(list, {3, 224, 224}, 64, 7, 2, 3);
  list.Add("max_pool2d", {{"n", 1},
                          {"c", x.c},
                          {"h", x.h},
                          {"w", x.w},
                          {"kh", 3},
                          {"kw", 3},
                          {"stride", {2, 2}},
                          {"pad", {1, 1, 1, 1}}});
  x = {x.c, x.h / 2, x.w / 2};
  for (const int64_t channels : {64, 128, 256, 512}) {
    x = BasicBlock(list, x, channels, channels == 64 ? 1 : 2);
    x = BasicBlock(list, x, channels, 1);
  }
  Classifier(list, x, 1000);
  return list.Take();
}

std::vector<OpShape> MobileNetV1Ops() {
  OpList list;
  Act x = ConvBnRelu(list, {3, 224, 224}, 32, 3, 2, 1);
  // (pointwise output channels, depthwise stride) of the 13 separable blocks.
  const std::pair<int64_t, int64_t> blocks[] = {{64, 1},  {128, 2},  {128, 1}, {256, 2}, {256, 1},
                                                {512, 2}, {512, 1},  {512, 1}, {512, 1}, {512, 1},
                                                {512, 1}, {1024, 2}, {1024, 1}};
  for (const auto& [oc, stride] : blocks) {
    x = ConvBnRelu(list, x, x.c, 3, stride, 1, /*groups=*/x.c);
    x = ConvBnRelu(list, x, oc, 1, 1, 0);
  }
  Classifier(list, x, 1000);
  return list.Take();
}

std::vector<OpShape> DqnOps() {
  OpList list;
  Act x = Conv(list, {4, 84, 84}, 32, 8, 4, 0);
  Relu(list, x);
  x = Conv(list, x, 64, 4, 2, 0);
  Relu(list, x);
  x = Conv(list, x, 64, 3, 1, 0);
  Relu(list, x);
  list.Add("flatten", {{"shape", {1, x.c, x.h, x.w}}, {"axis", 1}});
  const int64_t features = x.c * x.h * x.w;  // 3136
  Dense(list, 1, 512, features, /*bias=*/true);
  list.Add("relu", {{"shape", {1, 512}}});
  Dense(list, 1, 18, 512, /*bias=*/true);
  return list.Take();
}

std::vector<OpShape> DcganGeneratorOps() {
  OpList list;
  Dense(list, 1, 512 * 4 * 4, 100, /*bias=*/false);
  list.Add("reshape", {{"shape", {1, 512 * 4 * 4}}, {"newshape", {1, 512, 4, 4}}});
  Act x = {512, 4, 4};
  BatchNorm(list, x);
  Relu(list, x);
  for (const int64_t oc : {256, 128, 64, 3}) {
    list.Add("conv2d_transpose", {{"n", 1},
                                  {"ic", x.c},
                                  {"h", x.h},
                                  {"w", x.w},
                                  {"oc", oc},
                                  {"kh", 4},
                                  {"kw", 4},
                                  {"stride", {2, 2}},
                                  {"pad", {1, 1, 1, 1}},
                                  {"output_padding", {0, 0}}});
    x = {oc, 2 * x.h, 2 * x.w};
    if (oc != 3) {
      BatchNorm(list, x);
      Relu(list, x);
    }
  }
  list.Add("tanh", Shape(x));
  return list.Take();
}

std::vector<OpShape> LstmLmOps() {
  constexpr int64_t kVocab = 10000, kEmbed = 650, kHidden = 650, kSteps = 35, kLayers = 2;
  OpList list;
  for (int64_t step = 0; step < kSteps; ++step) {
    for (int64_t layer = 0; layer < kLayers; ++layer) {
      list.Add("lstm_cell",
               {{"batch", 1}, {"input", layer == 0 ? kEmbed : kHidden}, {"hidden", kHidden}});
    }
  }
  Dense(list, kSteps, kVocab, kHidden, /*bias=*/true);
  list.Add("log_softmax", {{"shape", {kSteps, kVocab}}, {"axis", -1}});
  return list.Take();
}

std::vector<std::string> NetworkNames() {
  return {"resnet18", "mobilenet_v1", "dqn", "dcgan", "lstm_lm"};
}

absl::StatusOr<std::vector<OpShape>> NetworkOps(const std::string& name) {
  const std::map<std::string, std::function<std::vector<OpShape>()>> networks = {
      {"resnet18", ResNet18Ops},
      {"mobilenet_v1", MobileNetV1Ops},
      {"dqn", DqnOps},
      {"dcgan", DcganGeneratorOps},
      {"lstm_lm", LstmLmOps}};
  const auto it = networks.find(name);
  if (it == networks.end()) {
    return absl::NotFoundError(absl::StrCat("no network '", name, "'; the networks are ",
                                            absl::StrJoin(NetworkNames(), ", ")));
  }
  return it->second();
}

absl::StatusOr<double> MatrixGflop(const std::string& op, const ops::OpArgs& args) {
  if (op == "conv2d" || op == "conv2d_transpose") return ConvGflop(op, args);
  ops::ArgReader reader(op, args);
  if (op == "dense" || op == "matmul" || op == "batch_matmul") {
    TESSEL_ASSIGN_OR_RETURN(const int64_t m, reader.Int("m"));
    TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
    TESSEL_ASSIGN_OR_RETURN(const int64_t k, reader.Int("k"));
    int64_t batch = 1;
    if (op == "batch_matmul") {
      TESSEL_ASSIGN_OR_RETURN(batch, reader.Int("batch"));
    }
    return 2.0 * batch * m * n * k * 1e-9;
  }
  return 0.0;
}

absl::StatusOr<double> TotalMatrixGflop(const std::vector<OpShape>& ops) {
  double total = 0;
  for (const OpShape& s : ops) {
    TESSEL_ASSIGN_OR_RETURN(const double gflop, MatrixGflop(s.op, s.args));
    total += s.count * gflop;
  }
  return total;
}

}  // namespace tessel::workloads
