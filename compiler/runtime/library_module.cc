#include <absl/strings/str_cat.h>
#include <dlfcn.h>

#include <filesystem>
#include <system_error>

#include "compiler/runtime/generated_abi.h"
#include "compiler/runtime/module.h"

// Module::Load: a shared library written by Module::Save, opened with dlopen.
namespace tessel::runtime {
namespace {

class LibraryModuleNode : public ModuleNode {
 public:
  LibraryModuleNode(std::string path, void* handle, std::vector<FunctionSignature> signatures)
      : path_(std::move(path)), handle_(handle), signatures_(std::move(signatures)) {}
  ~LibraryModuleNode() override { dlclose(handle_); }

  std::string kind() const override { return "library"; }
  const std::vector<FunctionSignature>& signatures() const override { return signatures_; }

  absl::StatusOr<Invoker> Entry(const std::string& name) const override {
    void* address = dlsym(handle_, name.c_str());
    if (address == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(path_, ": the library lists function '", name, "' but does not define it"));
    }
    return HostInvoker(reinterpret_cast<EntryFn>(address));
  }

  absl::Status Save(const std::string& path) const override {
    if (!path.ends_with(".so")) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save a loaded library as '", path,
                                                     "': only a shared library (.so) copy"));
    }
    std::error_code ec;
    const std::string tmp = path + ".tmp";
    std::filesystem::copy_file(path_, tmp, std::filesystem::copy_options::overwrite_existing, ec);
    if (!ec) std::filesystem::rename(tmp, path, ec);
    if (ec) {
      std::filesystem::remove(tmp);
      return absl::InternalError(absl::StrCat("cannot write '", path, "': ", ec.message()));
    }
    return absl::OkStatus();
  }

 private:
  std::string path_;
  void* handle_;
  std::vector<FunctionSignature> signatures_;
};

}  // namespace

absl::StatusOr<Module> Module::Load(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(absl::StrCat("cannot load module '", path, "': no such file"));
  }
  // RTLD_LOCAL: each module keeps its own hook globals.
  void* handle = dlopen(std::filesystem::absolute(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load module '", path, "': ", dlerror()));
  }
  const char* json = static_cast<const char*>(dlsym(handle, kSignaturesSymbol));
  if (json == nullptr) {
    dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load module '", path, "': not a Tessel module (no ", kSignaturesSymbol, ")"));
  }
  absl::StatusOr<std::vector<FunctionSignature>> signatures = SignaturesFromJson(json);
  if (!signatures.ok()) {
    dlclose(handle);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load module '", path, "': ", signatures.status().message()));
  }
  InstallRuntimeHooks([handle](const char* name) { return dlsym(handle, name); });
  return Module(std::make_shared<LibraryModuleNode>(path, handle, *std::move(signatures)));
}

}  // namespace tessel::runtime
