// test_optim.cpp — AdamW against hand-computed steps, the schedule, and clipping.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "tinygpt/optim.h"

using namespace tinygpt;


TEST_CASE("AdamW's first two steps match the hand-computed values", "[optim]") {
  // two parameters: one with weight decay, one without; lr 0.1, betas (0.9, 0.99), wd 0.1
  optim::AdamW opt(2, {0.9f, 0.99f, 1e-8f, 0.1f}, {{0, 1, true}, {1, 1, false}});
  float p[2] = {1.0f, 1.0f};
  float g[2] = {0.5f, 0.5f};
  opt.step(p, g, 0.1f);
  // m = 0.05, v = 0.0025; m^ = 0.5, v^ = 0.25 -> update 1.0
  CHECK(opt.m()[0] == Approx(0.05f));
  CHECK(opt.v()[0] == Approx(0.0025f));
  CHECK(p[0] == Approx(1.0 * (1 - 0.1 * 0.1) - 0.1).epsilon(1e-6));  // 0.89: decoupled decay
  CHECK(p[1] == Approx(0.9).epsilon(1e-6));                          // no decay
  g[0] = g[1] = -0.5f;
  opt.step(p, g, 0.1f);
  // m = -0.005, v = 0.004975; m^ = -0.005/0.19, v^ = 0.004975/0.0199 = 0.25
  CHECK(opt.t() == 2);
  CHECK(p[1] == Approx(0.9 + 0.1 * (0.005 / 0.19) / 0.5).epsilon(1e-6));
  CHECK(p[0] == Approx(0.89 * (1 - 0.01) + 0.1 * (0.005 / 0.19) / 0.5).epsilon(1e-6));
}

TEST_CASE("the schedule warms up linearly, decays along a cosine, then stays at the floor", "[optim]") {
  optim::Schedule s{1e-3f, 1e-4f, 100, 2000};
  CHECK(s.lr_at(0) == Approx(1e-5));
  CHECK(s.lr_at(49) == Approx(5e-4));
  CHECK(s.lr_at(99) == Approx(1e-3));
  CHECK(s.lr_at(100) == Approx(1e-3));
  CHECK(s.lr_at(1050) == Approx(5.5e-4));  // halfway through the decay
  CHECK(s.lr_at(1999) == Approx(1e-4).margin(1e-8));
  CHECK(s.lr_at(2000) == Approx(1e-4));
  CHECK(s.lr_at(9999) == Approx(1e-4));
  optim::Schedule no_warmup{1e-3f, 0.0f, 0, 10};
  CHECK(no_warmup.lr_at(0) == Approx(1e-3));
}

TEST_CASE("gradient clipping scales to the maximum norm and reports the norm before", "[optim]") {
  float g[2] = {3, 4};
  CHECK(optim::clip_grad_norm(g, 2, 1.0f) == Approx(5.0f));
  CHECK(g[0] == Approx(0.6f).epsilon(1e-5));
  CHECK(g[1] == Approx(0.8f).epsilon(1e-5));
  float h[2] = {3, 4};
  CHECK(optim::clip_grad_norm(h, 2, 10.0f) == Approx(5.0f));
  CHECK(h[0] == 3.0f);
  CHECK(optim::clip_grad_norm(h, 2, 0.0f) == Approx(5.0f));  // 0 = off
  CHECK(h[1] == 4.0f);
}

TEST_CASE("the clip's factor handed to AdamW updates as clipping in place first does, to the bit", "[optim]") {
  // train::Trainer::step: grad_norm, then step(..., clip_factor(norm, clip)), one pass over the gradients less
  const int64_t n = 1000;
  std::vector<float> g(static_cast<size_t>(n)), p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) {
    g[size_t(i)] = 0.01f * float((i * 37) % 101 - 50);
    p[size_t(i)] = 0.001f * float((i * 13) % 71 - 35);
  }
  for (float clip : {0.0f, 0.5f, 100.0f}) {  // off, clipping, not clipping
    optim::AdamW fused(n, {}, {{0, 600, true}, {600, 400, false}}), in_place(n, {}, {{0, 600, true}, {600, 400, false}});
    std::vector<float> pf = p, pi = p;
    for (int step = 0; step < 3; step++) {
      std::vector<float> gi = g;
      const float norm = optim::grad_norm(g.data(), n);
      CHECK(optim::clip_grad_norm(gi.data(), n, clip) == norm);
      fused.step(pf.data(), g.data(), 1e-2f, optim::clip_factor(norm, clip));
      in_place.step(pi.data(), gi.data(), 1e-2f);
    }
    CHECK((clip == 0.5f) == (optim::clip_factor(optim::grad_norm(g.data(), n), clip) < 1.0f));
    CHECK(std::memcmp(pf.data(), pi.data(), size_t(n) * sizeof(float)) == 0);
    CHECK(std::memcmp(fused.m().data(), in_place.m().data(), size_t(n) * sizeof(float)) == 0);
    CHECK(std::memcmp(fused.v().data(), in_place.v().data(), size_t(n) * sizeof(float)) == 0);
  }
}

TEST_CASE("AdamW rejects decay segments that do not tile the parameters", "[optim][errors]") {
  CHECK_THROWS_WITH(optim::AdamW(3, {}, {{0, 2, true}}), Catch::Contains("cover every parameter"));
  CHECK_THROWS_WITH(optim::AdamW(3, {}, {{1, 2, true}}), Catch::Contains("tile"));
}
