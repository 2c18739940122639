#include "search/measure/worker_protocol.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace tessel::search::worker {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

Request SomeRequest() {
  Request r;
  r.task = {"dense_pack.x86",
            {{"m", 4}, {"n", 8}, {"k", 16}},
            *target::Target::Parse("llvm -mcpu=native")};
  r.config = {{"index", 3}, {"knobs", {{"tile", 2}}}};
  r.facts.target = *target::Target::Parse("llvm -mcpu=native");
  r.facts.vector_bits = 512;
  r.facts.vector_registers = 32;
  r.facts.cores = 2;
  r.facts.l1_bytes = 1;
  r.facts.l2_bytes = 2;
  r.library = "/w/c1.so";
  r.result = "/w/c1.result.json";
  r.inputs = {"/w/in0.npy", "/w/in1.npy"};
  r.references = {"/w/ref0.npy"};
  r.run.number = 5;
  r.run.repeat = 7;
  r.run.min_repeat_ms = 2.5;
  r.run.flush_cache = true;
  r.run.threads = 3;
  r.run.input_seed = 42;
  r.parent_pid = 1234;
  return r;
}

TEST(WorkerProtocolTest, RequestRoundTrips) {
  const Request r = SomeRequest();
  absl::StatusOr<Request> back = RequestFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->task, r.task);
  EXPECT_EQ(back->config, r.config);
  EXPECT_EQ(back->facts.target, r.facts.target);
  EXPECT_EQ(back->facts.vector_bits, 512);
  // The worker instantiates with the measuring side's register count (32 on AVX-512).
  EXPECT_EQ(back->facts.vector_registers, 32);
  EXPECT_EQ(back->facts.cores, 2);
  EXPECT_EQ(back->facts.l2_bytes, 2);
  EXPECT_EQ(back->library, r.library);
  EXPECT_EQ(back->result, r.result);
  EXPECT_EQ(back->inputs, r.inputs);
  EXPECT_EQ(back->references, r.references);
  EXPECT_EQ(back->run.number, 5);
  EXPECT_EQ(back->run.repeat, 7);
  EXPECT_EQ(back->run.min_repeat_ms, 2.5);
  EXPECT_TRUE(back->run.flush_cache);
  EXPECT_EQ(back->run.threads, 3);
  EXPECT_EQ(back->run.input_seed, 42u);
  EXPECT_EQ(back->parent_pid, 1234);
}

TEST(WorkerProtocolTest, RequestErrorsNameTheField) {
  nlohmann::json json = ToJson(SomeRequest());
  json["run"].erase("repeat");
  EXPECT_EQ(RequestFromJson(json).status().message(), "request.run.repeat: missing");
  json = ToJson(SomeRequest());
  json["library"] = 3;
  EXPECT_NE(RequestFromJson(json).status().message().find("request.library: "), std::string::npos);
  json = ToJson(SomeRequest());
  json["facts"].erase("cores");
  EXPECT_EQ(RequestFromJson(json).status().message(), "request.facts.cores: missing");
}

TEST(WorkerProtocolTest, ResultRoundTripsThroughAFile) {
  Result r;
  r.error = ErrorKind::kWrongAnswer;
  r.message = "output 0 at [3] is 1 but the reference gives 2";
  r.costs = {1e-3, 2e-3};
  r.step_seconds["lower"] = 0.5;
  const std::string path = TempPath("result.json");
  ASSERT_TRUE(WriteJsonAtomically(path, ToJson(r)).ok());
  absl::StatusOr<nlohmann::json> json = ReadJsonFile(path);
  ASSERT_TRUE(json.ok()) << json.status();
  absl::StatusOr<Result> back = ResultFromJson(*json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->error, ErrorKind::kWrongAnswer);
  EXPECT_FALSE(back->setup_error);
  EXPECT_EQ(back->message, r.message);
  EXPECT_EQ(back->costs, r.costs);
  EXPECT_EQ(back->step_seconds["lower"], 0.5);
  // No temporary is left beside it.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TempPath(""))) {
    files += entry.path().filename().string().starts_with("result.json");
  }
  EXPECT_EQ(files, 1);
}

TEST(WorkerProtocolTest, MissingFileIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(ReadJsonFile(TempPath("nothing.json")).status()));
}

}  // namespace
}  // namespace tessel::search::worker
