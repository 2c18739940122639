#include "compiler/graph/onnx/onnx_checks.h"

#include <absl/strings/str_cat.h>
#include <absl/synchronization/mutex.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <exception>

namespace tessel::graph::onnx::internal {
namespace {

// ONNX's message on one line: its checker spreads a node's description over several.
std::string OneLine(const char* message) {
  std::string out;
  for (const char* p = message; *p != '\0'; ++p) {
    const bool space = *p == '\n' || *p == '\r' || *p == '\t' || *p == ' ';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out.push_back(space ? ' ' : *p);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The checks themselves. The reply is "O" and a GraphProto holding the inferred value_info and
// outputs, or "E" and an error message.
std::string Check(::onnx::ModelProto& model) {
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::StrCat("EONNX checker: ", OneLine(e.what()));
  }
  try {
    ::onnx::shape_inference::InferShapes(
        model, ::onnx::OpSchemaRegistry::Instance(),
        ::onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1,
                                      /*enable_data_propagation=*/false));
  } catch (const std::exception& e) {
    return absl::StrCat("EONNX shape inference: ", OneLine(e.what()));
  }
  ::onnx::GraphProto types;
  *types.mutable_value_info() = model.graph().value_info();
  *types.mutable_output() = model.graph().output();
  return absl::StrCat("O", types.SerializeAsString());
}

// Whole messages over a stream: the bytes, or a length (8 bytes) and then the bytes.
bool WriteAll(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    // send: a peer gone is an error here, not a SIGPIPE.
    const ssize_t n = send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// With a positive timeout_ms, fails (and sets *timed_out) when no byte arrives for that long.
bool ReadAll(int fd, char* data, size_t size, int timeout_ms = 0, bool* timed_out = nullptr) {
  size_t done = 0;
  while (done < size) {
    if (timeout_ms > 0) {
      pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
      const int ready = poll(&p, 1, timeout_ms);
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0 && timed_out != nullptr) *timed_out = true;
      if (ready <= 0) return false;
    }
    const ssize_t n = read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool WriteMessage(int fd, const std::string& message) {
  const uint64_t size = message.size();
  return WriteAll(fd, reinterpret_cast<const char*>(&size), sizeof(size)) &&
         WriteAll(fd, message.data(), message.size());
}

bool ReadMessage(int fd, std::string* message, int timeout_ms = 0, bool* timed_out = nullptr) {
  uint64_t size = 0;
  if (!ReadAll(fd, reinterpret_cast<char*>(&size), sizeof(size), timeout_ms, timed_out)) {
    return false;
  }
  message->resize(size);
  return ReadAll(fd, message->data(), size, timeout_ms, timed_out);
}

// A child's start: a crash must end it quietly instead of running the parent's handlers (a
// fuzzer's or a sanitizer's report).
void BecomeChild() {
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
}

// The helper process: checks each model it is sent until its parent hangs up. It leaves with
// _exit, without the parent's exit handlers.
[[noreturn]] void ServeChecks(int fd) {
  BecomeChild();
  std::string request;
  while (ReadMessage(fd, &request)) {
    ::onnx::ModelProto model;
    const std::string reply =
        model.ParseFromString(request) ? Check(model) : std::string("Ethe model does not parse");
    if (!WriteMessage(fd, reply)) break;
  }
  _exit(0);
}

absl::Status Crashed(const std::string& what, int status) {
  if (WIFSIGNALED(status)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": libonnx crashed (", strsignal(WTERMSIG(status)),
        ") checking or inferring the shapes of this model: it is malformed in a way ONNX's "
        "checker does not catch"));
  }
  return absl::InternalError(absl::StrCat(what, ": ONNX's checks ended with status ", status));
}

int Reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

absl::Status Apply(const std::string& reply, ::onnx::ModelProto& model, const std::string& what) {
  if (!reply.empty() && reply[0] == 'E') {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", reply.substr(1)));
  }
  ::onnx::GraphProto types;
  if (reply.empty() || reply[0] != 'O' || !types.ParseFromString(reply.substr(1))) {
    return absl::InternalError(absl::StrCat(what, ": no reply from ONNX's checks"));
  }
  *model.mutable_graph()->mutable_value_info() = types.value_info();
  *model.mutable_graph()->mutable_output() = types.output();
  return absl::OkStatus();
}

// A model this large is checked in a child forked for it, which has the model already; a smaller
// one is sent to the helper process, which saves a fork (most of the cost of checking a small
// model from a large process, as a fuzzer is).
constexpr size_t kMaxSentBytes = size_t{16} << 20;

absl::Status CheckInForkedChild(::onnx::ModelProto& model, const std::string& what) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Apply(Check(model), model, what);
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Apply(Check(model), model, what);
  }
  if (pid == 0) {
    BecomeChild();
    close(fds[0]);
    const bool written = WriteMessage(fds[1], Check(model));
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  std::string reply;
  const bool read = ReadMessage(fds[0], &reply);
  close(fds[0]);
  const int status = Reap(pid);
  if (!read || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return Crashed(what, status);
  return Apply(reply, model, what);
}

// How long the helper may take to answer (it checks models under kMaxSentBytes).
constexpr int kHelperTimeoutMs = 10000;

// The helper: forked on first use and again after it dies; one request at a time.
struct Helper {
  absl::Mutex mu;
  pid_t pid ABSL_GUARDED_BY(mu) = -1;
  int fd ABSL_GUARDED_BY(mu) = -1;
};

Helper& TheHelper() {
  static Helper* const helper = new Helper;
  return *helper;
}

absl::Status CheckInHelper(::onnx::ModelProto& model, const std::string& what) {
  const std::string request = model.SerializeAsString();
  Helper& h = TheHelper();
  absl::MutexLock lock(&h.mu);
  if (h.pid < 0) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      return CheckInForkedChild(model, what);
    }
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return CheckInForkedChild(model, what);
    }
    if (pid == 0) {
      close(fds[0]);
      ServeChecks(fds[1]);
    }
    close(fds[1]);
    h.pid = pid;
    h.fd = fds[0];
  }
  std::string reply;
  bool timed_out = false;
  if (!WriteMessage(h.fd, request) || !ReadMessage(h.fd, &reply, kHelperTimeoutMs, &timed_out)) {
    // The helper died on this model: report it, and fork a new one next time. One that does not
    // answer is killed, and this model checked in a child forked for it: a small model's checks
    // take milliseconds, so the helper is stuck (a fork of a process with threads can inherit a
    // lock that no thread of the child will release), not the model slow.
    if (timed_out) kill(h.pid, SIGKILL);
    close(h.fd);
    const int status = Reap(h.pid);
    h.pid = h.fd = -1;
    if (timed_out) return CheckInForkedChild(model, what);
    return Crashed(what, status);
  }
  return Apply(reply, model, what);
}

}  // namespace

absl::Status CheckAndInferShapes(::onnx::ModelProto& model, const std::string& what) {
  if (model.ByteSizeLong() > kMaxSentBytes) return CheckInForkedChild(model, what);
  return CheckInHelper(model, what);
}

}  // namespace tessel::graph::onnx::internal
