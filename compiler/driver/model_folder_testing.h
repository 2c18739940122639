#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

// What the tests of saved model folders share: fresh folders, copies to damage, edits.
namespace tessel::driver::testing {

// TEST_TMPDIR/name (or /tmp/name), removed if it exists.
std::filesystem::path TempDir(const std::string& name);
// A copy of folder `from` at TempDir(name).
std::filesystem::path CopyFolder(const std::filesystem::path& from, const std::string& name);
void Overwrite(const std::filesystem::path& file, const std::string& bytes);
nlohmann::json ReadJsonFile(const std::filesystem::path& path);
// The error CompiledModel::Load gives for `dir` (a test failure when it loads).
std::string LoadError(const std::filesystem::path& dir);

}  // namespace tessel::driver::testing
