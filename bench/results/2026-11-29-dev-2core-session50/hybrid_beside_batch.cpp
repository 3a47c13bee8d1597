#include <hetlu/hetlu.h>
#include <atomic>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>
#include <chrono>
std::atomic<long> a_done{0}, b_done{0};
std::atomic<bool> stop{false};
int main() {
  std::thread A([] {
    hetlu_options o; hetlu_options_init(&o);
    o.target = HETLU_TARGET_HYBRID; o.backend = HETLU_BACKEND_HOST;
    int n = 256; std::mt19937 g(1); std::uniform_real_distribution<double> d(-1,1);
    std::vector<double> A0(n*n), b0(n); for (auto& x : A0) x = d(g); for (auto& x : b0) x = d(g);
    std::vector<int> ip(n);
    while (!stop) {
      auto a = A0; auto b = b0; int info;
      hetlu_status s = hetlu_dgesv(n, 1, a.data(), n, ip.data(), b.data(), n, &info, &o, nullptr);
      if (s) { printf("A status %d %s\n", s, hetlu_last_error()); return; }
      ++a_done;
    }
  });
  std::thread B([] {
    hetlu_options o; hetlu_options_init(&o);
    o.target = HETLU_TARGET_HYBRID; o.backend = HETLU_BACKEND_HOST;
    int n = 64, batch = 8; std::mt19937 g(2); std::uniform_real_distribution<double> d(-1,1);
    std::vector<double> A0(n*n*batch), b0(n*batch); for (auto& x : A0) x = d(g); for (auto& x : b0) x = d(g);
    std::vector<int> ip(n*batch), info(batch);
    while (!stop) {
      auto a = A0; auto b = b0;
      hetlu_status s = hetlu_dgesv_batched_x(batch, n, 1, a.data(), n, n*n, ip.data(), n, b.data(), n, n, info.data(), &o);
      if (s) { printf("B status %d %s\n", s, hetlu_last_error()); return; }
      ++b_done;
    }
  });
  long la = -1, lb = -1;
  for (int t = 0; t < 40; ++t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    long ca = a_done, cb = b_done;
    printf("t=%.1fs A=%ld B=%ld\n", t*0.5, ca, cb); fflush(stdout);
    if (ca == la && cb == lb && t > 4) { printf("NO PROGRESS: likely deadlock\n"); fflush(stdout); _Exit(3); }
    la = ca; lb = cb;
  }
  stop = true; A.join(); B.join(); printf("ok\n");
}
