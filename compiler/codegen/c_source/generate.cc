#include "compiler/codegen/c_source/generate.h"

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>

#include "compiler/codegen/c_source/c_printer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"

namespace tessel::codegen::c_source {
namespace {

int64_t SharedBytes(const ir::Stmt& body) {
  int64_t bytes = 0;
  ir::PreOrderVisit(
      body, [](const ir::Expr&) {},
      [&](const ir::Stmt& s) {
        const auto* a = s.as<ir::AllocateNode>();
        if (a == nullptr || a->buffer->scope != "shared") return;
        int64_t n = a->buffer->dtype.bytes() * a->buffer->dtype.lanes();
        for (const ir::Expr& e : a->buffer->shape) {
          const int64_t* c = ir::AsConstInt(e);
          n *= c ? *c : 0;
        }
        bytes += n;
      });
  return bytes;
}

}  // namespace

absl::StatusOr<GeneratedSource> GenerateSource(const std::vector<ir::PrimFunc>& funcs,
                                               const Dialect& dialect) {
  GeneratedSource out;
  out.code = dialect.Preamble();
  absl::flat_hash_set<std::string> names;
  for (const ir::PrimFunc& func : funcs) {
    if (!names.insert(func->name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("two functions are named '", func->name, "'; kernels need distinct names"));
    }
    GeneratedKernel kernel;
    absl::StatusOr<gpu::KernelSignature> sig = gpu::MakeKernelSignature(func);
    if (!sig.ok()) return sig.status();
    kernel.signature = *std::move(sig);
    absl::StatusOr<gpu::KernelLaunch> launch = gpu::AnalyzeLaunch(func, kernel.signature);
    if (!launch.ok()) return launch.status();
    kernel.launch = *std::move(launch);
    kernel.shared_bytes = SharedBytes(func->body);
    CPrinter printer(dialect, func, kernel.signature, kernel.launch);
    absl::StatusOr<std::string> text = printer.Print();
    if (!text.ok()) return text.status();
    absl::StrAppend(&out.code, "\n", *text);
    out.kernels.push_back(std::move(kernel));
  }
  return out;
}

}  // namespace tessel::codegen::c_source
