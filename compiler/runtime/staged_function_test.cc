#include "compiler/runtime/staged_function.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "compiler/runtime/ndarray.h"

namespace tessel::runtime {
namespace {

constexpr DLDataType kFloat32{kDLFloat, 32, 1};

// A "device" module (the host stands in for the device, so the copies are real but cheap) with
// one function out[i] = a[i] + w[i] over 4 floats; `w` is the parameter a staged call may keep
// resident. Each call records the pointers it got, so the test sees that the staged function
// passes its own buffers, not the caller's.
std::vector<const void*> seen;

int32_t AddEntry(const uint64_t* slots) {
  const auto* a = reinterpret_cast<const float*>(slots[0]);
  const auto* w = reinterpret_cast<const float*>(slots[1]);
  auto* out = reinterpret_cast<float*>(slots[2]);
  seen = {a, w, out};
  for (int i = 0; i < 4; ++i) out[i] = a[i] + w[i];
  return 0;
}

class DeviceNode : public ModuleNode {
 public:
  DeviceNode() {
    FunctionSignature sig;
    sig.name = "add";
    for (const char* name : {"a", "w", "out"}) {
      ParamSpec p;
      p.name = name;
      p.dtype = kFloat32;
      p.shape = {DimSpec{4}};
      p.written = std::string(name) == "out";
      sig.params.push_back(p);
    }
    signatures_.push_back(sig);
  }
  std::string kind() const override { return "fake device"; }
  const std::vector<FunctionSignature>& signatures() const override { return signatures_; }
  absl::StatusOr<Invoker> Entry(const std::string&) const override { return HostInvoker(AddEntry); }
  absl::Status Save(const std::string&) const override { return absl::OkStatus(); }

 private:
  std::vector<FunctionSignature> signatures_;
};

Function DeviceAdd() {
  const Module m(std::make_shared<DeviceNode>());
  absl::StatusOr<Function> f = m.GetFunction("add");
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

NDArray Floats(std::vector<float> v) {
  NDArray a = NDArray::Empty({static_cast<int64_t>(v.size())}, kFloat32);
  std::memcpy(a.data<float>(), v.data(), v.size() * sizeof(float));
  return a;
}

std::vector<float> Values(const NDArray& a) {
  return std::vector<float>(a.data<float>(), a.data<float>() + a.NumElements());
}

// The output comes back; the resident weight is copied at the first call only, so a later
// change to the caller's weight is not seen, while the activation's is.
TEST(StagedFunctionTest, CopiesInAndOutAndKeepsResidentParameters) {
  absl::StatusOr<StagedFunction> staged =
      StagedFunction::Create(DeviceAdd(), {kDLCPU, 0}, {false, true, false});
  ASSERT_TRUE(staged.ok()) << staged.status();
  NDArray a = Floats({1, 2, 3, 4}), w = Floats({10, 20, 30, 40}), out = Floats({0, 0, 0, 0});
  ASSERT_TRUE(staged->host()({a.dl(), w.dl(), out.dl()}).ok());
  EXPECT_EQ(Values(out), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_NE(seen[0], a.data<float>());  // the staged buffers, not the caller's
  EXPECT_NE(seen[2], out.data<float>());

  a = Floats({5, 5, 5, 5});
  w = Floats({0, 0, 0, 0});
  ASSERT_TRUE(staged->host()({a.dl(), w.dl(), out.dl()}).ok());
  EXPECT_EQ(Values(out), (std::vector<float>{15, 25, 35, 45}));
  const StagedTraffic t = staged->traffic();
  EXPECT_EQ(t.calls, 2);
  EXPECT_EQ(t.bytes_in, 16 + 16 + 16);  // a twice, w once
  EXPECT_EQ(t.bytes_out, 16 + 16);
}

TEST(StagedFunctionTest, WithoutResidencyEveryInputIsCopied) {
  absl::StatusOr<StagedFunction> staged =
      StagedFunction::Create(DeviceAdd(), {kDLCPU, 0}, {false, false, false});
  ASSERT_TRUE(staged.ok()) << staged.status();
  NDArray a = Floats({1, 1, 1, 1}), w = Floats({1, 2, 3, 4}), out = Floats({0, 0, 0, 0});
  ASSERT_TRUE(staged->host()({a.dl(), w.dl(), out.dl()}).ok());
  w = Floats({2, 2, 2, 2});
  ASSERT_TRUE(staged->host()({a.dl(), w.dl(), out.dl()}).ok());
  EXPECT_EQ(Values(out), (std::vector<float>{3, 3, 3, 3}));
}

TEST(StagedFunctionTest, RefusesBadResidency) {
  absl::StatusOr<StagedFunction> written =
      StagedFunction::Create(DeviceAdd(), {kDLCPU, 0}, {false, false, true});
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("'out' is written"), std::string::npos)
      << written.status();
  absl::StatusOr<StagedFunction> count = StagedFunction::Create(DeviceAdd(), {kDLCPU, 0}, {false});
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.status().message().find("1 resident flags for 3 parameters"), std::string::npos)
      << count.status();
}

TEST(StagedFunctionTest, HostCallsAreCheckedAgainstTheSignature) {
  absl::StatusOr<StagedFunction> staged =
      StagedFunction::Create(DeviceAdd(), {kDLCPU, 0}, {false, true, false});
  ASSERT_TRUE(staged.ok());
  NDArray a = Floats({1, 2, 3}), w = Floats({1, 2, 3, 4}), out = Floats({0, 0, 0, 0});
  EXPECT_FALSE(staged->host()({a.dl(), w.dl(), out.dl()}).ok());  // a has 3 elements
}

}  // namespace
}  // namespace tessel::runtime
