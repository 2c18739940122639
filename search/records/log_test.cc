// Writing and reading tuning logs: batches, malformed and torn lines, resume.

#include "search/records/log.h"

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "search/records/test_records.h"

namespace tessel::search {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ToyRecord;
using testing::ToyTask;

// A fresh path under the test's temporary directory.
std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(dir ? dir : "/tmp", "/", name);
  std::remove(path.c_str());
  return path;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteText(const std::string& path, const std::string& text, bool append = false) {
  std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  out << text;
}

std::vector<int64_t> Indices(const std::vector<Record>& records) {
  std::vector<int64_t> out;
  for (const Record& r : records) out.push_back(r.config_index);
  return out;
}

TEST(LogTest, TwoBatchesReadBackInOrder) {
  const std::string path = TempPath("two_batches.jsonl");
  {
    absl::StatusOr<LogWriter> writer = LogWriter::Open(path);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer
                    ->Append({ToyRecord(ToyTask(), 0, {1e-3}),
                              ToyRecord(ToyTask(), 1, {}, ErrorKind::kHostCompile)})
                    .ok());
  }
  {
    // Reopening appends.
    absl::StatusOr<LogWriter> writer = LogWriter::Open(path);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Append({ToyRecord(ToyTask(), 2, {2e-3, 3e-3})}).ok());
  }
  const std::string text = ReadText(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_EQ(text.back(), '\n');

  absl::StatusOr<std::vector<Record>> records = ReadLog(path);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Indices(*records), ElementsAre(0, 1, 2));
  EXPECT_EQ((*records)[1].result.error, ErrorKind::kHostCompile);
  EXPECT_EQ((*records)[2].result.costs, std::vector<double>({2e-3, 3e-3}));
}

TEST(LogTest, AppendRejectsNonFiniteCostsWithoutWriting) {
  const std::string path = TempPath("non_finite.jsonl");
  absl::StatusOr<LogWriter> writer = LogWriter::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  absl::Status s =
      writer->Append({ToyRecord(ToyTask(), 0, {1e-3}),
                      ToyRecord(ToyTask(), 1, {std::numeric_limits<double>::infinity()})});
  EXPECT_THAT(s.message(), HasSubstr("must be finite"));
  EXPECT_EQ(ReadText(path), "");
}

TEST(LogTest, InvalidUtf8InMessagesIsReplaced) {
  const std::string path = TempPath("utf8.jsonl");
  Record r = ToyRecord(ToyTask(), 0, {}, ErrorKind::kHostCompile);
  r.result.error_message = "bad byte \xff here\nsecond line";
  absl::StatusOr<LogWriter> writer = LogWriter::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(writer->Append({r}).ok());
  absl::StatusOr<std::vector<Record>> records = ReadLog(path);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 1u);
  EXPECT_THAT((*records)[0].result.error_message, HasSubstr("second line"));
}

TEST(LogTest, MalformedMiddleLineNamesFileAndLine) {
  const std::string path = TempPath("malformed.jsonl");
  const std::string good = ToJson(ToyRecord(ToyTask(), 0, {1e-3})).dump();
  WriteText(path, good + "\n" + good + "\n{not json\n" + good + "\n");
  absl::Status s = ReadLog(path).status();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(path + ":3: malformed record"));

  // A line that is JSON but not a record names the line and the field.
  nlohmann::json bad = ToJson(ToyRecord(ToyTask(), 0, {1e-3}));
  bad["result"].erase("error");
  WriteText(path, good + "\n\n" + bad.dump() + "\n");
  s = ReadLog(path).status();
  EXPECT_THAT(s.message(), HasSubstr(path + ":3: result.error: missing"));
}

TEST(LogTest, TornLastLineIsSkippedOrReported) {
  const std::string path = TempPath("torn.jsonl");
  const std::string good = ToJson(ToyRecord(ToyTask(), 0, {1e-3})).dump();
  const std::string second = ToJson(ToyRecord(ToyTask(), 1, {1e-3})).dump();
  // What a kill -9 in the middle of a write leaves.
  WriteText(path, good + "\n" + second.substr(0, second.size() / 2));

  absl::StatusOr<std::vector<Record>> records = ReadLog(path);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Indices(*records), ElementsAre(0));

  absl::Status s = ReadLog(path, {.skip_torn_last_line = false}).status();
  EXPECT_THAT(s.message(), HasSubstr(path + ":2: torn last line"));

  // A complete last line without its newline is still a record.
  WriteText(path, good + "\n" + second);
  records = ReadLog(path, {.skip_torn_last_line = false});
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Indices(*records), ElementsAre(0, 1));
}

TEST(LogTest, ReopeningDropsATornTail) {
  const std::string path = TempPath("reopen_torn.jsonl");
  const std::string good = ToJson(ToyRecord(ToyTask(), 0, {1e-3})).dump();
  WriteText(path, good + "\n{\"version\": 1, \"ta");
  {
    absl::StatusOr<LogWriter> writer = LogWriter::Open(path);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Append({ToyRecord(ToyTask(), 5, {1e-3})}).ok());
  }
  absl::StatusOr<std::vector<Record>> records = ReadLog(path, {.skip_torn_last_line = false});
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Indices(*records), ElementsAre(0, 5));

  // A file that is nothing but a torn line.
  WriteText(path, "{\"vers");
  {
    absl::StatusOr<LogWriter> writer = LogWriter::Open(path);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Append({ToyRecord(ToyTask(), 6, {1e-3})}).ok());
  }
  records = ReadLog(path, {.skip_torn_last_line = false});
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_THAT(Indices(*records), ElementsAre(6));
}

TEST(LogTest, MissingFileIsNotFound) {
  const std::string path = TempPath("missing.jsonl");
  absl::Status s = ReadLog(path).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_THAT(LogWriter::Open(TempPath("no_dir/x.jsonl")).status().message(),
              HasSubstr("no_dir/x.jsonl"));
}

TEST(LogTest, MeasuredIndicesForResume) {
  const Task a = ToyTask(8);
  const Task b = ToyTask(8, "llvm -mcpu=znver3");
  std::vector<Record> records = {
      ToyRecord(a, 4, {1e-3}),
      ToyRecord(b, 1, {1e-3}),
      ToyRecord(a, 2, {}, ErrorKind::kRuntime),  // failures count: never retried
      ToyRecord(a, 4, {2e-3}),                   // a repeat
      ToyRecord(a, -1, {1e-3}),                  // no index
  };
  EXPECT_THAT(MeasuredIndices(records, a.Key()), ElementsAre(2, 4));
  EXPECT_THAT(MeasuredIndices(records, b.Key()), ElementsAre(1));
  EXPECT_TRUE(MeasuredIndices(records, ToyTask(9).Key()).empty());
}

}  // namespace
}  // namespace tessel::search
