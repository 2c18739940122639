#include "compiler/ops/nn/requantize.h"

#include "compiler/support/status_macros.h"

namespace tessel::ops::nn {

absl::StatusOr<std::optional<Requantize>> ReadRequantize(const std::string& what,
                                                         const OpArgs& args) {
  ArgReader reader(what, args);
  if (!args.contains("shift")) {
    if (args.contains("relu")) return reader.Error("argument 'relu' goes with 'shift'");
    return std::nullopt;
  }
  Requantize r;
  TESSEL_ASSIGN_OR_RETURN(const int64_t shift, reader.Int("shift", 0));
  if (shift > 31) return reader.Error("argument 'shift' must be at most 31");
  r.shift = static_cast<int>(shift);
  TESSEL_ASSIGN_OR_RETURN(r.relu, reader.BoolOr("relu", false));
  return r;
}

}  // namespace tessel::ops::nn
