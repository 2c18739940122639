#include "compiler/codegen/llvm/link_shared.h"

#include <absl/strings/str_cat.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "compiler/support/atomic_file.h"

extern char** environ;

namespace tessel::codegen::llvm_backend {
namespace {

// A file name beside path, unique to this process.
std::string TempBeside(const std::string& path, const std::string& suffix) {
  return absl::StrCat(path, ".tmp", getpid(), suffix);
}

}  // namespace

absl::Status LinkSharedLibrary(const std::string& object, const std::string& path) {
  const std::string obj = TempBeside(path, ".o");
  const std::string lib = TempBeside(path, ".so");
  const std::string log = TempBeside(path, ".log");
  if (absl::Status s = support::WriteFileAtomically(obj, object); !s.ok()) return s;
  std::vector<std::string> argv_text{"cc", "-shared", "-o", lib, obj, "-lm"};
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "cc", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned == 0) waitpid(pid, &status, 0);
  std::stringstream messages;
  messages << std::ifstream(log).rdbuf();
  std::filesystem::remove(obj);
  std::filesystem::remove(log);
  if (spawned != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::filesystem::remove(lib);
    return absl::InternalError(absl::StrCat(
        "cannot link '", path, "' with cc: ",
        spawned != 0 ? absl::StrCat("cannot run cc (", strerror(spawned), ")") : messages.str()));
  }
  std::error_code ec;
  std::filesystem::rename(lib, path, ec);
  if (ec) {
    std::filesystem::remove(lib);
    return absl::InternalError(absl::StrCat("cannot write '", path, "': ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace tessel::codegen::llvm_backend
