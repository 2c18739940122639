#pragma once

#include <string>

#include "compiler/target/target.h"

// The header of every benchmark's report: the machine, the target (resolved by
// target::ResolveCompileTarget: this CPU named, a*b+c fused into FMAs as oneDNN and OpenBLAS do,
// unless the target says otherwise) and the threads.
namespace tessel::experiments {

// "machine: <CPU, cores, libraries>\ntarget: <target> (cpu <name>), threads: <n>\n", and for a
// GPU target "device: " DeviceNote's line.
std::string BenchMetadata(const target::Target& target, int threads);

// What a GPU target's times are times of: a CUDA GPU, or this machine's OpenCL device, which is
// PoCL's CPU device here (so that no PoCL time passes for a GPU's), or none and why.
std::string DeviceNote(const target::Target& target);

}  // namespace tessel::experiments
