// Templates with a fused element-wise tail (Template::instantiate_with_tail) against libtorch plus
// the same tail on the host: the fallback and random configs of each template that takes one.
#include <gtest/gtest.h>

#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops::x86 {
namespace {

using testing::CheckTailRandomConfigs;
using testing::SquareConvArgs;

const Template& Find(const std::string& name) {
  absl::StatusOr<const Template*> t = FindTemplate(name);
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

TEST(FusedTailTest, Conv2dNchwc) {
  const Template& t = Find("conv2d_nchwc.x86");
  // Padded 3x3, strided, and a 1x1 with channels that do not fill a vector.
  for (const OpArgs& args : {SquareConvArgs(16, 9, 32, 3, 1, 1), SquareConvArgs(8, 10, 16, 3, 2, 1),
                             SquareConvArgs(12, 6, 20, 1, 1, 0)}) {
    absl::Status s = CheckTailRandomConfigs(t, args, 6);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(FusedTailTest, TemplatesWithoutTailSayso) {
  absl::Status s =
      testing::CheckTailConfig(Find("relu.x86"), {{"shape", {2, 3}}}, search::Config());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
}

}  // namespace
}  // namespace tessel::ops::x86
