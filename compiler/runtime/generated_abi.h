#pragma once

#include <string>

// The contract between generated code and the runtime that loads it.
//
// Generated code reaches the runtime only through function-pointer globals that it defines and
// the loader fills in (so the same object works in the JIT and as a shared library, whatever the
// host executable exports):
//   kParallelLaunchSymbol  TesselParallelLaunch (parallel_abi.h)
//   kSetErrorSymbol        void (*)(const char* message): records the error a function reports
//                          before it returns non-zero
// and a constant, NUL-terminated kSignaturesSymbol holding its signatures as JSON
// (function_signature.h).
namespace tessel::runtime {

inline constexpr char kParallelLaunchSymbol[] = "__tessel_parallel_launch";
inline constexpr char kSetErrorSymbol[] = "__tessel_set_error";
inline constexpr char kSignaturesSymbol[] = "__tessel_signatures";

// Fills the hook globals of a loaded module: `lookup(name)` returns the address of the global
// called name in that module, or nullptr if the module does not use it.
template <class Lookup>
void InstallRuntimeHooks(Lookup lookup);

// Implementation detail of InstallRuntimeHooks.
void* ParallelLaunchAddress();
void* SetErrorAddress();

// The last error generated code reported, cleared by reading it.
std::string TakeGeneratedError();

template <class Lookup>
void InstallRuntimeHooks(Lookup lookup) {
  if (void** slot = static_cast<void**>(lookup(kParallelLaunchSymbol))) {
    *slot = ParallelLaunchAddress();
  }
  if (void** slot = static_cast<void**>(lookup(kSetErrorSymbol))) *slot = SetErrorAddress();
}

}  // namespace tessel::runtime
