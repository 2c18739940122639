#include "hardware/host/machine.h"

#include <sys/utsname.h>

#include <fstream>
#include <string>
#include <thread>

namespace tessel::hardware {

std::string DescribeHost() {
  std::string model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(colon + 2);
      break;
    }
  }
  utsname u{};
  uname(&u);
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " logical cores, " +
         u.sysname + " " + u.release;
}

}  // namespace tessel::hardware
