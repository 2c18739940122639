#pragma once

#include <cstdint>
#include <random>

// The random draws of sampling (sampling.cc) and of the explorers. Written out rather than taken from <random>'s distributions,
// whose algorithms differ between standard libraries: a seed must give the same proposals
// everywhere.
namespace tessel::search {

// Uniform in [0, n); n >= 1 (a check fails otherwise). Unbiased (rejection of the top block).
uint64_t DrawBelow(std::mt19937_64& rng, uint64_t n);

// Uniform in [0, 1), with 53 random bits.
double DrawUnit(std::mt19937_64& rng);

}  // namespace tessel::search
