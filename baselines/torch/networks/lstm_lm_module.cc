// PyTorch's word_language_model (LSTM, 2 layers, 650, vocabulary 10000) at inference: embedding,
// nn::LSTM over the whole sequence from zero states, decoder, log_softmax over the vocabulary.
#include "baselines/torch/networks/modules.h"

namespace tessel::baselines::internal {
namespace {

namespace nn = torch::nn;

struct LstmLm : NetworkModule {
  LstmLm()
      : encoder(register_module("encoder", nn::Embedding(10000, 650))),
        rnn(register_module("rnn", nn::LSTM(nn::LSTMOptions(650, 650).num_layers(2)))),
        decoder(register_module("decoder", nn::Linear(650, 10000))) {}
  std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) override {
    const torch::Tensor embedded = encoder(inputs.at(0).to(torch::kLong));  // [35, N, 650]
    const torch::Tensor output = std::get<0>(rnn(embedded));
    return {torch::log_softmax(decoder(output.reshape({-1, 650})), 1)};
  }
  nn::Embedding encoder;
  nn::LSTM rnn;
  nn::Linear decoder;
};

}  // namespace

std::shared_ptr<NetworkModule> MakeLstmLmModule() { return std::make_shared<LstmLm>(); }

}  // namespace tessel::baselines::internal
