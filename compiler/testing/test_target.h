#pragma once

#include <string>
#include <string_view>

#include "compiler/target/target.h"

// The LLVM target of the tests whose code depends on the CPU (operator templates, compiled
// models). By default this host, "llvm -mcpu=native". Each such test also runs as
// `<test>_other_width` (tools/target_variants.bzl), with TESSEL_TEST_TARGET=other-vector-width:
//   on a CPU with AVX-512: "llvm -mcpu=haswell" (AVX2, 8 float lanes), which runs here;
//   on any other x86 CPU:  "llvm -mcpu=skylake-avx512" (16 lanes), compiled and assembled only.
// So both vector widths are compiled on every machine, and run where the CPU allows. Any other
// value of TESSEL_TEST_TARGET is taken as the target string itself.
namespace tessel::testing {

target::Target TestTarget();

// A target string a test writes out, parsed; a string that does not parse fails a check.
target::Target ParseTarget(std::string_view text);

// Empty when code compiled for `target` can run on this CPU; otherwise why not, e.g.
// "llvm -mcpu=skylake-avx512 uses avx512f, avx512bw, ... which this CPU lacks". A target that
// does not resolve is reported by the compile that follows, so it counts as runnable here. A
// `cuda` or `opencl` target runs here when its device (target_device.h) takes an allocation,
// through the device API linked into the test (none linked: not runnable, with the reason).
std::string WhyNotRunnable(const target::Target& target);

}  // namespace tessel::testing
