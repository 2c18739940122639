#include "compiler/graph/onnx/tensor_file.h"

#include <absl/strings/str_cat.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compiler/graph/onnx/tensor_proto.h"

namespace tessel::graph::onnx {

absl::StatusOr<runtime::NDArray> ReadTensorProtoFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open tensor file '", path, "': ", std::strerror(errno)));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  ::onnx::TensorProto proto;
  if (in.bad() || !proto.ParseFromString(buffer.str())) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an ONNX TensorProto"));
  }
  return internal::TensorFromProto(proto, path);
}

}  // namespace tessel::graph::onnx
