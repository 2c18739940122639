#include "compiler/ops/vdla/testing/dense_check.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

namespace tessel::ops::vdla::testing {

absl::StatusOr<DenseRun> RunDense(const DenseShape& d, const std::optional<DenseTail>& tail,
                                  const hardware::vdla::Program& p, hardware::vdla::Engine engine,
                                  uint32_t seed) {
  hardware::vdla::DeviceOptions options;
  options.engine = engine;
  options.dram_bytes = uint64_t{16} << 20;
  absl::StatusOr<std::unique_ptr<hardware::vdla::Device>> device =
      hardware::vdla::Device::Open(options);
  if (!device.ok()) return device.status();
  hardware::vdla::Device& dev = **device;
  const hardware::vdla::Config& c = options.config;

  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-128, 127);
  std::vector<int8_t> data(int64_t{d.m} * d.k), weight(int64_t{d.n} * d.k);
  for (int8_t& x : data) x = static_cast<int8_t>(value(rng));
  for (int8_t& x : weight) x = static_cast<int8_t>(value(rng));
  std::uniform_int_distribution<int32_t> bias_value(-20000, 20000);
  std::vector<int32_t> bias(int64_t{d.n} * c.batch);
  for (int32_t& x : bias) x = bias_value(rng);
  // Element (row, col) of the logical matrices in the blocked layouts.
  const int64_t kb = d.k / c.block_in, nb = d.n / c.block_out;
  auto data_at = [&](int64_t r, int64_t col) {
    return ((r / c.batch * kb + col / c.block_in) * c.batch + r % c.batch) * c.block_in +
           col % c.block_in;
  };
  auto weight_at = [&](int64_t r, int64_t col) {
    return ((r / c.block_out * kb + col / c.block_in) * c.block_out + r % c.block_out) *
               c.block_in +
           col % c.block_in;
  };
  auto out_at = [&](int64_t r, int64_t col) {
    return ((r / c.batch * nb + col / c.block_out) * c.batch + r % c.batch) * c.block_out +
           col % c.block_out;
  };
  std::vector<int64_t> sizes = {static_cast<int64_t>(data.size()),
                                static_cast<int64_t>(weight.size()), int64_t{d.m} * d.n};
  if (tail) sizes.insert(sizes.begin() + 2, static_cast<int64_t>(bias.size() * sizeof(int32_t)));
  std::vector<uint64_t> args;
  for (int64_t bytes : sizes) {
    absl::StatusOr<uint64_t> at = dev.Allocate(bytes, 256);
    if (!at.ok()) return at.status();
    args.push_back(*at);
  }
  const uint64_t out_base = args.back();
  std::memcpy(dev.data() + args[0], data.data(), data.size());
  std::memcpy(dev.data() + args[1], weight.data(), weight.size());
  if (tail) std::memcpy(dev.data() + args[2], bias.data(), bias.size() * sizeof(int32_t));
  std::memset(dev.data() + out_base, 0x5a, sizes.back());
  absl::StatusOr<hardware::vdla::RunReport> report = hardware::vdla::RunProgram(dev, p, args);
  if (!report.ok()) return report.status();

  DenseRun run{*report, 0, ""};
  for (int64_t r = 0; r < d.m; ++r) {
    for (int64_t col = 0; col < d.n; ++col) {
      int32_t sum = 0;
      for (int64_t i = 0; i < d.k; ++i) {
        sum += int32_t{data[data_at(r, i)]} * int32_t{weight[weight_at(col, i)]};
      }
      const int32_t b =
          bias[(col / c.block_out * c.batch + r % c.batch) * c.block_out + col % c.block_out];
      const int8_t want =
          tail ? static_cast<int8_t>(std::clamp((sum + b) >> tail->shift,
                                                int32_t{tail->relu ? 0 : -127}, int32_t{127}))
               : static_cast<int8_t>(sum & 0xff);
      const int8_t got = static_cast<int8_t>(dev.data()[out_base + out_at(r, col)]);
      if (got != want && run.wrong++ == 0) {
        run.first_wrong = absl::StrCat("out[", r, ", ", col, "] = ", got, ", want ", want);
      }
    }
  }
  return run;
}

}  // namespace tessel::ops::vdla::testing
