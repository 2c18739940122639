// The math emitters, JIT-compiled in loops of 16, 8 and 1 lanes (ORC LLJIT, host CPU, O3), checked
// against the double-precision C library over a dense sweep of all floats, [-1, 1] at a finer step,
// random inputs and the special values; plus the shape of the emitted IR.
#include "compiler/codegen/llvm/math_approx.h"

#include <gtest/gtest.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tessel::codegen::llvm_backend {
namespace {

using Emitter = llvm::Value* (*)(llvm::IRBuilder<>&, llvm::Value*);
// void kernel(const float* in, float* out, int64_t n): out[i] = f(in[i]).
using Kernel = void (*)(const float*, float*, int64_t);

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The bounds asserted here are the header's measured maxima plus a small margin.
struct MathFunction {
  const char* name;
  Emitter emit;
  double (*reference)(double);
  double max_ulp;
  double max_abs;  // Checked only when positive.
};

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const MathFunction kFunctions[] = {
    {"exp", EmitExp, [](double x) { return std::exp(x); }, 1.05, 0},
    {"log", EmitLog, [](double x) { return std::log(x); }, 0.95, 0},
    {"tanh", EmitTanh, [](double x) { return std::tanh(x); }, 1.55, 1.0e-7},
    {"sigmoid", EmitSigmoid, Sigmoid, 2.45, 1.0e-7},
};

constexpr int kLanes[] = {1, 8, 16};

// Emits `for (i = start; i + step <= n; i += step) body(i)` and returns i after the loop. A loop of
// step 1 is marked not to be vectorized, so scalar kernels stay scalar code.
llvm::Value* EmitLoop(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* n, int64_t step,
                      const std::function<void(llvm::Value*)>& body) {
  llvm::LLVMContext& ctx = b.getContext();
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx, "header", fn);
  auto* loop = llvm::BasicBlock::Create(ctx, "body", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "i");
  i->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLE(b.CreateAdd(i, b.getInt64(step)), n), loop, exit);

  b.SetInsertPoint(loop);
  body(i);
  llvm::Value* next = b.CreateAdd(i, b.getInt64(step));
  llvm::BranchInst* backedge = b.CreateBr(header);
  if (step == 1) {
    llvm::Metadata* no_vectorize[] = {
        llvm::MDString::get(ctx, "llvm.loop.vectorize.enable"),
        llvm::ConstantAsMetadata::get(b.getFalse()),
    };
    llvm::Metadata* loop_id_ops[] = {nullptr, llvm::MDNode::get(ctx, no_vectorize)};
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx, loop_id_ops);
    loop_id->replaceOperandWith(0, loop_id);
    backedge->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
  i->addIncoming(next, b.GetInsertBlock());
  b.SetInsertPoint(exit);
  return i;
}

// Applies `emit` to `lanes` floats at a time, then to the remaining ones singly.
void BuildKernel(llvm::Module& module, const std::string& name, Emitter emit, int lanes) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* type =
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  llvm::Value* in = fn->getArg(0);
  llvm::Value* out = fn->getArg(1);
  llvm::Value* n = fn->getArg(2);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));

  auto apply = [&](int width) {
    llvm::Type* f32 = b.getFloatTy();
    llvm::Type* value_type =
        width == 1 ? f32 : static_cast<llvm::Type*>(llvm::FixedVectorType::get(f32, width));
    return [&b, in, out, emit, f32, value_type](llvm::Value* i) {
      llvm::Value* x =
          b.CreateAlignedLoad(value_type, b.CreateInBoundsGEP(f32, in, i), llvm::Align(4));
      b.CreateAlignedStore(emit(b, x), b.CreateInBoundsGEP(f32, out, i), llvm::Align(4));
    };
  };
  llvm::Value* i = b.getInt64(0);
  if (lanes > 1) i = EmitLoop(b, i, n, lanes, apply(lanes));
  EmitLoop(b, i, n, 1, apply(1));
  b.CreateRetVoid();
}

void OptimizeO3(llvm::Module& module) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

std::string KernelName(const MathFunction& f, int lanes) {
  return std::string(f.name) + "_x" + std::to_string(lanes);
}

// All kernels, compiled once for the whole test binary.
class Kernels {
 public:
  static const Kernels& Get() {
    static const Kernels* kernels = new Kernels();
    return *kernels;
  }

  Kernel Find(const MathFunction& f, int lanes) const {
    auto symbol = jit_->lookup(KernelName(f, lanes));
    if (!symbol) {
      ADD_FAILURE() << llvm::toString(symbol.takeError());
      return nullptr;
    }
    return symbol->toPtr<Kernel>();
  }

 private:
  Kernels() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("math_approx_test", *ctx);
    for (const MathFunction& f : kFunctions) {
      for (int lanes : kLanes) BuildKernel(*module, KernelName(f, lanes), f.emit, lanes);
    }
    std::string errors;
    llvm::raw_string_ostream error_stream(errors);
    EXPECT_FALSE(llvm::verifyModule(*module, &error_stream)) << errors;
    OptimizeO3(*module);
    EXPECT_FALSE(llvm::verifyModule(*module, &error_stream)) << errors;

    auto jit = llvm::orc::LLJITBuilder().create();
    if (!jit) {
      ADD_FAILURE() << llvm::toString(jit.takeError());
      return;
    }
    jit_ = std::move(*jit);
    llvm::Error added =
        jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx)));
    EXPECT_FALSE(static_cast<bool>(added)) << llvm::toString(std::move(added));
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

float FromBits(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t ToBits(float x) { return std::bit_cast<uint32_t>(x); }

// The ulp of the float nearest `value`: 2^(e - 23) for |value| in [2^e, 2^(e+1)), and 2^-149, the
// denormal spacing, below 2^-126.
double UlpOf(double value) {
  int exponent;
  std::frexp(std::fabs(value), &exponent);  // |value| = m 2^exponent, m in [0.5, 1).
  return std::ldexp(1.0, std::max(exponent - 1, -126) - 23);
}

std::string Describe(float x) {
  char text[64];
  std::snprintf(text, sizeof(text), "%a (%.9g)", x, x);
  return text;
}

struct Errors {
  double max_ulp = 0;
  double max_abs = 0;
  float worst_ulp_input = 0;
  float worst_abs_input = 0;
};

// Checks `got` = f(inputs) against the double-precision reference: non-finite and overflowing
// results must match exactly (any NaN for NaN), the others are measured.
Errors Measure(const MathFunction& f, const std::vector<float>& inputs,
               const std::vector<float>& got) {
  Errors errors;
  int mismatches = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    float x = inputs[k];
    float y = got[k];
    double ref = f.reference(x);
    float rounded = static_cast<float>(ref);
    bool special = std::isnan(ref) || std::isinf(rounded) || !std::isfinite(y);
    if (special) {
      bool ok = std::isnan(ref) ? std::isnan(y) : y == rounded;
      if (!ok && ++mismatches <= 10) {
        ADD_FAILURE() << f.name << "(" << Describe(x) << ") = " << Describe(y) << ", expected "
                      << Describe(rounded);
      }
      continue;
    }
    double abs_error = std::fabs(static_cast<double>(y) - ref);
    double ulp_error = abs_error / UlpOf(ref);
    if (ulp_error > errors.max_ulp) {
      errors.max_ulp = ulp_error;
      errors.worst_ulp_input = x;
    }
    if (abs_error > errors.max_abs) {
      errors.max_abs = abs_error;
      errors.worst_abs_input = x;
    }
  }
  return errors;
}

// Every 4096th bit pattern (both signs, infinities and NaNs included), every 512th float in
// [-1, 1], the special values, random bit patterns and random values in [-110, 110], in a count
// that leaves a tail for the scalar loop of the vector kernels.
std::vector<float> TestInputs() {
  std::vector<float> inputs;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4096) {
    inputs.push_back(FromBits(static_cast<uint32_t>(bits)));
  }
  for (uint32_t bits = 0; bits <= ToBits(1.0f); bits += 512) {
    inputs.push_back(FromBits(bits));
    inputs.push_back(-FromBits(bits));
  }
  const float specials[] = {0.0f,
                            -0.0f,
                            kInf,
                            -kInf,
                            kNaN,
                            -kNaN,
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            1.0f,
                            -1.0f,
                            88.7228f,
                            88.72284f,
                            -87.33655f,
                            -103.972f,
                            -104.0f,
                            9.0f,
                            -9.1f,
                            0.55f,
                            std::nextafter(0.55f, 0.0f)};
  inputs.insert(inputs.end(), std::begin(specials), std::end(specials));
  std::mt19937 rng(20240601);
  std::uniform_real_distribution<float> moderate(-110.0f, 110.0f);
  for (int k = 0; k < (1 << 18); ++k) {
    inputs.push_back(FromBits(static_cast<uint32_t>(rng())));
    inputs.push_back(moderate(rng));
  }
  while (inputs.size() % 16 != 13) inputs.push_back(moderate(rng));
  return inputs;
}

class MathApproxTest : public ::testing::TestWithParam<MathFunction> {};

TEST_P(MathApproxTest, WithinDocumentedErrorAndLaneCountIndependent) {
  const MathFunction& f = GetParam();
  static const std::vector<float> inputs = TestInputs();
  const int64_t n = static_cast<int64_t>(inputs.size());
  std::vector<std::vector<float>> outputs;
  for (int lanes : kLanes) {
    Kernel kernel = Kernels::Get().Find(f, lanes);
    ASSERT_NE(kernel, nullptr);
    outputs.emplace_back(inputs.size());
    kernel(inputs.data(), outputs.back().data(), n);
  }
  for (size_t v = 1; v < outputs.size(); ++v) {
    int differences = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (ToBits(outputs[v][k]) != ToBits(outputs[0][k]) && ++differences <= 10) {
        ADD_FAILURE() << f.name << " with " << kLanes[v] << " lanes differs from scalar at "
                      << Describe(inputs[k]) << ": " << Describe(outputs[v][k]) << " vs "
                      << Describe(outputs[0][k]);
      }
    }
  }

  Errors errors = Measure(f, inputs, outputs[0]);
  EXPECT_LE(errors.max_ulp, f.max_ulp) << f.name << " at " << Describe(errors.worst_ulp_input);
  if (f.max_abs > 0) {
    EXPECT_LE(errors.max_abs, f.max_abs) << f.name << " at " << Describe(errors.worst_abs_input);
  }
  std::printf("%-8s max %.3f ulp at %s, max abs error %.3g at %s over %zu inputs\n", f.name,
              errors.max_ulp, Describe(errors.worst_ulp_input).c_str(), errors.max_abs,
              Describe(errors.worst_abs_input).c_str(), inputs.size());
}

INSTANTIATE_TEST_SUITE_P(All, MathApproxTest, ::testing::ValuesIn(kFunctions),
                         [](const auto& info) { return std::string(info.param.name); });

// f(x) through the 8-lane kernel (its scalar tail included) for a few inputs.
std::vector<float> Apply(const MathFunction& f, std::vector<float> inputs) {
  std::vector<float> out(inputs.size());
  Kernel kernel = Kernels::Get().Find(f, 8);
  if (kernel != nullptr) kernel(inputs.data(), out.data(), static_cast<int64_t>(inputs.size()));
  return out;
}

bool SameBits(float a, float b) { return ToBits(a) == ToBits(b); }

TEST(MathApproxSpecialTest, Exp) {
  const MathFunction& exp = kFunctions[0];
  std::vector<float> y =
      Apply(exp, {-kInf, kInf, kNaN, 0.0f, -0.0f, 88.8f, 1e30f, -104.0f, -1e30f, -100.0f, 1.0f});
  EXPECT_TRUE(SameBits(y[0], 0.0f));
  EXPECT_EQ(y[1], kInf);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_EQ(y[5], kInf);
  EXPECT_EQ(y[6], kInf);
  EXPECT_TRUE(SameBits(y[7], 0.0f));
  EXPECT_TRUE(SameBits(y[8], 0.0f));
  // e^-100 = 3.72e-44 is a denormal, kept rather than flushed.
  EXPECT_NEAR(y[9], std::exp(-100.0), 0x1p-149);
  EXPECT_NE(y[9], 0.0f);
  EXPECT_NEAR(y[10], std::exp(1.0), 2.5e-7);
}

TEST(MathApproxSpecialTest, Log) {
  const MathFunction& log = kFunctions[1];
  const float denorm_min = std::numeric_limits<float>::denorm_min();
  std::vector<float> y = Apply(log, {0.0f, -0.0f, -1.0f, -kInf, kInf, kNaN, 1.0f, denorm_min,
                                     -denorm_min, std::numeric_limits<float>::max()});
  EXPECT_EQ(y[0], -kInf);
  EXPECT_EQ(y[1], -kInf);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(y[4], kInf);
  EXPECT_TRUE(std::isnan(y[5]));
  EXPECT_TRUE(SameBits(y[6], 0.0f));
  EXPECT_NEAR(y[7], std::log(static_cast<double>(denorm_min)), 1e-5);
  EXPECT_TRUE(std::isnan(y[8]));
  EXPECT_NEAR(y[9], std::log(static_cast<double>(std::numeric_limits<float>::max())), 1e-5);
}

TEST(MathApproxSpecialTest, Tanh) {
  const MathFunction& tanh = kFunctions[2];
  const float denorm_min = std::numeric_limits<float>::denorm_min();
  std::vector<float> y =
      Apply(tanh, {0.0f, -0.0f, kInf, -kInf, kNaN, 10.0f, -10.0f, 1e-30f, -denorm_min, 1e30f});
  EXPECT_TRUE(SameBits(y[0], 0.0f));
  EXPECT_TRUE(SameBits(y[1], -0.0f));
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], -1.0f);
  EXPECT_TRUE(std::isnan(y[4]));
  EXPECT_EQ(y[5], 1.0f);
  EXPECT_EQ(y[6], -1.0f);
  EXPECT_EQ(y[7], 1e-30f);
  EXPECT_EQ(y[8], -denorm_min);
  EXPECT_EQ(y[9], 1.0f);
}

TEST(MathApproxSpecialTest, Sigmoid) {
  const MathFunction& sigmoid = kFunctions[3];
  std::vector<float> y =
      Apply(sigmoid, {0.0f, -0.0f, kInf, -kInf, kNaN, 100.0f, -100.0f, -200.0f, 20.0f});
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_TRUE(SameBits(y[3], 0.0f));
  EXPECT_TRUE(std::isnan(y[4]));
  EXPECT_EQ(y[5], 1.0f);
  // sigmoid(-100) = 3.72e-44, a denormal.
  EXPECT_NEAR(y[6], Sigmoid(-100.0), 0x1p-149);
  EXPECT_NE(y[6], 0.0f);
  EXPECT_TRUE(SameBits(y[7], 0.0f));
  EXPECT_EQ(y[8], 1.0f);
}

// Emits each function into `<8 x float> f(<8 x float>)` with a builder whose defaults are full
// fast-math, and checks the IR: one block, no memory access, no calls but llvm.fma and llvm.fabs,
// no fast-math flags, and the builder's defaults restored.
TEST(MathApproxIrTest, StraightLineArithmeticWithoutFastMathFlags) {
  llvm::LLVMContext ctx;
  llvm::Module module("ir_test", ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::FastMathFlags fast;
  fast.setFast();
  for (const MathFunction& f : kFunctions) {
    for (llvm::Type* type :
         std::initializer_list<llvm::Type*>{llvm::FixedVectorType::get(b.getFloatTy(), 8),
                                            llvm::ScalableVectorType::get(b.getFloatTy(), 4)}) {
      auto* fn_type = llvm::FunctionType::get(type, {type}, false);
      auto* fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage,
                                        std::string(f.name) + "_ir", module);
      b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
      b.setFastMathFlags(fast);
      b.CreateRet(f.emit(b, fn->getArg(0)));
      EXPECT_TRUE(b.getFastMathFlags().isFast()) << f.name;

      EXPECT_EQ(fn->size(), 1u) << f.name;
      for (llvm::Instruction& inst : llvm::instructions(*fn)) {
        EXPECT_FALSE(inst.mayReadOrWriteMemory()) << f.name;
        if (llvm::isa<llvm::FPMathOperator>(inst)) {
          EXPECT_FALSE(inst.getFastMathFlags().any()) << f.name;
        }
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
          auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(call);
          ASSERT_NE(intrinsic, nullptr) << f.name;
          llvm::Intrinsic::ID id = intrinsic->getIntrinsicID();
          EXPECT_TRUE(id == llvm::Intrinsic::fma || id == llvm::Intrinsic::fabs)
              << f.name << " calls " << intrinsic->getCalledFunction()->getName().str();
        }
      }
    }
  }
  std::string errors;
  llvm::raw_string_ostream error_stream(errors);
  EXPECT_FALSE(llvm::verifyModule(module, &error_stream)) << errors;
}

}  // namespace
}  // namespace tessel::codegen::llvm_backend
