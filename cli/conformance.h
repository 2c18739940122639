#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel conformance DIR [--filter TEXT] [--case NAME] [--target T]`: ONNX test cases imported,
// compiled for this machine's CPU (llvm, untuned) or for --target's GPU (`opencl`: PoCL here;
// `cuda`), run there and compared with the outputs stored beside them. A GPU target whose device is
// missing is one error before any case.
//
// Cases are found anywhere under DIR, in the two layouts of ../shared/conformance/README.md, and
// fed and compared as compiler/graph/onnx/conformance_cases.h says (the backend tests' stored
// inputs, rtol 1e-3, atol 1e-5; the light models' ramp input, rtol 1e-3, atol 1e-7).
// Each case runs in a process of its own (at most 10 minutes), so a crash or a hang is that
// case's failure and the run goes on: `conformance_case DIR NAME TARGET` (cli/conformance_case.h),
// which does what `--case NAME` does in this process, without libtorch's start-up.
// One line per case, in path order: "<case>: passed", "<case>: failed (max abs error E at index
// [..])" (or the step that failed and why, or how the case's process ended), or "<case>:
// unsupported: <operator>" (the import or the compiler has no support for an operator). Then,
// when any case was unsupported, "unsupported operators (cases): Op 3, Op2 1"; the last line is
// "N passed, N failed", with unsupported cases counted as failed.
//
// Exit status, as a test runner's: 0 when every case passed; otherwise the command fails (exit
// 1) after printing every line, so a script can tell. A DIR without cases is an error.
namespace tessel::cli {

absl::Status ConformanceCommand(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
