#pragma once

#include <string>

namespace tessel::hardware {

// One line about this machine for benchmark reports: CPU model, logical cores, kernel.
std::string DescribeHost();

}  // namespace tessel::hardware
