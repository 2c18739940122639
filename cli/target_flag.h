#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/target/target.h"

// The --target flag of the commands that run code here (tessel tune, bench ops): its value parsed
// and resolved for this machine as compiled models resolve theirs (target::ResolveCompileTarget:
// `-mcpu=native` named as the CPU, FMA contraction unless a fast-math flag is given), so the tasks
// they tune and time are the ones `tessel compile` looks up.
namespace tessel::cli {

// Errors name the flag and the target: "--target 'rocm': unknown kind 'rocm' ...".
absl::StatusOr<target::Target> HostTargetFlag(const std::string& text);

}  // namespace tessel::cli
