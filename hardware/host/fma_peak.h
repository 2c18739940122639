#pragma once

// The host CPU's single-precision peak, measured by short FMA loops:
//   frequency   from a chain of dependent scalar FMAs, assuming the FMA latency of 4 cycles
//               that AMD Zen 2-4 and Intel Skylake and later have;
//   lanes       fp32 FMAs retired per cycle per core: the rate of independent FMAs at the widest
//               vector width the CPU has (AVX-512, else AVX2), divided by the frequency;
//   peak        cores x lanes x 2 (multiply and add) x frequency.
// A frequency measured this way is the clock under load (boost included), so the fraction of
// peak it gives is the honest one for a loaded core. Takes about 0.1 s.
namespace tessel::hardware {

struct FmaPeak {
  double ghz = 0;       // measured core clock
  double lanes = 0;     // measured fp32 FMA lanes per cycle per core (e.g. 16 on Zen 4)
  int vector_bits = 0;  // the width measured: 512 or 256
  // Peak GFLOPS of `cores` cores.
  double GflopsFor(int cores) const { return cores * lanes * 2 * ghz; }
};

FmaPeak MeasureFmaPeak();

}  // namespace tessel::hardware
