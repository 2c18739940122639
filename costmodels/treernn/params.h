#pragma once

// The knobs of the treernn model (treernn.h), apart so that the network code can see them
// without the model's header.
namespace tessel::costmodels::treernn {

struct TreeRnnParams {
  int hidden = 32;              // width of the node embedding and of the GRU state
  double learning_rate = 3e-3;  // Adam
  double weight_decay = 1e-5;   // Adam's L2 penalty
  int batch_trees = 64;         // trees per training step; pairs are formed within one step
  // Steps = clamp(epochs * ceil(samples / batch_trees), min_steps, max_steps).
  int epochs = 50;
  int min_steps = 400;
  int max_steps = 1500;
  int predict_batch = 2048;  // trees evaluated at once by Predict (bounds memory)
};

}  // namespace tessel::costmodels::treernn
