#pragma once

#include <string>

#include "compiler/target/target.h"

// The header of every benchmark's report: the machine, the target (resolved by
// target::ResolveCompileTarget: this CPU named, a*b+c fused into FMAs as oneDNN and OpenBLAS do,
// unless the target says otherwise) and the threads.
namespace tessel::experiments {

// "machine: <CPU, cores, libraries>\ntarget: <target> (cpu <name>), threads: <n>\n"
std::string BenchMetadata(const target::Target& target, int threads);

}  // namespace tessel::experiments
