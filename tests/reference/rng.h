// Deterministic randomness for the reference situations (splitmix64; our
// own, so that a seed gives the same situation with every standard
// library). Not thread-safe: one generator a situation.
#ifndef GUNBAI_TESTS_REFERENCE_RNG_H_
#define GUNBAI_TESTS_REFERENCE_RNG_H_

#include <cstdint>
#include <vector>

namespace gunbai::reference {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 7) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int In(int lo, int hi) {  // inclusive
    return lo +
           static_cast<int>(Next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool Chance(double p) {
    return (Next() >> 11) * (1.0 / 9007199254740992.0) < p;
  }
  double Uniform(double lo, double hi) {
    return lo + (Next() >> 11) * (1.0 / 9007199254740992.0) * (hi - lo);
  }
  int Die() { return In(1, 6); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[In(0, static_cast<int>(v.size()) - 1)];
  }

 private:
  std::uint64_t state_;
};

}  // namespace gunbai::reference

#endif  // GUNBAI_TESTS_REFERENCE_RNG_H_
