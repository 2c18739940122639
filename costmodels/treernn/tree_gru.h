#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "costmodels/features/feature_extractor.h"
#include "costmodels/treernn/params.h"

// The TreeGRU network of the treernn model (the architecture is in treernn.h), behind a torch-free
// interface: only tree_gru.cc includes libtorch, whose headers are slow to compile.
namespace tessel::costmodels::treernn {

class TreeGru {
 public:
  // Fresh parameters for nodes of `width` features (width, hidden >= 1), drawn from `seed`; the
  // normalisation is the identity until Normalise.
  TreeGru(int width, int hidden, uint64_t seed);
  ~TreeGru();
  TreeGru(const TreeGru&) = delete;
  TreeGru& operator=(const TreeGru&) = delete;

  std::unique_ptr<TreeGru> Clone() const;
  int width() const;
  int hidden() const;

  // Per-column mean and standard deviation of every node row of these trees (a constant column
  // keeps scale 1).
  void Normalise(const std::vector<const LoopTree*>& trees);

  // Minimises the pairwise logistic loss over pairs (i, j) of one minibatch with groups[i] ==
  // groups[j] and labels[i] != labels[j]; every minibatch holds trees of one group. Steps and
  // optimiser settings come from params; `seed` orders the minibatches. A malformed tree is an
  // InvalidArgument (see PackForest).
  absl::Status Train(const std::vector<const LoopTree*>& trees, const std::vector<double>& labels,
                     const std::vector<int>& groups, const TreeRnnParams& params, uint64_t seed,
                     int threads);

  // One score per tree, evaluated params.predict_batch trees at a time.
  absl::StatusOr<std::vector<double>> Score(const std::vector<const LoopTree*>& trees,
                                            const TreeRnnParams& params, int threads) const;

 private:
  friend absl::Status SaveTreeGrus(const std::string&, const TreeGru*, const TreeGru*);
  friend struct TreeGruLoader;
  struct Impl;
  explicit TreeGru(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Writes the fitted network and the prior (either may be null) with their sizes to one file
// (torch's archive format). An error names the path.
absl::Status SaveTreeGrus(const std::string& path, const TreeGru* fitted, const TreeGru* prior);

struct LoadedTreeGrus {
  std::unique_ptr<TreeGru> fitted;  // null where the file has none
  std::unique_ptr<TreeGru> prior;
};
// Reads SaveTreeGrus' file. A missing, unreadable or foreign file is an error naming the path.
absl::StatusOr<LoadedTreeGrus> LoadTreeGrus(const std::string& path);

}  // namespace tessel::costmodels::treernn
