#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "compiler/runtime/function_signature.h"

// Compiled functions and the code that holds them.
//
// A Module is a set of compiled functions, from the JIT (codegen/llvm) or loaded from a shared
// library that Save wrote. GetFunction returns a callable that checks every argument against the
// function's signature (function_signature.h) and then runs the machine code. Arguments follow
// the interpreter's convention: a DLTensor* on the host for a tensor parameter, an int64_t for an
// integer, a double for a float. A tensor must have the parameter's element type, rank and shape
// (shape variables are bound from the first tensor that has them and checked against the rest and
// against scalar parameters), the declared strides (compact row-major when none are declared;
// strides of size-1 dimensions are not checked), and data + byte_offset aligned as declared.
// Errors name the argument, the parameter and what differs. Functions stay valid while any
// Function or Module copy is alive.
namespace tessel::runtime {

using Arg = std::variant<DLTensor*, int64_t, double>;

// The machine entry point of every compiled function (function_signature.h).
using EntryFn = int32_t (*)(const uint64_t* slots);

// The code behind a Module.
class ModuleNode {
 public:
  virtual ~ModuleNode() = default;
  virtual const std::vector<FunctionSignature>& signatures() const = 0;
  // The entry point of function `name` (one of signatures()), or why it cannot run here.
  virtual absl::StatusOr<EntryFn> Entry(const std::string& name) const = 0;
  // Writes the module to path: a shared library (".so") that Module::Load reads back, or an
  // object file (".o") for another toolchain to link.
  virtual absl::Status Save(const std::string& path) const = 0;
};

class Function {
 public:
  Function() = default;
  Function(std::shared_ptr<const ModuleNode> module, EntryFn entry,
           const FunctionSignature* signature)
      : module_(std::move(module)), entry_(entry), signature_(signature) {}

  // Checks args and runs the function; an error if an argument does not match or the code
  // reported one (a failed assertion, an allocation that failed).
  absl::Status operator()(std::span<const Arg> args) const;
  absl::Status operator()(std::initializer_list<Arg> args) const {
    return (*this)(std::span<const Arg>(args.begin(), args.size()));
  }

  const FunctionSignature& signature() const { return *signature_; }
  bool defined() const { return entry_ != nullptr; }

 private:
  std::shared_ptr<const ModuleNode> module_;
  EntryFn entry_ = nullptr;
  const FunctionSignature* signature_ = nullptr;
};

class Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<const ModuleNode> node) : node_(std::move(node)) {}

  // Loads a shared library written by Save; errors name the file.
  static absl::StatusOr<Module> Load(const std::string& path);

  // The function called name; an error lists the names there are.
  absl::StatusOr<Function> GetFunction(const std::string& name) const;
  std::vector<std::string> FunctionNames() const;
  absl::Status Save(const std::string& path) const { return node_->Save(path); }
  bool defined() const { return node_ != nullptr; }

 private:
  std::shared_ptr<const ModuleNode> node_;
};

// Checks args against signature and fills the entry point's slots (exposed for tests and for
// other module kinds).
absl::Status PackArguments(const FunctionSignature& signature, std::span<const Arg> args,
                           std::vector<uint64_t>& slots);

}  // namespace tessel::runtime
