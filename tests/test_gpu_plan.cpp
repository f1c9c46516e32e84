// test_gpu_plan.cpp — the GPU plan's structure (every region in bounds and aligned, every
// gradient written exactly once, the layouts) and the host's half of a GPU run (batches, history,
// state) against the Trainer. The kernels themselves run in tests/webgpu (Node, SwiftShader).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <algorithm>
#include <set>

#include "tinygpt/checkpoint.h"
#include "tinygpt/error.h"
#include "tinygpt/gpu_host.h"
#include "tinygpt/rng.h"
#include "tinygpt/seq2seq.h"

using namespace tinygpt;

namespace {

std::vector<uint8_t> corpus() {
  std::string s;
  for (int i = 0; i < 200; i++) s += "Now is the winter of our discontent, line " + std::to_string(i) + ".\n";
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::unique_ptr<train::Trainer> make_trainer(int layers = 2, int heads = 2, int width = 24, int context = 12, int batch = 3) {
  Config c;
  c.n_layer = layers, c.n_head = heads, c.n_embd = width, c.block_size = context, c.seed = 5;
  c.batch_size = batch;
  c.max_iters = 20;
  c.warmup_iters = 4;
  c.eval_iters = 2;
  auto t = std::make_unique<train::Trainer>(c);
  t->set_corpus(corpus());
  return t;
}

// Arguments a kernel writes (the rest it only reads), by position: gpu_plan.h's table.
std::vector<int> written_args(const std::string& kernel) {
  if (kernel == "embedding_backward") return {0, 1};
  if (kernel == "layernorm_forward") return {0, 1, 2};
  if (kernel == "attention_forward" || kernel == "crossentropy") return {0, 1};
  if (kernel == "adamw") return {0, 1, 2};
  if (kernel == "matmul") return {0, 5, 6};
  if (kernel == "layernorm_backward_all") return {0, 6, 7};
  if (kernel == "linear_backward") return {0, 4, 6};
  if (kernel == "decode_layer") return {0, 1, 4};
  if (kernel == "matmul_ln") return {0, 3, 4, 5};
  if (kernel == "block_forward") return {0, 3, 5};
  if (kernel == "sample") return {0, 1, 2};
  if (kernel == "attention_decode") return {0, 3};
  if (kernel == "attention_beam") return {0, 1, 2};
  if (kernel == "attention_masked_forward" || kernel == "attention_masked_backward" || kernel == "crossentropy_masked")
    return {0, 1};
  return {0};
}

// A translator (seq2seq) on pairs of up to 6 letters and their reverse.
std::unique_ptr<train::Trainer> make_translator(int enc = 2, int dec = 2, int batch = 3) {
  Config c;
  c.model = ModelKind::seq2seq;
  c.n_enc_layer = enc, c.n_dec_layer = dec, c.n_head = 2, c.n_embd = 16, c.d_ff = 24, c.block_size = 8, c.seed = 5;
  c.batch_size = batch;
  c.max_iters = 20;
  c.warmup_iters = 4;
  c.eval_iters = 2;
  auto t = std::make_unique<train::Trainer>(c);
  std::string tsv;
  for (int i = 0; i < 60; i++) {
    std::string w;
    for (int k = 0; k <= i % 6; k++) w += char('a' + (i * 7 + k * 3) % 26);
    tsv += w + "\t" + std::string(w.rbegin(), w.rend()) + "\n";
  }
  t->set_corpus(std::vector<uint8_t>(tsv.begin(), tsv.end()));
  return t;
}

// Every region in bounds and aligned; WebGPU's per-buffer usage rule (arguments that share a
// buffer are all read, or all written and disjoint). Returns the number of ops.
size_t check_regions(const gpu::Plan& plan) {
  auto check = [&](const gpu::Region& r, const std::string& where) {
    if (!r.defined()) return;
    INFO(where);
    REQUIRE(r.buffer < int(plan.buffers.size()));
    CHECK(r.offset % gpu::kAlign == 0);
    CHECK(r.count >= 1);
    CHECK(r.offset + r.count <= plan.buffers[size_t(r.buffer)].elements);
  };
  for (const auto& [name, r] : plan.io) check(r, "io " + name);
  size_t ops = 0;
  for (const auto& [name, prog] : plan.programs)
    for (const gpu::Op& op : prog) {
      for (const gpu::Region& r : op.args) check(r, name + ": " + op.label);
      CHECK(op.dims.size() <= 32);
      CHECK(op.scalars.size() <= 8);
      const std::vector<int> w = written_args(op.kernel);
      auto writes = [&](size_t a) { return std::find(w.begin(), w.end(), int(a)) != w.end(); };
      for (size_t a = 0; a < op.args.size(); a++)
        for (size_t c = a + 1; c < op.args.size(); c++) {
          const gpu::Region &x = op.args[a], &y = op.args[c];
          if (!x.defined() || !y.defined() || x.buffer != y.buffer) continue;
          INFO(op.label << " args " << a << " and " << c);
          CHECK(writes(a) == writes(c));
          if (writes(a)) CHECK((x.offset + x.count <= y.offset || y.offset + y.count <= x.offset));
        }
      ops++;
    }
  return ops;
}

// How many ops of the train program write each element of the gradient block.
std::vector<int> gradient_writes(const gpu::Plan& plan) {
  const int grads = plan.buffer_index("grads");
  std::vector<int> writes(size_t(plan.gpu_params), 0);
  for (const gpu::Op& op : plan.programs.at("train"))
    for (int w : written_args(op.kernel)) {
      const gpu::Region& r = op.args[size_t(w)];
      if (!r.defined() || r.buffer != grads) continue;
      for (int64_t i = r.offset; i < r.offset + r.count; i++) writes[size_t(i)]++;
    }
  return writes;
}

}  // namespace

TEST_CASE("every region of the GPU plan lies in its buffer at an aligned offset", "[gpu]") {
  for (auto shape : {std::array<int, 5>{2, 2, 24, 12, 3}, std::array<int, 5>{1, 1, 8, 5, 1}, std::array<int, 5>{3, 4, 32, 17, 2}}) {
    auto t = make_trainer(shape[0], shape[1], shape[2], shape[3], shape[4]);
    const gpu::Plan plan = gpu::plan_for(*t);
    const size_t ops = check_regions(plan);
    CHECK(ops > 0);
    for (const char* p : {"train", "eval", "inspect", "prefill", "decode", "sample"}) CHECK(plan.programs.count(p) == 1);
  }
}

TEST_CASE("the training step writes every parameter's gradient exactly once", "[gpu]") {
  auto t = make_trainer();
  const gpu::Plan plan = gpu::plan_for(*t);
  const int grads = plan.buffer_index("grads");
  std::vector<int> writes(size_t(plan.gpu_params), 0);
  for (const gpu::Op& op : plan.programs.at("train"))
    for (int w : written_args(op.kernel)) {
      const gpu::Region& r = op.args[size_t(w)];
      if (!r.defined() || r.buffer != grads) continue;
      for (int64_t i = r.offset; i < r.offset + r.count; i++) writes[size_t(i)]++;
    }
  for (const gpu::ParamSlot& p : plan.params)
    for (int64_t i = p.gpu_offset; i < p.gpu_offset + p.count; i++) {
      INFO(p.name);
      REQUIRE(writes[size_t(i)] == 1);
    }
  // the padding between tensors is never written: it stays zero, and so do its AdamW updates
  int64_t written = 0;
  for (int w : writes) written += w;
  CHECK(written == plan.num_params);
}

TEST_CASE("a small model's training forward is L + 1 block_forward dispatches over one activation arena", "[gpu]") {
  auto t = make_trainer(3, 2, 24, 12, 3);
  const gpu::Plan plan = gpu::plan_for(*t);
  REQUIRE(gpu::fused_forward(t->config()));
  const std::vector<gpu::Op>& train = plan.programs.at("train");
  const int L = 3;
  // the embedding with h.0's qkv, one per block; the last also the loss and dlogits (tail 3)
  for (int i = 0; i <= L; i++) {
    INFO(i);
    REQUIRE(train[size_t(i)].kernel == "block_forward");
    CHECK(train[size_t(i)].dims.size() == 32);
    CHECK(train[size_t(i)].dims[5] == (i == 0 ? 1u : 0u));             // embed
    CHECK(train[size_t(i)].dims[6] == (i == L ? 3u : 0u));             // tail
  }
  CHECK(train[size_t(L + 1)].kernel == "linear_backward");
  CHECK(train.size() == size_t(L + 1 + 2 + 7 * L + 1 + 3));
  // eval stops the last dispatch at the logits; crossentropy and mean_loss take the loss
  const std::vector<gpu::Op>& eval = plan.programs.at("eval");
  REQUIRE(eval.size() == size_t(L + 1 + 2));
  CHECK(eval[size_t(L)].dims[6] == 1u);
  CHECK_FALSE(eval[size_t(L)].args[4].defined());
  CHECK(eval[size_t(L + 1)].kernel == "crossentropy");
  // every activation the backward reads lies in the arena, which no backward op writes
  const int acts = plan.buffer_index("acts");
  int reads = 0;
  for (size_t i = size_t(L + 1); i < train.size(); i++) {
    const std::vector<int> w = written_args(train[i].kernel);
    for (size_t a = 0; a < train[i].args.size(); a++)
      if (train[i].args[a].buffer == acts) {
        INFO(train[i].label);
        CHECK(std::find(w.begin(), w.end(), int(a)) == w.end());
        reads++;
      }
  }
  // lm_head 1, ln_f 3; per block c_proj 2 (fc_pre, fc), c_fc 1, ln_2 3, attn.c_proj 1, attention 3, c_attn 1, ln_1 3
  CHECK(reads == 4 + 14 * L);
  // wider than kRowForwardMaxC, or an arena over kRowArenaMaxBytes: a dispatch per GEMM
  auto wide = make_trainer(1, 2, gpu::kRowForwardMaxC + 8, 6, 1);
  CHECK_FALSE(gpu::fused_forward(wide->config()));
  CHECK(gpu::plan_for(*wide).programs.at("train").front().kernel == "embedding_forward");
  // unfused (a real GPU): the same small model keeps a dispatch per GEMM, and five per block decoding
  const gpu::Plan unfused = gpu::plan_for(*t, false, false);
  CHECK_FALSE(unfused.fused_forward);
  CHECK_FALSE(unfused.fused_decode);
  CHECK(plan.fused_forward);
  CHECK(plan.fused_decode);
  // each on its own: the fused forward with the wide decoding
  const gpu::Plan mixed = gpu::plan_for(*t, true, false);
  CHECK(mixed.programs.at("train").size() == plan.programs.at("train").size());
  CHECK(mixed.programs.at("train").front().kernel == "block_forward");
  CHECK(mixed.programs.at("decode").size() == unfused.programs.at("decode").size());
  CHECK(unfused.programs.at("train").front().kernel == "embedding_forward");
  CHECK(unfused.programs.at("decode").size() == size_t(1 + 5 * L + 1));
  CHECK(plan.programs.at("decode").size() == size_t(L + 1));
  CHECK(unfused.gpu_params == plan.gpu_params);  // the same parameter layout: state moves between the two
  CHECK(gpu::to_json(unfused).find("\"fusedForward\":0,\"fusedDecode\":0") != std::string::npos);
  CHECK(gpu::to_json(mixed).find("\"fusedForward\":1,\"fusedDecode\":0") != std::string::npos);
  // a model too wide for either is never said to be fused
  CHECK_FALSE(gpu::plan_for(*wide).fused_forward);
  Config big = t->config();
  big.n_embd = 256, big.n_head = 4, big.block_size = 256, big.batch_size = 64, big.n_layer = 4;
  CHECK_FALSE(gpu::fused_forward(big));
  big.batch_size = 4;
  CHECK(gpu::fused_forward(big));
}

TEST_CASE("a BPE model's plan sizes the embedding, the head and the loss by vocab_size", "[gpu]") {
  Config c;
  c.n_layer = 1, c.n_head = 2, c.n_embd = 16, c.block_size = 8, c.batch_size = 2;
  c.tokenizer = TokenizerKind::bpe, c.vocab_size = 300;
  model::TinyGPT m(c);
  const gpu::Plan plan = gpu::make_plan(c, m.param_table());
  const int64_t N = 2 * 8;
  CHECK(plan.buffers[size_t(plan.buffer_index("acts.logits"))].elements >= N * 300);
  CHECK(plan.buffers[size_t(plan.buffer_index("decode.logits"))].elements >= 300);
  for (const gpu::ParamSlot& p : plan.params)
    if (p.name == "wte" || p.name == "lm_head.weight") CHECK(p.count == 300 * 16);
  for (const gpu::Op& op : plan.programs.at("train"))
    if (op.kernel == "crossentropy" || op.kernel == "embedding_backward") CHECK(op.dims[op.kernel == "crossentropy" ? 1 : 3] == 300u);
  CHECK(gpu::to_json(plan).find("\"vocab_size\":300") != std::string::npos);
  c.vocab_size = 65535;  // beyond a WebGPU grid's rows (the embedding backward has vocab_size + block_size)
  model::TinyGPT wide(c);
  CHECK_THROWS_WITH(gpu::make_plan(c, wide.param_table()), Catch::Contains("65535 rows"));
}

TEST_CASE("the GPU parameter layout puts decayed tensors first and round-trips the CPU layout", "[gpu]") {
  auto t = make_trainer();
  const gpu::Plan plan = gpu::plan_for(*t);
  CHECK(plan.num_params == t->model().num_parameters());
  CHECK(plan.params.size() == t->model().param_table().size());
  for (const gpu::ParamSlot& p : plan.params) {
    INFO(p.name);
    CHECK(p.gpu_offset % gpu::kAlign == 0);
    CHECK((p.decay ? p.gpu_offset + p.count <= plan.decay_params : p.gpu_offset >= plan.decay_params));
    CHECK(p.decay == t->model().param_info(p.name).decay);
  }
  const std::vector<float> gpu_layout = plan.to_gpu_layout(t->model().params());
  REQUIRE(int64_t(gpu_layout.size()) == plan.gpu_params);
  std::vector<float> back(size_t(plan.num_params), -1.0f);
  plan.to_cpu_layout(gpu_layout.data(), back.data());
  for (int64_t i = 0; i < plan.num_params; i++) REQUIRE(back[size_t(i)] == t->model().params()[i]);
  const gpu::ParamSlot& wte = plan.params.front();
  CHECK(wte.name == "wte");
  CHECK(gpu_layout[size_t(wte.gpu_offset + 5)] == t->model().params()[5]);
}

TEST_CASE("the plan's JSON names every program and buffer", "[gpu]") {
  auto t = make_trainer();
  const gpu::Plan plan = gpu::plan_for(*t);
  const std::string json = gpu::to_json(plan);
  CHECK(json.rfind("{\"version\":1,", 0) == 0);
  for (const auto& [name, prog] : plan.programs) CHECK(json.find("\"" + name + "\":[") != std::string::npos);
  for (const gpu::Buffer& b : plan.buffers) CHECK(json.find("\"name\":\"" + b.name + "\"") != std::string::npos);
  CHECK(json.find("\"label\":\"h.1.ln_2 + mlp.c_fc forward + gelu\"") != std::string::npos);
}

TEST_CASE("every op runs a listed kernel with its number of arguments, and the JSON lists the kernels and state words", "[gpu]") {
  // a small model (decode_layer), one wider than decode_layer serves (five kernels per block), and the
  // encoder-decoder (its masked attention, masked loss and greedy decoding)
  auto t = make_trainer();
  auto wide = make_trainer(1, 2, gpu::kFusedDecodeMaxC + 8, 6, 1);
  auto translator = make_translator();
  const gpu::Plan plan = gpu::plan_for(*t);
  CHECK(gpu::fused_decode(t->config()));
  CHECK_FALSE(gpu::fused_decode(wide->config()));
  std::set<std::string> used;
  for (const gpu::Plan& p : {plan, gpu::plan_for(*wide), gpu::plan_for(*translator)})
    for (const auto& [name, prog] : p.programs)
      for (const gpu::Op& op : prog) {
        const gpu::KernelInfo* k = gpu::find_kernel(op.kernel);
        REQUIRE(k);
        CHECK(int(op.args.size()) == k->args);
        used.insert(op.kernel);
      }
  const std::string json = gpu::to_json(plan);
  for (const gpu::KernelInfo& k : gpu::kKernels) {
    CHECK(used.count(k.name));  // no kernel listed that no program runs
    CHECK(json.find("\"" + std::string(k.name) + "\":" + std::to_string(k.args)) != std::string::npos);
  }
  CHECK(used.size() == std::size(gpu::kKernels));
  CHECK(gpu::find_kernel("no_such_kernel") == nullptr);
  CHECK(json.find("\"state\":{\"step\":0,\"adamT\":1,\"halted\":2,\"lr\":3,\"clipScale\":4,\"bc1\":5,\"bc2\":6,"
                  "\"loss\":7,\"gradNorm\":8,\"evalLoss\":9,\"genLen\":10,\"genCount\":11}") != std::string::npos);
}

TEST_CASE("next_batches hands out the batches step() would have trained on", "[gpu]") {
  auto gpu_run = make_trainer();
  auto cpu_run = make_trainer();
  const int B = 3, T = 12, n = B * T;
  std::vector<int32_t> batches(size_t(2 * 2 * n));
  gpu::next_batches(*gpu_run, 2, batches.data());
  // the CPU run's data generator, sampled the same way, gives the same windows
  data::Dataset probe(corpus());
  probe.set_rng_state(cpu_run->dataset().rng_state());
  for (int k = 0; k < 2; k++) {
    data::Batch b = probe.sample_batch(B, T);
    for (int i = 0; i < n; i++) {
      REQUIRE(batches[size_t(2 * n * k + i)] == b.x[size_t(i)]);
      REQUIRE(batches[size_t(2 * n * k + n + i)] == b.y[size_t(i)]);
    }
  }
  cpu_run->step();
  cpu_run->step();
  CHECK(gpu_run->dataset().rng_state() == cpu_run->dataset().rng_state());
}

TEST_CASE("steps recorded from a GPU read like steps trained on the CPU, in history and checkpoint", "[gpu]") {
  auto cpu_run = make_trainer();
  const float l0 = cpu_run->step(), l1 = cpu_run->step();
  auto gpu_run = make_trainer();
  const gpu::Plan plan = gpu::plan_for(*gpu_run);
  std::vector<int32_t> batches(size_t(2 * 2 * 3 * 12));
  gpu::next_batches(*gpu_run, 2, batches.data());
  const float losses[2] = {l0, l1}, norms[2] = {0.5f, cpu_run->last_grad_norm()};
  gpu::record_steps(*gpu_run, losses, norms, 2);
  // the "GPU" computed what the CPU did: bring its state over
  const gpu::State s = gpu::export_state(*cpu_run, plan);
  CHECK(s.step == 2);
  CHECK(s.adam_t == 2);
  gpu::import_state(*gpu_run, plan, s.params.data(), s.m.data(), s.v.data(), s.adam_t, true);
  CHECK(gpu_run->steps_done() == 2);
  CHECK(gpu_run->last_grad_norm() == cpu_run->last_grad_norm());
  CHECK(gpu_run->save() == cpu_run->save());  // byte for byte, corpus generator included
  // and both continue identically
  CHECK(gpu_run->step() == cpu_run->step());
}

TEST_CASE("a diverged step from the GPU stops the history at the step before it", "[gpu]") {
  auto t = make_trainer();
  const float losses[3] = {5.0f, std::numeric_limits<float>::quiet_NaN(), 4.0f};
  const float norms[3] = {1.0f, 1.0f, 1.0f};
  REQUIRE_THROWS_AS(gpu::record_steps(*t, losses, norms, 3), train::Diverged);
  CHECK(t->steps_done() == 1);
  CHECK(t->train_losses().size() == 1);
  // Trainer::step's messages, at the step that diverged (1-based, as the CPU counts it)
  REQUIRE_THROWS_WITH(gpu::record_steps(*t, losses + 1, norms, 1), "training diverged at step 2: the loss is nan");
  const float inf_norm[1] = {std::numeric_limits<float>::infinity()};
  REQUIRE_THROWS_WITH(gpu::record_steps(*t, losses, inf_norm, 1), "training diverged at step 2: the gradient norm is inf");
  const float huge[1] = {30.0f};
  REQUIRE_THROWS_WITH(gpu::record_steps(*t, huge, norms, 1), Catch::Contains("the loss is 30.0, worse than 22.2"));
  CHECK(t->steps_done() == 1);
}

TEST_CASE("an evaluation on the GPU is recorded like Trainer::evaluate", "[gpu]") {
  auto cpu_run = make_trainer();
  const float cpu = cpu_run->evaluate().loss;
  auto gpu_run = make_trainer();
  // the validation batches are evaluate()'s: run them through the CPU model to get their losses
  const int B = 3, T = 12, n = B * T;
  std::vector<int32_t> batches(size_t(2 * 2 * n));
  gpu::val_batches(*gpu_run, batches.data());
  float losses[2];
  for (int k = 0; k < 2; k++) {
    nn::Arena arena;
    nn::GradMode no_grad(false);
    losses[k] = gpu_run->model().loss(arena, batches.data() + 2 * n * k, batches.data() + 2 * n * k + n, B, T).item();
  }
  CHECK(gpu::record_eval(*gpu_run, losses, 2) == cpu);
  REQUIRE(gpu_run->val_losses().size() == 1);
  CHECK(gpu_run->val_losses()[0].step == 0);
  CHECK_THROWS_WITH(gpu::record_eval(*gpu_run, losses, 1), Catch::Contains("expected 2"));
}

TEST_CASE("import_state refuses state that cannot be the GPU's", "[gpu]") {
  auto t = make_trainer();
  const gpu::Plan plan = gpu::plan_for(*t);
  gpu::State s = gpu::export_state(*t, plan);
  CHECK_THROWS_WITH(gpu::import_state(*t, plan, s.params.data(), s.m.data(), s.v.data(), 3, false),
                    Catch::Contains("do not fit 0 recorded steps"));
  s.m[size_t(plan.params.back().gpu_offset)] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(gpu::import_state(*t, plan, s.params.data(), s.m.data(), s.v.data(), 0, false),
                    Catch::Contains("non-finite"));
}

TEST_CASE("the sampling draws are the numbers the CPU generator draws", "[gpu]") {
  float draws[5];
  gpu::sample_draws(99, 2, 5, draws);
  data::Rng rng(99);
  rng.uniform();
  rng.uniform();
  for (float d : draws) CHECK(d == float(rng.uniform()));
}

TEST_CASE("the host's step scalars are the learning rate and bias corrections the CPU step uses", "[gpu]") {
  auto t = make_trainer();
  float s[3 * 3];
  gpu::step_scalars(*t, 3, 2, 3, s);
  for (int i = 0; i < 3; i++) {
    CHECK(s[3 * i] == t->schedule().lr_at(3 + i));
    CHECK(s[3 * i + 1] == 1.0f - std::pow(0.9f, float(3 + i)));
    CHECK(s[3 * i + 2] == 1.0f - std::pow(0.99f, float(3 + i)));
  }
  float first[3];
  gpu::step_scalars(*t, 0, 0, 1, first);
  CHECK(first[0] == t->learning_rate());  // the next step's, as Trainer::step takes it
  CHECK(first[0] == t->config().learning_rate / 4);  // step 0 of a 4-step warmup
}

TEST_CASE("a GPU run's imported state is the good state a rollback returns to", "[gpu]") {
  auto cpu_run = make_trainer();
  for (int i = 0; i < 3; i++) cpu_run->step();
  auto gpu_run = make_trainer();
  const gpu::Plan plan = gpu::plan_for(*gpu_run);
  std::vector<int32_t> batches(size_t(3 * 2 * 3 * 12));
  gpu::next_batches(*gpu_run, 3, batches.data());
  gpu::record_steps(*gpu_run, cpu_run->train_losses().data(), std::vector<float>(3, 0.5f).data(), 3);
  const gpu::State s = gpu::export_state(*cpu_run, plan);
  gpu::import_state(*gpu_run, plan, s.params.data(), s.m.data(), s.v.data(), s.adam_t, true);
  CHECK(gpu_run->good_state_step() == 3);
  // a later diverged step rolls back there, with the corpus generator where it was
  std::vector<int32_t> more(size_t(2 * 3 * 12));
  gpu::next_batches(*gpu_run, 1, more.data());
  const float nan[1] = {std::numeric_limits<float>::quiet_NaN()}, one[1] = {1.0f};
  CHECK_THROWS_AS(gpu::record_steps(*gpu_run, nan, one, 1), train::Diverged);
  const train::Rollback r = gpu_run->roll_back("test");
  CHECK(r.restored_step == 3);
  CHECK(gpu_run->dataset().rng_state() == cpu_run->dataset().rng_state());
  CHECK(gpu_run->learning_rate() == cpu_run->learning_rate() / 2);
}

TEST_CASE("a lost GPU sends the host back to its last good state with the learning rate unchanged", "[gpu]") {
  auto cpu_run = make_trainer();
  for (int i = 0; i < 3; i++) cpu_run->step();
  auto gpu_run = make_trainer();
  const gpu::Plan plan = gpu::plan_for(*gpu_run);
  std::vector<int32_t> batches(size_t(5 * 2 * 3 * 12));
  gpu::next_batches(*gpu_run, 3, batches.data());
  gpu::record_steps(*gpu_run, cpu_run->train_losses().data(), std::vector<float>(3, 0.5f).data(), 3);
  const gpu::State s = gpu::export_state(*cpu_run, plan);
  gpu::import_state(*gpu_run, plan, s.params.data(), s.m.data(), s.v.data(), s.adam_t, true);  // the last sync
  // two more steps recorded, their state never brought back: then the device is lost
  gpu::next_batches(*gpu_run, 2, batches.data());
  gpu::record_steps(*gpu_run, cpu_run->train_losses().data(), std::vector<float>(2, 0.5f).data(), 2);
  const float lr_scale = gpu_run->lr_scale();
  const train::Rollback r = gpu::return_to_good_state(*gpu_run, "the GPU device was lost");
  CHECK(r.failed_step == 5);
  CHECK(r.restored_step == 3);
  CHECK(r.lr_scale == lr_scale);
  CHECK(gpu_run->lr_scale() == lr_scale);  // no divergence: the learning rate stays
  CHECK(gpu_run->train_losses().size() == 3);
  // exactly the synced state: the CPU continues as the CPU run does
  CHECK(gpu_run->save() == cpu_run->save());
  CHECK(gpu_run->step() == cpu_run->step());
}

TEST_CASE("the seq2seq plan: regions in bounds, every gradient written once, the pairs' batch sizes", "[gpu][seq2seq]") {
  for (auto shape : {std::array<int, 3>{2, 2, 3}, std::array<int, 3>{1, 3, 1}}) {
    auto t = make_translator(shape[0], shape[1], shape[2]);
    const gpu::Plan plan = gpu::plan_for(*t);
    CHECK(plan.kind == "seq2seq");
    CHECK(check_regions(plan) > 0);
    CHECK(plan.programs.count("train") == 1);
    CHECK(plan.programs.count("eval") == 1);
    CHECK(plan.num_params == t->num_parameters());
    // S and T: the pairs' longest (6 and 6 + 1) rounded up to 8, here block_size
    CHECK(plan.src_len == 8);
    CHECK(plan.tgt_len == 8);
    CHECK(plan.io.at("src").count == int64_t(shape[2]) * 8);
    CHECK(plan.io.at("tgt_in").count == int64_t(shape[2]) * 8);
    const std::vector<int> writes = gradient_writes(plan);
    for (const gpu::ParamSlot& p : plan.params)
      for (int64_t i = p.gpu_offset; i < p.gpu_offset + p.count; i++) {
        INFO(p.name);
        REQUIRE(writes[size_t(i)] == 1);
      }
    int64_t written = 0;
    for (int w : writes) written += w;
    CHECK(written == plan.num_params);
    // the sinusoidal table is the model's
    REQUIRE(plan.constants.at("pe").size() == size_t(8 * 16));
    CHECK(plan.constants.at("pe")[1] == 1.0f);
    CHECK(to_json(plan).find("\"batchInputs\":[\"src\",\"tgt_in\",\"targets\"]") != std::string::npos);
  }
}

TEST_CASE("a translator's batches are sized by its pairs, not by block_size", "[gpu][seq2seq]") {
  // rounded up to a multiple of 8, at most block_size
  CHECK(gpu::pair_lengths(6, 6, 8) == std::pair<int, int>{8, 8});
  CHECK(gpu::pair_lengths(8, 9, 64) == std::pair<int, int>{8, 16});
  CHECK(gpu::pair_lengths(17, 7, 64) == std::pair<int, int>{24, 8});
  CHECK(gpu::pair_lengths(64, 63, 64) == std::pair<int, int>{64, 64});
  CHECK(gpu::pair_lengths(5, 60, 62) == std::pair<int, int>{8, 62});
  // the 6-letter pairs with block_size 32: S = 8, T = 8 instead of 32, 32
  auto t = make_translator();
  Config c = t->config();
  c.block_size = 32;
  auto wide = std::make_unique<train::Trainer>(c);
  std::string tsv;
  for (size_t i = 0; i < t->pairs().size(); i++) tsv += t->pairs().source(i) + "\t" + t->pairs().target(i) + "\n";
  wide->set_corpus(std::vector<uint8_t>(tsv.begin(), tsv.end()));
  const gpu::Plan plan = gpu::plan_for(*wide);
  CHECK(plan.src_len == 8);
  CHECK(plan.tgt_len == 8);
  CHECK(gpu::batch_lengths(*wide) == std::pair<int, int>{8, 8});
  CHECK(gpu::batch_tokens(*wide) == 3 * (8 + 2 * 8));
  CHECK(plan.io.at("src").count == 3 * 8);
  CHECK(check_regions(plan) > 0);
  // translation and inspection stay at block_size: a source may be longer than any training pair
  CHECK(plan.io.at("translate.src").count == 32);
  CHECK(plan.io.at("pair.src").count == 32);
  // beam search's program: translate.step without the cross-attention weights and the pick, its logits (32, V)
  const std::vector<gpu::Op>& beam = plan.programs.at("translate.logits");
  CHECK(beam.size() == plan.programs.at("translate.step").size() - 1 - size_t(c.n_dec_layer));
  for (const gpu::Op& op : beam) CHECK((op.kernel != "greedy_pick" && op.kernel != "attention_masked_probs"));
  CHECK(plan.io.at("translate.logits").count == 32 * int64_t(model::Seq2SeqDims{}.vocab_size));
  // the cached beam: the encoder and the cross-attention's keys and values once, then per step kBeamRows
  // rows at one position (an embedding, 11 ops a layer, the final norm and the logits)
  const std::vector<gpu::Op>& start = plan.programs.at("translate.beam.start");
  CHECK(start.size() == plan.programs.at("translate.encode").size() + size_t(c.n_dec_layer));
  const std::vector<gpu::Op>& step = plan.programs.at("translate.beam.step");
  CHECK(step.size() == 3 + 11 * size_t(c.n_dec_layer));
  CHECK(std::count_if(step.begin(), step.end(), [](const gpu::Op& op) { return op.kernel == "attention_beam"; }) == c.n_dec_layer);
  CHECK(plan.io.at("translate.beam.tokens").count == gpu::kBeamRows);
  CHECK(plan.io.at("translate.beam.slots").count == gpu::kBeamRows * 32);
  CHECK(plan.io.at("translate.beam.pe").count == c.n_embd);
  CHECK(plan.io.at("translate.beam.logits").count == gpu::kBeamRows * int64_t(model::Seq2SeqDims{}.vocab_size));
  // greedy on the same cache: each step's cross-attention weights, then the pick of row 0
  const std::vector<gpu::Op>& pick = plan.programs.at("translate.beam.pick");
  CHECK(pick.size() == size_t(c.n_dec_layer) + 1);
  CHECK(pick.back().kernel == "greedy_pick");
  CHECK(pick.back().dims.at(4) == 1);
  CHECK(plan.io.at("translate.beam.cross.0").count == int64_t(c.n_head) * gpu::kBeamRows * 32);
  std::vector<int32_t> got(size_t(gpu::batch_tokens(*wide)));
  gpu::next_batches(*wide, 1, got.data());
  CHECK(got[size_t(3 * 8)] == model::Seq2SeqDims{}.tokens().bos());  // tgt_in after src (3 x 8): BOS first
  // more than the plan allows
  CHECK_THROWS_WITH(gpu::make_seq2seq_plan(c, wide->param_table(), 40, 8), Catch::Contains("longer than block_size 32"));
}

TEST_CASE("next_batches hands out the pairs step() would have trained on (seq2seq)", "[gpu][seq2seq]") {
  auto a = make_translator(), b = make_translator();
  const int64_t n = gpu::batch_tokens(*a);
  CHECK(n == 3 * 3 * 8);
  std::vector<int32_t> got(size_t(2 * n));
  gpu::next_batches(*a, 2, got.data());
  const int32_t pad = model::Seq2SeqDims{}.tokens().pad();
  for (int k = 0; k < 2; k++) {
    data::PairBatch batch;
    const_cast<data::PairDataset&>(b->pairs()).sample_batch(3, batch);
    REQUIRE(batch.S == 6);
    REQUIRE(batch.T == 7);
    // each row padded to block_size 8: PAD tokens, -1 targets
    std::vector<int32_t> want;
    auto put = [&](const std::vector<int32_t>& v, int len, int32_t fill) {
      for (int r = 0; r < 3; r++) {
        want.insert(want.end(), v.begin() + r * len, v.begin() + (r + 1) * len);
        want.insert(want.end(), size_t(8 - len), fill);
      }
    };
    put(batch.src, 6, pad), put(batch.tgt_in, 7, pad), put(batch.tgt_out, 7, -1);
    CHECK(std::vector<int32_t>(got.begin() + k * n, got.begin() + (k + 1) * n) == want);
  }
}

TEST_CASE("a translator's evaluation from the GPU scores held-out translations like Trainer::evaluate", "[gpu][seq2seq]") {
  auto a = make_translator(), b = make_translator();
  a->step(), b->step();
  const train::ValPoint want = a->evaluate();
  REQUIRE_FALSE(std::isnan(want.exact_match));
  const float losses[] = {1.0f, 2.0f};  // eval_iters 2
  CHECK(gpu::record_eval(*b, losses, 2) == 1.5f);
  const train::ValPoint got = b->val_losses().back();
  CHECK(got.step == 1);
  CHECK(got.loss == 1.5f);
  CHECK(got.exact_match == want.exact_match);
  CHECK(got.cer == want.cer);
}
