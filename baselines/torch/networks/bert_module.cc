// A BERT-base encoder as Hugging Face's BertModel computes it at inference (no pooler):
// nn::Embedding, nn::LayerNorm (eps 1e-12), nn::Linear, 4-D matmuls per head, torch::softmax and
// torch::gelu (exact), with its submodules named as BertModel's, so parameter names match
// ("encoder.layer.3.attention.self.query.weight").
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/normalization.h>

#include <limits>

#include "baselines/torch/networks/modules.h"

namespace tessel::baselines::internal {
namespace {

namespace nn = torch::nn;

constexpr int64_t kHidden = 768, kHeads = 12, kHeadSize = 64, kIntermediate = 3072;

nn::LayerNorm Norm() { return nn::LayerNorm(nn::LayerNormOptions({kHidden}).eps(1e-12)); }

// A linear layer and a layer norm of its output plus the residual: BertSelfOutput, BertOutput.
struct DenseNormImpl : nn::Module {
  explicit DenseNormImpl(int64_t in)
      : dense(register_module("dense", nn::Linear(in, kHidden))),
        LayerNorm(register_module("LayerNorm", Norm())) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual) {
    return LayerNorm(dense(x) + residual);
  }
  nn::Linear dense;
  nn::LayerNorm LayerNorm;
};
TORCH_MODULE(DenseNorm);

struct SelfAttentionImpl : nn::Module {
  SelfAttentionImpl()
      : query(register_module("query", nn::Linear(kHidden, kHidden))),
        key(register_module("key", nn::Linear(kHidden, kHidden))),
        value(register_module("value", nn::Linear(kHidden, kHidden))) {}
  // x [N, S, 768], mask [N, 1, 1, S] -> the heads' contexts [N, S, 768].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask) {
    auto heads = [&](const torch::Tensor& t) {
      return t.view({x.size(0), x.size(1), kHeads, kHeadSize}).permute({0, 2, 1, 3});
    };
    const torch::Tensor q = heads(query(x)), k = heads(key(x)), v = heads(value(x));
    const torch::Tensor scores = q.matmul(k.transpose(-1, -2)) / 8.0 + mask;
    const torch::Tensor context = torch::softmax(scores, -1).matmul(v);
    return context.permute({0, 2, 1, 3}).reshape({x.size(0), x.size(1), kHidden});
  }
  nn::Linear query, key, value;
};
TORCH_MODULE(SelfAttention);

struct AttentionImpl : nn::Module {
  AttentionImpl()
      : self(register_module("self", SelfAttention())),
        output(register_module("output", DenseNorm(kHidden))) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask) {
    return output(self(x, mask), x);
  }
  SelfAttention self;
  DenseNorm output;
};
TORCH_MODULE(Attention);

struct IntermediateImpl : nn::Module {
  IntermediateImpl() : dense(register_module("dense", nn::Linear(kHidden, kIntermediate))) {}
  torch::Tensor forward(const torch::Tensor& x) { return torch::gelu(dense(x)); }
  nn::Linear dense;
};
TORCH_MODULE(Intermediate);

struct LayerImpl : nn::Module {
  LayerImpl()
      : attention(register_module("attention", Attention())),
        intermediate(register_module("intermediate", Intermediate())),
        output(register_module("output", DenseNorm(kIntermediate))) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask) {
    const torch::Tensor a = attention(x, mask);
    return output(intermediate(a), a);
  }
  Attention attention;
  Intermediate intermediate;
  DenseNorm output;
};
TORCH_MODULE(Layer);

struct EmbeddingsImpl : nn::Module {
  EmbeddingsImpl()
      : word_embeddings(register_module("word_embeddings", nn::Embedding(30522, kHidden))),
        position_embeddings(register_module("position_embeddings", nn::Embedding(512, kHidden))),
        token_type_embeddings(register_module("token_type_embeddings", nn::Embedding(2, kHidden))),
        LayerNorm(register_module("LayerNorm", Norm())) {}
  torch::Tensor forward(const torch::Tensor& ids) {
    const torch::Tensor positions = torch::arange(ids.size(1), torch::kLong);
    const torch::Tensor types = torch::zeros({ids.size(1)}, torch::kLong);
    return LayerNorm(word_embeddings(ids) + position_embeddings(positions) +
                     token_type_embeddings(types));
  }
  nn::Embedding word_embeddings, position_embeddings, token_type_embeddings;
  nn::LayerNorm LayerNorm;
};
TORCH_MODULE(Embeddings);

struct EncoderImpl : nn::Module {
  EncoderImpl() {
    for (int i = 0; i < 12; ++i) layer->push_back(Layer());
    register_module("layer", layer);
  }
  nn::ModuleList layer;
};
TORCH_MODULE(Encoder);

struct Bert : NetworkModule {
  Bert()
      : embeddings(register_module("embeddings", Embeddings())),
        encoder(register_module("encoder", Encoder())) {}
  std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) override {
    torch::Tensor x = embeddings(inputs.at(0).to(torch::kLong));
    const torch::Tensor mask = inputs.at(1).to(torch::kFloat).unsqueeze(1).unsqueeze(2);
    const torch::Tensor bias = (1.0 - mask) * std::numeric_limits<float>::lowest();
    for (const auto& layer : *encoder->layer) x = layer->as<LayerImpl>()->forward(x, bias);
    return {x};
  }
  Embeddings embeddings;
  Encoder encoder;
};

}  // namespace

std::shared_ptr<NetworkModule> MakeBertBaseModule() { return std::make_shared<Bert>(); }

}  // namespace tessel::baselines::internal
