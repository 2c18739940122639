#include "compiler/runtime/opencl/opencl_module.h"

#include <absl/strings/str_cat.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "compiler/runtime/opencl/buffer_table.h"
#include "compiler/runtime/opencl/module_file.h"
#include "compiler/runtime/opencl/opencl_api.h"
#include "compiler/runtime/opencl/program.h"

namespace tessel::runtime::opencl {
namespace {

class OpenclModuleNode final : public ModuleNode {
 public:
  explicit OpenclModuleNode(OpenclModuleData data) : data_(std::move(data)) {
    for (const OpenclKernel& k : data_.kernels) signatures_.push_back(k.signature);
  }
  ~OpenclModuleNode() override {
    for (auto& [device, built] : built_) {
      for (cl_kernel k : built.kernels) clReleaseKernel(k);
      clReleaseProgram(built.program);
    }
  }

  std::string kind() const override { return "opencl"; }
  const std::vector<FunctionSignature>& signatures() const override { return signatures_; }
  DLDeviceType device_type() const override { return kDLOpenCL; }

  // Enqueues kernel `name`. A Function holds this node, so `this` outlives every call.
  absl::StatusOr<Invoker> Entry(const std::string& name) const override {
    for (size_t k = 0; k < data_.kernels.size(); ++k) {
      if (data_.kernels[k].signature.name != name) continue;
      return Invoker(
          [this, k](const uint64_t* slots) { return Launch(static_cast<int>(k), slots); });
    }
    return absl::NotFoundError(absl::StrCat("no kernel '", name, "' in the opencl module"));
  }

  absl::Status Save(const std::string& path) const override { return SaveModuleFiles(data_, path); }

 private:
  struct Built {
    cl_program program = nullptr;
    std::vector<cl_kernel> kernels;
  };

  // The program built for `device` (at its first use there). Called with mu_ held.
  absl::StatusOr<const Built*> BuiltFor(const Platform& platform, int device) const;
  absl::Status Launch(int k, const uint64_t* slots) const;

  OpenclModuleData data_;
  std::vector<FunctionSignature> signatures_;
  // Guards built_ and the kernels' arguments: clSetKernelArg on a cl_kernel is not thread-safe,
  // so setting a kernel's arguments and enqueuing it is one critical section.
  mutable std::mutex mu_;
  mutable std::map<int, Built> built_;  // by device id
};

absl::StatusOr<const OpenclModuleNode::Built*> OpenclModuleNode::BuiltFor(const Platform& platform,
                                                                        int device) const {
  auto it = built_.find(device);
  if (it != built_.end()) return &it->second;
  absl::StatusOr<cl_program> program = BuildProgram(platform, device, data_.source);
  if (!program.ok()) return program.status();
  Built built;
  built.program = *program;
  for (const OpenclKernel& kernel : data_.kernels) {
    cl_int code = CL_SUCCESS;
    cl_kernel k = clCreateKernel(*program, kernel.signature.name.c_str(), &code);
    if (absl::Status s = CheckCl(code, "clCreateKernel"); !s.ok()) {
      for (cl_kernel made : built.kernels) clReleaseKernel(made);
      clReleaseProgram(*program);
      return absl::Status(s.code(),
                          absl::StrCat("kernel '", kernel.signature.name, "': ", s.message()));
    }
    built.kernels.push_back(k);
  }
  return &built_.emplace(device, std::move(built)).first->second;
}

absl::Status OpenclModuleNode::Launch(int k, const uint64_t* slots) const {
  const OpenclKernel& kernel = data_.kernels[k];
  const FunctionSignature& sig = kernel.signature;
  absl::StatusOr<const Platform*> platform = GetPlatform();
  if (!platform.ok()) return platform.status();
  auto error = [&](size_t i, const std::string& problem) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", sig.name, "' argument ", i,
                                                   " (parameter '", sig.params[i].name,
                                                   "'): ", problem));
  };
  // The buffers, which must all be on one device, each from its start.
  std::vector<cl_mem> buffers(sig.params.size(), nullptr);
  int device = -1;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    if (sig.params[i].kind != ParamSpec::Kind::kTensor || slots[i] == 0) continue;
    std::optional<BufferRef> ref = BufferTable::Find(static_cast<uintptr_t>(slots[i]));
    if (!ref) return error(i, "the tensor's data is not an OpenCL buffer of this runtime");
    if (ref->offset != 0) {
      return absl::UnimplementedError(absl::StrCat(
          "kernel '", sig.name, "' argument ", i, " (parameter '", sig.params[i].name,
          "'): the tensor starts ", ref->offset,
          " bytes into its OpenCL buffer; a kernel takes whole buffers (copy it to one)"));
    }
    if (device >= 0 && ref->device_id != device) {
      return error(i, absl::StrCat("the tensor is on opencl:", ref->device_id,
                                   " but an earlier one is on opencl:", device));
    }
    device = ref->device_id;
    buffers[i] = ref->mem;
  }
  if (device < 0) device = 0;
  if (absl::Status s = CheckDevice(**platform, device); !s.ok()) return s;

  size_t global[3], local[3];
  const int num_slots = sig.num_slots();
  for (int d = 0; d < 3; ++d) {
    absl::StatusOr<int64_t> g = kernel.launch.grid[d].Evaluate(slots, num_slots);
    absl::StatusOr<int64_t> b = kernel.launch.block[d].Evaluate(slots, num_slots);
    for (const absl::StatusOr<int64_t>* v : {&g, &b}) {
      if (!v->ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("kernel '", sig.name, "': ", v->status().message()));
      }
    }
    if (*g == 0 || *b == 0) return absl::OkStatus();  // empty tensors: nothing to run
    if (*g < 0 || *b < 0 || *g > 0x7fffffff || *b > 0x7fffffff) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", sig.name, "': work-groups ", *g, " x work-items ", *b, " along dimension ",
          d, " is out of range"));
    }
    local[d] = static_cast<size_t>(*b);
    global[d] = static_cast<size_t>(*g) * local[d];
  }

  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<const Built*> built = BuiltFor(**platform, device);
  if (!built.ok()) return built.status();
  cl_kernel function = (*built)->kernels[k];
  for (int s = 0; s < num_slots; ++s) {
    const bool is_param = s < static_cast<int>(sig.params.size());
    cl_int code = CL_SUCCESS;
    if (is_param && sig.params[s].kind == ParamSpec::Kind::kTensor) {
      code = clSetKernelArg(function, s, sizeof(cl_mem), &buffers[s]);
    } else if (is_param && sig.params[s].kind == ParamSpec::Kind::kFloat) {
      // The slot holds a double's bits; a float parameter takes a float.
      double d;
      std::memcpy(&d, &slots[s], sizeof d);
      const float f = static_cast<float>(d);
      code = sig.params[s].dtype.bits == 32 ? clSetKernelArg(function, s, sizeof f, &f)
                                            : clSetKernelArg(function, s, sizeof d, &d);
    } else {
      // Integers: the low bytes of the slot are the value (little endian).
      const int bits = is_param ? sig.params[s].dtype.bits
                                : sig.bound_vars[s - sig.params.size()].bits;
      code = clSetKernelArg(function, s, static_cast<size_t>(bits <= 8 ? 1 : bits / 8), &slots[s]);
    }
    if (absl::Status st = CheckCl(code, "clSetKernelArg"); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("kernel '", sig.name, "' slot ", s, ": ",
                                                   st.message()));
    }
  }
  absl::Status s = CheckCl(clEnqueueNDRangeKernel((*platform)->queues[device], function, 3,
                                                  nullptr, global, local, 0, nullptr, nullptr),
                           "clEnqueueNDRangeKernel");
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat("launching kernel '", sig.name, "' with global size (",
                                   global[0], ", ", global[1], ", ", global[2], ") local size (",
                                   local[0], ", ", local[1], ", ", local[2], "): ", s.message()));
}

}  // namespace

Module MakeOpenclModule(OpenclModuleData data) {
  return Module(std::make_shared<OpenclModuleNode>(std::move(data)));
}

absl::StatusOr<Module> LoadOpenclModule(const std::string& path) {
  absl::StatusOr<OpenclModuleData> data = LoadModuleFiles(path);
  if (!data.ok()) return data.status();
  return MakeOpenclModule(*std::move(data));
}

}  // namespace tessel::runtime::opencl
