// test_rnn_ref.cpp — parity with PyTorch: the recurrent language models against torch.nn.RNN /
// GRU / LSTM themselves, and the LSTM translator against a plain PyTorch twin.
//
// tests/ref/make_rnn_ref.py writes tests/ref/rnn_ref.bin: per model a config, parameters, a batch,
// and what PyTorch computed (float32): logits, loss, every parameter gradient, the gradient norm,
// the parameters after one clipped AdamW step; for the language models also the logits from a
// given initial state (a stateful run's next window). The parameters load here by name, so the
// gate order (GRU r z n, LSTM i f g o), both bias vectors and torch's weight layout are checked
// too: any of them wrong moves logits by far more than the tolerances. Each compared tensor
// prints a "[ref] ..." line with its largest difference.
//
// Regenerate the fixture with:  /usr/bin/python3 tests/ref/make_rnn_ref.py
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "ref_fixture.h"
#include "tinygpt/optim.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"

using namespace tinygpt;

namespace {

using namespace reftest;

// The bar is 1e-5 everywhere; measured differences are ~1e-7 (the tanh RNN's logits ~1e-6:
// the vectorised tanh's absolute error of ~1e-7 per step compounds through the recurrence).
constexpr Tol kLogitsTol{1e-5, 0.0};
constexpr Tol kLossTol{1e-5, 0.0};
constexpr Tol kGradTol{2e-7, 1e-4};  // gradients 1e-9 .. 1e-1: relative, with a floor far below 1e-5
constexpr Tol kOptTol{1e-8, 1e-6};   // AdamW from PyTorch's own gradients: the same float32 formula
constexpr Tol kStepTol{1e-5, 0.0};   // a whole step from the core's gradients (+ Adam's slack near g = 0)

const Fixture& fixture() {
  static const Fixture fx = load_fixture(TINYGPT_REF_DIR "/rnn_ref.bin");
  return fx;
}

// make_ref.py's training hyper-parameters (make_rnn_ref.py imports them)
const optim::Schedule kSchedule{1e-2f, 1e-3f, 3, 10};
const optim::AdamWConfig kAdamW{0.9f, 0.99f, 1e-8f, 0.1f};
constexpr float kGradClip = 1.0f;

template <class M>
void load_params(M& m, const Fixture& fx, const std::string& prefix) {
  for (const model::ParamInfo& p : m.param_table()) {
    const Record& r = fx.at(prefix + "/param/" + p.name);
    INFO(prefix << "/param/" << p.name);
    REQUIRE(r.numel() == p.shape.numel());
    REQUIRE(r.dims.size() == size_t(p.shape.ndim));
    for (int d = 0; d < p.shape.ndim; d++) REQUIRE(r.dims[size_t(d)] == p.shape.dims[d]);
    std::memcpy(m.param(p.name).data(), r.f.data(), r.f.size() * sizeof(float));
  }
}

template <class M>
optim::AdamW make_optimizer(const M& m) {
  std::vector<optim::DecaySegment> segments;
  for (const model::ParamInfo& p : m.param_table()) {
    if (!segments.empty() && segments.back().decay == p.decay)
      segments.back().count += p.shape.numel();
    else
      segments.push_back({p.offset, p.shape.numel(), p.decay});
  }
  return optim::AdamW(m.num_parameters(), kAdamW, std::move(segments));
}

// Gradients against PyTorch's, then one AdamW step from them and from the reference gradients.
template <class M>
void check_gradients_and_step(M& m, const Fixture& fx, const std::string& prefix, float loss) {
  check_close(prefix + "/loss", &loss, fx.floats(prefix + "/loss").data(), 1, kLossTol);
  Stats grads;
  for (const model::ParamInfo& p : m.param_table())
    grads.merge(check_close(prefix + "/grad/" + p.name, m.param(p.name).grad(), fx.floats(prefix + "/grad/" + p.name).data(),
                            p.shape.numel(), kGradTol));
  report(prefix + "/summary/grads", grads, kGradTol);
  std::vector<float> own(m.grads(), m.grads() + m.num_parameters());
  const float norm = optim::clip_grad_norm(own.data(), m.num_parameters(), kGradClip);
  check_close(prefix + "/grad_norm", &norm, fx.floats(prefix + "/grad_norm").data(), 1, kLossTol);
  const float lr = kSchedule.lr_at(0), coef = norm > kGradClip ? kGradClip / (norm + 1e-6f) : 1.0f;
  const std::vector<float> start(m.params(), m.params() + m.num_parameters());
  // from the core's own gradients
  optim::AdamW opt = make_optimizer(m);
  opt.step(m.params(), own.data(), lr);
  Stats step;
  for (const model::ParamInfo& p : m.param_table()) {
    const std::vector<double> slack = step1_slack(fx.floats(prefix + "/grad/" + p.name), coef, lr, kAdamW.eps, kGradTol);
    step.merge(check_close(prefix + "/step1/" + p.name, m.param(p.name).data(), fx.floats(prefix + "/step1/" + p.name).data(),
                           p.shape.numel(), kStepTol, slack.data()));
  }
  report(prefix + "/summary/step1", step, kStepTol);
  // from PyTorch's gradients: the optimizer alone
  std::copy(start.begin(), start.end(), m.params());
  std::vector<float> ref(size_t(m.num_parameters()));
  for (const model::ParamInfo& p : m.param_table()) {
    const std::vector<float>& g = fx.floats(prefix + "/grad/" + p.name);
    std::copy(g.begin(), g.end(), ref.begin() + p.offset);
  }
  optim::clip_grad_norm(ref.data(), m.num_parameters(), kGradClip);
  optim::AdamW opt2 = make_optimizer(m);
  opt2.step(m.params(), ref.data(), lr);
  Stats opt1;
  for (const model::ParamInfo& p : m.param_table())
    opt1.merge(check_close(prefix + "/opt1/" + p.name, m.param(p.name).data(), fx.floats(prefix + "/step1/" + p.name).data(),
                           p.shape.numel(), kOptTol));
  report(prefix + "/summary/opt1", opt1, kOptTol);
}

}  // namespace

TEST_CASE("rnn, gru and lstm match torch.nn's logits, every gradient and one AdamW step", "[ref][rnn]") {
  const Fixture& fx = fixture();
  for (const char* kind : {"rnn", "gru", "lstm"}) {
    DYNAMIC_SECTION(kind) {
      const std::vector<int32_t>& c = fx.ints(std::string(kind) + "/config");  // L, E, H, B, T
      REQUIRE(c.size() == 5u);
      Config config;
      set_field_text(config, field("model"), kind);
      config.n_layer = c[0], config.n_embd = c[1], config.n_hidden = c[2], config.block_size = c[4];
      const int B = c[3], T = c[4], L = c[0], H = c[2];
      model::Recurrent m(config);
      // the fixture's parameters are torch's, in its named_parameters() order: the core's table
      std::vector<std::string> names;
      for (const std::string& n : fx.order)
        if (n.rfind(std::string(kind) + "/param/", 0) == 0) names.push_back(n.substr(std::string(kind).size() + 7));
      std::vector<std::string> table;
      for (const model::ParamInfo& p : m.param_table()) table.push_back(p.name);
      CHECK(names == table);
      load_params(m, fx, kind);
      const int32_t* tokens = fx.ints(std::string(kind) + "/tokens").data();
      const int32_t* targets = fx.ints(std::string(kind) + "/targets").data();
      nn::Arena arena;
      {
        nn::GradMode no_grad(false);
        nn::Tensor logits = m.forward_logits(arena, tokens, B, T);
        check_close(std::string(kind) + "/logits", logits.data(), fx.floats(std::string(kind) + "/logits").data(),
                    logits.numel(), kLogitsTol);
        // a stateful run's window: from a given state (torch's (L, B, H) is the core's layout)
        model::RecurrentState start;
        start.B = B;
        start.h = fx.floats(std::string(kind) + "/h0");
        if (config.model == ModelKind::lstm) start.c = fx.floats("lstm/c0");
        REQUIRE(start.h.size() == size_t(L) * B * H);
        arena.reset();
        nn::Tensor from_state = m.forward_logits(arena, tokens, B, T, &start);
        check_close(std::string(kind) + "/logits_from_state", from_state.data(),
                    fx.floats(std::string(kind) + "/logits_from_state").data(), from_state.numel(), kLogitsTol);
        // generation's path (no graph, W_hh read as stored): row 0 one token at a time
        model::RecurrentState s;
        m.reset_state(s);
        const std::vector<float>& want = fx.floats(std::string(kind) + "/logits");
        for (int t = 0; t < T; t++) {
          const float* got = m.decode(s, tokens + t, 1);
          check_close(std::string(kind) + "/decode_t" + std::to_string(t), got, want.data() + size_t(t) * 256, 256, kLogitsTol);
        }
      }
      arena.reset();
      m.zero_grad();
      nn::Tensor loss = m.loss(arena, tokens, targets, B, T);
      loss.backward();
      check_gradients_and_step(m, fx, kind, loss.item());
    }
  }
}

TEST_CASE("the LSTM translator matches its PyTorch twin: logits, attention, every gradient, one AdamW step", "[ref][rnn]") {
  const Fixture& fx = fixture();
  const std::vector<int32_t>& c = fx.ints("lstm_seq2seq/config");  // Le, Ld, E, H, B, S, T
  REQUIRE(c.size() == 7u);
  model::LstmSeq2SeqDims d;
  d.n_enc_layer = c[0], d.n_dec_layer = c[1], d.n_embd = c[2], d.n_hidden = c[3];
  const int B = c[4], S = c[5], T = c[6];
  d.block_size = std::max(S, T);
  model::LstmSeq2Seq m(d);
  load_params(m, fx, "lstm_seq2seq");
  const int32_t* src = fx.ints("lstm_seq2seq/src").data();
  const int32_t* tgt_in = fx.ints("lstm_seq2seq/tgt_in").data();
  const int32_t* tgt_out = fx.ints("lstm_seq2seq/tgt_out").data();
  nn::Arena arena;
  {
    nn::GradMode no_grad(false);
    nn::Tensor logits = m.forward_logits(arena, src, tgt_in, B, S, T);
    check_close("lstm_seq2seq/logits", logits.data(), fx.floats("lstm_seq2seq/logits").data(), logits.numel(), kLogitsTol);
    check_close("lstm_seq2seq/attention", m.last_attention().data(), fx.floats("lstm_seq2seq/attention").data(),
                int64_t(B) * T * S, kLogitsTol);
    // decoding step by step (the translate path): row by row, teacher-forced, the same logits
    const std::vector<float>& want = fx.floats("lstm_seq2seq/logits");
    for (int b = 0; b < B; b++) {
      model::LstmSeq2SeqCache cache;
      m.start_decoding(cache, src + size_t(b) * S, S, 1, false);
      for (int t = 0; t < T && tgt_in[size_t(b) * T + t] != data::kPad; t++) {
        const float* got = m.decode_step(cache, tgt_in + size_t(b) * T + t);
        check_close("lstm_seq2seq/decode_b" + std::to_string(b) + "_t" + std::to_string(t), got,
                    want.data() + (size_t(b) * T + t) * data::kPairVocab, data::kPairVocab, kLogitsTol);
      }
    }
  }
  arena.reset();
  m.zero_grad();
  nn::Tensor loss = m.loss(arena, src, tgt_in, tgt_out, B, S, T);
  loss.backward();
  check_gradients_and_step(m, fx, "lstm_seq2seq", loss.item());
}
