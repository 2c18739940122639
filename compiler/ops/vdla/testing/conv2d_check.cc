#include "compiler/ops/vdla/testing/conv2d_check.h"

#include <absl/strings/str_cat.h>

#include <cstring>
#include <random>
#include <vector>

namespace tessel::ops::vdla::testing {

absl::StatusOr<Conv2dRun> RunConv2d(const Conv2dShape& v, const hardware::vdla::Program& p,
                                    hardware::vdla::Engine engine, uint32_t seed) {
  hardware::vdla::DeviceOptions options;
  options.engine = engine;
  options.dram_bytes = uint64_t{64} << 20;
  absl::StatusOr<std::unique_ptr<hardware::vdla::Device>> device =
      hardware::vdla::Device::Open(options);
  if (!device.ok()) return device.status();
  hardware::vdla::Device& dev = **device;
  const int bi = options.config.block_in, bo = options.config.block_out;

  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-128, 127);
  std::vector<int8_t> data(int64_t{v.c} * v.h * v.w), kernel(int64_t{v.o} * v.c * v.k * v.k);
  for (int8_t& x : data) x = static_cast<int8_t>(value(rng));
  for (int8_t& x : kernel) x = static_cast<int8_t>(value(rng));
  auto data_at = [&](int ch, int y, int x) {
    return ((int64_t{ch / bi} * v.h + y) * v.w + x) * bi + ch % bi;
  };
  auto kernel_at = [&](int oc, int ch, int ky, int kx) {
    return ((((int64_t{oc / bo} * (v.c / bi) + ch / bi) * v.k + ky) * v.k + kx) * bo + oc % bo) *
               bi +
           ch % bi;
  };
  auto out_at = [&](int oc, int y, int x) {
    return ((int64_t{oc / bo} * v.oh() + y) * v.ow() + x) * bo + oc % bo;
  };
  const int64_t out_bytes = int64_t{v.o} * v.oh() * v.ow();
  std::vector<uint64_t> args;
  for (int64_t bytes :
       {static_cast<int64_t>(data.size()), static_cast<int64_t>(kernel.size()), out_bytes}) {
    absl::StatusOr<uint64_t> at = dev.Allocate(bytes, 256);
    if (!at.ok()) return at.status();
    args.push_back(*at);
  }
  std::memcpy(dev.data() + args[0], data.data(), data.size());
  std::memcpy(dev.data() + args[1], kernel.data(), kernel.size());
  std::memset(dev.data() + args[2], 0x5a, out_bytes);
  absl::StatusOr<hardware::vdla::RunReport> report = hardware::vdla::RunProgram(dev, p, args);
  if (!report.ok()) return report.status();

  Conv2dRun run{*report, 0, ""};
  for (int oc = 0; oc < v.o; ++oc) {
    for (int y = 0; y < v.oh(); ++y) {
      for (int x = 0; x < v.ow(); ++x) {
        int32_t sum = 0;
        for (int ch = 0; ch < v.c; ++ch) {
          for (int ky = 0; ky < v.k; ++ky) {
            const int iy = y * v.stride + ky - v.pad;
            if (iy < 0 || iy >= v.h) continue;
            for (int kx = 0; kx < v.k; ++kx) {
              const int ix = x * v.stride + kx - v.pad;
              if (ix < 0 || ix >= v.w) continue;
              sum +=
                  int32_t{data[data_at(ch, iy, ix)]} * int32_t{kernel[kernel_at(oc, ch, ky, kx)]};
            }
          }
        }
        const int8_t want = static_cast<int8_t>(sum & 0xff);
        const int8_t got = static_cast<int8_t>(dev.data()[args[2] + out_at(oc, y, x)]);
        if (got != want && run.wrong++ == 0) {
          run.first_wrong =
              absl::StrCat("out[", oc, ", ", y, ", ", x, "] = ", got, ", want ", want);
        }
      }
    }
  }
  return run;
}

}  // namespace tessel::ops::vdla::testing
