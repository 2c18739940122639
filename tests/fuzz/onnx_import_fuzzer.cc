// libFuzzer target: ImportOnnxBytes on arbitrary bytes. Any input must give a graph that
// verifies or an error status (never a crash, a sanitizer report, or an Internal error, which
// would be the frontend's bug). Built two ways (BUILD): with clang and libFuzzer for fuzzing, and
// as the workspace builds everything, as a replay of the seed corpus.
#include <absl/status/statusor.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/graph/graph.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/support/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessel::graph::onnx::ImportOptions options;
  options.dims = {{"N", 1}, {"batch", 2}, {"seq", 3}};
  // Enough for the seed models; a fuzzed ConstantOfShape asks for more than the fuzzer's memory.
  options.max_constant_bytes = int64_t{64} << 20;
  const absl::StatusOr<tessel::graph::Graph> g = tessel::graph::onnx::ImportOnnxBytes(
      std::string(reinterpret_cast<const char*>(data), size), "<fuzz input>", options);
  if (g.ok()) {
    const absl::Status verified = tessel::graph::Verify(*g);
    TESSEL_CHECK(verified.ok()) << "an imported graph does not verify: " << verified;
  } else {
    TESSEL_CHECK(g.status().code() != absl::StatusCode::kInternal) << g.status();
  }
  return 0;
}
