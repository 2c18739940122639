#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"

// Helpers shared by the pass tests (testonly).
namespace tessel::transforms::testing {

// A PrimFunc whose params are the buffers' data variables followed by the scalars.
ir::PrimFunc MakeFunc(const std::string& name, const std::vector<ir::Buffer>& buffers,
                      const std::vector<ir::Var>& scalars, ir::Stmt body);

// The body's text (ir::ToString).
std::string Text(const ir::PrimFunc& f);

// Success if f passes ir::VerifyWellFormed, else its message.
::testing::AssertionResult WellFormed(const ir::PrimFunc& f);

// Runs `before` and `after` in the reference interpreter on the same inputs and compares every
// buffer argument afterwards. Each buffer argument starts filled with pseudo-random values drawn
// from seed (floats in [-4, 4], integers in [-100, 100]); scalar arguments take `scalars` in
// order. The two functions must have the same parameters; their buffers must have constant
// shapes and, pairwise, the same dtype and element count (a flattened buffer matches its
// multi-dimensional original). Floats compare within float_tolerance (relative), integers exactly.
// Fails if either run fails, naming the error.
::testing::AssertionResult SameOutputs(const ir::PrimFunc& before, const ir::PrimFunc& after,
                                       uint32_t seed, const std::vector<int64_t>& scalars = {},
                                       double float_tolerance = 0);

}  // namespace tessel::transforms::testing
