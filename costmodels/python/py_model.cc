#include "costmodels/python/py_model.h"

#include <absl/strings/str_cat.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "compiler/support/status_macros.h"
#include "costmodels/python/host_source.h"

extern char** environ;

namespace tessel::costmodels {
namespace {

// The python3 process running host.py, spoken to over one socket (a socket, not pipes, so that
// writing to a process that died is an error rather than SIGPIPE).
class PythonProcess {
 public:
  static absl::StatusOr<std::unique_ptr<PythonProcess>> Start(const std::string& label,
                                                              const std::string& module,
                                                              uint64_t seed) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      return absl::InternalError(absl::StrCat(label, ": socketpair: ", std::strerror(errno)));
    }
    const char* env_python = std::getenv("TESSEL_PYTHON");
    const std::string python =
        env_python != nullptr && *env_python ? env_python : "/usr/bin/python3";
    const std::string seed_text = std::to_string(seed);
    std::vector<char*> argv = {
        const_cast<char*>(python.c_str()),    const_cast<char*>("-c"),
        const_cast<char*>(kHostSource),       const_cast<char*>(module.c_str()),
        const_cast<char*>(seed_text.c_str()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
      close(fds[0]);
      return absl::FailedPreconditionError(absl::StrCat(label, ": cannot start ", python, ": ",
                                                        std::strerror(spawned),
                                                        " (TESSEL_PYTHON names the interpreter)"));
    }
    auto process = std::unique_ptr<PythonProcess>(new PythonProcess(label, fds[0], pid));
    // The first answer says whether the module imported and Model(seed) was made.
    TESSEL_RETURN_IF_ERROR(process->ReadAnswer().status());
    return process;
  }

  ~PythonProcess() {
    close(fd_);  // host.py sees the end of its input and returns
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  // Sends a request (header and payload) and returns the answer's header.
  absl::StatusOr<nlohmann::json> Call(const nlohmann::json& header, const std::string& payload) {
    TESSEL_RETURN_IF_ERROR(Write(header.dump() + "\n" + payload));
    return ReadAnswer();
  }

  // Reads n bytes of an answer's payload.
  absl::StatusOr<std::string> ReadBytes(size_t n) {
    while (buffer_.size() < n) TESSEL_RETURN_IF_ERROR(Fill());
    std::string out = buffer_.substr(0, n);
    buffer_.erase(0, n);
    return out;
  }

 private:
  PythonProcess(std::string label, int fd, pid_t pid)
      : label_(std::move(label)), fd_(fd), pid_(pid) {}

  absl::Status Write(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Died();
      sent += static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  absl::Status Fill() {
    char chunk[1 << 16];
    ssize_t n;
    do {
      n = read(fd_, chunk, sizeof chunk);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return Died();
    buffer_.append(chunk, static_cast<size_t>(n));
    return absl::OkStatus();
  }

  absl::StatusOr<nlohmann::json> ReadAnswer() {
    size_t newline;
    while ((newline = buffer_.find('\n')) == std::string::npos) TESSEL_RETURN_IF_ERROR(Fill());
    const std::string line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    nlohmann::json answer = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!answer.is_object() || !answer.contains("ok")) {
      return absl::InternalError(absl::StrCat(label_, ": not an answer of host.py: ", line,
                                              " (does the module print to stdout?)"));
    }
    if (!answer["ok"].get<bool>()) {
      return absl::FailedPreconditionError(
          absl::StrCat(label_, ": ", answer.value("error", std::string("failed"))));
    }
    return answer;
  }

  absl::Status Died() {
    // The socket closes as the process exits: give it a second to be reaped with its status.
    int status = 0;
    std::string how = "closed its end";
    for (int tries = 0; tries < 100; ++tries) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        how = WIFEXITED(status) ? absl::StrCat("exited with status ", WEXITSTATUS(status))
                                : absl::StrCat("was killed by signal ", WTERMSIG(status));
        break;
      }
      usleep(10000);
    }
    return absl::UnavailableError(
        absl::StrCat(label_, ": the Python process ", how, " (its stderr is above)"));
  }

  std::string label_;
  int fd_;
  pid_t pid_;
  std::string buffer_;
};

// Rows zero-padded to the longest, as float32 bytes, row after row.
std::string MatrixBytes(const std::vector<std::vector<float>>& rows, size_t* cols) {
  *cols = 0;
  for (const auto& r : rows) *cols = std::max(*cols, r.size());
  std::vector<float> flat(rows.size() * *cols, 0.0f);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::copy(rows[i].begin(), rows[i].end(), flat.begin() + i * *cols);
  }
  return std::string(reinterpret_cast<const char*>(flat.data()), flat.size() * sizeof(float));
}

class PythonModel : public CostModel {
 public:
  PythonModel(std::string name, std::unique_ptr<PythonProcess> process,
              std::shared_ptr<FeatureExtractor> features)
      : name_(std::move(name)), process_(std::move(process)), features_(std::move(features)) {}

  std::string name() const override { return name_; }

  absl::Status Fit(const std::vector<Sample>& samples) override { return Train("fit", samples); }
  absl::Status FitTransfer(const std::vector<Sample>& samples) override {
    return Train("fit_transfer", samples);
  }

  absl::StatusOr<std::vector<double>> Predict(const search::Task& task,
                                              const std::vector<search::Config>& configs) override {
    if (configs.empty()) return std::vector<double>{};
    TESSEL_ASSIGN_OR_RETURN(std::vector<std::vector<float>> rows,
                            features_->FlatBatch(task, configs));
    size_t cols = 0;
    const std::string bytes = MatrixBytes(rows, &cols);
    TESSEL_RETURN_IF_ERROR(
        process_->Call({{"op", "predict"}, {"rows", rows.size()}, {"cols", cols}}, bytes).status());
    TESSEL_ASSIGN_OR_RETURN(std::string scores, process_->ReadBytes(rows.size() * sizeof(double)));
    std::vector<double> out(rows.size());
    std::memcpy(out.data(), scores.data(), scores.size());
    return out;
  }

  absl::Status Save(const std::string& path) const override {
    return process_->Call({{"op", "save"}, {"path", path}}, "").status();
  }
  absl::Status Load(const std::string& path) override {
    return process_->Call({{"op", "load"}, {"path", path}}, "").status();
  }

 private:
  // Features of every sample, each task's configs extracted in one batch, in sample order.
  absl::StatusOr<std::vector<std::vector<float>>> SampleRows(const std::vector<Sample>& samples) {
    std::map<std::string, std::vector<size_t>> by_task;
    for (size_t i = 0; i < samples.size(); ++i) by_task[samples[i].task.Key()].push_back(i);
    std::vector<std::vector<float>> rows(samples.size());
    for (const auto& [key, indices] : by_task) {
      std::vector<search::Config> configs;
      for (size_t i : indices) configs.push_back(samples[i].config);
      TESSEL_ASSIGN_OR_RETURN(std::vector<std::vector<float>> task_rows,
                              features_->FlatBatch(samples[indices[0]].task, configs));
      for (size_t j = 0; j < indices.size(); ++j) rows[indices[j]] = std::move(task_rows[j]);
    }
    return rows;
  }

  absl::Status Train(const char* op, const std::vector<Sample>& samples) {
    if (samples.empty()) return absl::OkStatus();
    TESSEL_ASSIGN_OR_RETURN(std::vector<std::vector<float>> rows, SampleRows(samples));
    size_t cols = 0;
    std::string bytes = MatrixBytes(rows, &cols);
    std::vector<double> throughputs;
    nlohmann::json tasks = nlohmann::json::array();
    for (const Sample& s : samples) {
      throughputs.push_back(s.throughput);
      tasks.push_back(s.task.Key());
    }
    bytes.append(reinterpret_cast<const char*>(throughputs.data()),
                 throughputs.size() * sizeof(double));
    return process_
        ->Call({{"op", op}, {"rows", rows.size()}, {"cols", cols}, {"tasks", tasks}}, bytes)
        .status();
  }

  std::string name_;
  std::unique_ptr<PythonProcess> process_;
  std::shared_ptr<FeatureExtractor> features_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CostModel>> MakePythonModel(const std::string& module,
                                                           const CostModelOptions& options) {
  const std::string name = absl::StrCat("py:", module);
  if (options.features == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cost model ", name, " needs a feature extractor"));
  }
  TESSEL_ASSIGN_OR_RETURN(
      std::unique_ptr<PythonProcess> process,
      PythonProcess::Start(absl::StrCat("cost model ", name), module, options.seed));
  return std::make_unique<PythonModel>(name, std::move(process), options.features);
}

TESSEL_REGISTER_COST_MODEL_FAMILY("py", "MODULE", MakePythonModel);

}  // namespace tessel::costmodels
