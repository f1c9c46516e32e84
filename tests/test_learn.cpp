// test_learn.cpp — the learn-by-hand trace (learn::trace_step): the walkthrough's hand numbers
// (tests/ref/walkthrough.json, which the page's e2e test reads too), its gradients against finite
// differences of its own loss, AdamW's first step, and edits recomputing what lies downstream.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "json.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/learn.h"

using namespace tinygpt;

namespace {

const json::Value& hand_numbers() {
  static const json::Value v = [] {
    const std::vector<uint8_t> bytes = io::read_file(TINYGPT_REF_DIR "/walkthrough.json");
    return json::parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }();
  return v;
}

double num(const json::Value& v, std::string_view key) { return v.at(key).as_double(); }
double num_at(const json::Value& v, std::string_view key, size_t i) { return v.at(key).as_array()[i].as_double(); }

const learn::Entry& entry(const learn::Trace& trace, const std::string& name) {
  for (const learn::Entry& e : trace.entries)
    if (e.name == name) return e;
  FAIL("the trace has no entry named " << name);
  throw;  // unreachable
}

size_t index_of(const learn::Trace& trace, const std::string& name) {
  for (size_t i = 0; i < trace.entries.size(); i++)
    if (trace.entries[i].name == name) return i;
  FAIL("the trace has no entry named " << name);
  return 0;
}

}  // namespace

TEST_CASE("the traced step shows the walkthrough's hand-computed numbers", "[learn][walkthrough]") {
  const json::Value& hand = hand_numbers();
  const learn::Trace tr = learn::trace_step(learn::walkthrough_model());

  for (size_t i = 0; i < 3; i++) {
    CHECK(entry(tr, "x").values[i] == float(num_at(hand, "x", i)));
    CHECK(entry(tr, "y").values[i] == float(num_at(hand, "y", i)));
  }
  const learn::Entry& X = entry(tr, "X");
  REQUIRE(X.shape == nn::Shape{1, 3, 2});
  for (size_t t = 0; t < 3; t++)
    for (size_t c = 0; c < 2; c++)
      CHECK(X.values[t * 2 + c] ==
            Approx(hand.at("X").as_array()[t].as_array()[c].as_double()).margin(num(hand, "X_margin")));

  const json::Value& ln = hand.at("layernorm_row0");
  CHECK(entry(tr, "ln_1.mean").values[0] == Approx(num(ln, "mean")).margin(num(ln, "stat_margin")));
  CHECK(entry(tr, "ln_1.var").values[0] == Approx(num(ln, "var")).margin(num(ln, "stat_margin")));
  CHECK(entry(tr, "ln_1.rstd").values[0] == Approx(num(ln, "rstd")).margin(num(ln, "stat_margin")));
  CHECK(entry(tr, "ln_1.out").values[0] == Approx(num_at(ln, "out", 0)).margin(num(ln, "out_margin")));
  CHECK(entry(tr, "ln_1.out").values[1] == Approx(num_at(ln, "out", 1)).margin(num(ln, "out_margin")));
  // X2 = [1.1, 1.1] has zero variance: the epsilon keeps LN(X2) at exactly 0
  CHECK(entry(tr, "ln_1.out").values[4] == 0.0f);
  CHECK(entry(tr, "ln_1.out").values[5] == 0.0f);

  // Q = K = V = LN(X): c_attn is [I I I]
  const learn::Entry& Q = entry(tr, "Q");
  for (size_t i = 0; i < 6; i++) {
    CHECK(Q.values[i] == entry(tr, "ln_1.out").values[i]);
    CHECK(entry(tr, "K").values[i] == Q.values[i]);
    CHECK(entry(tr, "V").values[i] == Q.values[i]);
  }
  const json::Value& at = hand.at("attention");
  const learn::Entry& att = entry(tr, "att");  // (1, 1, 3, 3)
  REQUIRE(att.shape == nn::Shape{1, 1, 3, 3});
  CHECK(att.values[0] == float(num_at(at, "P0", 0)));  // the causal mask at i = 0: exactly [1, 0]
  CHECK(att.values[1] == float(num_at(at, "P0", 1)));
  CHECK(att.values[3] == Approx(num_at(at, "P1", 0)).margin(num(at, "P_margin")));
  CHECK(att.values[4] == Approx(num_at(at, "P1", 1)).margin(num(at, "P_margin")));
  CHECK(att.values[5] == 0.0f);
  const learn::Entry& Y = entry(tr, "Y");
  for (size_t c = 0; c < 2; c++) {
    CHECK(Y.values[c] == Approx(num_at(at, "Y0", c)).margin(num(at, "Y_margin")));
    CHECK(Y.values[2 + c] == Approx(num_at(at, "Y1", c)).margin(num(at, "Y_margin")));
  }
  // the mask and the scores: S10 = -sqrt(2), S11 = +sqrt(2), masked entries are -infinity
  CHECK(entry(tr, "scores").values[3] == Approx(-std::sqrt(2.0)).margin(1e-3));
  CHECK(entry(tr, "scores").values[4] == Approx(std::sqrt(2.0)).margin(1e-3));
  CHECK(std::isinf(entry(tr, "scores + mask").values[1]));
  CHECK(entry(tr, "scores + mask").values[1] < 0);
  CHECK(entry(tr, "mask").values[3] == 0.0f);

  // the LM head turns LN_f(x_0) = [-1, +1] into section 6's logits, and row 0's loss is its 1.44
  const json::Value& ce = hand.at("cross_entropy");
  const learn::Entry& Z = entry(tr, "logits");
  REQUIRE(Z.shape == nn::Shape{1, 3, 4});
  for (size_t v = 0; v < 4; v++) CHECK(Z.values[v] == Approx(num_at(ce, "logits", v)).margin(num(ce, "logits_margin")));
  CHECK(entry(tr, "y").values[0] == float(num(ce, "target")));
  CHECK(entry(tr, "losses").values[0] == Approx(num(ce, "loss")).margin(num(ce, "loss_margin")));
  const learn::Entry& losses = entry(tr, "losses");
  CHECK(tr.loss == Approx((losses.values[0] + losses.values[1] + losses.values[2]) / 3).epsilon(1e-6));
}

TEST_CASE("the traced backward starts at the seed and follows autograd's order", "[learn]") {
  const learn::Trace tr = learn::trace_step(learn::walkthrough_model());
  const size_t first = index_of(tr, "d(loss)");
  CHECK(tr.entries[first].phase == "backward");
  CHECK(tr.entries[first].values == std::vector<float>{1.0f});
  // children before parents: the loss, the logits, ..., the embedding
  const char* order[] = {"d(loss)", "d(logits)", "d(lm_head.weight)", "d(ln_f.out)", "d(X + MLP)", "d(mlp)",
                         "d(gelu)", "d(fc)", "d(ln_2.out)", "d(X + A)", "d(A)", "d(Y)", "d(qkv)", "d(ln_1.out)",
                         "d(X)", "d(wpe)", "d(wte[x])", "d(wte)"};
  for (size_t i = 1; i < std::size(order); i++) CHECK(index_of(tr, order[i - 1]) < index_of(tr, order[i]));
  // the fused cross-entropy's gradient, by hand: dZ = (p - onehot(y)) / T
  const learn::Entry& p = entry(tr, "probs");
  const learn::Entry& dZ = entry(tr, "d(logits)");
  const learn::Entry& y = entry(tr, "y");
  for (int t = 0; t < 3; t++)
    for (int v = 0; v < 4; v++) {
      const float onehot = int(y.values[size_t(t)]) == v ? 1.0f : 0.0f;
      CHECK(dZ.values[size_t(t * 4 + v)] == Approx((p.values[size_t(t * 4 + v)] - onehot) / 3).margin(1e-6));
    }
  // token 0 is not among the inputs x = [2, 1, 3]: its embedding row gets no gradient
  CHECK(entry(tr, "d(wte)").values[0] == 0.0f);
  CHECK(entry(tr, "d(wte)").values[1] == 0.0f);
}

TEST_CASE("the traced gradients match finite differences of the traced loss", "[learn]") {
  for (const char* name : {"walkthrough", "two-heads"}) {
    INFO("model " << name);
    const learn::Model base = learn::model_named(name);
    const learn::Trace tr = learn::trace_step(base);
    for (const learn::Param& p : base.params) {
      const learn::Entry& g = entry(tr, "d(" + p.name + ")");
      REQUIRE(g.shape == p.shape);
      // a few elements of every parameter: central differences in float. The step shrinks where
      // the gradient is steep: LN of X_2 = [1.1, 1.1] (zero variance) multiplies by 1/sqrt(eps) = 316,
      // so d(wte[3]) is about 138 and the loss is linear only over about 1e-5 there.
      for (int64_t i = 0; i < p.shape.numel(); i += 1 + p.shape.numel() / 3) {
        INFO(p.name << "[" << i << "]");
        const float eps = 1e-3f / std::max(1.0f, std::abs(g.values[size_t(i)]));
        learn::Model plus = base, minus = base;
        const float up = p.values[size_t(i)] + eps, down = p.values[size_t(i)] - eps;  // the step as stored
        learn::set_weight(plus, p.name, i, up);
        learn::set_weight(minus, p.name, i, down);
        const double fd = (double(learn::trace_step(plus).loss) - double(learn::trace_step(minus).loss)) /
                          (double(up) - double(down));
        // float rounds x_2's tiny deviations (ulp(1.1) = 1.2e-7 against steps of 7e-6) by a few %
        const double rel = std::abs(fd) > 10 ? 0.05 : 0.02;
        CHECK(g.values[size_t(i)] == Approx(fd).margin(1e-3 + rel * std::abs(fd)));
      }
    }
  }
}

TEST_CASE("the traced update is AdamW's first step: each weight moves by the learning rate", "[learn][walkthrough]") {
  const json::Value& hand = hand_numbers().at("adamw");
  const learn::Model m = learn::walkthrough_model();
  REQUIRE(m.lr == float(num(hand, "lr")));
  REQUIRE(m.adamw.beta1 == float(num(hand, "beta1")));
  REQUIRE(m.adamw.beta2 == float(num(hand, "beta2")));
  REQUIRE(m.adamw.weight_decay == float(num(hand, "weight_decay")));
  const learn::Trace tr = learn::trace_step(m);
  CHECK(entry(tr, "bias corrections").values[0] == Approx(0.1).epsilon(1e-6));
  CHECK(entry(tr, "bias corrections").values[1] == Approx(0.01).epsilon(1e-4));
  // the clipped gradient feeds AdamW (optim::clip_grad_norm scales by clip / (norm + 1e-6))
  const float scale = tr.grad_norm > m.grad_clip ? m.grad_clip / (tr.grad_norm + 1e-6f) : 1.0f;
  int seen_decayed = 0, seen_plain = 0;
  for (const learn::Param& p : m.params) {
    const learn::Entry& g = entry(tr, "d(" + p.name + ")");
    const learn::Entry& mm = entry(tr, "m[" + p.name + "]");
    const learn::Entry& vv = entry(tr, "v[" + p.name + "]");
    const learn::Entry& after = entry(tr, p.name + " (new)");
    for (size_t i = 0; i < p.values.size(); i++) {
      INFO(p.name << "[" << i << "]");
      const double gi = double(g.values[i]) * scale, theta = p.values[i];
      CHECK(mm.values[i] == Approx(0.1 * gi).epsilon(1e-5).margin(1e-9));
      CHECK(vv.values[i] == Approx(0.01 * gi * gi).epsilon(1e-5).margin(1e-12));
      const double decayed = p.decay ? theta * (1 - m.lr * m.adamw.weight_decay) : theta;
      // the first step has size lr whatever |g| is (section 7): m^/sqrt(v^) = g / |g|
      if (std::abs(gi) > 1e-4) {
        CHECK(after.values[i] == Approx(decayed - m.lr * (gi > 0 ? 1 : -1)).margin(2e-5));
        if (theta == num(hand, "theta") && gi > 0) {
          CHECK(after.values[i] == Approx(num(hand, p.decay ? "decayed" : "not_decayed")).margin(2e-5));
          (p.decay ? seen_decayed : seen_plain)++;
        }
      } else if (gi == 0) {
        CHECK(after.values[i] == Approx(decayed).margin(1e-7));  // no gradient: decay alone
      }
    }
  }
  CHECK(seen_decayed > 0);  // the walkthrough's 0.89 occurs in this step (0.9 too when a gain's gradient is > 0)
  (void)seen_plain;
}

TEST_CASE("an edited token changes its own position and the later ones only", "[learn]") {
  const learn::Model base = learn::walkthrough_model();
  learn::Model edited = base;
  learn::set_token(edited, 1, 0);  // x = [2, 0, 3], y = [0, 3, 0]
  const learn::Trace a = learn::trace_step(base), b = learn::trace_step(edited);
  CHECK(entry(b, "x").values == std::vector<float>{2, 0, 3});
  CHECK(entry(b, "y").values == std::vector<float>{0, 3, 0});
  // X_1 = W_te[0] + W_pe[1] = [0, 0.1]
  CHECK(entry(b, "X").values[2] == Approx(0.0f).margin(1e-7));
  CHECK(entry(b, "X").values[3] == Approx(0.1f).margin(1e-7));
  for (const char* name : {"X", "ln_1.out", "Y", "X + MLP", "logits", "probs"}) {
    INFO(name);
    const learn::Entry &ea = entry(a, name), &eb = entry(b, name);
    const size_t row = ea.values.size() / 3;  // (1, 3, ...): position 0 is the first third
    for (size_t i = 0; i < row; i++) CHECK(eb.values[i] == ea.values[i]);  // the causal mask: position 0 cannot see 1
    bool later_changed = false;
    for (size_t i = row; i < ea.values.size(); i++) later_changed |= eb.values[i] != ea.values[i];
    CHECK(later_changed);
  }
  CHECK(entry(b, "losses").values[0] != entry(a, "losses").values[0]);  // y_0 changed from 1 to 0
  CHECK(b.loss != a.loss);

  SECTION("the last token is a target only: the forward stays, the loss of the last row changes") {
    learn::Model last = base;
    learn::set_token(last, 3, 2);
    const learn::Trace c = learn::trace_step(last);
    CHECK(entry(c, "logits").values == entry(a, "logits").values);
    CHECK(entry(c, "losses").values[0] == entry(a, "losses").values[0]);
    CHECK(entry(c, "losses").values[2] != entry(a, "losses").values[2]);
  }
}

TEST_CASE("an edited weight recomputes everything downstream of it", "[learn]") {
  const learn::Model base = learn::walkthrough_model();
  learn::Model edited = base;
  learn::set_weight(edited, "wpe", 0, 0.6f);  // W_pe[0] = [0.6, 0]: X_0 = [0.6, 1.0]
  const learn::Trace a = learn::trace_step(base), b = learn::trace_step(edited);
  CHECK(entry(b, "wpe").values[0] == 0.6f);
  CHECK(entry(b, "X").values[0] == Approx(0.6f));
  CHECK(entry(b, "ln_1.mean").values[0] == Approx(0.8f));
  CHECK(entry(b, "ln_1.var").values[0] == Approx(0.04f).margin(1e-5));
  for (size_t i = 2; i < 6; i++) CHECK(entry(b, "X").values[i] == entry(a, "X").values[i]);
  // LN(X_0) is still about [-1, +1] (C = 2), so row 0 barely moves; rows 1 and 2 attend to it and move
  CHECK(entry(b, "scores").values[3] == Approx(entry(a, "scores").values[3]).margin(1e-3));
  CHECK(b.loss != a.loss);
  CHECK(entry(b, "wpe (new)").values[0] != entry(a, "wpe (new)").values[0]);
}

TEST_CASE("bad edits are refused with a message and change nothing", "[learn][errors]") {
  learn::Model m = learn::walkthrough_model();
  const std::vector<int32_t> tokens = m.tokens;
  CHECK_THROWS_WITH(learn::set_token(m, 4, 0), Catch::Contains("outside [0, 3]"));
  CHECK_THROWS_WITH(learn::set_token(m, 0, 4), Catch::Contains("outside the vocabulary [0, 4)"));
  CHECK_THROWS_WITH(learn::set_weight(m, "wte", 8, 1.0f), Catch::Contains("outside wte (4, 2)"));
  CHECK_THROWS_WITH(learn::set_weight(m, "wte", 0, NAN), Catch::Contains("finite"));
  CHECK_THROWS_WITH(learn::set_weight(m, "nope", 0, 1.0f), Catch::Contains("no parameter named 'nope'"));
  CHECK_THROWS_WITH(learn::model_named("big"), Catch::Contains("\"walkthrough\" or \"two-heads\""));
  CHECK(m.tokens == tokens);
  CHECK(m.params[0].values == learn::walkthrough_model().params[0].values);
}

TEST_CASE("the two-head model traces two heads over a vocabulary of eight", "[learn]") {
  const learn::Model m = learn::two_head_model();
  REQUIRE(m.NH == 2);
  const learn::Trace tr = learn::trace_step(m);
  const learn::Entry& att = entry(tr, "att");
  REQUIRE(att.shape == nn::Shape{1, 2, 3, 3});
  for (int h = 0; h < 2; h++)
    for (int i = 0; i < 3; i++) {
      float sum = 0;
      for (int j = 0; j < 3; j++) {
        const float p = att.values[size_t((h * 3 + i) * 3 + j)];
        if (j > i) CHECK(p == 0.0f);
        sum += p;
      }
      CHECK(sum == Approx(1.0f).margin(1e-6));
    }
  // the heads see different channels, so their weights differ
  bool heads_differ = false;
  for (size_t k = 0; k < 9; k++) heads_differ |= att.values[k] != att.values[9 + k];
  CHECK(heads_differ);
  CHECK(entry(tr, "logits").shape == nn::Shape{1, 3, 8});
  CHECK(entry(tr, "Q").shape == nn::Shape{2, 3, 2});
  CHECK(std::isfinite(tr.loss));
  CHECK(tr.loss > 0);
}
