#include "compiler/runtime/staged_function.h"

#include <absl/strings/str_cat.h>

#include <mutex>

#include "compiler/runtime/device_api.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/support/status_macros.h"

namespace tessel::runtime {

struct StagedFunction::State {
  Function device_function;
  DLDevice device;
  std::vector<bool> resident;
  std::vector<NDArray> buffers;  // per parameter (every parameter is a tensor)
  bool resident_loaded = false;
  std::mutex mu;
  StagedTraffic traffic;
};

namespace {

// The host side: the device function's signature, run by copying through the buffers.
class StagedNode final : public ModuleNode {
 public:
  explicit StagedNode(FunctionSignature signature) { signatures_.push_back(std::move(signature)); }
  std::string kind() const override { return "staged"; }
  const std::vector<FunctionSignature>& signatures() const override { return signatures_; }
  absl::StatusOr<Invoker> Entry(const std::string& name) const override {
    return absl::NotFoundError(absl::StrCat("a staged function has no entry '", name, "'"));
  }
  absl::Status Save(const std::string& /*path*/) const override {
    return absl::FailedPreconditionError(
        "a staged function is not saved; its device module is, and it is staged again on load");
  }

 private:
  std::vector<FunctionSignature> signatures_;
};

absl::Status Call(StagedFunction::State& s, const uint64_t* slots) {
  std::lock_guard<std::mutex> lock(s.mu);
  const std::vector<ParamSpec>& params = s.device_function.signature().params;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].written || (s.resident[i] && s.resident_loaded)) continue;
    NDArray& b = s.buffers[i];
    TESSEL_RETURN_IF_ERROR(b.CopyFromBytes(reinterpret_cast<const void*>(slots[i]),
                                           static_cast<size_t>(b.NumBytes())));
    s.traffic.bytes_in += b.NumBytes();
  }
  s.resident_loaded = true;
  std::vector<Arg> args;
  for (NDArray& b : s.buffers) args.push_back(b.dl());
  TESSEL_RETURN_IF_ERROR(s.device_function(std::span<const Arg>(args)));
  TESSEL_ASSIGN_OR_RETURN(DeviceAPI * api, GetDeviceAPI(s.device));
  TESSEL_RETURN_IF_ERROR(api->Synchronize(s.device));
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].written) continue;
    const NDArray& b = s.buffers[i];
    TESSEL_RETURN_IF_ERROR(
        b.CopyToBytes(reinterpret_cast<void*>(slots[i]), static_cast<size_t>(b.NumBytes())));
    s.traffic.bytes_out += b.NumBytes();
  }
  ++s.traffic.calls;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StagedFunction> StagedFunction::Create(Function device_function, DLDevice device,
                                                      std::vector<bool> resident) {
  const FunctionSignature& sig = device_function.signature();
  if (resident.size() != sig.params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("staging '", sig.name, "': ", resident.size(),
                                                   " resident flags for ", sig.params.size(),
                                                   " parameters"));
  }
  auto state = std::make_shared<State>();
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const ParamSpec& p = sig.params[i];
    auto refuse = [&](const std::string& why) {
      return absl::InvalidArgumentError(
          absl::StrCat("staging '", sig.name, "': parameter '", p.name, "' ", why));
    };
    if (p.kind != ParamSpec::Kind::kTensor) return refuse("is not a tensor");
    if (resident[i] && p.written) return refuse("is written, so it cannot be resident");
    if (!p.strides.empty()) return refuse("has declared strides (compact tensors only)");
    std::vector<int64_t> shape;
    for (const DimSpec& d : p.shape) {
      if (!d.is_constant()) return refuse("has a shape that is not constant");
      shape.push_back(d.value);
    }
    absl::StatusOr<NDArray> buffer = NDArray::Empty(shape, p.dtype, device);
    if (!buffer.ok()) {
      return absl::Status(buffer.status().code(),
                          absl::StrCat("staging '", sig.name, "': parameter '", p.name,
                                       "': ", buffer.status().message()));
    }
    state->buffers.push_back(*std::move(buffer));
  }
  state->device_function = std::move(device_function);
  state->device = device;
  state->resident = std::move(resident);
  auto node = std::make_shared<StagedNode>(sig);
  StagedFunction f;
  f.state_ = state;
  f.host_ = Function(
      node, [state](const uint64_t* slots) { return Call(*state, slots); }, &node->signatures()[0]);
  return f;
}

StagedTraffic StagedFunction::traffic() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->traffic;
}

}  // namespace tessel::runtime
