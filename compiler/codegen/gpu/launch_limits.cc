#include "compiler/codegen/gpu/launch_limits.h"

#include <absl/strings/str_cat.h>

namespace tessel::codegen::gpu {

std::optional<std::string> ExtentPastLimit(const KernelLaunch& launch,
                                           const target::GpuFacts& gpu) {
  for (int d = 0; d < 6; ++d) {
    const std::optional<int64_t>& extent = d < 3 ? launch.grid_const[d] : launch.block_const[d - 3];
    const int64_t limit = d < 3 ? gpu.max_grid_extents[d] : gpu.max_block_extents[d - 3];
    if (extent && *extent > limit) {
      return absl::StrCat(kThreadTags[d], " extent ", *extent, " exceeds its limit of ", limit);
    }
  }
  return std::nullopt;
}

}  // namespace tessel::codegen::gpu
