// watch.cpp — the watch feature ("watch it learn", docs/watch.md; core/include/tinygpt/watch.h):
// the data's entropy baselines, the run's history of snapshots, the embedding's neighbours and
// step-through generation (GenerationTree). It needs Session::trainer() and generation() only.
#include <memory>

#include "common.h"
#include "tinygpt/watch.h"
#include "session.h"

namespace tinygpt::js {

namespace {

val baselines_to_js(const watch::Baselines& b) {
  val o = val::object();
  o.set("unigram", b.unigram);  // nats per token
  o.set("bigram", b.bigram);
  o.set("uniform", b.uniform);
  o.set("unigramBits", b.unigram / watch::kLn2);
  o.set("bigramBits", b.bigram / watch::kLn2);
  o.set("uniformBits", b.uniform / watch::kLn2);
  o.set("distinct", b.distinct);
  o.set("tokens", double(b.tokens));
  return o;
}

// Entropy baselines of the session's data (gpt: the training split; seq2seq: the training targets).
val watch_baselines(Session& s) {
  return guarded([&] { return baselines_to_js(s.trainer().baselines()); });
}

// Starts (or restarts) the history; probe/target: Uint8Array, or null to let the core choose.
void watch_start_history(Session& s, const val& probe, const val& target) {
  guarded([&] { s.trainer().start_history(optional_bytes(probe, "the probe"), optional_bytes(target, "the probe's target")); });
}

void watch_stop_history(Session& s) { s.trainer().stop_history(); }

// The history's layout, probe and baselines: {enabled, kind, L, NH, Le, S, T, N, P, attentionBytes,
// probe, probeSource, bytes, baselines, total, sizeBytes, budgetBytes}
val history_layout_to_js(const watch::History& h) {
  const watch::Layout& l = h.layout();
  val o = val::object();
  o.set("enabled", h.enabled());
  o.set("kind", std::string(model_kind_name(l.kind)));
  o.set("L", l.L), o.set("NH", l.NH), o.set("Le", l.Le), o.set("S", l.S), o.set("T", l.T), o.set("N", l.N), o.set("P", l.P);
  o.set("attentionBytes", double(l.attention_bytes()));
  o.set("probe", copy_to_js("Uint8Array", h.probe().data(), h.probe().size()));
  o.set("probeSource", copy_to_js("Uint8Array", h.probe_source().data(), h.probe_source().size()));
  o.set("bytes", copy_to_js("Uint8Array", h.bytes().data(), h.bytes().size()));
  // a BPE language model's history: the probe's tokens and the map's, by id and by text (empty for bytes)
  const std::vector<int32_t> probe_tokens = h.tokens().empty() ? std::vector<int32_t>{} : h.probe_tokens();
  const std::vector<int32_t> map_tokens = h.tokens().empty() ? std::vector<int32_t>{} : h.map_tokens();
  o.set("probeTokens", copy_to_js("Int32Array", probe_tokens.data(), probe_tokens.size()));
  o.set("mapTokens", copy_to_js("Int32Array", map_tokens.data(), map_tokens.size()));
  o.set("baselines", baselines_to_js(h.baselines()));
  o.set("total", double(h.snapshots().size()));
  o.set("sizeBytes", double(h.size_bytes()));
  o.set("budgetBytes", double(watch::History::kBudgetBytes));
  return o;
}

// The history: its layout (above), and the snapshots after `after_step` (-1: all): steps:
// Float64Array (K), attention: Uint8Array (K, A), embedding: Float32Array (K, N, 2), probeLoss
// (K, T), positionLoss (K, P)
val watch_history(Session& s, double after_step) {
  return guarded([&] {
    const watch::History& h = s.trainer().history();
    val o = history_layout_to_js(h);
    // a BPE history's tokens by their text (Tokenizer::token_text): the views' labels
    const auto texts = [&](const std::vector<int32_t>& ids) {
      val out = val::array();
      if (!h.tokens().empty())
        for (const int32_t id : ids) out.call<void>("push", s.trainer().token_text(id));
      return out;
    };
    o.set("probeLabels", texts(h.probe_tokens()));
    o.set("mapLabels", texts(h.map_tokens()));
    std::vector<double> steps;
    std::vector<uint8_t> attention;
    std::vector<float> embedding, probe_loss, position_loss;
    for (const watch::Snapshot& sn : h.snapshots()) {
      if (double(sn.step) <= after_step) continue;
      steps.push_back(double(sn.step));
      attention.insert(attention.end(), sn.attention.begin(), sn.attention.end());
      embedding.insert(embedding.end(), sn.embedding.begin(), sn.embedding.end());
      probe_loss.insert(probe_loss.end(), sn.probe_loss.begin(), sn.probe_loss.end());
      position_loss.insert(position_loss.end(), sn.position_loss.begin(), sn.position_loss.end());
    }
    o.set("steps", copy_to_js("Float64Array", steps.data(), steps.size()));
    o.set("attention", copy_to_js("Uint8Array", attention.data(), attention.size()));
    o.set("embedding", copy_to_js("Float32Array", embedding.data(), embedding.size()));
    o.set("probeLoss", copy_to_js("Float32Array", probe_loss.data(), probe_loss.size()));
    o.set("positionLoss", copy_to_js("Float32Array", position_loss.data(), position_loss.size()));
    return o;
  });
}

// The nearest neighbours of every byte on the embedding map, by cosine in the full embedding space
// at the model's current weights (watch::embedding_neighbours): {k, step, index: Int32Array (N, k)
// into the history's bytes, most alike first, similarity: Float32Array (N, k)}. N = 0 without a history.
val watch_neighbours(Session& s, int k) {
  return guarded([&] {
    if (k < 0 || k > 256) throw Error("watchNeighbours: k must be 0 to 256, not " + std::to_string(k));
    train::Trainer& t = s.trainer();
    const std::vector<int32_t> bytes = t.history().map_tokens();
    const watch::Neighbours n = t.kind() == ModelKind::gpt            ? watch::embedding_neighbours(t.model(), bytes, k)
                                : is_recurrent(t.kind())              ? watch::embedding_neighbours(t.recurrent(), bytes, k)
                                : t.kind() == ModelKind::lstm_seq2seq ? watch::embedding_neighbours(t.lstm_seq2seq(), bytes, k)
                                                                      : watch::embedding_neighbours(t.seq2seq(), bytes, k);
    val o = val::object();
    o.set("k", n.k);
    o.set("step", s.step());
    o.set("index", copy_to_js("Int32Array", n.index.data(), n.index.size()));
    o.set("similarity", copy_to_js("Float32Array", n.similarity.data(), n.similarity.size()));
    return o;
  });
}

// Takes a snapshot now (the run loop takes one at every evaluation by itself).
void watch_record_snapshot(Session& s) {
  guarded([&] { s.trainer().record_snapshot(); });
}

}  // namespace

// Step-through generation (watch::BranchTree) on a session's model. It points into the session's
// trainer: every call checks that the trainer is the same one and has not trained since.
class GenerationTree {
 public:
  // Throws tinygpt::Error (growGenerationTree turns it into a JS Error).
  GenerationTree(Session& s, const val& prompt, int top_k) : session_(&s) {
    const train::Trainer& t = s.trainer();
    const std::vector<uint8_t> b = bytes_from(prompt, is_language_model(t.kind()) ? "the prompt" : "the source");
    std::vector<int32_t> p = t.encode(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));  // bytes, or BPE tokens
    if (t.kind() == ModelKind::gpt) tree_ = std::make_unique<watch::BranchTree>(t.model(), std::move(p), top_k);
    else if (is_recurrent(t.kind())) tree_ = std::make_unique<watch::BranchTree>(t.recurrent(), std::move(p), top_k);
    else if (t.kind() == ModelKind::lstm_seq2seq) tree_ = std::make_unique<watch::BranchTree>(t.lstm_seq2seq(), std::move(p), top_k);
    else tree_ = std::make_unique<watch::BranchTree>(t.seq2seq(), std::move(p), top_k);
    generation_ = s.generation();
    step_ = t.steps_done();
  }

  // {id, parent, token, label, prob, depth, topTokens: Int32Array, topLabels: string[], topProbs: Float32Array,
  // children: Int32Array}: labels are the tokens' texts (token_text: a byte model's bytes, BPE tokens, BOS/EOS)
  val node(int id) const {
    return guarded([&] {
      const watch::BranchTree::Node& n = tree_->node(id);
      val o = val::object();
      o.set("id", id);
      o.set("parent", n.parent);
      o.set("token", n.token);
      const train::Trainer& tr = session_->trainer();
      o.set("label", n.token >= 0 ? tr.token_text(n.token) : std::string());
      val top = val::array();
      for (const int32_t id : n.top_tokens) top.call<void>("push", tr.token_text(id));
      o.set("topLabels", top);
      o.set("prob", n.prob);
      o.set("depth", n.depth);
      o.set("topTokens", copy_to_js("Int32Array", n.top_tokens.data(), n.top_tokens.size()));
      o.set("topProbs", copy_to_js("Float32Array", n.top_probs.data(), n.top_probs.size()));
      o.set("children", copy_to_js("Int32Array", n.children.data(), n.children.size()));
      return o;
    });
  }

  int extend(int node, int token) {
    return guarded([&] {
      check();
      return tree_->extend(node, token);
    });
  }

  val text(int node) const {
    return guarded([&] {
      const std::vector<int32_t> ids = tree_->tokens(node);
      std::string t;
      for (const int32_t id : ids) t += session_->trainer().token_bytes(id);  // a token's bytes (BPE: several)
      return copy_to_js("Uint8Array", reinterpret_cast<const uint8_t*>(t.data()), t.size());
    });
  }

  int size() const { return tree_ ? tree_->size() : 0; }
  double positionsComputed() const { return tree_ ? double(tree_->positions_computed()) : 0.0; }
  double step() const { return double(step_); }
  // False once the session's model was replaced or trained: grow a new tree.
  bool current() const { return session_->generation() == generation_ && session_->trainer().steps_done() == step_; }

 private:
  void check() const {
    if (session_->generation() != generation_)
      throw Error(coded("tree.replaced", {}, "the model was replaced: start a new generation tree"));
    const int64_t now = session_->trainer().steps_done();
    if (now != step_)
      throw Error(coded("tree.stale", {{"step", std::to_string(step_)}, {"now", std::to_string(now)}},
                        "the model has trained since this tree was grown (step " + std::to_string(step_) + ", now " +
                            std::to_string(now) + "): grow it again"));
  }
  Session* session_;
  std::unique_ptr<watch::BranchTree> tree_;
  uint64_t generation_ = 0;
  int64_t step_ = 0;
};

namespace {

// The caller (JS) owns the tree: tree.delete().
GenerationTree* make_generation_tree(Session& s, const val& prompt, int top_k) {
  return guarded([&] { return new GenerationTree(s, prompt, top_k); });
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_watch) {
  using namespace tinygpt::js;
  emscripten::function("watchBaselines", &watch_baselines);
  emscripten::function("watchStartHistory", &watch_start_history);
  emscripten::function("watchStopHistory", &watch_stop_history);
  emscripten::function("watchHistory", &watch_history);
  emscripten::function("watchRecordSnapshot", &watch_record_snapshot);
  emscripten::function("watchNeighbours", &watch_neighbours);
  emscripten::class_<GenerationTree>("GenerationTree")
      .function("node", &GenerationTree::node)
      .function("extend", &GenerationTree::extend)
      .function("text", &GenerationTree::text)
      .function("size", &GenerationTree::size)
      .function("positionsComputed", &GenerationTree::positionsComputed)
      .function("step", &GenerationTree::step)
      .function("current", &GenerationTree::current);
  // a factory rather than a constructor: a C++ exception in it becomes a JS Error with the message
  emscripten::function("growGenerationTree", &make_generation_tree, emscripten::allow_raw_pointers());
}
