#include "compiler/driver/model_folder_testing.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compiler/driver/compiled_model.h"

namespace tessel::driver::testing {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  fs::path path = fs::path(dir ? dir : "/tmp") / name;
  fs::remove_all(path);
  return path;
}

fs::path CopyFolder(const fs::path& from, const std::string& name) {
  fs::path copy = TempDir(name);
  fs::copy(from, copy, fs::copy_options::recursive);
  return copy;
}

void Overwrite(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

nlohmann::json ReadJsonFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

std::string LoadError(const fs::path& dir) {
  absl::StatusOr<CompiledModel> m = CompiledModel::Load(dir.string());
  EXPECT_FALSE(m.ok()) << dir << " loaded";
  return m.ok() ? "" : std::string(m.status().message());
}

}  // namespace tessel::driver::testing
