// The precompiled header of the sources that use libtorch (baselines/torch, the TreeRNN cost
// model): common_headers.h and libtorch's C++ API, which alone takes most of their compile time.
#include "tools/pch/common_headers.h"

#include <torch/torch.h>
