// libtorch: a tiny GRU learns to output the running mean of its input sequence; a few Adam steps
// must cut the loss well below where it started.
#include <gtest/gtest.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/optim/adam.h>

namespace {

struct TinyGru : torch::nn::Module {
  TinyGru()
      : gru(register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(1, 8).batch_first(true)))),
        head(register_module("head", torch::nn::Linear(8, 1))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    auto [outputs, last_hidden] = gru->forward(x);
    return head->forward(outputs);
  }

  torch::nn::GRU gru;
  torch::nn::Linear head;
};

TEST(TorchSmokeTest, GruLossDrops) {
  torch::manual_seed(0);
  torch::set_num_threads(1);
  // batch 16, sequence 10, one feature; the target is the running mean along the sequence.
  torch::Tensor x = torch::rand({16, 10, 1});
  torch::Tensor steps = torch::arange(1, 11, torch::kFloat).view({1, 10, 1});
  torch::Tensor target = x.cumsum(1) / steps;

  TinyGru model;
  torch::optim::Adam optimizer(model.parameters(), torch::optim::AdamOptions(0.02));
  float first_loss = 0, last_loss = 0;
  for (int step = 0; step < 60; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(model.forward(x), target);
    loss.backward();
    optimizer.step();
    if (step == 0) first_loss = loss.item<float>();
    last_loss = loss.item<float>();
  }
  EXPECT_LT(last_loss, 0.2f * first_loss) << "first " << first_loss << ", last " << last_loss;
}

}  // namespace
