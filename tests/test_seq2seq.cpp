// test_seq2seq.cpp — the encoder-decoder Transformer (model::Seq2Seq): the seed's formulas by
// hand, finite differences for its ops, its blocks and the whole model, masks, KV-cached
// decoding against the full forward pass, and greedy / sampled / beam-search translation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "test_util.h"
#include "tinygpt/ops.h"
#include "tinygpt/pairs.h"
#include "tinygpt/runtime.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/translate.h"

using namespace tinygpt;

using testutil::check_gradients;
using testutil::random_tensor;

namespace {

model::Seq2SeqDims small_dims(int Le = 2, int Ld = 2, int NH = 2, int C = 8, int F = 12, int block = 8,
                              uint64_t seed = 1) {
  model::Seq2SeqDims d;
  d.n_enc_layer = Le, d.n_dec_layer = Ld, d.n_head = NH, d.n_embd = C, d.d_ff = F, d.block_size = block, d.seed = seed;
  return d;
}

// Three pairs of different lengths, padded to S = 5, T = 6.
data::PairBatch three_pairs() {
  data::PairBatch b;
  data::make_pair_batch(b, {"abc", "hello", "z"}, {"cba", "olleh", "zz"}, 5, 6);
  return b;
}

// Perturbs every parameter so no path is degenerate (unit gains, zero biases).
void perturb(model::Seq2Seq& m, double scale, uint64_t seed) {
  data::Rng rng(seed);
  for (int64_t i = 0; i < m.num_parameters(); i++) m.params()[i] += float(rng.normal() * scale);
}

}  // namespace

// ---- the seed's formulas by hand -----------------------------------------------------------

TEST_CASE("the sinusoidal encoding follows pe[pos, 2k] = sin(pos / 10000^(2k/d)), pe[pos, 2k+1] = cos(...)",
          "[seq2seq]") {
  const int T = 4, C = 4;
  float pe[T * C];
  model::sinusoidal_encoding(pe, T, C);
  // d = 4: pair k = 0 has frequency 1, pair k = 1 has frequency 1 / 10000^(2/4) = 1/100
  const double want[T][C] = {
      {0.0, 1.0, 0.0, 1.0},
      {std::sin(1.0), std::cos(1.0), std::sin(0.01), std::cos(0.01)},
      {std::sin(2.0), std::cos(2.0), std::sin(0.02), std::cos(0.02)},
      {std::sin(3.0), std::cos(3.0), std::sin(0.03), std::cos(0.03)},  // the seed's 吃 is at position 3
  };
  for (int pos = 0; pos < T; pos++)
    for (int i = 0; i < C; i++) {
      INFO("pos " << pos << " i " << i);
      CHECK(pe[pos * C + i] == Approx(want[pos][i]).margin(1e-7));
    }
  // the numbers the docs quote
  CHECK(pe[3 * C + 0] == Approx(0.14112).margin(1e-5));
  CHECK(pe[3 * C + 1] == Approx(-0.98999).margin(1e-5));
  CHECK(pe[1 * C + 2] == Approx(0.0099998).margin(1e-7));
  // read literally with i the even index, the seed's exponent 2i/d would give sin(1 / 10000^(4/4)) here
  CHECK(std::fabs(pe[1 * C + 2] - std::sin(1e-4)) > 9e-3);

  SECTION("an odd width ends with a sine") {
    float odd[2 * 3];
    model::sinusoidal_encoding(odd, 2, 3);
    CHECK(odd[3 + 2] == Approx(std::sin(1.0 / std::pow(10000.0, 2.0 / 3.0))).margin(1e-7));
  }
}

TEST_CASE("an encoder layer is post-norm: LN(attention(x) + x), then LN(FF(y) + y)", "[seq2seq]") {
  // C = 2, one head, one source token: the attention weight is 1 on itself, so
  //   x = emb + PE[0] = [1, 1] + [0, 1] = [1, 2];  a = (x W_v) W_o = [3, -2]
  //   y = LN([4, 0]) = [1, -1] (times 2 / sqrt(4 + 1e-5));  FF(y) = ReLU(y W1 + b1) W2 + b2 = [0.5, 3]
  //   out = LN([1.5, 2]) = [-1, 1] (times 0.25 / sqrt(0.0625 + 1e-5))
  model::Seq2Seq m(small_dims(1, 1, 1, 2, 1, 4));
  std::fill(m.params(), m.params() + m.num_parameters(), 0.0f);
  auto set = [&](const std::string& name, std::vector<float> values) {
    nn::Tensor t = m.param(name);
    REQUIRE(t.numel() == int64_t(values.size()));
    std::copy(values.begin(), values.end(), t.data());
  };
  const int token = 'a';
  std::copy_n(std::vector<float>{1, 1}.begin(), 2, m.param("src_embed.weight").data() + token * 2);
  set("encoder.layers.0.self_attn.qkv.weight", {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1});  // W_q = W_k = 0, W_v = I
  set("encoder.layers.0.self_attn.out_proj.weight", {3, 0, 0, -1});
  set("encoder.layers.0.norm1.weight", {1, 1});
  set("encoder.layers.0.linear1.weight", {1, 0});
  set("encoder.layers.0.linear2.weight", {0.5f, 3});
  set("encoder.layers.0.norm2.weight", {1, 1});
  nn::Arena arena;
  nn::GradMode no_grad(false);
  const int32_t src[1] = {token};
  nn::Tensor enc = m.encode(arena, src, 1, 1);  // (1, 1, 2)
  const double r = 0.25 / std::sqrt(0.0625 + 1e-5);
  CHECK(enc.data()[0] == Approx(-r).margin(1e-6));
  CHECK(enc.data()[1] == Approx(r).margin(1e-6));
  // pre-norm (x + a + FF(LN(x + a)), as in TinyGPT) would give [4.5, 3] here
  CHECK(std::fabs(enc.data()[0] - 4.5f) > 1.0f);
}

// ---- finite differences --------------------------------------------------------------------

TEST_CASE("cross-attention with padding masks matches finite differences", "[seq2seq][gradcheck]") {
  for (int nh : {1, 2}) {
    DYNAMIC_SECTION("heads " << nh) {
      nn::Arena a;
      const int B = 2, Tq = 4, Tk = 5, C = 6;
      nn::Tensor q = random_tensor(a, {B, Tq, C}, 1);
      nn::Tensor kv = random_tensor(a, {B, Tk, 2 * C}, 2);
      const uint8_t pad[B * Tk] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};  // element 1: the last two keys are padding
      CHECK_GRADS(check_gradients(
          [&](nn::Arena& ar) { return nn::cross_attention(ar, q, kv, nh, {false, pad}); }, {q, kv}, 3e-3f, 2e-3, 1e-2,
          80));
      // the padding keys receive no gradient at all
      nn::Arena b;
      for (nn::Tensor t : {q, kv}) std::fill(t.grad(), t.grad() + t.numel(), 0.0f);
      nn::Tensor out = nn::cross_attention(b, q, kv, nh, {false, pad});
      testutil::weighted_sum(b, out, random_tensor(b, out.shape(), 9, false)).backward();
      for (int j = 3; j < 5; j++)
        for (int c = 0; c < 2 * C; c++) CHECK(kv.grad()[(Tk + j) * 2 * C + c] == 0.0f);
    }
  }
}

TEST_CASE("masked self-attention (causal and key padding) matches finite differences", "[seq2seq][gradcheck]") {
  for (bool causal : {false, true}) {
    DYNAMIC_SECTION("causal " << causal) {
      nn::Arena a;
      const int B = 2, T = 5, C = 8;
      nn::Tensor qkv = random_tensor(a, {B, T, 3 * C}, 3);
      const uint8_t pad[B * T] = {0, 0, 0, 1, 1, 0, 0, 0, 0, 0};
      CHECK_GRADS(check_gradients(
          [&](nn::Arena& ar) { return nn::masked_attention(ar, qkv, 2, {causal, pad}); }, {qkv}, 3e-3f, 2e-3, 1e-2, 80));
    }
  }
}

TEST_CASE("the ReLU feed-forward FF(x) = ReLU(x W1 + b1) W2 + b2 matches finite differences", "[seq2seq][gradcheck]") {
  nn::Arena a;
  const int C = 7, F = 11;
  nn::Tensor x = random_tensor(a, {2, 3, C}, 1);
  nn::Tensor w1 = random_tensor(a, {C, F}, 2, true, 0.5f), b1 = random_tensor(a, {F}, 3, true, 0.3f);
  nn::Tensor w2 = random_tensor(a, {F, C}, 4, true, 0.5f), b2 = random_tensor(a, {C}, 5, true, 0.3f);
  CHECK_GRADS(check_gradients(
      [&](nn::Arena& ar) {
        return nn::linear_lastdim(ar, nn::relu(ar, nn::linear_lastdim(ar, x, w1, b1)), w2, b2);
      },
      {x, w1, b1, w2, b2}, 1e-3f, 2e-3, 1e-2));
}

TEST_CASE("linear_relu matches finite differences and relu(linear)'s values, forward and backward", "[seq2seq][gradcheck]") {
  nn::Arena a;
  const int C = 7, F = 11;
  nn::Tensor x = random_tensor(a, {2, 3, C}, 1);
  nn::Tensor w1 = random_tensor(a, {C, F}, 2, true, 0.5f), b1 = random_tensor(a, {F}, 3, true, 0.3f);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_relu(ar, x, w1, b1); }, {x, w1, b1}, 1e-3f, 2e-3,
                              1e-2));
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_relu(ar, x, w1, nn::Tensor()); }, {x, w1}, 1e-3f,
                              2e-3, 1e-2));
  nn::Tensor dy = random_tensor(a, {2, 3, F}, 4, false);
  // == : a zero of either sign is the same value
  CHECK(testutil::values_and_grads([&](nn::Arena& ar) { return nn::linear_relu(ar, x, w1, b1); }, {x, w1, b1}, dy) ==
        testutil::values_and_grads([&](nn::Arena& ar) { return nn::relu(ar, nn::linear_lastdim(ar, x, w1, b1)); }, {x, w1, b1},
                                   dy));
}

TEST_CASE("relu is max(x, 0) and passes gradient only where x > 0", "[seq2seq]") {
  nn::Arena a;
  nn::Tensor x = a.from({4}, {-2, -0.5f, 0.5f, 3}, true);
  nn::Tensor y = nn::relu(a, x);
  const float want[4] = {0, 0, 0.5f, 3};
  for (int i = 0; i < 4; i++) CHECK(y.data()[i] == want[i]);
  testutil::weighted_sum(a, y, a.from({4}, {1, 2, 3, 4})).backward();
  const float dwant[4] = {0, 0, 3, 4};
  for (int i = 0; i < 4; i++) CHECK(x.grad()[i] == dwant[i]);
}

TEST_CASE("a post-norm block LN(sublayer(x) + x) matches finite differences", "[seq2seq][gradcheck]") {
  nn::Arena a;
  const int C = 8;
  nn::Tensor x = random_tensor(a, {2, 4, C}, 1);
  nn::Tensor wqkv = random_tensor(a, {C, 3 * C}, 2, true, 0.4f), wo = random_tensor(a, {C, C}, 3, true, 0.4f);
  nn::Tensor g = random_tensor(a, {C}, 4, true, 0.3f), b = random_tensor(a, {C}, 5, true, 0.3f);
  for (int i = 0; i < C; i++) g.data()[i] += 1.0f;
  const uint8_t pad[8] = {0, 0, 0, 1, 0, 0, 0, 0};
  CHECK_GRADS(check_gradients(
      [&](nn::Arena& ar) {
        nn::Tensor qkv = nn::linear_lastdim(ar, x, wqkv, nn::Tensor());
        nn::Tensor att = nn::linear_lastdim(ar, nn::masked_attention(ar, qkv, 2, {true, pad}), wo, nn::Tensor());
        return nn::layernorm_lastdim(ar, nn::add(ar, att, x), g, b);
      },
      {x, wqkv, wo, g, b}, 3e-3f, 3e-3, 1e-2));
}

TEST_CASE("cross-entropy that ignores padding targets matches finite differences and the plain mean",
          "[seq2seq][gradcheck]") {
  nn::Arena a;
  nn::Tensor z = random_tensor(a, {2, 4, 9}, 1, true, 2.0f);
  const int32_t targets[8] = {3, 0, 8, -1, 5, -1, -1, -1};
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::cross_entropy_ignore(ar, z, targets); }, {z}, 3e-3f,
                              1e-4, 5e-3));
  // equals the ordinary cross-entropy over the four counted rows
  nn::Arena b;
  nn::GradMode no_grad(false);
  nn::Tensor kept = b.tensor({4, 9});
  const int rows[4] = {0, 1, 2, 4};
  for (int i = 0; i < 4; i++) std::memcpy(kept.data() + i * 9, z.data() + rows[i] * 9, 9 * sizeof(float));
  const int32_t kept_targets[4] = {3, 0, 8, 5};
  CHECK(nn::cross_entropy_ignore(b, z, targets).item() ==
        Approx(nn::cross_entropy(b, kept, kept_targets).item()).epsilon(1e-6));
  // every target padding: a zero loss, not NaN
  const int32_t none[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  CHECK(nn::cross_entropy_ignore(b, z, none).item() == 0.0f);
}

TEST_CASE("the whole seq2seq model's loss gradient matches finite differences for every parameter tensor",
          "[seq2seq][gradcheck]") {
  model::Seq2Seq m(small_dims(2, 2, 2, 8, 12, 8, 3));
  perturb(m, 0.1, 5);
  const data::PairBatch batch = three_pairs();
  nn::Arena arena;
  m.zero_grad();
  m.loss(arena, batch).backward();
  auto loss_at = [&]() {
    nn::GradMode no_grad(false);
    nn::Arena a;
    return double(m.loss(a, batch).item());
  };
  // ReLU makes the loss piecewise smooth: when a kink lies within eps of the parameter, the central
  // difference straddles it and is wrong, while the one-sided difference on the parameter's own
  // side still matches the analytic gradient (up to O(eps) curvature). Such elements pass on a
  // one-sided difference; they must stay rare.
  int checked = 0, nonzero = 0, one_sided = 0;
  for (const model::ParamInfo& p : m.param_table()) {
    float* w = m.params() + p.offset;
    const float* g = m.grads() + p.offset;
    const int64_t n = p.shape.numel();
    // embeddings: the rows of tokens in the batch; other tensors: a spread of elements
    std::vector<int64_t> at;
    if (p.name.ends_with("embed.weight")) {
      for (int token : {int('a'), int('h'), int('z'), data::kBos})
        for (int c = 0; c < 8; c += 3) at.push_back(int64_t(token) * 8 + c);
    } else {
      for (int64_t i = 0; i < n; i += std::max<int64_t>(1, n / 10)) at.push_back(i);
    }
    for (int64_t i : at) {
      const float eps = 1e-2f, saved = w[i];
      const double center = loss_at();
      w[i] = saved + eps;
      const double plus = loss_at();
      w[i] = saved - eps;
      const double minus = loss_at();
      w[i] = saved;
      const double numeric = (plus - minus) / (2 * double(eps));
      auto close = [&](double num, double tol_scale) {
        return std::fabs(g[i] - num) <= tol_scale * (3e-4 + 3e-2 * std::fabs(num));
      };
      const bool ok = close(numeric, 1.0);
      const bool side_ok = close((plus - center) / eps, 2.0) || close((center - minus) / eps, 2.0);
      INFO(p.name << "[" << i << "] analytic " << g[i] << " numeric " << numeric << " one-sided "
                  << (plus - center) / eps << ", " << (center - minus) / eps);
      CHECK((ok || side_ok));
      one_sided += !ok && side_ok;
      checked++;
      nonzero += std::fabs(numeric) > 1e-4;
    }
  }
  INFO(one_sided << " of " << checked << " elements passed on a one-sided difference (a ReLU kink within eps)");
  CHECK(one_sided <= checked / 20);
  CHECK(checked > 200);
  CHECK(nonzero > checked / 2);  // the check is not vacuous
  // the PAD embedding rows never receive gradient: padding positions are masked and ignored
  for (int c = 0; c < 8; c++) {
    CHECK(m.param("src_embed.weight").grad()[data::kPad * 8 + c] == 0.0f);
    CHECK(m.param("tgt_embed.weight").grad()[data::kPad * 8 + c] == 0.0f);
  }
}

// ---- masks and batches ----------------------------------------------------------------------

TEST_CASE("a padded batch gives every pair exactly the logits it gets alone", "[seq2seq]") {
  model::Seq2Seq m(small_dims(2, 2, 2, 16, 20, 8, 4));
  const data::PairBatch batch = three_pairs();
  nn::GradMode no_grad(false);
  nn::Arena arena;
  nn::Tensor logits = m.forward_logits(arena, batch.src.data(), batch.tgt_in.data(), 3, 5, 6);  // (3, 6, V)
  const int V = data::kPairVocab;
  const std::vector<std::string> src = {"abc", "hello", "z"}, tgt = {"cba", "olleh", "zz"};
  double worst = 0;
  for (int b = 0; b < 3; b++) {
    data::PairBatch one;
    data::make_pair_batch(one, {src[size_t(b)]}, {tgt[size_t(b)]}, int(src[size_t(b)].size()),
                          int(tgt[size_t(b)].size()) + 1);
    nn::Arena a;
    nn::Tensor alone = m.forward_logits(a, one.src.data(), one.tgt_in.data(), 1, one.S, one.T);  // (1, T_b, V)
    for (int t = 0; t < one.T; t++)
      for (int v = 0; v < V; v++)
        worst = std::max(worst, double(std::fabs(alone.data()[t * V + v] - logits.data()[(b * 6 + t) * V + v])));
  }
  INFO("max |batched - alone| " << worst);
  CHECK(worst < 2e-5);
}

TEST_CASE("the recorded attention maps are distributions that skip padding and the future", "[seq2seq]") {
  model::Seq2Seq m(small_dims(1, 2, 2, 8, 8, 8, 2));
  const data::PairBatch batch = three_pairs();  // pair 2: source "z" (4 padding keys), target "zz" (3 padding)
  nn::GradMode no_grad(false);
  nn::Arena arena;
  m.forward_logits(arena, batch.src.data(), batch.tgt_in.data(), 3, 5, 6);
  const int S = 5, T = 6, NH = 2;
  auto check_rows = [&](nn::Tensor att, int Tq, int Tk, bool causal, const std::vector<int32_t>& keys) {
    REQUIRE(att.shape() == nn::Shape{3, NH, Tq, Tk});
    for (int b = 0; b < 3; b++)
      for (int h = 0; h < NH; h++)
        for (int i = 0; i < Tq; i++) {
          const float* row = att.data() + ((b * NH + h) * Tq + i) * Tk;
          double sum = 0;
          for (int j = 0; j < Tk; j++) {
            const bool hidden = keys[size_t(b * Tk + j)] == data::kPad || (causal && j > i);
            if (hidden) CHECK(row[j] == 0.0f);
            sum += row[j];
          }
          CHECK(sum == Approx(1.0).margin(1e-5));
        }
  };
  check_rows(m.last_attention(model::AttentionKind::encoder_self, 0), S, S, false, batch.src);
  for (int l = 0; l < 2; l++) {
    check_rows(m.last_attention(model::AttentionKind::decoder_self, l), T, T, true, batch.tgt_in);
    check_rows(m.last_attention(model::AttentionKind::cross, l), T, S, false, batch.src);
  }
  CHECK_THROWS_AS(m.last_attention(model::AttentionKind::cross, 2), tinygpt::Error);
}

// ---- incremental decoding -------------------------------------------------------------------

TEST_CASE("KV-cached decoding gives the full forward pass's logits position by position", "[seq2seq]") {
  model::Seq2Seq m(small_dims(2, 2, 2, 16, 24, 8, 6));
  perturb(m, 0.05, 1);
  const data::PairBatch batch = three_pairs();
  const int B = 3, S = 5, T = 6, V = data::kPairVocab;
  nn::GradMode no_grad(false);
  nn::Arena arena;
  nn::Tensor full = m.forward_logits(arena, batch.src.data(), batch.tgt_in.data(), B, S, T);  // (B, T, V)
  double worst = 0;
  SECTION("one source per row, all rows side by side") {
    model::Seq2SeqCache cache;
    m.start_decoding(cache, batch.src.data(), S, B, false);
    for (int t = 0; t < T; t++) {
      std::vector<int32_t> tokens(B);
      for (int b = 0; b < B; b++) tokens[size_t(b)] = batch.tgt_in[size_t(b * T + t)];
      const float* logits = m.decode_step(cache, tokens.data());
      for (int b = 0; b < B; b++) {
        if (batch.tgt_out[size_t(b * T + t)] < 0) continue;  // past the pair's end: the full pass saw PAD keys masked
        for (int v = 0; v < V; v++)
          worst = std::max(worst, double(std::fabs(logits[b * V + v] - full.data()[(b * T + t) * V + v])));
      }
    }
    INFO("max |cached - full| " << worst);
    CHECK(worst < 2e-5);
    // two more positions fill block_size = 8; a third does not fit
    m.decode_step(cache, std::vector<int32_t>(B, 'a').data());
    m.decode_step(cache, std::vector<int32_t>(B, 'a').data());
    CHECK_THROWS_AS(m.decode_step(cache, std::vector<int32_t>(B, 'a').data()), tinygpt::Error);
  }
  SECTION("one row per source, unpadded") {
    for (int b = 0; b < B; b++) {
      int len = 0;
      while (len < S && batch.src[size_t(b * S + len)] != data::kPad) len++;
      model::Seq2SeqCache cache;
      m.start_decoding(cache, &batch.src[size_t(b * S)], len, 1, false);
      for (int t = 0; t < T && batch.tgt_out[size_t(b * T + t)] >= 0; t++) {
        const float* logits = m.decode_step(cache, &batch.tgt_in[size_t(b * T + t)]);
        for (int v = 0; v < V; v++)
          worst = std::max(worst, double(std::fabs(logits[v] - full.data()[(b * T + t) * V + v])));
      }
    }
    INFO("max |cached - full| " << worst);
    CHECK(worst < 2e-5);
  }
}

TEST_CASE("reordering decoding rows carries each hypothesis's keys and values along", "[seq2seq]") {
  model::Seq2Seq m(small_dims(1, 2, 2, 16, 16, 8, 8));
  const std::vector<int32_t> src = {'h', 'i', '!'};
  const int V = data::kPairVocab;
  // three rows sharing the source; they diverge, then row r continues row parent[r]
  model::Seq2SeqCache cache;
  m.start_decoding(cache, src.data(), 3, 3, true);
  const int32_t step0[3] = {data::kBos, data::kBos, data::kBos};
  const int32_t step1[3] = {'a', 'b', 'c'};
  m.decode_step(cache, step0);
  m.decode_step(cache, step1);
  const int parent[3] = {2, 0, 2};
  m.reorder_rows(cache, parent);
  const int32_t step2[3] = {'x', 'y', 'z'};
  const float* logits = m.decode_step(cache, step2);
  // each row must equal a fresh decode of its own history: BOS, step1[parent], step2
  for (int r = 0; r < 3; r++) {
    model::Seq2SeqCache one;
    m.start_decoding(one, src.data(), 3, 1, false);
    m.decode_step(one, &step0[0]);
    m.decode_step(one, &step1[parent[r]]);
    const float* want = m.decode_step(one, &step2[r]);
    double worst = 0;
    for (int v = 0; v < V; v++) worst = std::max(worst, double(std::fabs(logits[r * V + v] - want[v])));
    INFO("row " << r << " max diff " << worst);
    CHECK(worst < 1e-5);
  }
}

// ---- translation ----------------------------------------------------------------------------

namespace {
// log p(text, EOS | source) from the teacher-forced forward pass
double sequence_log_prob(model::Seq2Seq& m, const std::string& source, const std::string& text, bool with_eos) {
  data::PairBatch b;
  data::make_pair_batch(b, {source}, {text}, int(source.size()), int(text.size()) + 1);
  nn::GradMode no_grad(false);
  nn::Arena arena;
  nn::Tensor logits = m.forward_logits(arena, b.src.data(), b.tgt_in.data(), 1, b.S, b.T);
  const int V = data::kPairVocab;
  double total = 0;
  const int steps = int(text.size()) + (with_eos ? 1 : 0);
  for (int t = 0; t < steps; t++) {
    const float* z = logits.data() + t * V;
    double maxv = -1e30, sum = 0;
    for (int v = 0; v < V; v++)
      if (v < 256 || v == data::kEos) maxv = std::max(maxv, double(z[v]));
    for (int v = 0; v < V; v++)
      if (v < 256 || v == data::kEos) sum += std::exp(double(z[v]) - maxv);
    total += double(z[b.tgt_out[size_t(t)]]) - maxv - std::log(sum);
  }
  return total;
}
}  // namespace

TEST_CASE("greedy and beam-search outputs carry the model's own log-probabilities", "[seq2seq]") {
  model::Seq2Seq m(small_dims(2, 2, 2, 16, 24, 10, 11));
  perturb(m, 0.3, 2);  // a peaked, opinionated model
  for (const std::string src : {"abc", "hello", "x"}) {
    INFO("source " << src);
    const sample::Translation g = sample::translate(m, src, {});
    REQUIRE(g.probs.size() == g.text.size() + (g.finished ? 1 : 0));
    CHECK(g.log_prob == Approx(sequence_log_prob(m, src, g.text, g.finished)).margin(1e-4));
    double sum = 0;
    for (float p : g.probs) sum += std::log(double(p));
    CHECK(g.log_prob == Approx(sum).margin(1e-4));
    for (int width : {2, 4}) {
      for (float alpha : {0.0f, 1.0f}) {
        sample::TranslateOptions o;
        o.beam = width;
        o.length_penalty = alpha;
        const sample::Translation t = sample::translate(m, src, o);
        INFO("beam " << width << " alpha " << alpha << " -> '" << t.text << "' finished " << t.finished);
        REQUIRE(t.probs.size() == t.text.size() + (t.finished ? 1 : 0));
        // the reported log-probability is the model's own (the cache rows followed their hypotheses)
        CHECK(t.log_prob == Approx(sequence_log_prob(m, src, t.text, t.finished)).margin(1e-4));
        CHECK(t.score == Approx(t.log_prob / std::pow(double(t.probs.size()), double(alpha))).margin(1e-6));
      }
    }
  }
}

namespace {
// a translation decoded step by step elsewhere (the GPU's way) against translate()'s
void check_same_translation(const sample::Translation& got, const sample::Translation& want) {
  CHECK(got.text == want.text);
  CHECK(got.tokens == want.tokens);
  CHECK(got.finished == want.finished);
  REQUIRE(got.probs.size() == want.probs.size());
  for (size_t i = 0; i < got.probs.size(); i++) CHECK(got.probs[i] == Approx(want.probs[i]).margin(1e-6));
  CHECK(got.log_prob == Approx(want.log_prob).margin(1e-5));
}
}  // namespace

TEST_CASE("a beam search driven from outside, the decoder run again over each row's history, is translate()'s", "[seq2seq]") {
  // the GPU's way (WebGpuSession.beamTranslate): no cache reordered, each live row's history decoded anew
  model::Seq2Seq m(small_dims(2, 2, 2, 16, 24, 10, 11));
  perturb(m, 0.3, 2);
  for (const std::string src : {"abc", "hello"}) {
    for (int width : {2, 4}) {
      INFO("source " << src << " beam " << width);
      sample::TranslateOptions o;
      o.beam = width;
      const sample::Translation want = sample::translate(m, src, o);
      sample::BeamSearch beam(m, src, o);
      REQUIRE(beam.rows() == width);
      std::vector<float> logits(size_t(beam.rows()) * size_t(beam.vocab_size()), NAN);
      int steps = 0;
      while (!beam.done()) {
        int live = 0;
        for (int r = 0; r < beam.rows(); r++) {
          const std::vector<int32_t> h = beam.history(r);
          if (h.empty()) continue;
          live++;
          REQUIRE(h.size() == size_t(beam.step() + 1));
          CHECK(h.front() == m.dims().tokens().bos());
          model::Seq2SeqCache cache;
          m.start_decoding(cache, beam.source().data(), int(beam.source().size()), 1, false);
          const float* z = nullptr;
          for (int32_t token : h) z = m.decode_step(cache, &token);
          std::copy(z, z + beam.vocab_size(), logits.begin() + std::ptrdiff_t(size_t(r) * size_t(beam.vocab_size())));
        }
        CHECK(live == (steps == 0 ? 1 : live));  // one hypothesis at the start (BOS)
        beam.advance(logits.data());
        steps++;
      }
      const sample::Translation got = beam.result();
      check_same_translation(got, want);
      CHECK_THROWS_WITH(beam.advance(logits.data()), Catch::Contains("over"));
    }
  }
  sample::TranslateOptions greedy;
  CHECK_THROWS_WITH(sample::BeamSearch(m, "abc", greedy), Catch::Contains("at least 2"));
}

TEST_CASE("a sampled translation driven from outside, the decoder run again over its history, is translate()'s", "[seq2seq]") {
  // the GPU's way (WebGpuSession.sampledTranslate): one row, its history decoded anew each step
  model::Seq2Seq m(small_dims(2, 2, 2, 16, 24, 10, 11));
  perturb(m, 0.6, 3);
  int differ = 0;  // outputs that differ from the greedy one: the draws matter
  for (const std::string src : {"abc", "hello"}) {
    for (const auto& [temperature, top_k, seed] : {std::tuple{1.0f, 0, 1ull}, {0.7f, 5, 2ull}, {2.0f, 0, 3ull}, {1.5f, 3, 4ull}}) {
      INFO("source " << src << " temperature " << temperature << " top-k " << top_k << " seed " << seed);
      sample::TranslateOptions o;
      o.temperature = temperature, o.top_k = top_k, o.seed = seed;
      const sample::Translation want = sample::translate(m, src, o);
      differ += want.text != sample::translate(m, src, sample::TranslateOptions{}).text;
      sample::BeamSearch s(m, src, o);
      REQUIRE(s.rows() == 1);
      std::vector<float> logits(size_t(s.vocab_size()), NAN);
      while (!s.done()) {
        const std::vector<int32_t> h = s.history(0);
        REQUIRE(h.size() == size_t(s.step() + 1));
        model::Seq2SeqCache cache;
        m.start_decoding(cache, s.source().data(), int(s.source().size()), 1, false);
        const float* z = nullptr;
        for (int32_t token : h) z = m.decode_step(cache, &token);
        std::copy(z, z + s.vocab_size(), logits.begin());
        s.advance(logits.data());
      }
      const sample::Translation got = s.result();
      check_same_translation(got, want);
      CHECK(got.score == got.log_prob);
      CHECK_THROWS_WITH(s.advance(logits.data()), Catch::Contains("over"));
    }
  }
  CHECK(differ > 0);
  // a sampled output stops at max_len like a greedy one: unfinished unless EOS is drawn there
  sample::TranslateOptions capped;
  capped.temperature = 1.0f, capped.max_len = 2, capped.seed = 9;
  const sample::Translation c = sample::translate(m, "hello", capped);
  CHECK(c.tokens.size() <= 2);
  CHECK(c.probs.size() == c.tokens.size() + (c.finished ? 1 : 0));
}

TEST_CASE("sampled translation is reproducible from its seed and respects top-k", "[seq2seq]") {
  model::Seq2Seq m(small_dims(1, 1, 2, 16, 16, 12, 13));
  sample::TranslateOptions o;
  o.temperature = 1.5f;
  o.seed = 42;
  const sample::Translation a = sample::translate(m, "seed", o), b = sample::translate(m, "seed", o);
  CHECK(a.text == b.text);
  CHECK(a.probs == b.probs);
  o.seed = 43;
  bool differs = false;
  for (int s = 43; s < 53 && !differs; s++) {
    o.seed = uint64_t(s);
    differs = sample::translate(m, "seed", o).text != a.text;
  }
  CHECK(differs);
  o.top_k = 1;  // top-1 sampling is greedy
  CHECK(sample::translate(m, "seed", o).text == sample::translate(m, "seed", {}).text);
}

TEST_CASE("translation stops at max_len and says the output is unfinished", "[seq2seq]") {
  model::Seq2Seq m(small_dims(1, 1, 1, 8, 8, 16, 17));
  // make EOS very unlikely: the output can only end at the length limit
  m.param("proj.bias").data()[data::kEos] = -50.0f;
  for (int beam : {1, 3}) {
    sample::TranslateOptions o;
    o.max_len = 5;
    o.beam = beam;
    const sample::Translation t = sample::translate(m, "abc", o);
    INFO("beam " << beam);
    CHECK(t.text.size() == 5u);
    CHECK_FALSE(t.finished);
    CHECK(t.probs.size() == 5u);
  }
  sample::TranslateOptions o;
  o.max_len = 16;  // more than block_size - 1
  CHECK_THROWS_AS(sample::translate(m, "abc", o), tinygpt::Error);
  CHECK_THROWS_AS(sample::translate(m, "", {}), tinygpt::Error);
  CHECK_THROWS_AS(sample::translate(m, std::string(17, 'a'), {}), tinygpt::Error);
  o = {};
  o.beam = 2;
  o.temperature = 1.0f;
  CHECK_THROWS_AS(sample::translate(m, "abc", o), tinygpt::Error);
}

TEST_CASE("batched greedy translation agrees with one-by-one greedy translation", "[seq2seq]") {
  model::Seq2Seq m(small_dims(2, 2, 2, 16, 24, 10, 19));
  perturb(m, 0.3, 4);
  const std::vector<std::string> sources = {"abc", "hello", "x", "0123456789"};
  const std::vector<sample::Translation> batch = sample::translate_greedy(m, sources);
  REQUIRE(batch.size() == sources.size());
  for (size_t i = 0; i < sources.size(); i++) {
    const sample::Translation one = sample::translate(m, sources[i], {});
    CHECK(batch[i].text == one.text);
    CHECK(batch[i].finished == one.finished);
    CHECK(batch[i].log_prob == Approx(one.log_prob).margin(1e-4));
  }
}

// ---- configuration and layout --------------------------------------------------------------

TEST_CASE("the seq2seq parameter table tiles one block, names every tensor and decays only matrices", "[seq2seq]") {
  const model::Seq2SeqDims d = small_dims(2, 3, 2, 8, 12, 8);
  model::Seq2Seq m(d);
  const auto& t = m.param_table();
  REQUIRE(t.size() == 2 + 2 * 10 + 3 * 15 + 4);
  int64_t offset = 0;
  for (const model::ParamInfo& p : t) {
    INFO(p.name);
    CHECK(p.offset == offset);
    CHECK(p.decay == (p.shape.ndim >= 2));
    offset += p.shape.numel();
  }
  CHECK(offset == m.num_parameters());
  CHECK(m.num_parameters() == d.num_parameters());
  CHECK(m.param_info("decoder.layers.2.cross_attn.kv.weight").shape == nn::Shape{8, 16});
  CHECK(m.param_info("proj.weight").shape == nn::Shape{8, 259});
  CHECK(m.param_info("encoder.layers.1.linear1.weight").shape == nn::Shape{8, 12});
  CHECK_THROWS_AS(m.param("encoder.layers.2.norm1.weight"), tinygpt::Error);
  // no attention biases: the seed's projections are plain matrix products
  for (const model::ParamInfo& p : t) CHECK(p.name.find("attn.qkv.bias") == std::string::npos);
  // initialisation: unit gains, zero biases, N(0, 1) embeddings, Xavier-bounded matrices
  CHECK(m.param("decoder.layers.0.norm3.weight").data()[0] == 1.0f);
  CHECK(m.param("proj.bias").data()[5] == 0.0f);
  const double a = std::sqrt(6.0 / (8 + 24));
  nn::Tensor w = m.param("encoder.layers.0.self_attn.qkv.weight");
  for (int64_t i = 0; i < w.numel(); i++) CHECK(std::fabs(w.data()[i]) <= a);
  nn::Tensor e = m.param("src_embed.weight");
  double var = 0;
  for (int64_t i = 0; i < e.numel(); i++) var += double(e.data()[i]) * e.data()[i];
  CHECK(var / double(e.numel()) == Approx(1.0).margin(0.1));
}

TEST_CASE("bad seq2seq dimensions are refused with the field's name", "[seq2seq][errors]") {
  auto message = [](model::Seq2SeqDims d) {
    try {
      model::Seq2Seq m(d);
    } catch (const tinygpt::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  model::Seq2SeqDims d = small_dims();
  d.n_embd = 10, d.n_head = 4;
  CHECK(message(d).find("divisible") != std::string::npos);
  d = small_dims(), d.n_enc_layer = 0;
  CHECK(message(d).find("n_enc_layer") != std::string::npos);
  d = small_dims(), d.d_ff = 0;
  CHECK(message(d).find("d_ff") != std::string::npos);
  d = small_dims(), d.block_size = 1;
  CHECK(message(d).find("block_size") != std::string::npos);
  model::Seq2Seq m(small_dims());
  nn::Arena arena;
  const std::vector<int32_t> long_src(9, 'a');
  CHECK_THROWS_AS(m.encode(arena, long_src.data(), 1, 9), tinygpt::Error);
  const int32_t bad[2] = {'a', 300};
  CHECK_THROWS_AS(m.encode(arena, bad, 1, 2), tinygpt::Error);
}

TEST_CASE("a seq2seq training step gives bit-identical loss and gradients with one and two threads",
          "[seq2seq][threads]") {
  const data::PairBatch batch = three_pairs();
  testutil::require_thread_independent([&] {
    model::Seq2Seq m(small_dims(2, 2, 4, 32, 48, 8, 23));
    nn::Arena arena;
    m.zero_grad();
    nn::Tensor loss = m.loss(arena, batch);
    loss.backward();
    std::vector<float> out(m.grads(), m.grads() + m.num_parameters());
    out.push_back(loss.item());
    return out;
  }, 2);
}

TEST_CASE("the activation estimate bounds what a training step at the largest shapes uses", "[seq2seq]") {
  for (const model::Seq2SeqDims& d : {small_dims(2, 2, 2, 16, 24, 8), small_dims(1, 3, 4, 32, 64, 20),
                                      small_dims(3, 1, 1, 8, 100, 33)}) {
    model::Seq2Seq m(d);
    const int B = 5, T = d.block_size;
    std::vector<std::string> src, tgt;
    for (int b = 0; b < B; b++) {
      src.push_back(std::string(size_t(T), char('a' + b)));
      tgt.push_back(std::string(size_t(T - 1), char('A' + b)));
    }
    data::PairBatch batch;
    data::make_pair_batch(batch, src, tgt, T, T);
    nn::Arena arena;
    m.zero_grad();
    m.loss(arena, batch).backward();
    const int64_t used = int64_t(arena.bytes_used()), estimate = model::seq2seq_activation_bytes(d, B);
    INFO("block " << T << ": used " << used << " bytes, estimate " << estimate);
    CHECK(used <= estimate);
    CHECK(estimate < used * 3 / 2);  // and not wildly pessimistic
  }
}
