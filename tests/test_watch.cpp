// test_watch.cpp — the numbers behind the "watch it learn" views (watch.h): entropy baselines
// on hand-made texts, PCA against hand-computed cases, the history's budget and its round trip
// through checkpoints, snapshots against the trainer's own inspection, and the branch tree against
// the sampler and the translator.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "tinygpt/checkpoint.h"
#include "tinygpt/error.h"
#include "tinygpt/watch.h"
#include "tinygpt/run.h"
#include "tinygpt/sample.h"
#include "tinygpt/trainer.h"
#include "tinygpt/translate.h"
#include "test_util.h"

using namespace tinygpt;
using watch::Baselines;

namespace {

Baselines of(const std::string& s) { return watch::entropy_baselines(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; i++) out += s;
  return out;
}

Config tiny_gpt(int eval_interval = 4) {
  Config c;
  c.n_layer = 2, c.n_head = 2, c.n_embd = 16, c.block_size = 16, c.batch_size = 4;
  c.max_iters = 40, c.warmup_iters = 2, c.eval_interval = eval_interval, c.eval_iters = 1;
  return c;
}

std::vector<uint8_t> text() { return testutil::numbered_lines("All the world's a stage, and all the men and women merely players", 60); }

bool same(const watch::History& a, const watch::History& b) {
  const watch::History::Packed x = a.pack(), y = b.pack();
  auto eq_f = [](const std::vector<float>& u, const std::vector<float>& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * 4) == 0;  // NaN-safe, bit for bit
  };
  return x.meta == y.meta && x.probe == y.probe && x.bytes == y.bytes && eq_f(x.baselines, y.baselines) && x.steps == y.steps &&
         x.attention == y.attention && eq_f(x.embedding, y.embedding) && eq_f(x.probe_loss, y.probe_loss) &&
         eq_f(x.position_loss, y.position_loss);
}

}  // namespace

// ---- entropy baselines ---------------------------------------------------------------------------

TEST_CASE("entropy baselines of hand-made texts: abab... has bigram entropy 0 and unigram ln 2", "[watch]") {
  const Baselines ab = of(repeat("ab", 500));
  CHECK(ab.unigram == Approx(std::log(2.0)).margin(1e-12));
  CHECK(ab.bigram == Approx(0.0).margin(1e-12));
  CHECK(ab.uniform == Approx(std::log(2.0)));
  CHECK(ab.distinct == 2);
  CHECK(ab.tokens == 1000);
  const Baselines abc = of(repeat("abc", 100));
  CHECK(abc.unigram == Approx(std::log(3.0)));
  CHECK(abc.bigram == Approx(0.0).margin(1e-12));
  const Baselines a = of(std::string(50, 'a'));
  CHECK(a.unigram == 0.0);
  CHECK(a.bigram == 0.0);
  CHECK(a.uniform == 0.0);
  // "aabb": pairs aa, ab, bb; after a: a or b (1 nat... ln 2 each), after b: b (0): H = 2 ln 2 / 3
  const Baselines aabb = of("aabb");
  CHECK(aabb.unigram == Approx(std::log(2.0)));
  CHECK(aabb.bigram == Approx(2.0 * std::log(2.0) / 3.0));
  // "abac": unigram p = (1/2, 1/4, 1/4): 1.5 bits; after a: b or c (1 bit), after b: a (0 bits): 2/3 bit
  const Baselines abac = of("abac");
  CHECK(abac.unigram / watch::kLn2 == Approx(1.5));
  CHECK(abac.bigram / watch::kLn2 == Approx(2.0 / 3.0));
  CHECK(abac.uniform / watch::kLn2 == Approx(std::log2(3.0)));
  const Baselines none = of("");
  CHECK(none.tokens == 0);
  CHECK(none.unigram == 0.0);
}

TEST_CASE("target baselines of pairs: the targets with EOS, from BOS", "[watch]") {
  std::string tsv;
  for (int i = 0; i < 40; i++) tsv += std::string("s") + std::to_string(i) + "\tab\n";  // (not "s" + std::string: GCC 12 -Wrestrict false positive)
  const data::PairDataset pairs(std::vector<uint8_t>(tsv.begin(), tsv.end()), 16);
  REQUIRE(pairs.train_size() > 0);
  const Baselines b = watch::target_baselines(pairs);
  // every target is BOS a b EOS: three equally frequent tokens, each determined by the one before
  CHECK(b.unigram == Approx(std::log(3.0)));
  CHECK(b.bigram == Approx(0.0).margin(1e-12));
  CHECK(b.distinct == 3);
  CHECK(b.tokens == 3 * pairs.train_size());
}

TEST_CASE("the trainer's baselines are of the training split only", "[watch]") {
  // 90% "ab", then a validation tail of "cd" that must not count
  std::string s = repeat("ab", 450) + repeat("cd", 50);
  train::Trainer t(tiny_gpt());
  t.set_corpus(std::vector<uint8_t>(s.begin(), s.end()));
  const Baselines b = t.baselines();
  CHECK(b.tokens == 900);
  CHECK(b.distinct == 2);
  CHECK(b.bigram == Approx(0.0).margin(1e-12));
}

// ---- PCA -------------------------------------------------------------------------------------------

TEST_CASE("Jacobi eigen-decomposition of hand-computed matrices", "[watch]") {
  std::vector<double> a = {2, 1, 1, 2}, values, vectors;
  watch::symmetric_eigen(a, 2, values, vectors);
  CHECK(values[0] == Approx(3.0));
  CHECK(values[1] == Approx(1.0));
  CHECK(std::fabs(vectors[0]) == Approx(std::sqrt(0.5)));
  CHECK(vectors[0] * vectors[2] > 0);  // (1, 1) / sqrt 2 up to sign
  CHECK(vectors[1] * vectors[3] < 0);  // (1, -1) / sqrt 2
  // a random symmetric 7x7: A v = lambda v, orthonormal vectors, descending values
  const int n = 7;
  std::vector<float> r = testutil::random_vector(size_t(n) * n, 3);
  std::vector<double> m(size_t(n) * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) m[size_t(i) * n + j] = double(r[size_t(i) * n + j]) + double(r[size_t(j) * n + i]);
  std::vector<double> copy = m;
  watch::symmetric_eigen(copy, n, values, vectors);
  for (int k = 0; k < n; k++) {
    if (k) CHECK(values[size_t(k)] <= values[size_t(k - 1)]);
    for (int i = 0; i < n; i++) {
      double av = 0;
      for (int j = 0; j < n; j++) av += m[size_t(i) * n + j] * vectors[size_t(j) * n + k];
      CHECK(av == Approx(values[size_t(k)] * vectors[size_t(i) * n + k]).margin(1e-9));
    }
    for (int l = 0; l < n; l++) {
      double dot = 0;
      for (int i = 0; i < n; i++) dot += vectors[size_t(i) * n + k] * vectors[size_t(i) * n + l];
      CHECK(dot == Approx(k == l ? 1.0 : 0.0).margin(1e-9));
    }
  }
}

TEST_CASE("PCA of four points: hand-computed coordinates, invariant to rotation, shift and extra dimensions", "[watch]") {
  // (3,0) (-1,0) (-1,1) (-1,-1): mean 0; scatter matrix diag(12, 2): axis 1 is x, axis 2 is y
  const float pts[4][2] = {{3, 0}, {-1, 0}, {-1, 1}, {-1, -1}};
  const float want[4][2] = {{3, 0}, {-1, 0}, {-1, 1}, {-1, -1}};
  auto check = [&](const watch::Projection& p) {
    for (int i = 0; i < 4; i++) {
      CHECK(p.xy[size_t(i) * 2] == Approx(want[i][0]).margin(1e-5));
      CHECK(p.xy[size_t(i) * 2 + 1] == Approx(want[i][1]).margin(1e-5));
    }
    CHECK(p.variance[0] == Approx(3.0));   // 12 / 4
    CHECK(p.variance[1] == Approx(0.5));   // 2 / 4
    CHECK(p.total_variance == Approx(3.5));
  };
  std::vector<float> x(8);
  for (int i = 0; i < 4; i++) x[size_t(i) * 2] = pts[i][0], x[size_t(i) * 2 + 1] = pts[i][1];
  check(watch::pca_2d(x.data(), 4, 2));  // N > C: the covariance
  // rotated by 30 degrees and shifted: the same coordinates (the signs follow the convention)
  const double a = M_PI / 6, c = std::cos(a), s = std::sin(a);
  std::vector<float> rot(8);
  for (int i = 0; i < 4; i++) {
    rot[size_t(i) * 2] = float(c * pts[i][0] - s * pts[i][1] + 5.0);
    rot[size_t(i) * 2 + 1] = float(s * pts[i][0] + c * pts[i][1] - 7.0);
  }
  check(watch::pca_2d(rot.data(), 4, 2));
  // in 6 dimensions (N <= C: the Gram matrix), the same
  std::vector<float> wide(24, 0.25f);
  for (int i = 0; i < 4; i++) wide[size_t(i) * 6 + 1] = rot[size_t(i) * 2], wide[size_t(i) * 6 + 4] = rot[size_t(i) * 2 + 1];
  check(watch::pca_2d(wide.data(), 4, 6));
  // with a previous frame pointing the other way, both axes flip to agree with it
  std::vector<float> prev(8);
  for (int i = 0; i < 8; i++) prev[size_t(i)] = -x[size_t(i)];
  const watch::Projection flipped = watch::pca_2d(x.data(), 4, 2, prev.data());
  for (int i = 0; i < 8; i++) CHECK(flipped.xy[size_t(i)] == Approx(prev[size_t(i)]).margin(1e-5));
  // fewer than two rows: nothing to project
  CHECK(watch::pca_2d(x.data(), 1, 2).xy == std::vector<float>{0, 0});
}

// ---- the history -----------------------------------------------------------------------------------

TEST_CASE("attention weights quantised as round(255 sqrt p): exact ends, small weights kept", "[watch]") {
  CHECK(watch::quantise_weight(0.0f) == 0);
  CHECK(watch::quantise_weight(1.0f) == 255);
  CHECK(watch::quantise_weight(0.01f) == 26);
  CHECK(watch::quantise_weight(-1.0f) == 0);
  for (int i = 0; i <= 1000; i++) {
    const float p = float(i) / 1000.0f;
    const float back = watch::dequantise_weight(watch::quantise_weight(p));
    // |sqrt p - q/255| <= 1/510, so |p - (q/255)^2| <= (1/510) (2 sqrt p + 1/510)
    CHECK(std::fabs(back - p) <= (2.0f * std::sqrt(p) + 1.0f / 510.0f) / 510.0f + 1e-6f);
  }
}

TEST_CASE("the history thins itself to its budget, keeping its first and newest snapshots", "[watch]") {
  watch::Layout l;
  l.kind = ModelKind::gpt, l.L = 4, l.NH = 4, l.T = 64, l.N = 3, l.P = 64;
  watch::History h;
  h.start(l, std::vector<uint8_t>(64, 'x'), {}, {'a', 'b', 'c'});
  const int64_t per = l.snapshot_bytes();
  CHECK(per == 8 + 4 * 4 * 64 * 65 / 2 + 8 * 3 + 4 * 64 + 4 * 64);
  for (int k = 0; k <= 300; k++) {
    watch::Snapshot s;
    s.step = 10 * k;
    s.attention.assign(size_t(l.attention_bytes()), uint8_t(k));
    s.embedding.assign(6, float(k));
    s.probe_loss.assign(64, 1.0f);
    s.position_loss.assign(64, 2.0f);
    h.add(std::move(s));
    REQUIRE(h.size_bytes() <= watch::History::kBudgetBytes);
  }
  const auto& snaps = h.snapshots();
  CHECK(snaps.front().step == 0);
  CHECK(snaps.back().step == 3000);
  CHECK(int64_t(snaps.size()) * per > watch::History::kBudgetBytes / 2);  // thinned by halves, not more
  for (size_t i = 1; i < snaps.size(); i++) CHECK(snaps[i].step > snaps[i - 1].step);
  // a rollback drops the later ones
  h.drop_after(1500);
  CHECK(h.snapshots().back().step <= 1500);
  // shapes are checked
  watch::Snapshot wrong;
  wrong.step = 5000;
  CHECK_THROWS_WITH(h.add(wrong), Catch::Contains("does not match the layout"));
}

TEST_CASE("snapshots of a gpt run: taken at every evaluation, equal to the trainer's own inspection", "[watch]") {
  train::Trainer t(tiny_gpt(4));
  t.set_corpus(text());
  t.start_history();
  const watch::History& h = t.history();
  REQUIRE(h.enabled());
  CHECK(h.layout().T == 16);  // min(kMaxProbe, block_size)
  CHECK(h.layout().P == 16);
  // the probe starts a line of the validation split
  const data::Dataset& d = t.dataset();
  const std::vector<uint8_t> all = d.read_bytes(0, d.size());
  const auto at = std::search(all.begin() + int64_t(d.train_size()), all.end(), h.probe().begin(), h.probe().end());
  REQUIRE(at != all.end());
  CHECK(*(at - 1) == '\n');
  Run run(t);
  const Slice s = run.advance(8);
  REQUIRE(s.evals.size() == 3);  // steps 0, 4, 8: the trainer is at the newest snapshot's step
  CHECK(s.evals[1].snapshot_ms > 0.0);
  REQUIRE(h.snapshots().size() == 3);
  CHECK(h.snapshots()[2].step == 8);
  // the newest snapshot is what inspect() sees now
  const watch::Snapshot& last = h.snapshots().back();
  const train::Inspection in = t.inspect(h.probe().data(), h.probe().size());
  const int T = in.T;
  size_t i = 0;
  for (int l = 0; l < in.L; l++)
    for (int hd = 0; hd < in.NH; hd++)
      for (int q = 0; q < T; q++)
        for (int k = 0; k <= q; k++, i++) {
          const float p = in.attention[((size_t(l) * in.NH + hd) * T + q) * T + k];
          CHECK(last.attention[i] == watch::quantise_weight(p));
        }
  CHECK(i == last.attention.size());
  CHECK(std::isnan(last.probe_loss[0]));
  for (int q = 1; q < T; q++) CHECK(last.probe_loss[size_t(q)] == Approx(-std::log(in.probs[size_t(q - 1) * 256 + h.probe()[size_t(q)]])).epsilon(1e-4));
  // the per-position curve averages to the loss of the same validation windows
  data::Batch batch;
  const int rows = std::min(watch::kPositionWindows, t.config().batch_size);
  d.val_batch(0, rows, 16, batch);
  nn::Arena arena;
  nn::GradMode no_grad(false);
  const float mean_loss = t.model().loss(arena, batch.x.data(), batch.y.data(), rows, 16).item();
  double sum = 0;
  for (float v : last.position_loss) sum += v;
  CHECK(sum / 16 == Approx(mean_loss).epsilon(1e-4));
  // the embedding map: the bytes of the text, projected
  CHECK(h.bytes() == watch::distinct_bytes(all.data(), all.size()));
  CHECK(last.embedding.size() == 2 * h.bytes().size());
}

TEST_CASE("a run's history goes through a checkpoint bit for bit and keeps growing after a resume", "[watch][checkpoint]") {
  train::Trainer t(tiny_gpt(4));
  t.set_corpus(text());
  const std::string mine = "the probe: my own words";
  t.start_history(std::vector<uint8_t>(mine.begin(), mine.end()));
  CHECK(std::string(t.history().probe().begin(), t.history().probe().end()) == mine.substr(0, 16));
  Run(t).advance(9);
  const std::vector<uint8_t> file = t.save();
  CHECK(ckpt::describe(file.data(), file.size()).history_snapshots == 3);
  std::unique_ptr<train::Trainer> back = train::Trainer::load(file.data(), file.size());
  REQUIRE(back->history().enabled());
  CHECK(same(t.history(), back->history()));
  CHECK(back->save() == file);  // written again unchanged
  // training on (as `tinygpt train --resume` does) adds snapshots after the loaded ones
  back->set_corpus(text());
  Run run(*back);
  run.advance(4);
  REQUIRE(back->history().snapshots().size() == 4);
  CHECK(back->history().snapshots().back().step == 12);
  // a run without a history writes no history sections and loads without one
  train::Trainer plain(tiny_gpt(4));
  plain.set_corpus(text());
  const std::vector<uint8_t> f2 = plain.save();
  CHECK(!train::Trainer::load(f2.data(), f2.size())->history().enabled());
  CHECK(ckpt::describe(f2.data(), f2.size()).history_snapshots == 0);
}

TEST_CASE("a damaged history is refused with its own message", "[watch][checkpoint]") {
  train::Trainer t(tiny_gpt(4));
  t.set_corpus(text());
  t.start_history();
  Run(t).advance(5);
  watch::History::Packed p = t.history().pack();
  CHECK_NOTHROW(watch::History::unpack(p, 5));
  CHECK_THROWS_WITH(watch::History::unpack(p, 3), Catch::Contains("not increasing within the run's 3 steps"));
  auto bad = p;
  bad.attention.pop_back();
  CHECK_THROWS_WITH(watch::History::unpack(bad, 5), Catch::Contains("history.attention holds"));
  bad = p;
  bad.meta[0] = 3;
  CHECK_THROWS_WITH(watch::History::unpack(bad, 5), Catch::Contains("written by a newer version"));
  bad.meta[0] = 2;  // a token history (a BPE run's) without its tokens
  CHECK_THROWS_WITH(watch::History::unpack(bad, 5), Catch::Contains("history.tokens holds 0 tokens"));
  bad = p;
  bad.steps[1] = 0;
  CHECK_THROWS_WITH(watch::History::unpack(bad, 5), Catch::Contains("not increasing"));
  bad = p;
  bad.embedding[0] = NAN;
  CHECK_THROWS_WITH(watch::History::unpack(bad, 5), Catch::Contains("NaN or Inf"));
  bad = p;
  bad.probe.pop_back();
  CHECK_THROWS_WITH(watch::History::unpack(bad, 5), Catch::Contains("the probe has"));
}

TEST_CASE("a rollback of the NaN guard drops the snapshots after the state it goes back to", "[watch][run]") {
  train::Trainer t(tiny_gpt(4));
  t.set_corpus(text());
  t.start_history();
  Run run(t);
  run.advance(6);  // snapshots at 0, 4; good state at 0
  REQUIRE(t.history().snapshots().size() == 2);
  t.inject_nan_gradient(1);
  const Slice s = run.advance(1);
  REQUIRE(s.rollbacks.size() == 1);
  CHECK(t.history().snapshots().size() == 1);
  CHECK(t.history().snapshots().back().step == 0);
}

// ---- seq2seq ----------------------------------------------------------------------------------------

TEST_CASE("snapshots of a seq2seq run: cross-attention of the probe pair, target losses, through a checkpoint", "[watch][seq2seq]") {
  Config c = preset_config("s2s-tiny");
  c.eval_interval = 3, c.eval_iters = 1, c.batch_size = 4, c.max_iters = 20, c.warmup_iters = 2;
  train::Trainer t(c);
  t.set_corpus(data::builtin_task("reverse", 1));
  t.start_history();
  const watch::History& h = t.history();
  const watch::Layout& l = h.layout();
  CHECK(l.kind == ModelKind::seq2seq);
  CHECK(l.S == int(h.probe_source().size()));
  CHECK(l.T == int(h.probe().size()) + 1);
  Run(t).advance(3);  // snapshots at 0 and 3
  REQUIRE(h.snapshots().size() == 2);
  const watch::Snapshot& s = h.snapshots().back();
  const std::string src(h.probe_source().begin(), h.probe_source().end()), tgt(h.probe().begin(), h.probe().end());
  const train::TranslationInspection in = t.inspect_translation(src, tgt);
  // the cross-attention block comes first, (L, NH, T, S)
  for (size_t i = 0; i < in.cross.size(); i++) CHECK(s.attention[i] == watch::quantise_weight(in.cross[i]));
  CHECK(int64_t(s.attention.size()) == l.attention_bytes());
  // the loss of each target token, EOS last
  for (int q = 0; q < l.T; q++) {
    const int32_t want = q + 1 < l.T ? int32_t(uint8_t(tgt[size_t(q)])) : data::kEos;
    CHECK(s.probe_loss[size_t(q)] == Approx(-std::log(in.probs[size_t(q) * data::kPairVocab + size_t(want)])).epsilon(1e-4));
  }
  const std::vector<uint8_t> file = t.save();
  std::unique_ptr<train::Trainer> back = train::Trainer::load(file.data(), file.size());
  CHECK(same(h, back->history()));
}

// ---- the branch tree --------------------------------------------------------------------------------

TEST_CASE("the branch tree's greedy path is the sampler's, past window rebuilds, one position per step", "[watch][sample]") {
  train::Trainer t(tiny_gpt());
  t.set_corpus(text());
  Run(t).advance(20);
  const model::TinyGPT& m = t.model();
  const std::string prompt = "All the";
  sample::Options o;
  o.temperature = 0.0f;
  const int n = 40;  // block_size 16: the window is rebuilt several times
  const std::vector<sample::Token> want = sample::generate(m, prompt, n, o);
  watch::BranchTree tree(m, reinterpret_cast<const uint8_t*>(prompt.data()), prompt.size(), 5);
  CHECK(tree.positions_computed() == int64_t(prompt.size()));
  int node = 0;
  for (int i = 0; i < n; i++) {
    const watch::BranchTree::Node& nd = tree.node(node);
    for (int k = 0; k < 5; k++) {
      CHECK(nd.top_tokens[size_t(k)] == want[size_t(i)].top_ids[k]);
      CHECK(nd.top_probs[size_t(k)] == Approx(want[size_t(i)].top_probs[k]).margin(1e-5));
    }
    node = tree.extend(node, want[size_t(i)].id);
    CHECK(tree.node(node).prob == Approx(want[size_t(i)].prob).margin(1e-5));
  }
  std::string generated;
  for (const sample::Token& tok : want) generated += char(tok.id);
  const std::vector<uint8_t> got = tree.text(node);
  CHECK(std::string(got.begin(), got.end()) == prompt + generated);
  // within a window a step costs one position; a rebuild re-reads window_keep = 8 bytes
  const int64_t greedy_positions = tree.positions_computed();
  CHECK(greedy_positions < int64_t(prompt.size()) + 3 * n);

  // branch twice from inside the path, then walk back: the caches are copied, not recomputed
  const std::vector<int> path = tree.path(node);
  const int at = path[3];
  const int32_t other = tree.node(at).top_tokens[1];
  const int64_t before = tree.positions_computed();
  const int b1 = tree.extend(at, other);
  CHECK(tree.positions_computed() == before + 1);
  CHECK(tree.node(b1).parent == at);
  CHECK(tree.node(b1).prob == Approx(tree.node(at).top_probs[1]));
  const int b2 = tree.extend(b1, tree.node(b1).top_tokens[0]);
  CHECK(tree.positions_computed() == before + 2);
  CHECK(tree.extend(at, other) == b1);  // an existing branch is walked, not grown again
  CHECK(tree.node(at).children.size() == 2);
  // the branch's distribution is the sampler's after the same text
  const std::vector<uint8_t> branch_text = tree.text(b2);
  sample::Generator g(m, o);
  g.set_prompt(branch_text.data(), branch_text.size());
  const sample::Token next = g.next();
  CHECK(tree.node(b2).top_tokens[0] == next.top_ids[0]);
  CHECK(tree.node(b2).top_probs[0] == Approx(next.top_probs[0]).margin(1e-5));
  CHECK_THROWS_WITH(tree.extend(999, 1), Catch::Contains("no node 999"));
  CHECK_THROWS_WITH(tree.extend(0, 256), Catch::Contains("cannot be generated"));
}

TEST_CASE("the branch tree of a translation follows greedy decoding and ends at EOS", "[watch][seq2seq]") {
  Config c = preset_config("s2s-tiny");
  c.batch_size = 8, c.max_iters = 60, c.warmup_iters = 5, c.eval_interval = 0;
  train::Trainer t(c);
  t.set_corpus(data::builtin_task("reverse", 1));
  Run(t).advance(60);
  const std::string source = "abcd";
  const sample::Translation want = sample::translate(t.seq2seq(), source, {});
  watch::BranchTree tree(t.seq2seq(), reinterpret_cast<const uint8_t*>(source.data()), source.size(), 4);
  int node = 0;
  for (size_t i = 0; i < want.probs.size(); i++) {
    const int32_t top = tree.node(node).top_tokens[0];
    CHECK(tree.node(node).top_probs[0] == Approx(want.probs[i]).margin(1e-5));
    if (i < want.text.size()) CHECK(top == int32_t(uint8_t(want.text[i])));
    node = tree.extend(node, top);
  }
  const std::vector<uint8_t> out = tree.text(node);
  CHECK(std::string(out.begin(), out.end()) == want.text);
  if (want.finished) {
    CHECK(tree.node(node).token == data::kEos);
    CHECK_THROWS_WITH(tree.extend(node, 'a'), Catch::Contains("has ended"));
  }
  // a branch at the start costs one decoder position (a cache through the root is copied)
  const int64_t before = tree.positions_computed();
  tree.extend(0, tree.node(0).top_tokens[0] == 'z' ? 'y' : 'z');
  CHECK(tree.positions_computed() == before + 1);
  CHECK_THROWS_WITH(tree.extend(0, data::kPad), Catch::Contains("cannot be generated"));
}

TEST_CASE("nearest neighbours by cosine on a hand-made table: order, ties, zero rows, k clamped", "[watch]") {
  // five rows (5, 2): cosines against row 0 are 0.6, 0, -1, 0; row 1 (3, 4) and row 2 (0, 2) have 8 / 10
  const std::vector<float> x = {1, 0, 3, 4, 0, 2, -1, 0, 0, 0};
  const watch::Neighbours n = watch::nearest_neighbours(x.data(), 5, 2, 3);
  REQUIRE(n.k == 3);
  // Euclidean would put the zero row (distance 1) first for row 0; cosine puts (3, 4) first
  CHECK(n.index == std::vector<int32_t>{1, 2, 4,   // row 0: 0.6, then the ties at 0 by index
                                        2, 0, 4,   // row 1: 0.8, 0.6, 0
                                        1, 0, 3,   // row 2: 0.8, 0, 0
                                        2, 4, 1,   // row 3: 0, 0, -0.6
                                        0, 1, 2}); // row 4 (all zeros): 0 to every row
  const std::vector<float> want = {0.6f, 0, 0, 0.8f, 0.6f, 0, 0.8f, 0, 0, 0, 0, -0.6f, 0, 0, 0};
  for (size_t i = 0; i < want.size(); i++) CHECK(n.similarity[i] == Approx(want[i]).margin(1e-7));
  // lengths do not matter: row 1 scaled by 10 changes nothing
  std::vector<float> scaled = x;
  scaled[2] *= 10, scaled[3] *= 10;
  CHECK(watch::nearest_neighbours(scaled.data(), 5, 2, 3).index == n.index);
  // k is clamped to the other rows; a single row has none
  CHECK(watch::nearest_neighbours(x.data(), 5, 2, 10).k == 4);
  CHECK(watch::nearest_neighbours(x.data(), 1, 2, 3).index.empty());
  CHECK_THROWS_WITH(watch::nearest_neighbours(x.data(), 5, 0, 3), Catch::Contains("C >= 1"));
  CHECK_THROWS_WITH(watch::nearest_neighbours(x.data(), 5, 2, -1), Catch::Contains("k >= 0"));
}

TEST_CASE("embedding neighbours read the rows of the mapped bytes in wte", "[watch]") {
  train::Trainer t(tiny_gpt());
  t.set_corpus(text());
  Run(t).advance(5);
  const model::TinyGPT& m = t.model();
  const int C = m.config().n_embd;
  const std::string some = "To be, or not to be: that is the question.";
  const std::vector<uint8_t> bytes = watch::distinct_bytes(reinterpret_cast<const uint8_t*>(some.data()), some.size());
  REQUIRE(bytes.size() > 3);
  // the table by hand: row i is wte[bytes[i]]
  std::vector<float> rows;  // (N, C)
  const float* wte = m.params() + m.param_info("wte").offset;
  for (uint8_t b : bytes) rows.insert(rows.end(), wte + size_t(b) * C, wte + size_t(b + 1) * C);
  const watch::Neighbours want = watch::nearest_neighbours(rows.data(), int(bytes.size()), C, 3);
  const watch::Neighbours got = watch::embedding_neighbours(m, std::vector<int32_t>(bytes.begin(), bytes.end()), 3);
  CHECK(got.index == want.index);
  CHECK(got.similarity == want.similarity);
  // each row's own embedding is not its neighbour, and cosines are in [-1, 1], descending
  for (size_t i = 0; i < bytes.size(); i++) {
    for (int r = 0; r < 3; r++) {
      CHECK(got.index[i * 3 + size_t(r)] != int32_t(i));
      CHECK(std::abs(got.similarity[i * 3 + size_t(r)]) <= 1.0f + 1e-6f);
      if (r) CHECK(got.similarity[i * 3 + size_t(r)] <= got.similarity[i * 3 + size_t(r) - 1]);
    }
  }
}

TEST_CASE("a checkpoint written in pieces is the same bytes, the history's snapshots written where they are", "[watch][checkpoint]") {
  train::Trainer t(tiny_gpt(4));
  t.set_corpus(text());
  t.start_history();
  Run run(t);
  run.advance(12);
  const watch::History& h = t.history();
  REQUIRE(h.snapshots().size() == 4);  // steps 0, 4, 8, 12
  const std::vector<uint8_t> whole = t.save();
  // what a sink is given: the total first, then pieces that add up to the same bytes
  struct Recorder : ckpt::Sink {
    size_t total = 0, calls = 0;
    std::vector<uint8_t> bytes;
    void begin(size_t n) override { total = n; }
    void write(const uint8_t* b, size_t n) override { bytes.insert(bytes.end(), b, b + n), calls++; }
  } sink;
  ckpt::serialize_to(t, sink);
  CHECK(sink.total == whole.size());
  CHECK(sink.bytes == whole);
  CHECK(sink.calls > 4 * h.snapshots().size());  // each snapshot's arrays are pieces of their own
  // the pieces hold what pack() copies together, in the same order
  const watch::History::Packed packed = h.pack();
  const watch::History::Pieces pieces = h.pieces();
  std::vector<uint8_t> attention;
  for (const watch::History::Piece& p : pieces.attention)
    attention.insert(attention.end(), static_cast<const uint8_t*>(p.data), static_cast<const uint8_t*>(p.data) + p.bytes);
  CHECK(attention == packed.attention);
  CHECK(h.pack(false).attention.empty());
  CHECK(h.pack(false).steps == packed.steps);
  // and it loads: the checksum over the pieces is the file's
  auto u = train::Trainer::load(whole.data(), whole.size());
  CHECK(u->history().snapshots().size() == 4);
  CHECK(u->save() == whole);
  // crc32 over pieces equals crc32 of the whole
  uint32_t c = ckpt::kCrc32Start;
  for (size_t at = 0; at < whole.size(); at += 1000) c = ckpt::crc32_update(c, whole.data() + at, std::min<size_t>(1000, whole.size() - at));
  CHECK(ckpt::crc32_final(c) == ckpt::crc32(whole.data(), whole.size()));
}
