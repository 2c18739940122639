#include "compiler/graph/onnx/import.h"

#include <absl/strings/str_cat.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>

#include "compiler/graph/onnx/importer.h"
#include "compiler/graph/onnx/onnx_checks.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx {
namespace {

// Gives every symbolic dimension of a graph input its value from `dims` (and the same names
// elsewhere in the model's declared types, so shape inference sees one consistent model).
absl::Status BindDims(::onnx::ModelProto& model, const ImportOptions& options,
                      const std::string& what) {
  ::onnx::GraphProto& g = *model.mutable_graph();
  std::set<std::string> initializers;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  auto bind = [&](::onnx::ValueInfoProto& v, bool required) -> absl::Status {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return absl::OkStatus();
    auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d = 0; d < shape->dim_size(); ++d) {
      auto* dim = shape->mutable_dim(d);
      if (dim->has_dim_value()) {
        if (dim->dim_value() < 0 && required) {
          return absl::InvalidArgumentError(
              absl::StrCat(what, ": input '", v.name(), "' dimension ", d, " is negative"));
        }
        continue;
      }
      auto it = dim->has_dim_param() ? options.dims.find(dim->dim_param()) : options.dims.end();
      if (it != options.dims.end()) {
        if (it->second < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              what, ": the value ", it->second, " of dimension '", it->first, "' is negative"));
        }
        dim->set_dim_value(it->second);
      } else if (required) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": input '", v.name(), "' dimension ", d,
            dim->has_dim_param() ? absl::StrCat(" is symbolic ('", dim->dim_param(), "')")
                                 : std::string(" is unknown"),
            ": give it a value (ImportOptions::dims)"));
      }
    }
    return absl::OkStatus();
  };
  for (auto& in : *g.mutable_input()) {
    const bool required = initializers.count(in.name()) == 0;
    if (required && in.type().has_tensor_type() && !in.type().tensor_type().has_shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": input '", in.name(), "' has no shape"));
    }
    TESSEL_RETURN_IF_ERROR(bind(in, required));
  }
  for (auto& v : *g.mutable_value_info()) TESSEL_RETURN_IF_ERROR(bind(v, false));
  for (auto& v : *g.mutable_output()) TESSEL_RETURN_IF_ERROR(bind(v, false));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Graph> ImportOnnxBytes(const std::string& bytes, const std::string& what,
                                      const ImportOptions& options) {
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": not an ONNX model (the ModelProto does not parse: truncated or not protobuf)"));
  }
  // Symbolic dimensions get their values first, so ONNX infers static shapes throughout.
  TESSEL_RETURN_IF_ERROR(BindDims(model, options, what));
  TESSEL_RETURN_IF_ERROR(internal::CheckAndInferShapes(model, what));
  return internal::ImportModel(model, what, options);
}

absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open ONNX model '", path, "': ", std::strerror(errno)));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ONNX model '", path, "'"));
  }
  return ImportOnnxBytes(buffer.str(), path, options);
}

}  // namespace tessel::graph::onnx
