// test_rnn.cpp — the recurrent layers (rnn.h, kernels_rnn.cpp, ops_rnn.cpp): the fused kernels
// against their scalar twins on awkward sizes, for every SIMD backend and any thread count;
// finite differences of every new op; one step of each cell computed by hand; a stateful run
// against a stateless one; generation against the forward pass.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernel_checks.h"
#include "kernels.h"
#include "test_util.h"
#include "tinygpt/rnn.h"
#include "tinygpt/sample.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

using testutil::check_gradients;
using testutil::for_each_backend;
using testutil::random_tensor;
using testutil::random_vector;
using testutil::require_close;

namespace {

const char* kCellNames[] = {"rnn", "gru", "lstm"};

// One layer's inputs for the kernels: xg (B, T, G*H), w_hh (G*H, H), b_hh, h0, c0 (B, H), and the
// gradients from outside, dh and dc (B, T, H).
struct LayerCase {
  int cell, B, T, H;
  std::vector<float> xg, w_hh, b_hh, h0, c0, dh, dc;
  LayerCase(int cell_, int B_, int T_, int H_, uint64_t seed) : cell(cell_), B(B_), T(T_), H(H_) {
    const int GH = model::cell_gates(cell) * H;
    xg = random_vector(size_t(B) * T * GH, seed, 0.8f);
    w_hh = random_vector(size_t(GH) * H, seed + 1, 1.0f / std::sqrt(float(H)));
    b_hh = random_vector(size_t(GH), seed + 2, 0.3f);
    h0 = random_vector(size_t(B) * H, seed + 3, 0.5f);
    c0 = random_vector(size_t(B) * H, seed + 4, 0.5f);
    dh = random_vector(size_t(B) * T * H, seed + 5);
    dc = random_vector(size_t(B) * T * H, seed + 6);
  }
  // forward then backward with either the production kernels or their twins; everything concatenated
  std::vector<float> run(bool reference, bool with_h0) const {
    const int GH = model::cell_gates(cell) * H;
    const size_t N = size_t(B) * T;
    std::vector<float> h(N * H), c(cell == 2 ? N * H : 0), gates(cell ? N * 4 * H : 0);
    std::vector<float> dgx(N * GH), dgh(cell == 1 ? N * GH : 0), dh0(size_t(B) * H, 0.5f), dc0(size_t(B) * H, -0.25f);
    const float* p_h0 = with_h0 ? h0.data() : nullptr;
    const float* p_c0 = with_h0 && cell == 2 ? c0.data() : nullptr;
    float* p_c = cell == 2 ? c.data() : nullptr;
    float* p_gates = cell ? gates.data() : nullptr;
    float* p_dgh = cell == 1 ? dgh.data() : nullptr;
    const float* p_dc = cell == 2 ? dc.data() : nullptr;
    float* p_dc0 = cell == 2 ? dc0.data() : nullptr;
    auto fwd = reference ? kernels::ref::rnn_forward : kernels::rnn_forward;
    auto bwd = reference ? kernels::ref::rnn_backward : kernels::rnn_backward;
    fwd(h.data(), p_c, p_gates, xg.data(), w_hh.data(), b_hh.data(), p_h0, p_c0, cell, B, T, H);
    bwd(dgx.data(), p_dgh, dh0.data(), p_dc0, dh.data(), p_dc, h.data(), p_c, p_gates, w_hh.data(), p_h0, p_c0, cell, B,
        T, H);
    std::vector<float> all = h;
    for (const std::vector<float>* v : {&c, &gates, &dgx, &dgh, &dh0, &dc0}) all.insert(all.end(), v->begin(), v->end());
    return all;
  }
};

}  // namespace

TEST_CASE("the fused recurrent kernels match their scalar twins for every cell and awkward sizes", "[rnn][simd]") {
  for_each_backend([&] {
    for (int cell = 0; cell < 3; cell++)
      for (int H : {1, 3, 15, 16, 17, 33})
        for (int B : {1, 3, 7})
          for (int T : {1, 2, 5}) {
            INFO(kCellNames[cell] << " B " << B << " T " << T << " H " << H);
            const LayerCase lc(cell, B, T, H, uint64_t(100 * cell + 10 * H + B + T));
            for (bool with_h0 : {false, true}) {
              INFO("initial state " << (with_h0 ? "given" : "zeros"));
              const std::vector<float> got = lc.run(false, with_h0), want = lc.run(true, with_h0);
              require_close(got, want, 2e-6, 2e-5, "h, c, gates, dgx, dgh, dh0, dc0");
            }
          }
  });
}

TEST_CASE("the recurrent kernels give bit-identical results with one to four threads", "[rnn][threads]") {
  for_each_backend([&] {
    for (int cell = 0; cell < 3; cell++) {
      INFO(kCellNames[cell]);
      const LayerCase lc(cell, 9, 6, 70, uint64_t(7 + cell));  // 70 units: several blocks and a tail
      testutil::require_thread_independent([&] { return lc.run(false, true); }, 4);
    }
  });
}

// ---- one step of each cell, by hand ---------------------------------------------------------------

TEST_CASE("one step of a tanh RNN, a GRU and an LSTM with one unit, computed by hand", "[rnn][ops]") {
  // x = 1, h_{-1} = 0.5 (c_{-1} = 0.5), every weight 0.5 and every bias 0.1:
  //   each block's pre-activation a = 0.5 * 1 + 0.1 + 0.5 * 0.5 + 0.1 = 0.95
  // rnn:  h = tanh(0.95) = 0.739783
  // gru:  r = z = sig(0.95) = 0.721115; hn = 0.5 * 0.5 + 0.1 = 0.35;
  //       n = tanh(0.5 + 0.1 + r * 0.35) = tanh(0.852390) = 0.692316;
  //       h = (1 - z) n + z * 0.5 = 0.278885 * 0.692316 + 0.360558 = 0.553634
  // lstm: i = f = o = sig(0.95) = 0.721115, g = tanh(0.95) = 0.739783;
  //       c = f * 0.5 + i g = 0.360558 + 0.533469 = 0.894026; h = o tanh(c) = 0.721115 * 0.713377 = 0.514427
  const double s = 1.0 / (1.0 + std::exp(-0.95)), g = std::tanh(0.95);
  const double n_gru = std::tanh(0.6 + s * 0.35), c_lstm = s * 0.5 + s * g;
  const double expected[3] = {g, (1 - s) * n_gru + s * 0.5, s * std::tanh(c_lstm)};
  CHECK(expected[0] == Approx(0.739783).margin(1e-6));
  CHECK(expected[1] == Approx(0.553634).margin(1e-6));
  CHECK(expected[2] == Approx(0.514427).margin(1e-6));
  for (int cell = 0; cell < 3; cell++) {
    INFO(kCellNames[cell]);
    const int G = model::cell_gates(cell);
    nn::Arena a;
    nn::Tensor x = a.from({1, 1, 1}, {1.0f});
    nn::RecurrentWeights w{a.from({G, 1}, std::vector<float>(size_t(G), 0.5f)), a.from({G, 1}, std::vector<float>(size_t(G), 0.5f)),
                           a.from({G}, std::vector<float>(size_t(G), 0.1f)), a.from({G}, std::vector<float>(size_t(G), 0.1f))};
    nn::Tensor h0 = a.from({1, 1}, {0.5f}), c0 = cell == 2 ? a.from({1, 1}, {0.5f}) : nn::Tensor();
    nn::Tensor c;
    nn::Tensor h = nn::recurrent(a, cell, x, w, h0, c0, &c);
    CHECK(h.data()[0] == Approx(expected[cell]).margin(2e-7));
    if (cell == 2) CHECK(c.data()[0] == Approx(c_lstm).margin(2e-7));
  }
}

// ---- finite differences ----------------------------------------------------------------------------

TEST_CASE("a recurrent layer's backpropagation through time matches finite differences", "[rnn][ops][gradcheck]") {
  for (int cell = 0; cell < 3; cell++)
    for (bool with_h0 : {false, true}) {
      DYNAMIC_SECTION(kCellNames[cell] << (with_h0 ? ", from a given state" : ", from zeros")) {
        nn::Arena a;
        const int B = 2, T = 4, I = 3, H = 5, G = model::cell_gates(cell);
        nn::Tensor x = random_tensor(a, {B, T, I}, 1);
        nn::RecurrentWeights w{random_tensor(a, {G * H, I}, 2, true, 0.5f), random_tensor(a, {G * H, H}, 3, true, 0.5f),
                               random_tensor(a, {G * H}, 4, true, 0.2f), random_tensor(a, {G * H}, 5, true, 0.2f)};
        nn::Tensor h0 = with_h0 ? random_tensor(a, {B, H}, 6, true, 0.5f) : nn::Tensor();
        nn::Tensor c0 = with_h0 && cell == 2 ? random_tensor(a, {B, H}, 7, true, 0.5f) : nn::Tensor();
        std::vector<nn::Tensor> inputs = {x, w.w_ih, w.w_hh, w.b_ih, w.b_hh};
        if (h0.defined()) inputs.push_back(h0);
        if (c0.defined()) inputs.push_back(c0);
        CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::recurrent(ar, cell, x, w, h0, c0); }, inputs, 3e-3f,
                                    2e-3, 1e-2, 60));
        if (cell == 2) {
          // the cell states as a second output: a gradient into c reaches everything too
          CHECK_GRADS(check_gradients(
              [&](nn::Arena& ar) {
                nn::Tensor c;
                nn::Tensor h = nn::recurrent(ar, cell, x, w, h0, c0, &c);
                return nn::add(ar, h, nn::tanh(ar, c));
              },
              inputs, 3e-3f, 2e-3, 1e-2, 60));
        }
      }
    }
}

TEST_CASE("tanh, take_positions and repeat_lastdim match finite differences", "[rnn][ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {3, 4, 19}, 1, true, 1.5f);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::tanh(ar, x); }, {x}, 3e-3f, 1e-3, 5e-3));
  const int32_t at[3] = {3, 0, 3};
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::tanh(ar, nn::take_positions(ar, x, at)); }, {x}, 3e-3f,
                              1e-3, 5e-3, 228));
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::tanh(ar, nn::repeat_lastdim(ar, x)); }, {x}, 3e-3f, 1e-3,
                              5e-3));
}

// ---- the model -------------------------------------------------------------------------------------

namespace {
Config tiny_recurrent(ModelKind kind) {
  Config c;
  c.model = kind;
  c.n_layer = 2;
  c.n_embd = 8;
  c.n_hidden = 12;
  c.block_size = 8;
  c.batch_size = 3;
  c.warmup_iters = 2;
  c.max_iters = 40;
  c.eval_interval = 0;
  c.eval_iters = 2;
  c.learning_rate = 1e-2f;
  c.min_lr = 1e-3f;
  return c;
}
}  // namespace

TEST_CASE("the recurrent models' parameters are torch's names and shapes, counted as the config says", "[rnn][model]") {
  for (ModelKind kind : {ModelKind::rnn, ModelKind::gru, ModelKind::lstm}) {
    const Config c = tiny_recurrent(kind);
    model::Recurrent m(c);
    INFO(model_kind_name(kind));
    const int G = model::cell_gates(m.cell());
    CHECK(m.num_parameters() == num_parameters(c));
    CHECK(m.param_info("wte").shape == nn::Shape{256, 8});
    CHECK(m.param_info("rnn.weight_ih_l0").shape == nn::Shape{G * 12, 8});
    CHECK(m.param_info("rnn.weight_ih_l1").shape == nn::Shape{G * 12, 12});
    CHECK(m.param_info("rnn.weight_hh_l1").shape == nn::Shape{G * 12, 12});
    CHECK(m.param_info("rnn.bias_hh_l1").shape == nn::Shape{G * 12});
    CHECK(m.param_info("lm_head.weight").shape == nn::Shape{12, 256});
    CHECK(m.param_info("rnn.bias_ih_l0").decay == false);
    CHECK(m.param_info("rnn.weight_hh_l0").decay == true);
  }
}

TEST_CASE("two windows carried statefully compute what one window of twice the length does", "[rnn][model]") {
  for (ModelKind kind : {ModelKind::rnn, ModelKind::gru, ModelKind::lstm}) {
    INFO(model_kind_name(kind));
    Config c = tiny_recurrent(kind);
    c.block_size = 12;
    model::Recurrent m(c);
    const int B = 2, T = 6;
    std::vector<int32_t> tokens(size_t(B) * 2 * T), first(size_t(B) * T), second(size_t(B) * T);
    for (size_t i = 0; i < tokens.size(); i++) tokens[i] = int32_t((i * 37 + 11) % 256);
    for (int b = 0; b < B; b++)
      for (int t = 0; t < T; t++) {
        first[size_t(b) * T + t] = tokens[size_t(b) * 2 * T + t];
        second[size_t(b) * T + t] = tokens[size_t(b) * 2 * T + T + t];
      }
    nn::GradMode no_grad(false);
    nn::Arena a;
    nn::Tensor whole = m.forward_logits(a, tokens.data(), B, 2 * T);  // (B, 2T, V)
    model::RecurrentState state;
    nn::Tensor one = m.forward_logits(a, first.data(), B, T, nullptr, &state);
    nn::Tensor two = m.forward_logits(a, second.data(), B, T, &state, &state);
    std::vector<float> want, got;
    for (int b = 0; b < B; b++)
      for (int t = 0; t < 2 * T; t++)
        for (int v = 0; v < 256; v++) {
          want.push_back(whole.data()[(size_t(b) * 2 * T + t) * 256 + v]);
          const nn::Tensor& part = t < T ? one : two;
          got.push_back(part.data()[(size_t(b) * T + t % T) * 256 + v]);
        }
    require_close(got, want, 1e-6, 1e-5, "logits");
    SECTION("the first window of a stateful run is the stateless window") {
      for (size_t i = 0; i < size_t(B) * T * 256; i++) {
        const size_t b = i / (size_t(T) * 256), r = i % (size_t(T) * 256);
        REQUIRE(one.data()[i] == whole.data()[b * 2 * T * 256 + r]);
      }
    }
  }
}

TEST_CASE("a stateful run starts with the stateless loss of the same windows, then carries the state", "[rnn][train]") {
  const std::vector<uint8_t> text = testutil::numbered_lines("the cat sat on the mat", 60);
  Config c = tiny_recurrent(ModelKind::lstm);
  c.stateful = 1;
  train::Trainer stateful(c);
  stateful.set_corpus(text);
  const float first = stateful.step();
  // the same window by hand: row b starts at b * (train split / B)
  model::Recurrent fresh(c);
  const data::Dataset d(text);
  const int64_t len = int64_t(d.train_size()) / c.batch_size;
  std::vector<int32_t> x, y;
  for (int b = 0; b < c.batch_size; b++)
    for (int t = 0; t < c.block_size; t++) {
      x.push_back(text[size_t(b * len + t)]);
      y.push_back(text[size_t(b * len + t + 1)]);
    }
  nn::Arena a;
  const float by_hand = fresh.loss(a, x.data(), y.data(), c.batch_size, c.block_size).item();
  CHECK(first == by_hand);
  CHECK(stateful.carried_state().size() == size_t(c.n_layer) * c.batch_size * c.n_hidden * 2);
  stateful.step();
  // resuming a stateful run from a checkpoint continues it bit for bit (the carried state is in the file)
  const std::vector<uint8_t> saved = stateful.save();
  std::unique_ptr<train::Trainer> resumed = train::Trainer::load(saved.data(), saved.size());
  resumed->set_corpus(text);
  CHECK(resumed->carried_state() == stateful.carried_state());
  for (int i = 0; i < 3; i++) CHECK(resumed->step() == stateful.step());
}

TEST_CASE("every recurrent kind learns: the loss falls, and a checkpoint resumes bit for bit", "[rnn][train]") {
  const std::vector<uint8_t> text = testutil::numbered_lines("to be or not to be", 80);
  for (ModelKind kind : {ModelKind::rnn, ModelKind::gru, ModelKind::lstm}) {
    INFO(model_kind_name(kind));
    train::Trainer t(tiny_recurrent(kind));
    t.set_corpus(text);
    const float start = t.evaluate().loss;
    for (int i = 0; i < 30; i++) t.step();
    const float end = t.evaluate().loss;
    CHECK(start > 5.0f);
    CHECK(end < start - 1.5f);
    const std::vector<uint8_t> saved = t.save();
    auto resumed = train::Trainer::load(saved.data(), saved.size());
    resumed->set_corpus(text);
    for (int i = 0; i < 3; i++) CHECK(resumed->step() == t.step());
  }
}

TEST_CASE("generation from the hidden state follows the forward pass token by token", "[rnn][sample]") {
  for (ModelKind kind : {ModelKind::rnn, ModelKind::gru, ModelKind::lstm}) {
    INFO(model_kind_name(kind));
    Config c = tiny_recurrent(kind);
    c.block_size = 32;
    model::Recurrent m(c);
    sample::Options greedy;
    greedy.temperature = 0.0f;
    const std::vector<sample::Token> out = sample::generate(m, "ab", 20, greedy);
    std::vector<int32_t> text = {'a', 'b'};
    for (const sample::Token& tok : out) text.push_back(tok.id);
    nn::GradMode no_grad(false);
    nn::Arena a;
    nn::Tensor logits = m.forward_logits(a, text.data(), 1, int(text.size()) - 1);  // (1, 21, V)
    nn::Tensor probs = nn::softmax_lastdim(a, logits);
    for (size_t i = 0; i < out.size(); i++) {
      const float* p = probs.data() + (i + 1) * 256;  // after "ab" and the i bytes before
      CHECK(out[i].prob == Approx(p[out[i].id]).margin(1e-5));
      CHECK(p[out[i].id] >= *std::max_element(p, p + 256) - 1e-5f);
    }
  }
}

// ---- the hidden-state view (hidden.h) ---------------------------------------------------------------

TEST_CASE("the patterns give one hand-checked value per byte", "[rnn][hidden]") {
  const std::string text = "ab \"cd\" e\nXy";
  auto sig = [&](const char* name) {
    const std::vector<float> s = hidden::signal(name, reinterpret_cast<const uint8_t*>(text.data()), text.size());
    std::string out;
    for (float v : s) out += char('0' + int(v));
    return out;
  };
  //                               a b _ " c d " _ e \n X y
  CHECK(sig("quote") == std::string("000111000000"));
  CHECK(sig("line_position") == std::string("012345678901"));  // the newline is byte 9 of its line
  CHECK(sig("word_position") == std::string("012012340101"));
  CHECK(sig("vowel") == std::string("100000001000"));
  CHECK(sig("space") == std::string("001000010100"));
  CHECK(sig("upper") == std::string("000000000010"));
  CHECK(sig("punctuation") == std::string("000100100000"));
  CHECK(sig("newline_next") == std::string("000000001000"));
  CHECK_THROWS_WITH(sig("commas"), Catch::Contains("unknown pattern 'commas' (patterns: quote, line_position"));
}

TEST_CASE("the unit search finds a unit that follows the pattern, by Pearson correlation", "[rnn][hidden]") {
  CHECK(hidden::correlation(std::vector<float>{1, 2, 3}.data(), std::vector<float>{2, 4, 6}.data(), 3) == Approx(1.0));
  CHECK(hidden::correlation(std::vector<float>{1, 2, 3}.data(), std::vector<float>{3, 2, 1}.data(), 3) == Approx(-1.0));
  CHECK(hidden::correlation(std::vector<float>{1, 1, 1}.data(), std::vector<float>{3, 2, 1}.data(), 3) == 0.0);
  hidden::Trace tr;
  tr.T = 6, tr.L = 2, tr.H = 3;
  const std::vector<float> sig = {0, 1, 1, 0, 1, 0};
  tr.h.resize(size_t(tr.L) * tr.T * tr.H);
  for (int t = 0; t < tr.T; t++)
    for (int u = 0; u < tr.H; u++) {
      tr.h[size_t(t) * tr.H + u] = float((t * 7 + u * 3) % 5);                    // layer 0: noise
      tr.h[size_t(tr.T + t) * tr.H + u] = u == 1 ? 0.5f - 2.0f * sig[size_t(t)] : 0.1f * float(t % 2);  // layer 1 unit 1: -2 x signal
    }
  const std::vector<hidden::UnitMatch> top = hidden::search_units(tr, sig, 2);
  REQUIRE(top.size() == 2u);
  CHECK(top[0].layer == 1);
  CHECK(top[0].unit == 1);
  CHECK(top[0].state == "h");
  CHECK(top[0].correlation == Approx(-1.0));
  CHECK(std::fabs(top[1].correlation) < 0.99f);
}

TEST_CASE("a trace over several windows is what generation's state sees, byte for byte", "[rnn][hidden]") {
  for (ModelKind kind : {ModelKind::rnn, ModelKind::gru, ModelKind::lstm}) {
    INFO(model_kind_name(kind));
    Config c = tiny_recurrent(kind);
    c.block_size = 5;  // a 13-byte text is three windows
    model::Recurrent m(c);
    const std::string text = "the \"cat\" sat";
    nn::Arena a;
    const hidden::Trace tr = hidden::trace(m, a, reinterpret_cast<const uint8_t*>(text.data()), text.size());
    REQUIRE(tr.T == 13);
    CHECK(tr.G == (kind == ModelKind::lstm ? 4 : kind == ModelKind::gru ? 3 : 0));
    CHECK(tr.c.size() == (kind == ModelKind::lstm ? size_t(2 * 13 * 12) : 0u));
    model::RecurrentState s;
    m.reset_state(s);
    for (int t = 0; t < tr.T; t++) {
      const int32_t tok = uint8_t(text[size_t(t)]);
      m.decode(s, &tok, 1);
      for (int l = 0; l < tr.L; l++)
        for (int u = 0; u < tr.H; u++) {
          CHECK(tr.h[(size_t(l) * tr.T + t) * tr.H + u] == Approx(s.h[size_t(l) * tr.H + u]).margin(1e-5));
          if (kind == ModelKind::lstm) CHECK(tr.c[(size_t(l) * tr.T + t) * tr.H + u] == Approx(s.c[size_t(l) * tr.H + u]).margin(1e-5));
        }
    }
    if (kind == ModelKind::lstm)  // the gates are probabilities: i, f, o in (0, 1), g in (-1, 1)
      for (size_t i = 0; i < tr.gates.size(); i++) {
        const size_t g = (i / size_t(tr.H)) % 4;
        CHECK(tr.gates[i] > (g == 2 ? -1.0f : 0.0f));
        CHECK(tr.gates[i] < 1.0f);
      }
  }
}
