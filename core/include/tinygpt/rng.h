// rng.h — a small, portable random generator (xoshiro256**, seeded by SplitMix64).
// Same sequence on every platform and compiler (the standard library's distributions are
// implementation-defined), and its whole state is four integers, so it goes into checkpoints.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace tinygpt::data {

class Rng {
 public:
  using State = std::array<uint64_t, 4>;

  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (uint64_t& s : s_) {  // SplitMix64
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }

  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // uniform in [0, 1) with 53 random bits
  double uniform() { return double(next_u64() >> 11) * (1.0 / 9007199254740992.0); }

  // uniform integer in [0, n), unbiased (rejection of the short last bucket)
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = next_u64();
    while (x >= limit);
    return x % n;
  }

  // standard normal (Box-Muller; one value per call, no hidden cached state)
  double normal() {
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  State state() const { return s_; }
  void set_state(const State& s) { s_ = s; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  State s_{};
};

}  // namespace tinygpt::data
