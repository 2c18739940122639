#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

// Exit codes of the `tessel` binary.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // a command ran and failed; the reason is on stderr
inline constexpr int kExitUsage = 2;   // the command line itself was wrong

// Runs one `tessel` command line; `args` excludes the program name. What the user asked for goes
// to `out`; errors go to `err` as one line naming what was wrong, followed by the usage where the
// command line itself was wrong. Returns the process exit code.
int RunCommandLine(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tessel::cli
