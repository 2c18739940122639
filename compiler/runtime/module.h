#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "compiler/runtime/function_signature.h"

// Compiled functions and the code that holds them.
//
// A Module is a set of compiled functions, from the JIT (codegen/llvm), loaded from a shared
// library that Save wrote, or a device module's kernels (codegen/cuda). GetFunction returns a
// callable that checks every argument against the function's signature (function_signature.h)
// and then runs the code. Arguments follow the interpreter's convention: a DLTensor* on the
// module's device type (ModuleNode::device_type: the host for host code) for a tensor parameter,
// all on one device, an int64_t for an integer, a double for a float. A tensor must have the
// parameter's element type, rank and shape (shape variables are bound from the first tensor that
// has them and checked against the rest and against scalar parameters), the declared strides (compact row-major when none are declared;
// strides of size-1 dimensions are not checked), and data + byte_offset aligned as declared.
// Errors name the argument, the parameter and what differs. Functions stay valid while any
// Function or Module copy is alive.
//
// Imports: a host module holds the device modules whose kernels its code launches (a CUDA module
// under an LLVM one, say). GetFunction looks in the module itself, then in its imports, depth
// first in import order; the first function of the name wins. Save cannot write imports yet:
// saving a module that has any is an error naming their kinds, never a library without them.
namespace tessel::runtime {

using Arg = std::variant<DLTensor*, int64_t, double>;

// The machine entry point of every compiled host function (function_signature.h): non-zero
// when the code reported an error (generated_abi.h holds its message).
using EntryFn = int32_t (*)(const uint64_t* slots);

// How a function runs once its arguments are checked and packed into slots: host code's entry
// point (HostInvoker) or a device module's launcher. Returns the code's error, if any.
using Invoker = std::function<absl::Status(const uint64_t* slots)>;

// Runs `entry`; its error is InternalError with the message the code reported.
Invoker HostInvoker(EntryFn entry);

class Module;

// The code behind a Module.
class ModuleNode {
 public:
  virtual ~ModuleNode();
  // What kind of code this is ("llvm", "library", ...), for messages.
  virtual std::string kind() const = 0;
  virtual const std::vector<FunctionSignature>& signatures() const = 0;
  // Where the tensors its functions take live: kDLCPU for host code, kDLCUDA for CUDA kernels.
  virtual DLDeviceType device_type() const { return kDLCPU; }
  // How function `name` (one of signatures()) runs, or why it cannot run here.
  virtual absl::StatusOr<Invoker> Entry(const std::string& name) const = 0;
  // Writes the module to path: a shared library (".so") that Module::Load reads back, or an
  // object file (".o") for another toolchain to link. Its imports are not this method's concern
  // (Module::Save refuses a module that has any).
  virtual absl::Status Save(const std::string& path) const = 0;

  // The modules this one imports (Module::Import), in import order.
  const std::vector<Module>& imports() const { return imports_; }

 private:
  friend class Module;
  std::vector<Module> imports_;
};

class Function {
 public:
  Function() = default;
  Function(std::shared_ptr<const ModuleNode> module, Invoker invoke,
           const FunctionSignature* signature)
      : module_(std::move(module)), invoke_(std::move(invoke)), signature_(signature) {}

  // Checks args and runs the function; an error if an argument does not match or the code
  // reported one (a failed assertion, an allocation that failed, a kernel launch that failed),
  // naming the function. A device module's function may return before its work ends (the
  // device's DeviceAPI::Synchronize waits for it).
  absl::Status operator()(std::span<const Arg> args) const;
  absl::Status operator()(std::initializer_list<Arg> args) const {
    return (*this)(std::span<const Arg>(args.begin(), args.size()));
  }

  const FunctionSignature& signature() const { return *signature_; }
  bool defined() const { return invoke_ != nullptr; }

 private:
  std::shared_ptr<const ModuleNode> module_;
  Invoker invoke_;
  const FunctionSignature* signature_ = nullptr;
};

// A handle to a ModuleNode: copies share the node, its imports included.
class Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<ModuleNode> node) : node_(std::move(node)) {}

  // Loads a shared library written by Save; errors name the file.
  static absl::StatusOr<Module> Load(const std::string& path);

  // Makes `device_module`'s functions reachable through this module, after its own and those of
  // earlier imports; every handle of this module sees it. Both modules must be defined, and the
  // import must not make a cycle (device_module must not reach this module through its own
  // imports): a failed check otherwise. Not synchronised with concurrent lookups: import before
  // sharing the module between threads.
  void Import(Module device_module);
  const std::vector<Module>& imports() const;

  // The function called name, from this module or its imports; an error lists the names there
  // are.
  absl::StatusOr<Function> GetFunction(const std::string& name) const;
  // This module's function names, then those of its imports in search order, each name once.
  std::vector<std::string> FunctionNames() const;
  // The node's kind() (ModuleNode).
  std::string kind() const;
  // ModuleNode::Save of this module. FailedPrecondition, naming the imported modules' kinds,
  // when it has imports: a saved library cannot carry them yet.
  absl::Status Save(const std::string& path) const;
  bool defined() const { return node_ != nullptr; }

 private:
  // The first function called name in search order, and the node that holds it; null if none.
  const FunctionSignature* Find(const std::string& name,
                                std::shared_ptr<const ModuleNode>& holder) const;
  // Whether `node` is this module's or one of its imports', at any depth.
  bool Reaches(const ModuleNode* node) const;

  std::shared_ptr<ModuleNode> node_;
};

// Checks args against signature and fills the entry point's slots: tensors must be on devices
// of `device_type`, all on one device (exposed for tests and for other module kinds).
absl::Status PackArguments(const FunctionSignature& signature, std::span<const Arg> args,
                           std::vector<uint64_t>& slots, DLDeviceType device_type = kDLCPU);

}  // namespace tessel::runtime
