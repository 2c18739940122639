#include <absl/status/status.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/runtime/function_signature.h"
#include "compiler/runtime/module.h"

namespace tessel::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What the last entry point that ran was, and the argument it got.
int last_entry = 0;
int64_t last_argument = 0;

// Entry point number N: records that it ran.
template <int N>
int32_t Entry(const uint64_t* slots) {
  last_entry = N;
  last_argument = static_cast<int64_t>(slots[0]);
  return 0;
}

// A module of the given kind whose functions each take one int64 `x` and run the entry points
// given; counts its Save calls and its destructions.
class FakeModuleNode : public ModuleNode {
 public:
  FakeModuleNode(std::string kind, std::vector<std::pair<std::string, EntryFn>> functions,
                 int* destroyed = nullptr)
      : kind_(std::move(kind)), destroyed_(destroyed) {
    for (auto& [name, entry] : functions) {
      FunctionSignature sig;
      sig.name = name;
      ParamSpec x;
      x.name = "x";
      x.kind = ParamSpec::Kind::kInt;
      x.dtype = {kDLInt, 64, 1};
      sig.params.push_back(x);
      signatures_.push_back(sig);
      entries_[name] = entry;
    }
  }
  ~FakeModuleNode() override {
    if (destroyed_ != nullptr) ++*destroyed_;
  }

  std::string kind() const override { return kind_; }
  const std::vector<FunctionSignature>& signatures() const override { return signatures_; }
  absl::StatusOr<Invoker> Entry(const std::string& name) const override {
    return HostInvoker(entries_.at(name));
  }
  absl::Status Save(const std::string&) const override {
    ++saves;
    return absl::OkStatus();
  }

  mutable int saves = 0;

 private:
  std::string kind_;
  int* destroyed_;
  std::vector<FunctionSignature> signatures_;
  std::map<std::string, EntryFn> entries_;
};

// Runs `name` of m with x and returns the number of the entry point that ran (0: none).
int RunAndReport(const Module& m, const std::string& name, int64_t x) {
  last_entry = 0;
  absl::StatusOr<Function> f = m.GetFunction(name);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return 0;
  const absl::Status s = (*f)({x});
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(last_argument, x);
  return last_entry;
}

TEST(ModuleImportsTest, AnImportedFunctionIsFound) {
  Module host(std::make_shared<FakeModuleNode>(
      "llvm", std::vector<std::pair<std::string, EntryFn>>{{"main", Entry<1>}}));
  Module device(std::make_shared<FakeModuleNode>(
      "cuda", std::vector<std::pair<std::string, EntryFn>>{{"kernel", Entry<2>}}));
  EXPECT_EQ(host.GetFunction("kernel").status().code(), absl::StatusCode::kNotFound);

  host.Import(device);
  ASSERT_EQ(host.imports().size(), 1u);
  EXPECT_EQ(host.imports()[0].kind(), "cuda");
  EXPECT_EQ(host.kind(), "llvm");
  EXPECT_EQ(RunAndReport(host, "kernel", 21), 2);
  EXPECT_EQ(RunAndReport(host, "main", 5), 1);
  EXPECT_THAT(host.FunctionNames(), ElementsAre("main", "kernel"));
  // The device module alone does not see its importer.
  EXPECT_EQ(device.GetFunction("main").status().code(), absl::StatusCode::kNotFound);
}

TEST(ModuleImportsTest, LookupIsOwnFunctionsFirstThenImportsDepthFirst) {
  using Functions = std::vector<std::pair<std::string, EntryFn>>;
  Module host(std::make_shared<FakeModuleNode>(
      "llvm", Functions{{"main", Entry<1>}, {"shared", Entry<2>}}));
  Module first(
      std::make_shared<FakeModuleNode>("cuda", Functions{{"k1", Entry<3>}, {"shared", Entry<4>}}));
  Module nested(
      std::make_shared<FakeModuleNode>("vdla", Functions{{"k3", Entry<5>}, {"deep", Entry<6>}}));
  Module second(
      std::make_shared<FakeModuleNode>("opencl", Functions{{"k2", Entry<7>}, {"deep", Entry<8>}}));
  first.Import(nested);
  host.Import(first);
  host.Import(second);

  EXPECT_EQ(RunAndReport(host, "shared", 1), 2);  // the module's own before an import's
  EXPECT_EQ(RunAndReport(host, "deep", 2), 6);    // first's import before the second import
  EXPECT_EQ(RunAndReport(host, "k2", 3), 7);
  EXPECT_EQ(RunAndReport(host, "k3", 4), 5);
  EXPECT_THAT(host.FunctionNames(), ElementsAre("main", "shared", "k1", "k3", "deep", "k2"));

  absl::StatusOr<Function> missing = host.GetFunction("nope");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("no function 'nope' in the module or its imports (it has: main, shared, "
                        "k1, k3, deep, k2)"));
}

TEST(ModuleImportsTest, HandlesShareImportsAndFunctionsKeepTheirModuleAlive) {
  int destroyed = 0;
  Function kernel;
  {
    Module host(std::make_shared<FakeModuleNode>(
        "llvm", std::vector<std::pair<std::string, EntryFn>>{{"main", Entry<1>}}, &destroyed));
    Module copy = host;
    host.Import(Module(std::make_shared<FakeModuleNode>(
        "cuda", std::vector<std::pair<std::string, EntryFn>>{{"kernel", Entry<2>}}, &destroyed)));
    ASSERT_EQ(copy.imports().size(), 1u);
    absl::StatusOr<Function> f = copy.GetFunction("kernel");
    ASSERT_TRUE(f.ok()) << f.status();
    kernel = *f;
  }
  EXPECT_EQ(destroyed, 1);  // the host module; its import lives on in `kernel`
  last_entry = 0;
  ASSERT_TRUE(kernel({int64_t{9}}).ok());
  EXPECT_EQ(last_entry, 2);
  EXPECT_EQ(last_argument, 9);
  kernel = Function();
  EXPECT_EQ(destroyed, 2);
}

TEST(ModuleImportsTest, SaveRefusesAModuleWithImports) {
  auto host_node = std::make_shared<FakeModuleNode>(
      "llvm", std::vector<std::pair<std::string, EntryFn>>{{"main", Entry<1>}});
  Module host(host_node);
  ASSERT_TRUE(host.Save("/tmp/unused.so").ok());
  EXPECT_EQ(host_node->saves, 1);

  host.Import(Module(std::make_shared<FakeModuleNode>(
      "cuda", std::vector<std::pair<std::string, EntryFn>>{{"k", Entry<2>}})));
  host.Import(Module(std::make_shared<FakeModuleNode>(
      "vdla", std::vector<std::pair<std::string, EntryFn>>{{"v", Entry<3>}})));
  absl::Status s = host.Save("/tmp/unused.so");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("cannot save the llvm module as '/tmp/unused.so': it imports "
                                     "2 modules (cuda, vdla) and a saved library cannot carry "
                                     "imported modules yet"));
  EXPECT_EQ(host_node->saves, 1);
}

TEST(ModuleImportsDeathTest, AnImportCycleFailsACheck) {
  Module host(std::make_shared<FakeModuleNode>(
      "llvm", std::vector<std::pair<std::string, EntryFn>>{{"main", Entry<1>}}));
  Module device(std::make_shared<FakeModuleNode>(
      "cuda", std::vector<std::pair<std::string, EntryFn>>{{"kernel", Entry<2>}}));
  host.Import(device);
  EXPECT_DEATH(device.Import(host), "importing the llvm module into the cuda module makes a cycle");
  EXPECT_DEATH(host.Import(host), "makes a cycle");
  EXPECT_DEATH(host.Import(Module()), "Import of a null Module");
}

}  // namespace
}  // namespace tessel::runtime
