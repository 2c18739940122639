// timing_worker REQUEST.json: one side of a timed comparison in a process of its own, started by
// the benchmarks (experiments/side_process.h); the protocol is experiments/timed_side.h's, on
// file descriptors 3 and 4.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "experiments/timed_side.h"
#include "experiments/timing_sides.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: timing_worker REQUEST.json (started by tessel's benchmarks, which talk "
                 "to it on file descriptors 3 and 4)\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  const nlohmann::json request = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return tessel::experiments::ServeTimedSide(
      request,
      [&](const nlohmann::json& r) -> absl::StatusOr<tessel::experiments::TimedSide> {
        if (r.is_discarded() || !r.is_object()) {
          return absl::InvalidArgumentError(
              std::string("timing_worker: ") + argv[1] + " is not a JSON object");
        }
        return tessel::experiments::MakeTimedSide(r);
      },
      /*requests_fd=*/3, /*replies_fd=*/4);
}
