#include "compiler/codegen/interp/interp.h"

#include <absl/strings/str_cat.h>

#include "compiler/codegen/interp/code.h"
#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/params.h"

namespace tessel::interp {
namespace detail {

struct CompiledFunc {
  std::string name;
  ParamPlans params;
  StmtPtr body;
  int slot_count = 0;
  int binding_count = 0;
};

}  // namespace detail

absl::StatusOr<Program> Program::Compile(const ir::PrimFunc& func, const ExternRegistry& externs) {
  if (!func.defined()) return absl::InvalidArgumentError("cannot interpret an undefined PrimFunc");
  auto compiled = std::make_shared<detail::CompiledFunc>();
  compiled->name = func->name;
  detail::Compiler c(func->body, externs);
  compiled->params = detail::PlanParams(c, func);
  compiled->body = c.CompileStmt(func->body);
  if (!c.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot interpret function '", func->name, "': ", c.status().message()));
  }
  compiled->slot_count = c.slot_count();
  compiled->binding_count = c.binding_count();
  return Program(std::move(compiled));
}

absl::Status Program::Run(const std::vector<Arg>& args) const {
  const detail::CompiledFunc& func = *impl_;
  detail::RunState run;
  detail::Frame f;
  f.run = &run;
  f.slots.assign(func.slot_count, detail::IntLane(0));
  f.buffers.assign(func.binding_count, detail::BufferBinding());
  absl::Status status = detail::BindParams(func.params, args, f);
  if (status.ok()) {
    func.body->Exec(f);
    status = run.status;
  }
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat("function '", func.name, "': ", status.message()));
}

const std::string& Program::name() const { return impl_->name; }

absl::Status Run(const ir::PrimFunc& func, const std::vector<Arg>& args,
                 const ExternRegistry& externs) {
  absl::StatusOr<Program> program = Program::Compile(func, externs);
  if (!program.ok()) return program.status();
  return program->Run(args);
}

}  // namespace tessel::interp
