// webgpu.cpp — the WebGPU backend's host half (docs/webgpu.md; core/include/tinygpt/gpu_host.h):
// the core's plan of a GPU step, and a run whose steps execute on the GPU while the Session's
// trainer keeps the corpus, its sampling generator, the history and the checkpoint format.
// Arrays of parameters and moments are in the plan's GPU layout. It needs Session::trainer() and
// Session::run() only.
#include <algorithm>
#include <cmath>

#include "common.h"
#include "tinygpt/gpu_host.h"
#include "tinygpt/translate.h"
#include "session.h"

namespace tinygpt::js {

namespace {

// fuse_forward, fuse_decode: make_plan's (the page's WebGpuSession picks them: docs/webgpu.md, "Fused
// or wide"; a translator's plan has no fused paths)
std::string gpu_plan_json(Session& s, bool fuse_forward, bool fuse_decode) {
  return guarded([&] { return gpu::to_json(gpu::plan_for(s.trainer(), fuse_forward, fuse_decode)); });
}

// {params, m, v: Float32Array, step, adamT}
val gpu_export_state(Session& s) {
  return guarded([&] {
    const gpu::State st = gpu::export_state(s.trainer(), gpu::plan_for(s.trainer()));
    val o = val::object();
    o.set("params", copy_to_js("Float32Array", st.params.data(), st.params.size()));
    o.set("m", copy_to_js("Float32Array", st.m.data(), st.m.size()));
    o.set("v", copy_to_js("Float32Array", st.v.data(), st.v.size()));
    o.set("step", double(st.step));
    o.set("adamT", double(st.adam_t));
    return o;
  });
}

void gpu_import_state(Session& s, const val& params, const val& m, const val& v, double adam_t, bool good_state) {
  guarded([&] {
    const gpu::Plan plan = gpu::plan_for(s.trainer());
    const size_t n = size_t(plan.gpu_params);
    gpu::import_state(s.trainer(), plan, vector_from<float>(params, "Float32Array", n, "params").data(),
                      vector_from<float>(m, "Float32Array", n, "m").data(),
                      vector_from<float>(v, "Float32Array", n, "v").data(), int64_t(adam_t), good_state);
  });
}

val gpu_next_batches(Session& s, int k) {
  return guarded([&] {
    const train::Trainer& t = s.trainer();
    std::vector<int32_t> out(size_t(std::max(k, 0)) * size_t(gpu::batch_tokens(t)));
    gpu::next_batches(s.trainer(), k, out.data());
    return copy_to_js("Int32Array", out.data(), out.size());
  });
}

// [S, T] of a translator's batches (the plan's srcLen, tgtLen for its pairs); [0, 0] for a language model
val gpu_batch_lengths(Session& s) {
  return guarded([&] {
    const auto [S, T] = gpu::batch_lengths(s.trainer());
    const int32_t st[2] = {S, T};
    return copy_to_js("Int32Array", st, 2);
  });
}

val gpu_step_scalars(Session& s, double step, double adam_t, int k) {
  return guarded([&] {
    if (k < 1 || step < 0 || adam_t < 0) throw Error("gpuStepScalars: step, adamT >= 0 and k >= 1");
    std::vector<float> out(static_cast<size_t>(3 * k));
    gpu::step_scalars(s.trainer(), int64_t(step), int64_t(adam_t), k, out.data());
    return copy_to_js("Float32Array", out.data(), out.size());
  });
}

val gpu_val_batches(Session& s) {
  return guarded([&] {
    const train::Trainer& t = s.trainer();
    std::vector<int32_t> out(size_t(t.config().eval_iters) * size_t(gpu::batch_tokens(t)));
    gpu::val_batches(t, out.data());
    return copy_to_js("Int32Array", out.data(), out.size());
  });
}

void gpu_record_steps(Session& s, const val& losses, const val& grad_norms) {
  guarded([&] {
    const std::vector<float> l = floats_from(losses, "losses");
    const std::vector<float> g = vector_from<float>(grad_norms, "Float32Array", l.size(), "gradient norms");
    gpu::record_steps(s.trainer(), l.data(), g.data(), int(l.size()));
  });
}

double gpu_record_eval(Session& s, const val& losses) {
  return guarded([&] {
    const std::vector<float> l = floats_from(losses, "losses");
    return double(gpu::record_eval(s.trainer(), l.data(), int(l.size())));
  });
}

// After a diverged step: back to the trainer's last good state at half the learning rate.
val gpu_roll_back(Session& s, const std::string& reason) {
  return guarded([&] { return rollback_to_js(s.trainer().roll_back(reason)); });
}

// The GPU's state is lost and the session's parameters are behind its step counter: back to its
// last good state, the learning rate unchanged (gpu::return_to_good_state).
val gpu_return_to_good_state(Session& s, const std::string& reason) {
  return guarded([&] { return rollback_to_js(gpu::return_to_good_state(s.trainer(), reason)); });
}

// Greedy translation on the GPU (the plan's translate.encode / translate.step): the source's tokens
// as translate() reads them, padded with PAD to block_size, and the steps to run.
// {src: Int32Array (block_size), length, steps, maxLen, bos}
val gpu_translate_start(Session& s, const val& source, int max_len) {
  return guarded([&] {
    train::Trainer& t = s.trainer();
    const model::Seq2Seq& m = t.seq2seq();  // throws for another model kind
    const int block = m.dims().block_size;
    if (max_len < 0 || max_len > block - 1)
      throw Error("max_len must be between 0 (the model's limit) and " + std::to_string(block - 1));
    const std::vector<uint8_t> b = bytes_from(source, "the source");
    std::vector<int32_t> src = sample::translation_source(std::string(b.begin(), b.end()), block, t.tokenizer());
    const int length = int(src.size());
    src.resize(size_t(block), m.dims().tokens().pad());
    const int ml = max_len ? max_len : block - 1;
    val o = val::object();
    o.set("src", copy_to_js("Int32Array", src.data(), src.size()));
    o.set("length", length);
    o.set("steps", ml + 1);
    o.set("maxLen", ml);
    o.set("bos", m.dims().tokens().bos());
    return o;
  });
}

// The tokens the GPU's pair.inspect program reads (Trainer::inspect_translation's, its errors),
// padded with PAD to block_size: {src, tgtIn: Int32Array (block_size), S, T, Le, Ld, NH}.
val gpu_translation_pair(Session& s, const val& source, const val& target) {
  return guarded([&] {
    train::Trainer& t = s.trainer();
    const std::vector<uint8_t> a = bytes_from(source, "the source"), b = bytes_from(target, "the target");
    auto [src, tgt_in] = t.translation_pair(std::string(a.begin(), a.end()), std::string(b.begin(), b.end()));
    const model::Seq2Seq& m = t.seq2seq();
    const int S = int(src.size()), T = int(tgt_in.size()), block = m.dims().block_size;
    src.resize(size_t(block), m.dims().tokens().pad());
    tgt_in.resize(size_t(block), m.dims().tokens().pad());
    val o = val::object();
    o.set("src", copy_to_js("Int32Array", src.data(), src.size()));
    o.set("tgtIn", copy_to_js("Int32Array", tgt_in.data(), tgt_in.size()));
    o.set("S", S);
    o.set("T", T);
    o.set("Le", m.dims().n_enc_layer);
    o.set("Ld", m.dims().n_dec_layer);
    o.set("NH", m.dims().n_head);
    return o;
  });
}

// The translation from the GPU's picks and probabilities, as Session::translate returns it.
val gpu_translate_finish(Session& s, const val& picks, const val& probs, int max_len) {
  return guarded([&] {
    train::Trainer& t = s.trainer();
    const std::vector<int32_t> p = vector_from<int32_t>(picks, "Int32Array", size_t(picks["length"].as<double>()), "picks");
    const std::vector<float> q = vector_from<float>(probs, "Float32Array", p.size(), "probabilities");
    const sample::Translation r = sample::greedy_translation(t.seq2seq(), p, q, max_len, t.tokenizer());
    return translation_to_js(r);
  });
}

// Beam search with the GPU's logits (sample::BeamSearch, WebGpuSession.beamTranslate): the search and
// its rules stay here, the GPU runs the decoder over each live hypothesis. The caller owns the
// object (delete()). Throws the CPU's errors for the source and the options.
sample::BeamSearch* gpu_beam_start(Session& s, const val& source, int beam, int max_len, float length_penalty) {
  return guarded([&] {
    train::Trainer& t = s.trainer();
    const std::vector<uint8_t> b = bytes_from(source, "the source");
    sample::TranslateOptions o;
    o.beam = beam, o.max_len = max_len, o.length_penalty = length_penalty;
    return new sample::BeamSearch(t.seq2seq(), std::string(b.begin(), b.end()), o, t.tokenizer());
  });
}

// translate()'s sampled decoding (options: {temperature > 0, topK, seed, maxLen}) driven the same way:
// one row, each token drawn by the core from the logits the GPU computes for the row's history.
sample::BeamSearch* gpu_sampled_start(Session& s, const val& source, const val& options) {
  return guarded([&] {
    train::Trainer& t = s.trainer();
    const std::vector<uint8_t> b = bytes_from(source, "the source");
    const sample::TranslateOptions o = parse_translate_options(options, t.config().block_size, t.config().vocab_size + 1);
    if (!(o.temperature > 0.0f)) throw Error("gpuSampledStart: a temperature > 0 (greedy: gpuTranslateStart; beam: gpuBeamStart)");
    return new sample::BeamSearch(t.seq2seq(), std::string(b.begin(), b.end()), o, t.tokenizer());
  });
}

// {src: Int32Array (block), length}: the source's tokens, padded with PAD to block
val beam_source(const sample::BeamSearch& beam, int block) {
  return guarded([&] {
    std::vector<int32_t> src = beam.source();
    const int length = int(src.size());
    if (length > block) throw Error("beam: the source is longer than block " + std::to_string(block));
    src.resize(size_t(block), data::PairTokens::of_model_vocab(beam.vocab_size()).pad());
    val o = val::object();
    o.set("src", copy_to_js("Int32Array", src.data(), src.size()));
    o.set("length", length);
    return o;
  });
}

// {tokens: Int32Array (rows, block), lengths: Int32Array (rows)}: each live row's tokens so far (BOS
// first), padded with PAD; length 0 for a row that is not live
val beam_histories(const sample::BeamSearch& beam, int block) {
  return guarded([&] {
    const int32_t pad = data::PairTokens::of_model_vocab(beam.vocab_size()).pad();
    std::vector<int32_t> tokens(size_t(beam.rows()) * size_t(block), pad), lengths(size_t(beam.rows()), 0);
    for (int r = 0; r < beam.rows(); r++) {
      const std::vector<int32_t> h = beam.history(r);
      if (h.size() > size_t(block)) throw Error("beam: a hypothesis is longer than block " + std::to_string(block));
      std::copy(h.begin(), h.end(), tokens.begin() + std::ptrdiff_t(size_t(r) * size_t(block)));
      lengths[size_t(r)] = int32_t(h.size());
    }
    val o = val::object();
    o.set("tokens", copy_to_js("Int32Array", tokens.data(), tokens.size()));
    o.set("lengths", copy_to_js("Int32Array", lengths.data(), lengths.size()));
    return o;
  });
}

// {tokens, parent: Int32Array (rows), step}: what a KV cache needs for the next step: each row's newest
// token, the row it continues (its cache to keep), and its position (step(): 0 is BOS)
val beam_next(const sample::BeamSearch& beam) {
  return guarded([&] {
    val o = val::object();
    o.set("tokens", copy_to_js("Int32Array", beam.next_tokens().data(), beam.next_tokens().size()));
    const std::vector<int32_t> parent(beam.parent().begin(), beam.parent().end());
    o.set("parent", copy_to_js("Int32Array", parent.data(), parent.size()));
    o.set("step", beam.step());
    return o;
  });
}

// logits: Float32Array (rows, vocab_size), each live row's after its history
void beam_advance(sample::BeamSearch& beam, const val& logits) {
  guarded([&] {
    const std::vector<float> z = vector_from<float>(logits, "Float32Array", size_t(beam.rows()) * size_t(beam.vocab_size()), "logits");
    beam.advance(z.data());
  });
}

val beam_result(const sample::BeamSearch& beam) {
  return guarded([&] { return translation_to_js(beam.result()); });
}

// The run loop with steps computed on the GPU (tinygpt::Run::plan / record / record_evaluation):
// {evaluate, steps, keepGoodState, finished}.
val gpu_run_plan(Session& s, double max_steps) {
  return guarded([&] {
    const StepPlan p = s.run().plan(int64_t(std::max(0.0, std::min(max_steps, 1e15))));
    val o = val::object();
    o.set("evaluate", p.evaluate);
    o.set("steps", double(p.steps));
    o.set("keepGoodState", p.keep_good_state);
    o.set("finished", p.finished);
    return o;
  });
}

// The losses and gradient norms of steps the GPU computed, and how long they took: a slice as
// advance() returns it (a diverged step rolls back: upload the session's state again).
val gpu_run_record(Session& s, const val& losses, const val& grad_norms, double train_ms) {
  return guarded([&] {
    const std::vector<float> l = floats_from(losses, "losses");
    const std::vector<float> g = vector_from<float>(grad_norms, "Float32Array", l.size(), "gradient norms");
    return slice_to_js(s.run().record(l.data(), g.data(), int(l.size()), train_ms));
  });
}

// The validation batches' losses (gpuValBatches, on the GPU): {step, loss, ms}, and a translator's
// exactMatch and cer (on the host's parameters: sync the GPU's state first).
val gpu_run_record_evaluation(Session& s, const val& batch_losses, double ms) {
  return guarded([&] {
    const std::vector<float> l = floats_from(batch_losses, "losses");
    const Evaluation e = s.run().record_evaluation(l.data(), int(l.size()), ms);
    val o = val::object();
    o.set("step", double(e.step));
    o.set("loss", e.loss);
    o.set("ms", e.ms);
    if (!std::isnan(e.exact_match)) o.set("exactMatch", e.exact_match), o.set("cer", e.cer);
    return o;
  });
}

// The sampling options as the CPU's Generator resolves them (validated; windowKeep 0 -> half the context).
val gpu_sample_options(Session& s, const val& options) {
  return guarded([&] {
    sample::Options o = parse_sample_options(options);
    const int T = s.trainer().config().block_size;
    o.validate(T, s.trainer().config().vocab_size);
    if (o.window_keep == 0) o.window_keep = std::max(1, T / 2);
    val r = val::object();
    r.set("temperature", o.temperature);
    r.set("topK", o.top_k);
    r.set("topP", o.top_p);
    r.set("seed", double(o.seed));
    r.set("windowKeep", o.window_keep);
    return r;
  });
}

val gpu_sample_draws(double seed, double start, int k) {
  return guarded([&] {
    if (k < 0 || start < 0) throw Error("gpuSampleDraws: start and k must be >= 0");
    std::vector<float> draws(static_cast<size_t>(k));
    gpu::sample_draws(uint64_t(seed), int64_t(start), k, draws.data());
    return copy_to_js("Float32Array", draws.data(), draws.size());
  });
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_webgpu) {
  using namespace tinygpt::js;
  emscripten::function("gpuPlan", &gpu_plan_json);
  emscripten::function("gpuExportState", &gpu_export_state);
  emscripten::function("gpuImportState", &gpu_import_state);
  emscripten::function("gpuNextBatches", &gpu_next_batches);
  emscripten::function("gpuBatchLengths", &gpu_batch_lengths);
  emscripten::function("gpuStepScalars", &gpu_step_scalars);
  emscripten::function("gpuValBatches", &gpu_val_batches);
  emscripten::function("gpuRecordSteps", &gpu_record_steps);
  emscripten::function("gpuRecordEval", &gpu_record_eval);
  emscripten::function("gpuRollBack", &gpu_roll_back);
  emscripten::function("gpuSampleOptions", &gpu_sample_options);
  emscripten::function("gpuSampleDraws", &gpu_sample_draws);
  emscripten::function("gpuRunPlan", &gpu_run_plan);
  emscripten::function("gpuRunRecord", &gpu_run_record);
  emscripten::function("gpuRunRecordEvaluation", &gpu_run_record_evaluation);
  emscripten::function("gpuReturnToGoodState", &gpu_return_to_good_state);
  emscripten::function("gpuTranslateStart", &gpu_translate_start);
  emscripten::function("gpuTranslateFinish", &gpu_translate_finish);
  emscripten::function("gpuTranslationPair", &gpu_translation_pair);
  emscripten::function("gpuBeamStart", &gpu_beam_start, emscripten::allow_raw_pointers());
  emscripten::function("gpuSampledStart", &gpu_sampled_start, emscripten::allow_raw_pointers());
  emscripten::class_<tinygpt::sample::BeamSearch>("GpuBeam")
      .function("source", &beam_source)
      .function("histories", &beam_histories)
      .function("next", &beam_next)
      .function("advance", &beam_advance)
      .function("done", &tinygpt::sample::BeamSearch::done)
      .function("rows", &tinygpt::sample::BeamSearch::rows)
      .function("vocabSize", &tinygpt::sample::BeamSearch::vocab_size)
      .function("result", &beam_result);
}
