#include "compiler/ops/nn/matrix_args.h"

#include "compiler/support/status_macros.h"

namespace tessel::ops::nn {

absl::StatusOr<DenseArgs> ReadDenseArgs(const std::string& name, const OpArgs& args) {
  ArgReader r(name, args);
  DenseArgs a{};
  TESSEL_ASSIGN_OR_RETURN(a.m, r.Extent("m"));
  TESSEL_ASSIGN_OR_RETURN(a.n, r.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(a.k, r.Extent("k"));
  TESSEL_ASSIGN_OR_RETURN(a.bias, r.BoolOr("bias", false));
  return a;
}

absl::StatusOr<DenseInt8Args> ReadDenseInt8Args(const std::string& name, const OpArgs& args) {
  ArgReader r(name, args);
  DenseInt8Args a{};
  TESSEL_ASSIGN_OR_RETURN(a.m, r.Extent("m"));
  TESSEL_ASSIGN_OR_RETURN(a.n, r.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(a.k, r.Extent("k"));
  TESSEL_ASSIGN_OR_RETURN(a.requantize, ReadRequantize(name, args));
  return a;
}

absl::StatusOr<MatmulArgs> ReadMatmulArgs(const std::string& name, bool batched,
                                          const OpArgs& args) {
  ArgReader r(name, args);
  MatmulArgs a{};
  if (batched) {
    TESSEL_ASSIGN_OR_RETURN(a.batch, r.Extent("batch"));
  }
  TESSEL_ASSIGN_OR_RETURN(a.m, r.Extent("m"));
  TESSEL_ASSIGN_OR_RETURN(a.n, r.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(a.k, r.Extent("k"));
  return a;
}

absl::StatusOr<CellArgs> ReadCellArgs(const std::string& name, const OpArgs& args) {
  ArgReader r(name, args);
  CellArgs a{};
  TESSEL_ASSIGN_OR_RETURN(a.batch, r.Extent("batch"));
  TESSEL_ASSIGN_OR_RETURN(a.input, r.Extent("input"));
  TESSEL_ASSIGN_OR_RETURN(a.hidden, r.Extent("hidden"));
  return a;
}

}  // namespace tessel::ops::nn
