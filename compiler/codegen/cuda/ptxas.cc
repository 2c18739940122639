#include "compiler/codegen/cuda/ptxas.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#ifndef TESSEL_CUDA_MISSING
#include <nvrtc.h>
#endif

namespace tessel::codegen::cuda {
namespace {

// The number written just before `suffix` in line (e.g. "4096" in "4096 bytes smem"), or -1.
int64_t NumberBefore(const std::string& line, const std::string& suffix) {
  const size_t at = line.find(suffix);
  if (at == std::string::npos || at == 0) return -1;
  size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  if (begin == at) return -1;
  return std::stoll(line.substr(begin, at - begin));
}

// The name between the first pair of single quotes after `marker`, or "".
std::string QuotedAfter(const std::string& line, const std::string& marker) {
  const size_t at = line.find(marker);
  if (at == std::string::npos) return "";
  const size_t open = line.find('\'', at);
  const size_t close = open == std::string::npos ? open : line.find('\'', open + 1);
  if (close == std::string::npos) {
    // "Function properties for NAME" has no quotes.
    std::string rest = line.substr(at + marker.size());
    while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
    return rest;
  }
  return line.substr(open + 1, close - open - 1);
}

absl::StatusOr<std::string> FindPtxas() {
  std::vector<std::string> candidates;
#ifndef TESSEL_CUDA_MISSING
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) != 0 && info.dli_fname != nullptr) {
    std::filesystem::path lib(info.dli_fname);
    candidates.push_back((lib.parent_path().parent_path() / "bin" / "ptxas").string());
  }
#endif
  if (const char* root = std::getenv("CUDA_PATH")) {
    candidates.push_back(absl::StrCat(root, "/bin/ptxas"));
  }
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string& c : candidates) {
    if (access(c.c_str(), X_OK) == 0) return c;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("the CUDA assembler ptxas was not found (looked in ",
                   absl::StrJoin(candidates, ", "), ")"));
}

absl::StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read '", path, "'"));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Runs argv with stdout and stderr into log_path; the exit status, or -1 if it did not run.
int Run(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::map<std::string, runtime::cuda::KernelResources> ParsePtxasLog(const std::string& log) {
  std::map<std::string, runtime::cuda::KernelResources> out;
  std::string current;
  for (const std::string& line : std::vector<std::string>(absl::StrSplit(log, '\n'))) {
    if (absl::StrContains(line, "Compiling entry function")) {
      current = QuotedAfter(line, "Compiling entry function");
      out[current];
      continue;
    }
    if (absl::StrContains(line, "Function properties for")) {
      current = QuotedAfter(line, "Function properties for");
      continue;
    }
    auto it = out.find(current);
    if (it == out.end()) continue;
    runtime::cuda::KernelResources& r = it->second;
    if (absl::StrContains(line, "bytes stack frame")) {
      r.stack_bytes = std::max<int64_t>(0, NumberBefore(line, " bytes stack frame"));
      r.spill_store_bytes = std::max<int64_t>(0, NumberBefore(line, " bytes spill stores"));
      r.spill_load_bytes = std::max<int64_t>(0, NumberBefore(line, " bytes spill loads"));
    }
    if (absl::StrContains(line, "Used ") && absl::StrContains(line, " registers")) {
      r.registers = static_cast<int>(std::max<int64_t>(0, NumberBefore(line, " registers")));
      r.shared_bytes = std::max<int64_t>(0, NumberBefore(line, " bytes smem"));
      r.constant_bytes = std::max<int64_t>(0, NumberBefore(line, " bytes cmem[0]"));
    }
  }
  return out;
}

absl::StatusOr<Assembled> Assemble(const std::string& ptx, const std::string& arch) {
#ifdef TESSEL_CUDA_MISSING
  return absl::FailedPreconditionError(
      absl::StrCat("this build has no CUDA toolkit: ", TESSEL_CUDA_MISSING));
#endif
  absl::StatusOr<std::string> ptxas = FindPtxas();
  if (!ptxas.ok()) return ptxas.status();
  std::string dir_template = (std::filesystem::temp_directory_path() / "tessel-ptxas-XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr) {
    return absl::InternalError("cannot create a temporary directory for ptxas");
  }
  const std::filesystem::path dir(dir_template);
  const std::string in = (dir / "kernel.ptx").string(), out = (dir / "kernel.cubin").string(),
                    log_path = (dir / "ptxas.log").string();
  absl::StatusOr<Assembled> result;
  {
    std::ofstream file(in, std::ios::binary);
    file << ptx;
  }
  const int code =
      Run({*ptxas, absl::StrCat("-arch=", arch), "--verbose", "-o", out, in}, log_path);
  absl::StatusOr<std::string> log = ReadAll(log_path);
  if (code != 0) {
    result = absl::InvalidArgumentError(
        absl::StrCat("ptxas -arch=", arch, " refused the PTX (exit ", code,
                     "):\n", log.ok() ? *log : std::string("(no output)")));
  } else {
    absl::StatusOr<std::string> cubin = ReadAll(out);
    if (!cubin.ok()) {
      result = cubin.status();
    } else {
      Assembled a;
      a.cubin = *std::move(cubin);
      a.log = log.ok() ? *log : "";
      a.resources = ParsePtxasLog(a.log);
      result = std::move(a);
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return result;
}

}  // namespace tessel::codegen::cuda
