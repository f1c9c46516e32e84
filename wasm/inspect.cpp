// inspect.cpp — the inspect feature: a gpt session's attention maps and next-token
// distributions for a text (its last block_size tokens), without a graph (train::Trainer::inspect).
#include "common.h"
#include "session.h"

namespace tinygpt::js {

// {T, L, NH, V, tokens: Int32Array (T), labels: string[] (T: each token's text), attention: Float32Array
// (L, NH, T, T), probs: Float32Array (T, V)}
val Session::inspect(const val& text) {
  return guarded([&] {
    std::vector<uint8_t> b = bytes_from(text, "the text");
    train::Inspection r = trainer_->inspect(b.data(), b.size());
    val o = val::object();
    o.set("T", r.T);
    o.set("L", r.L);
    o.set("NH", r.NH);
    o.set("V", trainer_->config().vocab_size);
    o.set("tokens", copy_to_js("Int32Array", r.tokens.data(), r.tokens.size()));
    val labels = val::array();
    for (const int32_t id : r.tokens) labels.call<void>("push", trainer_->token_text(id));
    o.set("labels", labels);
    o.set("attention", copy_to_js("Float32Array", r.attention.data(), r.attention.size()));
    o.set("probs", copy_to_js("Float32Array", r.probs.data(), r.probs.size()));
    return o;
  });
}

void bind_inspect(const SessionClass& c) { c.function("inspect", &Session::inspect); }

}  // namespace tinygpt::js
