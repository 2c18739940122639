// cuda_runner BUNDLE_DIR RESULT_JSON ARRAYS_DIR: runs a measurement bundle (bundle.h) on this
// machine's first GPU and writes the times to RESULT_JSON, the tensors of each entry's checked
// call to ARRAYS_DIR. It links no LLVM and none of the compiler, so that it runs on a GPU machine
// without Tessel's build dependencies. Exit status 1 with one line on stderr when nothing could
// run; entries that fail are recorded in the result with their error (and reported on stderr).
#include <cstdio>
#include <string>

#include "compiler/runtime/cuda/bundle.h"
#include "compiler/support/atomic_file.h"

int main(int argc, char** argv) {
  using namespace tessel::runtime::cuda;
  if (argc != 4) {
    std::fprintf(stderr, "usage: cuda_runner BUNDLE_DIR RESULT_JSON ARRAYS_DIR\n");
    return 2;
  }
  absl::StatusOr<BundleResult> result = RunBundle(argv[1], argv[3]);
  if (!result.ok()) {
    std::fprintf(stderr, "cuda_runner: %s\n", std::string(result.status().message()).c_str());
    return 1;
  }
  for (const EntryResult& e : result->entries) {
    if (!e.error.empty()) std::fprintf(stderr, "cuda_runner: %s: %s\n", e.name.c_str(), e.error.c_str());
  }
  absl::Status written = tessel::support::WriteFileAtomically(argv[2], BundleResultToJson(*result));
  if (!written.ok()) {
    std::fprintf(stderr, "cuda_runner: %s\n", std::string(written.message()).c_str());
    return 1;
  }
  std::printf("cuda_runner: %zu entries on %s (%s)\n", result->entries.size(),
              result->device.c_str(), result->arch.c_str());
  return 0;
}
