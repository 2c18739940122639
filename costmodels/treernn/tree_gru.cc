#include "costmodels/treernn/tree_gru.h"

#include <absl/strings/str_cat.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/optim/adam.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "compiler/support/check.h"
#include "costmodels/treernn/tree_batch.h"

namespace tessel::costmodels::treernn {
namespace {

// Identifies SaveTreeGrus' files; bump when the layout changes.
constexpr int64_t kFormatVersion = 1;

// Sets torch's intra-op thread count (process-wide) for one call and restores it.
class ThreadsScope {
 public:
  explicit ThreadsScope(int threads) : saved_(at::get_num_threads()) {
    if (threads >= 1 && threads != saved_) at::set_num_threads(threads);
  }
  ~ThreadsScope() {
    if (at::get_num_threads() != saved_) at::set_num_threads(saved_);
  }
  ThreadsScope(const ThreadsScope&) = delete;
  ThreadsScope& operator=(const ThreadsScope&) = delete;

 private:
  int saved_;
};

torch::Tensor IndexTensor(const std::vector<int64_t>& values) {
  return torch::from_blob(const_cast<int64_t*>(values.data()),
                          {static_cast<int64_t>(values.size())}, torch::kInt64)
      .clone();
}

// A PackedForest as tensors.
struct ForestTensors {
  struct Group {
    int child_level;
    torch::Tensor child, parent;
  };
  torch::Tensor features;  // [nodes, width]
  std::vector<int64_t> level_offsets;
  std::vector<std::vector<Group>> edges;
  torch::Tensor roots;  // packed index of each tree's root
};

ForestTensors ToTensors(const PackedForest& forest) {
  ForestTensors t;
  t.features = torch::from_blob(const_cast<float*>(forest.features.data()),
                                {forest.level_offsets.back(), forest.width}, torch::kFloat)
                   .clone();
  t.level_offsets = forest.level_offsets;
  t.edges.resize(forest.edges.size());
  for (size_t h = 0; h < forest.edges.size(); ++h) {
    for (const EdgeGroup& g : forest.edges[h]) {
      t.edges[h].push_back({g.child_level, IndexTensor(g.child), IndexTensor(g.parent)});
    }
  }
  std::vector<int64_t> roots(forest.num_trees);
  for (int i = 0; i < forest.num_trees; ++i) {
    roots[i] = forest.level_offsets[forest.root_level[i]] + forest.root_position[i];
  }
  t.roots = IndexTensor(roots);
  return t;
}

struct Net : torch::nn::Module {
  Net(int width, int hidden)
      : embed(register_module("embed", torch::nn::Linear(width, hidden))),
        cell(register_module("cell", torch::nn::GRUCell(hidden, hidden))),
        head(register_module("head", torch::nn::Linear(hidden, 1))),
        mean(register_buffer("mean", torch::zeros({width}))),
        scale(register_buffer("scale", torch::ones({width}))),
        width(width),
        hidden(hidden) {}

  // One score per tree of the forest.
  torch::Tensor Forward(const ForestTensors& forest) {
    const torch::Tensor x = torch::relu(embed->forward((forest.features - mean) * scale));
    const int num_levels = static_cast<int>(forest.level_offsets.size()) - 1;
    std::vector<torch::Tensor> states(num_levels);
    for (int h = 0; h < num_levels; ++h) {
      const int64_t begin = forest.level_offsets[h];
      const int64_t size = forest.level_offsets[h + 1] - begin;
      torch::Tensor children = torch::zeros({size, hidden});
      for (const ForestTensors::Group& g : forest.edges[h]) {
        children = children.index_add(0, g.parent, states[g.child_level].index_select(0, g.child));
      }
      states[h] = cell->forward(x.narrow(0, begin, size), children);
    }
    return head->forward(torch::cat(states).index_select(0, forest.roots)).squeeze(1);
  }

  torch::nn::Linear embed;
  torch::nn::GRUCell cell;
  torch::nn::Linear head;
  torch::Tensor mean, scale;
  int width, hidden;
};

// Uniform in [0, 1) from 53 bits: the same on every standard library (<random>'s distributions
// are not).
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Parameters uniform in +-1/sqrt(fan-in), torch's own default ranges, from our generator so that
// torch's global one (shared with everyone in the process) never matters.
void InitParameters(Net& net, uint64_t seed) {
  std::mt19937_64 rng(seed);
  torch::NoGradGuard no_grad;
  for (const auto& item : net.named_parameters()) {
    const std::string& name = item.key();
    const double fan_in = name.rfind("embed.", 0) == 0 ? net.width : net.hidden;
    const double bound = 1.0 / std::sqrt(fan_in);
    torch::Tensor p = item.value();
    std::vector<float> values(p.numel());
    for (float& v : values) v = static_cast<float>((2 * Uniform(rng) - 1) * bound);
    p.copy_(torch::from_blob(values.data(), p.sizes(), torch::kFloat));
  }
}

// Minibatches of the sample indices for one pass: each group's members shuffled and cut into
// pieces of at most `batch` (a last piece of one tree joins its predecessor: it has no pairs),
// then the pieces shuffled.
std::vector<std::vector<int>> Minibatches(const std::vector<int>& groups, int batch,
                                          std::mt19937_64& rng) {
  const int num_groups = groups.empty() ? 0 : *std::max_element(groups.begin(), groups.end()) + 1;
  std::vector<std::vector<int>> members(num_groups);
  for (int i = 0; i < static_cast<int>(groups.size()); ++i) members[groups[i]].push_back(i);
  auto shuffle = [&rng](auto& items) {
    for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng() % i]);
  };
  std::vector<std::vector<int>> batches;
  for (std::vector<int>& m : members) {
    if (m.size() < 2) continue;
    shuffle(m);
    for (size_t begin = 0; begin < m.size(); begin += batch) {
      const size_t end = std::min(m.size(), begin + batch);
      if (end - begin == 1) {
        batches.back().push_back(m[begin]);
      } else {
        batches.emplace_back(m.begin() + begin, m.begin() + end);
      }
    }
  }
  shuffle(batches);
  return batches;
}

}  // namespace

struct TreeGru::Impl {
  Impl(int width, int hidden) : net(std::make_shared<Net>(width, hidden)) {}
  std::shared_ptr<Net> net;
};

TreeGru::TreeGru(int width, int hidden, uint64_t seed)
    : impl_(std::make_unique<Impl>(width, hidden)) {
  TESSEL_CHECK(width >= 1 && hidden >= 1) << "width " << width << ", hidden " << hidden;
  InitParameters(*impl_->net, seed);
}

TreeGru::TreeGru(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TreeGru::~TreeGru() = default;

int TreeGru::width() const { return impl_->net->width; }
int TreeGru::hidden() const { return impl_->net->hidden; }

std::unique_ptr<TreeGru> TreeGru::Clone() const {
  auto impl = std::make_unique<Impl>(width(), hidden());
  torch::NoGradGuard no_grad;
  const auto from = impl_->net->named_parameters(), to = impl->net->named_parameters();
  for (const auto& item : from) to[item.key()].copy_(item.value());
  const auto from_buffers = impl_->net->named_buffers(), to_buffers = impl->net->named_buffers();
  for (const auto& item : from_buffers) to_buffers[item.key()].copy_(item.value());
  return std::unique_ptr<TreeGru>(new TreeGru(std::move(impl)));
}

void TreeGru::Normalise(const std::vector<const LoopTree*>& trees) {
  const int w = width();
  std::vector<double> sum(w, 0), sum_sq(w, 0);
  int64_t count = 0;
  for (const LoopTree* tree : trees) {
    for (const LoopTree::Node& node : tree->nodes) {
      TESSEL_CHECK(static_cast<int>(node.features.size()) == w)
          << node.features.size() << " features, expected " << w;
      for (int c = 0; c < w; ++c) {
        sum[c] += node.features[c];
        sum_sq[c] += static_cast<double>(node.features[c]) * node.features[c];
      }
      ++count;
    }
  }
  if (count == 0) return;
  std::vector<float> mean(w), scale(w);
  for (int c = 0; c < w; ++c) {
    const double m = sum[c] / count;
    const double var = std::max(0.0, sum_sq[c] / count - m * m);
    mean[c] = static_cast<float>(m);
    scale[c] = var > 1e-12 ? static_cast<float>(1 / std::sqrt(var)) : 1.0f;
  }
  torch::NoGradGuard no_grad;
  impl_->net->mean.copy_(torch::from_blob(mean.data(), {w}, torch::kFloat));
  impl_->net->scale.copy_(torch::from_blob(scale.data(), {w}, torch::kFloat));
}

absl::Status TreeGru::Train(const std::vector<const LoopTree*>& trees,
                            const std::vector<double>& labels, const std::vector<int>& groups,
                            const TreeRnnParams& params, uint64_t seed, int threads) {
  TESSEL_CHECK(trees.size() == labels.size() && trees.size() == groups.size())
      << trees.size() << " trees, " << labels.size() << " labels, " << groups.size() << " groups";
  ThreadsScope threads_scope(threads);
  Net& net = *impl_->net;
  net.train();
  torch::optim::Adam optimizer(
      net.parameters(),
      torch::optim::AdamOptions(params.learning_rate).weight_decay(params.weight_decay));
  const int64_t n = static_cast<int64_t>(trees.size());
  const int64_t per_epoch = (n + params.batch_trees - 1) / params.batch_trees;
  const int64_t steps =
      std::clamp<int64_t>(params.epochs * per_epoch, params.min_steps, params.max_steps);
  std::mt19937_64 rng(seed ^ 0x74726565726e6eULL);
  std::vector<std::vector<int>> batches;
  size_t next = 0;
  std::vector<const LoopTree*> batch_trees;
  std::vector<float> batch_labels;
  for (int64_t step = 0; step < steps; ++step) {
    if (next == batches.size()) {
      batches = Minibatches(groups, params.batch_trees, rng);
      next = 0;
      if (batches.empty()) return absl::OkStatus();  // no group has two trees
    }
    const std::vector<int>& batch = batches[next++];
    batch_trees.clear();
    batch_labels.clear();
    for (int i : batch) {
      batch_trees.push_back(trees[i]);
      batch_labels.push_back(static_cast<float>(labels[i]));
    }
    absl::StatusOr<PackedForest> forest = PackForest(batch_trees, width());
    if (!forest.ok()) return forest.status();
    const torch::Tensor y = torch::from_blob(
        batch_labels.data(), {static_cast<int64_t>(batch_labels.size())}, torch::kFloat);
    const torch::Tensor better = (y.unsqueeze(1) > y.unsqueeze(0)).to(torch::kFloat);
    const float pairs = better.sum().item<float>();
    if (pairs == 0) continue;
    const torch::Tensor s = net.Forward(ToTensors(*forest));
    const torch::Tensor margin = s.unsqueeze(1) - s.unsqueeze(0);  // s_i - s_j
    const torch::Tensor loss = (torch::softplus(-margin) * better).sum() / pairs;
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> TreeGru::Score(const std::vector<const LoopTree*>& trees,
                                                   const TreeRnnParams& params, int threads) const {
  ThreadsScope threads_scope(threads);
  torch::InferenceMode inference;
  Net& net = *impl_->net;
  net.eval();
  std::vector<double> scores;
  scores.reserve(trees.size());
  const size_t chunk = static_cast<size_t>(std::max(1, params.predict_batch));
  for (size_t begin = 0; begin < trees.size(); begin += chunk) {
    const size_t end = std::min(trees.size(), begin + chunk);
    absl::StatusOr<PackedForest> forest = PackForest(
        std::vector<const LoopTree*>(trees.begin() + begin, trees.begin() + end), width());
    if (!forest.ok()) return forest.status();
    const torch::Tensor s = net.Forward(ToTensors(*forest)).contiguous();
    const float* data = s.data_ptr<float>();
    scores.insert(scores.end(), data, data + s.numel());
  }
  return scores;
}

namespace {

void WriteNet(torch::serialize::OutputArchive& root, const std::string& key, const TreeGru& gru,
              const Net& net) {
  torch::serialize::OutputArchive archive;
  archive.write("width", c10::IValue(static_cast<int64_t>(gru.width())));
  archive.write("hidden", c10::IValue(static_cast<int64_t>(gru.hidden())));
  torch::serialize::OutputArchive weights;
  net.save(weights);
  archive.write("weights", weights);
  root.write(key, archive);
}

}  // namespace

absl::Status SaveTreeGrus(const std::string& path, const TreeGru* fitted, const TreeGru* prior) {
  try {
    torch::serialize::OutputArchive root;
    root.write("treernn_format", c10::IValue(kFormatVersion));
    if (fitted != nullptr) WriteNet(root, "fitted", *fitted, *fitted->impl_->net);
    if (prior != nullptr) WriteNet(root, "prior", *prior, *prior->impl_->net);
    root.save_to(path);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot write treernn model ", path, ": ", e.what()));
  }
  return absl::OkStatus();
}

// Builds networks from archives (a friend of TreeGru, for its private constructor).
struct TreeGruLoader {
  static std::unique_ptr<TreeGru> Read(torch::serialize::InputArchive& root,
                                       const std::string& key) {
    torch::serialize::InputArchive archive;
    if (!root.try_read(key, archive)) return nullptr;
    c10::IValue width, hidden;
    archive.read("width", width);
    archive.read("hidden", hidden);
    if (width.toInt() < 1 || hidden.toInt() < 1 || width.toInt() > (1 << 20) ||
        hidden.toInt() > (1 << 16)) {
      throw std::runtime_error(absl::StrCat("bad sizes of '", key, "': width ", width.toInt(),
                                            ", hidden ", hidden.toInt()));
    }
    auto impl = std::make_unique<TreeGru::Impl>(static_cast<int>(width.toInt()),
                                                static_cast<int>(hidden.toInt()));
    torch::serialize::InputArchive weights;
    archive.read("weights", weights);
    impl->net->load(weights);
    return std::unique_ptr<TreeGru>(new TreeGru(std::move(impl)));
  }
};

absl::StatusOr<LoadedTreeGrus> LoadTreeGrus(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return absl::NotFoundError(absl::StrCat("treernn model ", path, ": no such file"));
  }
  LoadedTreeGrus loaded;
  try {
    torch::serialize::InputArchive root;
    root.load_from(path);
    c10::IValue format;
    if (!root.try_read("treernn_format", format) || !format.isInt()) {
      return absl::InvalidArgumentError(
          absl::StrCat("treernn model ", path, ": not a treernn model file"));
    }
    if (format.toInt() != kFormatVersion) {
      return absl::InvalidArgumentError(absl::StrCat(
          "treernn model ", path, ": format ", format.toInt(), ", expected ", kFormatVersion));
    }
    loaded.fitted = TreeGruLoader::Read(root, "fitted");
    loaded.prior = TreeGruLoader::Read(root, "prior");
  } catch (const std::exception& e) {
    // c10::Error messages carry a C++ backtrace after the first line.
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    return absl::InvalidArgumentError(absl::StrCat("treernn model ", path, ": ", what));
  }
  return loaded;
}

}  // namespace tessel::costmodels::treernn
