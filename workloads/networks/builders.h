#pragma once

#include <absl/status/statusor.h>

#include "compiler/graph/graph.h"
#include "workloads/networks/network.h"

// The builders behind BuildNetwork, one file each; options are already checked (batch >= 1).
namespace tessel::workloads::networks::internal {

absl::StatusOr<graph::Graph> BuildResnet18(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildMobilenetV1(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildMobilenetV2(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildBertBase(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildDqn(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildDcgan(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildLstmLm(const NetworkOptions& options);
// Fig. 4's fusion workloads.
absl::StatusOr<graph::Graph> BuildConvBnRelu(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildDepthwiseBnRelu(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildRnnCell(const NetworkOptions& options);
absl::StatusOr<graph::Graph> BuildLstmCell(const NetworkOptions& options);

// The LSTM language model's sizes (PTB's vocabulary, the "medium" model).
inline constexpr int64_t kLstmVocabulary = 10000;
inline constexpr int64_t kLstmHidden = 650;
inline constexpr int64_t kLstmLayers = 2;
inline constexpr int64_t kLstmSteps = 35;

// BERT-base's sizes, at sequence 128.
inline constexpr int64_t kBertVocabulary = 30522;
inline constexpr int64_t kBertPositions = 512;
inline constexpr int64_t kBertHidden = 768;
inline constexpr int64_t kBertHeads = 12;
inline constexpr int64_t kBertHeadSize = 64;
inline constexpr int64_t kBertIntermediate = 3072;
inline constexpr int64_t kBertLayers = 12;
inline constexpr int64_t kBertSequence = 128;

// Fig. 4's cells: hidden = input = 128.
inline constexpr int64_t kCellHidden = 128;

}  // namespace tessel::workloads::networks::internal
