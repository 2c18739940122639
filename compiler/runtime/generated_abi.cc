#include "compiler/runtime/generated_abi.h"

#include <mutex>

#include "compiler/runtime/parallel_abi.h"

namespace tessel::runtime {
namespace {

// One record for the process: a function's error is read by the thread that called it, but may
// have been reported by a worker of the thread pool.
std::mutex error_mutex;
std::string last_error;

void SetGeneratedError(const char* message) {
  std::lock_guard<std::mutex> lock(error_mutex);
  last_error = message != nullptr ? message : "(no message)";
}

}  // namespace

void* ParallelLaunchAddress() { return reinterpret_cast<void*>(&TesselParallelLaunch); }

void* SetErrorAddress() { return reinterpret_cast<void*>(&SetGeneratedError); }

std::string TakeGeneratedError() {
  std::lock_guard<std::mutex> lock(error_mutex);
  std::string message = std::move(last_error);
  last_error.clear();
  return message.empty() ? "the function reported an error without a message" : message;
}

}  // namespace tessel::runtime
