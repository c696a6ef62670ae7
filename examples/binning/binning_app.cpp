// The cutoff electrostatic potential map three ways (README.md here): direct (every
// point sums every atom), scatter (every atom adds to the points near it, atomics) and
// binned (atoms sorted into spatial cells on the GPU, each point gathering the cells near
// it), at a constant density of atoms, so the points grow with the atoms. Every result
// is checked against a double-precision all-pairs sum at sampled points.
//
//   binning_app [--direct-max N] [--json FILE] [ATOMS ...]   (default 10^3 .. 10^6)
//
// The kernels are users' kernels launched through ktune (their stored winners, tuned
// with `ktune tune --kernel examples/binning/KERNEL.cu --problem ...`, or their
// @default). Exit status 1 on a wrong result.
#include "../example_support.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int k_cutoff = 8;          // grid spacings
constexpr int k_cell = 4;            // the bins' side
constexpr double k_density = 0.05;   // atoms per cubic grid spacing

struct Problem {
  int atoms = 0, nx = 0, ny = 0, cells = 0, cap = 0;
};

Problem problem_for(int atoms) {
  Problem p;
  p.atoms = atoms;
  p.nx = p.ny = std::max(4, static_cast<int>(std::lround(std::sqrt(atoms / (k_density * 2 * k_cutoff)))));
  p.cells = ((p.nx + k_cell - 1) / k_cell) * ((p.ny + k_cell - 1) / k_cell) * ((2 * k_cutoff + k_cell - 1) / k_cell);
  const double mean = k_density * k_cell * k_cell * k_cell;  // atoms a cell holds on average
  p.cap = static_cast<int>(std::ceil(mean + 4 * std::sqrt(mean) + 2));
  return p;
}

// Atoms (x, y, z, charge) uniform in the slab, charges in [-1, 1].
std::vector<float> make_atoms(const Problem& p, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> ux(0.f, static_cast<float>(p.nx)), uy(0.f, static_cast<float>(p.ny)),
      uz(-static_cast<float>(k_cutoff), static_cast<float>(k_cutoff)), uq(-1.f, 1.f);
  std::vector<float> a(4 * static_cast<std::size_t>(p.atoms));
  for (std::size_t i = 0; i < a.size(); i += 4) a[i] = ux(gen), a[i + 1] = uy(gen), a[i + 2] = uz(gen), a[i + 3] = uq(gen);
  return a;
}

// The potential at point (x, y, 0) in double, and the sum of the terms' magnitudes (the
// scale float rounding errors grow with).
std::pair<double, double> reference_at(const std::vector<float>& a, int x, int y) {
  const double c2 = double(k_cutoff) * k_cutoff;
  double sum = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); i += 4) {
    const double dx = x - double(a[i]), dy = y - double(a[i + 1]), dz = a[i + 2];
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= c2 || r2 == 0) continue;
    const double s = 1 - r2 / c2, t = a[i + 3] / std::sqrt(r2) * s * s;
    sum += t, scale += std::abs(t);
  }
  return {sum, scale};
}

// Points checked: 200 at random and the four corners; returns the wrong ones.
int wrong_points(const std::vector<float>& got, const std::vector<float>& atoms, const Problem& p, const char* who) {
  std::mt19937 gen(p.atoms);
  std::vector<std::pair<int, int>> pts = {{0, 0}, {p.nx - 1, 0}, {0, p.ny - 1}, {p.nx - 1, p.ny - 1}};
  for (int i = 0; i < 200; ++i) pts.emplace_back(static_cast<int>(gen() % p.nx), static_cast<int>(gen() % p.ny));
  int bad = 0;
  for (auto [x, y] : pts) {
    const auto [want, scale] = reference_at(atoms, x, y);
    const double g = got[static_cast<std::size_t>(y) * p.nx + x];
    if (!(std::abs(g - want) <= 1e-5 * scale + 1e-6)) {
      if (bad++ < 3) std::printf("binning_app: %s wrong at (%d, %d): %.7g instead of %.7g\n", who, x, y, g, want);
    }
  }
  return bad;
}

struct Device {
  float* atoms = nullptr;
  float* potential = nullptr;
  float* bins = nullptr;
  int* counts = nullptr;
  int* overflow = nullptr;
  void release() {
    for (void* q : {static_cast<void*>(atoms), static_cast<void*>(potential), static_cast<void*>(bins),
                    static_cast<void*>(counts), static_cast<void*>(overflow)})
      if (q) KTUNE_EXAMPLE_CHECK(cudaFree(q));
    *this = Device{};
  }
};

struct Kernels {
  ktune::Kernel direct, scatter, bin, gather;
};

// Fewer repetitions for slow calls (a direct map of 10^6 atoms takes seconds).
template <class Call>
double timed_us(cudaStream_t s, Call call) {
  const double once = cold_median_us(s, call, 1);  // (after its 5 warm-up calls)
  const int reps = static_cast<int>(std::min(45.0, std::max(3.0, 2e5 / std::max(once, 1.0))));
  return cold_median_us(s, call, reps);
}

std::vector<float> download(const float* d, std::size_t n) {
  std::vector<float> h(n);
  KTUNE_EXAMPLE_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

struct Row {
  Problem p;
  double direct_us = -1, scatter_us = 0, bin_us = 0, gather_us = 0;
  std::string gather_config, direct_config, scatter_config;
  int wrong = 0;
};

// Bins the atoms (with more slots a cell while any cell overflows) and times it.
double bin_atoms(const Kernels& k, Device& d, Problem& p, cudaStream_t s) {
  for (;;) {
    const std::size_t slots = static_cast<std::size_t>(p.cells) * p.cap;
    if (d.bins) KTUNE_EXAMPLE_CHECK(cudaFree(d.bins));
    KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&d.bins), slots * 4 * sizeof(float)));
    auto run = [&] {
      KTUNE_EXAMPLE_CHECK(cudaMemsetAsync(d.bins, 0, slots * 4 * sizeof(float), s));
      KTUNE_EXAMPLE_CHECK(cudaMemsetAsync(d.counts, 0, static_cast<std::size_t>(p.cells) * sizeof(int), s));
      KTUNE_EXAMPLE_CHECK(cudaMemsetAsync(d.overflow, 0, sizeof(int), s));
      k.bin.launch(s, {{"nx", p.nx}, {"ny", p.ny}, {"atoms", p.atoms}, {"cutoff", k_cutoff}, {"cell", k_cell}, {"cap", p.cap}},
                   d.bins, d.counts, d.overflow, d.atoms, p.nx, p.ny, p.atoms, k_cutoff, k_cell, p.cap);
    };
    const double us = timed_us(s, run);
    int overflow = 0;
    KTUNE_EXAMPLE_CHECK(cudaMemcpy(&overflow, d.overflow, sizeof(int), cudaMemcpyDeviceToHost));
    if (overflow == 0) return us;
    p.cap += 4;
  }
}

Row measure(const Kernels& k, int atoms, int direct_max, cudaStream_t s) {
  Row r;
  r.p = problem_for(atoms);
  Problem& p = r.p;
  const std::vector<float> host = make_atoms(p, 1000003ull * atoms);
  const std::size_t points = static_cast<std::size_t>(p.nx) * p.ny;
  Device d;
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&d.atoms), host.size() * sizeof(float)));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&d.potential), points * sizeof(float)));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&d.counts), static_cast<std::size_t>(p.cells) * sizeof(int)));
  KTUNE_EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&d.overflow), sizeof(int)));
  KTUNE_EXAMPLE_CHECK(cudaMemcpy(d.atoms, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  const auto poison = [&] { KTUNE_EXAMPLE_CHECK(cudaMemset(d.potential, 0xFF, points * sizeof(float))); };

  r.bin_us = bin_atoms(k, d, p, s);
  poison();
  const ktune::Kernel::ProblemValues gp = {{"nx", p.nx}, {"ny", p.ny}, {"cutoff", k_cutoff}, {"cell", k_cell}, {"cap", p.cap}};
  auto gather = [&] { return k.gather.launch(s, gp, d.potential, d.bins, d.counts, p.nx, p.ny, k_cutoff, k_cell, p.cap); };
  r.gather_config = gather().config;
  r.wrong += wrong_points(download(d.potential, points), host, p, "binned gather");
  r.gather_us = timed_us(s, gather);

  const ktune::Kernel::ProblemValues ap = {{"nx", p.nx}, {"ny", p.ny}, {"atoms", p.atoms}, {"cutoff", k_cutoff}};
  auto scatter = [&] {
    KTUNE_EXAMPLE_CHECK(cudaMemsetAsync(d.potential, 0, points * sizeof(float), s));
    return k.scatter.launch(s, ap, d.potential, d.atoms, p.nx, p.ny, p.atoms, k_cutoff);
  };
  poison();
  r.scatter_config = scatter().config;
  r.wrong += wrong_points(download(d.potential, points), host, p, "scatter");
  r.scatter_us = timed_us(s, scatter);

  if (atoms <= direct_max) {
    auto direct = [&] { return k.direct.launch(s, ap, d.potential, d.atoms, p.nx, p.ny, p.atoms, k_cutoff); };
    poison();
    r.direct_config = direct().config;
    r.wrong += wrong_points(download(d.potential, points), host, p, "direct");
    r.direct_us = timed_us(s, direct);
  }
  d.release();
  return r;
}

// The slope of log(time) over log(atoms) between the two largest measured counts (small
// maps are latency-bound: too few points to fill the GPU).
double slope(const std::vector<Row>& rows, double Row::*field) {
  const Row* first = nullptr;
  const Row* last = nullptr;
  for (const Row& r : rows)
    if (r.*field > 0) first = last, last = &r;
  if (!first) return NAN;
  return std::log((*last).*field / (*first).*field) / std::log(double(last->p.atoms) / first->p.atoms);
}

}  // namespace

int main(int argc, char** argv) {
  int direct_max = 300000;
  const char* json = nullptr;
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--direct-max") && i + 1 < argc) direct_max = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (std::atoi(argv[i]) >= 1 && std::atoi(argv[i]) <= 50000000) sizes.push_back(std::atoi(argv[i]));
    else return std::fprintf(stderr, "binning_app: '%s': expected --direct-max N, --json FILE or a count of atoms (1 .. 5e7)\n", argv[i]), 2;
  }
  if (sizes.empty()) sizes = {1000, 3000, 10000, 30000, 100000, 300000, 1000000};
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("[  SKIPPED ] binning_app: no CUDA device\n");
    return 0;
  }
  auto& rt = ktune::default_runtime();
  const std::string dir = KTUNE_BINNING_DIR;
  const Kernels k{rt.kernel(dir + "/direct.cu", "cutoff_direct"), rt.kernel(dir + "/scatter.cu", "cutoff_scatter"),
                  rt.kernel(dir + "/bin_atoms.cu", "bin_atoms"), rt.kernel(dir + "/cutoff_gather.cu", "cutoff_gather")};
  cudaStream_t s = nullptr;
  KTUNE_EXAMPLE_CHECK(cudaStreamCreate(&s));
  std::FILE* out = json ? std::fopen(json, "w") : nullptr;
  if (json && !out) return std::fprintf(stderr, "binning_app: cannot write %s\n", json), 2;
  std::printf("%9s %7s %4s %12s %12s %10s %10s %12s %9s\n", "atoms", "points", "cap", "direct us", "scatter us", "bin us",
              "gather us", "binned us", "direct/binned");
  std::vector<Row> rows;
  int wrong = 0;
  for (int n : sizes) {
    const Row r = measure(k, n, direct_max, s);
    rows.push_back(r);
    wrong += r.wrong;
    const double binned = r.bin_us + r.gather_us;
    std::printf("%9d %7d %4d %12.1f %12.1f %10.1f %10.1f %12.1f %9.2f\n", n, r.p.nx * r.p.ny, r.p.cap, r.direct_us,
                r.scatter_us, r.bin_us, r.gather_us, binned, r.direct_us > 0 ? r.direct_us / binned : NAN);
    if (out)
      std::fprintf(out,
                   "{\"atoms\": %d, \"nx\": %d, \"ny\": %d, \"cutoff\": %d, \"cell\": %d, \"cap\": %d, \"direct_us\": %.3f, "
                   "\"scatter_us\": %.3f, \"bin_us\": %.3f, \"gather_us\": %.3f, \"direct_config\": \"%s\", "
                   "\"scatter_config\": \"%s\", \"gather_config\": \"%s\", \"wrong\": %d}\n",
                   n, r.p.nx, r.p.ny, k_cutoff, k_cell, r.p.cap, r.direct_us, r.scatter_us, r.bin_us, r.gather_us,
                   r.direct_config.c_str(), r.scatter_config.c_str(), r.gather_config.c_str(), r.wrong);
  }
  if (out) std::fclose(out);
  const Row* cross = nullptr;
  for (const Row& r : rows)
    if (!cross && r.direct_us > 0 && r.bin_us + r.gather_us < r.direct_us) cross = &r;
  std::vector<Row> binned = rows;
  for (Row& r : binned) r.gather_us += r.bin_us;
  std::printf("binning_app: time ~ atoms^p, p between the two largest counts: %.2f direct, %.2f scatter, %.2f binned (bin + gather); binned "
              "faster than direct from %s atoms; %d wrong points\n",
              slope(rows, &Row::direct_us), slope(rows, &Row::scatter_us), slope(binned, &Row::gather_us),
              cross ? std::to_string(cross->p.atoms).c_str() : "(never, in this range)", wrong);
  return wrong == 0 ? 0 : 1;
}
