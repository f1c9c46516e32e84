// gpu_plan.h — the training step (and evaluation, inspection, KV-cached decoding) of TinyGPT as
// a schedule of GPU kernels over buffer regions, built once per configuration.
//
// The model's structure is defined once, here in the core: an executor (the WebGPU backend in
// web/src/gpu/) only creates the buffers, compiles the kernels named below and dispatches the
// ops in order. It does no model arithmetic of its own. See docs/webgpu.md.
//
// Buffers hold 4-byte elements (f32, or u32 for tokens and the state words). A region is
// (buffer, offset, count) in elements; every offset is a multiple of kAlign (256 bytes, the
// WebGPU storage-offset alignment), so each region binds on its own.
//
// The parameter block on the GPU is laid out differently from the CPU's (model.h): the tensors
// that get weight decay come first, then the others, each padded to kAlign, so AdamW is one
// flat dispatch with one boundary (ParamSlot maps the two layouts; padding stays zero).
//
// The kernels are listed once, in TINYGPT_GPU_KERNELS below (with their arguments, dims and
// scalars); the state words once, in TINYGPT_GPU_STATE. The plan's JSON carries both lists, and
// web/test/gpu-kernels.test.ts checks web/src/gpu/kernels.ts (its KERNELS table and the WGSL state
// constants) against them, so a kernel or a slot added on one side only fails a test.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tinygpt/config.h"
#include "tinygpt/model.h"

namespace tinygpt::gpu {

constexpr int64_t kAlign = 64;  // elements (256 bytes)

// Every kernel: X(name, number of arguments). Args in binding order; "=" writes, "+=" accumulates,
// "rw" both; dims are u32, scalars f32. Builder::op refuses a kernel not listed or an op with
// another number of arguments.
#define TINYGPT_GPU_KERNELS(X)                                                                                      \
  /* out(N,C)= tokens(N) wte(V,C) wpe(maxT,C)                 dims N T C */                                         \
  X(embedding_forward, 4)                                                                                           \
  /* dwte(V,C)= dwpe(maxT,C)= dout(N,C) tokens(N)              dims B T C V */                                       \
  X(embedding_backward, 4)                                                                                          \
  /* out(N,C)= mean(N)= rstd(N)= inp weight bias               dims N C        scalars eps */                        \
  X(layernorm_forward, 6)                                                                                           \
  /* out(M,N)= x(M,K) params aux(M,N)?= ln(M,K)= stats(mean M, rstd M at rstd_at)=   dims M N K epilogue has_aux, */ \
  /* then the params offsets of W(K,N) bias(N) ln_w(K) ln_b(K), then rstd_at; scalars eps:                      */ \
  /* out = LN(x) @ W + bias [epilogue 1: aux = pre, out = gelu(pre)], the LayerNorm in the GEMM's prologue        */ \
  X(matmul_ln, 6)                                                                                                   \
  /* acts rw params tokens(N) logits(N,V)= targets(N) losses(N)=   rows of a block in one workgroup (rows are     */ \
  /* independent but for attention's keys, which the previous dispatch wrote): dims N T C NH n_out embed tail,   */ \
  /* then offsets in acts: x_in qkv atty lse xmid ln2 ln2_stats fc_pre fc x_out ln_n ln_n_stats out_n, then in    */ \
  /* params: proj_w|wte proj_b|wpe ln2_w ln2_b fc_w fc_b fcproj_w fcproj_b ln_n_w ln_n_b w_n b_n; scalars eps     */ \
  /* dloss. embed 1: x_out = wte[tokens] + wpe instead of the block; else x_out = the block of x_in (attention    */ \
  /* over qkv, c_proj + residual, LN2, c_fc + gelu, c_proj + residual); then the tail: ln_n = LN(x_out),          */ \
  /* out_n (acts) = ln_n @ w_n + b_n (tail 0: the next block's qkv) or logits = ... (tail 1; 2: and the losses;   */ \
  /* 3: and logits become dloss * (softmax - onehot)). Stats: mean at the offset, rstd aligned(N) after it.       */ \
  X(block_forward, 6)                                                                                               \
  /* dinp(N,C)=/+= dout inp weight mean rstd dweight(C)= dbias(C)=     dims N C accumulate                      */ \
  /* (LayerNorm's backward: the rows' dinp and the parameters' column sums in one dispatch)                      */ \
  X(layernorm_backward_all, 8)                                                                                      \
  /* out(M,N) A B bias? res? aux? dbias?=  dims M N K transA transB accumulate epilogue, then has_bias has_res   */ \
  /* has_aux has_dbias (added by the builder). out = [out +] op(A)(M,K) @ op(B)(K,N) [+ bias(N)] [+ res(M,N)];  */ \
  /* epilogue 1: aux = pre, out = gelu(pre) (aux optional); epilogue 2: out = (...) * gelu'(aux);               */ \
  /* epilogue 3: aux = pre, out = relu(pre) (aux optional)                                                        */ \
  /* dbias = column sums of op(B) (a bias gradient beside its weight gradient)                                  */ \
  X(matmul, 7)                                                                                                      \
  /* dinp(R,I)= dout(R,O) weight(I,O) aux(R,I)? dweight(I,O)= inp(R,I) dbias(O)?=   dims R I O epilogue has_dbias   */ \
  /* accumulate: dinp = [dinp +] dout @ weight^T [* gelu'(aux), epilogue 2; * (aux > 0), epilogue 3: aux the      */ \
  /* ReLU's output]; dweight = inp^T @ dout; dbias = column sums of dout:                                          */ \
  /* a linear layer's backward, matmul's tiles of both GEMMs in one dispatch                                     */ \
  X(linear_backward, 7)                                                                                             \
  /* out(B,T,C)= lse(B,NH,T)= qkv(B,T,3C)                      dims B T C NH */                                      \
  X(attention_forward, 3)                                                                                           \
  /* dqkv(B,T,3C)= dout out qkv lse   dims B T C NH: dq by query rows and dk, dv by key rows in one dispatch    */ \
  X(attention_backward, 5)                                                                                          \
  /* att(B,NH,T,T)= qkv lse                                    dims B T C NH */                                      \
  X(attention_probs, 3)                                                                                             \
  /* logits(N,V) rw losses(N)= targets(N)   dims N V write_grad  scalars dloss                                   */ \
  /* (write_grad: logits become dloss * (softmax - onehot))                                                       */ \
  X(crossentropy, 3)                                                                                                \
  /* state rw losses(N)                                        dims N slot */                                        \
  X(mean_loss, 2)                                                                                                   \
  /* out(N,V)= inp(N,V)                                        dims N V */                                           \
  X(softmax, 2)                                                                                                     \
  /* partials(G)= grads(n)                                     dims n G */                                           \
  X(grad_norm_partials, 2)                                                                                          \
  /* state rw partials(G) step_scalars(3) losses(N)   dims G N   scalars max_norm diverged_loss                  */ \
  /* (the mean loss, the norm, the clip scale; copies the host's lr, 1 - beta1^t, 1 - beta2^t; halts on a       */ \
  /* diverged step as Trainer::step defines it, else advances step and adam_t)                                   */ \
  X(optimizer_scalars, 4)                                                                                           \
  /* params rw m rw v rw grads state        dims n n_decay   scalars beta1 beta2 eps weight_decay                 */ \
  X(adamw, 5)                                                                                                       \
  /* out(1,C)= window(T) state wte wpe                         dims C */                                             \
  X(embedding_decode, 5)                                                                                            \
  /* out(., N) x(., K) W(K,N) bias? state ln_w? ln_b?  dims K N in_row out_row accumulate gelu, then has_bias    */ \
  /* has_ln (added); scalars eps. in_row / out_row 1: the row is state[gen_len] - 1, else row 0; with ln_w,    */ \
  /* ln_b the row is LayerNorm'ed first                                                                           */ \
  X(matvec, 7)                                                                                                      \
  /* out(1,C)= cache(T,3C) state scores(NH,T)                  dims T C NH */                                        \
  X(attention_decode, 4)                                                                                            \
  /* x(C) rw cache(T,3C) rw state params scores(NH,T)= window(T)  dims C T NH embed, then the params offsets of   */ \
  /* wte wpe ln1_w ln1_b qkv_w qkv_b proj_w proj_b ln2_w ln2_b fc_w fc_b fcproj_w fcproj_b; scalars eps: a whole  */ \
  /* block at position gen_len - 1 in one workgroup (embed: x = wte[window[p]] + wpe[p] first); C <= 256         */ \
  X(decode_layer, 6)                                                                                                \
  /* out_log rw window rw state rw logits(V) draws options     dims T V */                                           \
  X(sample, 6)                                                                                                      \
  /* ---- the encoder-decoder (seq2seq.h) ----                                                                   */ \
  /* out(B,Tq,C)= lse(B,NH,Tq)= q kv key_tokens(B,Tk)   dims B Tq Tk C NH q_row q_off kv_row k_off v_off causal pad: */ \
  /* softmax attention of the queries q[(b Tq + i) q_row + q_off + h HS ..] over the keys / values kv[(b Tk + j)    */ \
  /* kv_row + k_off (v_off) ..]; key j is hidden where key_tokens is pad, and (causal) where j > i + Tk - Tq; a row */ \
  /* with no visible key gives 0 (lse = 3e38). Self-attention binds one qkv region as q and kv                     */ \
  X(attention_masked_forward, 5)                                                                                    \
  /* dq= dkv= dout out q kv lse key_tokens   dims as the forward's, then dq_row dq_off dkv_row dk_off dv_off has_dq: */ \
  /* dq by query rows, dk and dv by key rows in one dispatch; without dq (self-attention) dq goes to dkv at dq_off */ \
  X(attention_masked_backward, 8)                                                                                   \
  /* att(B,NH,Tq,Tk)= q kv lse key_tokens                dims as the forward's: the attention weights (0 hidden)   */ \
  X(attention_masked_probs, 5)                                                                                      \
  /* logits(N,V) rw losses(N)= targets(N)   dims N V write_grad: like crossentropy, but rows whose target is not  */ \
  /* below V (-1: padding) are ignored; the mean runs over the others (count): losses = loss * N / count, so a mean */ \
  /* over N is the CPU's mean, and the gradient is (softmax - onehot) / count                                     */ \
  X(crossentropy_masked, 3)                                                                                         \
  /* out(2T) rw tgt_in(T) rw state logits(T,V)   dims T V text eos cached: greedy decoding's step. t =          */ \
  /* state[gen_len] tokens are in tgt_in; of row t - 1 of the logits, the most likely token v < text or v == eos  */ \
  /* (ties: the lower) and its probability among those go to out[2 (t - 1)], out[2 (t - 1) + 1] (f32 bits); v    */ \
  /* becomes tgt_in[t] (when t < T) and gen_len t + 1. cached 1 (the KV cache's step): logits row 0, v -> tgt_in[0] */ \
  X(greedy_pick, 4)                                                                                                 \
  /* out(R,C)= cache(T,R,2C) rw scores(R,NH,T)= qkv(R,3C) slots(R,T) state   dims R T C NH: beam search's decoder */ \
  /* self-attention with a KV cache, R rows at position p = state[gen_len] - 1: row r's k, v go to cache[p, r];  */ \
  /* its query attends to cache[j, slots[r, j]] for j < p (the row that held its hypothesis's ancestor at step  */ \
  /* j) and to cache[p, r]                                                                                        */ \
  X(attention_beam, 6)

struct KernelInfo {
  const char* name;
  int args;  // storage arguments, in binding order
};
inline constexpr KernelInfo kKernels[] = {
#define TINYGPT_GPU_KERNEL_INFO(name, args) {#name, args},
    TINYGPT_GPU_KERNELS(TINYGPT_GPU_KERNEL_INFO)
#undef TINYGPT_GPU_KERNEL_INFO
};
// Whether this model decodes with decode_layer (kFusedDecodeMaxC, at most 64 heads).
bool fused_decode(const Config& config);
// Whether training's forward runs as block_forward dispatches (kRowForwardMaxC, kRowArenaMaxBytes).
bool fused_forward(const Config& config);
// The kernel of this name, or nullptr.
const KernelInfo* find_kernel(const std::string& name);

enum class DType { f32, u32 };

struct Buffer {
  std::string name;
  int64_t elements = 0;
  DType dtype = DType::f32;
};

struct Region {
  int buffer = -1;  // -1: no argument (the kernel skips it)
  int64_t offset = 0, count = 0;
  bool defined() const { return buffer >= 0; }
};

struct Op {
  std::string kernel;
  std::string label;  // what it computes, e.g. "h.1.mlp.c_fc forward"
  std::vector<Region> args;
  std::vector<uint32_t> dims;
  std::vector<float> scalars;
};

struct ParamSlot {
  std::string name;
  int64_t cpu_offset, gpu_offset, count;
  bool decay;
};

// Words of the "state" buffer (u32; the f32 ones are bit patterns): X(enumerator, JSON key, word).
// The WGSL kernels name them in upper snake case (adamT: ADAM_T).
#define TINYGPT_GPU_STATE(X)                                                                              \
  X(kStep, step, 0)            /* u32 optimizer steps done (the schedule's step) */                       \
  X(kAdamT, adamT, 1)          /* u32 AdamW updates done */                                               \
  X(kHalted, halted, 2)        /* u32 1 once a step diverged (Trainer::step's test): later updates skip */ \
  X(kLr, lr, 3)                /* f32 learning rate of the last update (from the host: optim::Schedule) */ \
  X(kClipScale, clipScale, 4)  /* f32 gradient scale of the last update (1 = not clipped) */               \
  X(kBc1, bc1, 5)              /* f32 1 - beta1^t */                                                      \
  X(kBc2, bc2, 6)              /* f32 1 - beta2^t */                                                      \
  X(kLoss, loss, 7)            /* f32 mean training loss of the last step */                              \
  X(kGradNorm, gradNorm, 8)    /* f32 global gradient norm of the last step (before clipping) */          \
  X(kEvalLoss, evalLoss, 9)    /* f32 mean loss of the last evaluation batch */                           \
  X(kGenLen, genLen, 10)       /* u32 decoding: positions in the KV cache (= bytes in the window) */      \
  X(kGenCount, genCount, 11)   /* u32 decoding: bytes sampled in the current chunk */

enum StateSlot : int {
#define TINYGPT_GPU_STATE_SLOT(slot, key, word) slot = word,
  TINYGPT_GPU_STATE(TINYGPT_GPU_STATE_SLOT)
#undef TINYGPT_GPU_STATE_SLOT
  kStateWords = 16,
};

// Words written per sampled byte to the decode output log.
constexpr int kSampleRecordWords = 12;  // byte, prob (f32), top-5 bytes, top-5 probs (f32)
// Bytes per generation chunk the decode buffers hold.
constexpr int kMaxChunk = 256;
// Widths up to this decode a byte with one decode_layer dispatch per block (one workgroup each: a small
// model's matrix-vector products are too small to fill a GPU, and each dispatch costs microseconds);
// wider models use five dispatches per block that spread over the GPU.
constexpr int kFusedDecodeMaxC = 256;
// Widths up to this train with block_forward (a workgroup takes 16 rows through a whole block: L + 1
// dispatches for the forward and the loss instead of 5L + 3) when all the training forward's
// activations fit one arena buffer of kRowArenaMaxBytes (WebGPU's default binding limit); wider
// or larger runs keep one dispatch per GEMM, which spreads over the GPU.
constexpr int kRowForwardMaxC = 256;
constexpr int64_t kRowArenaMaxBytes = int64_t(128) << 20;
// Rows of the translator's cached beam decoder (translate.beam.*): a beam of up to this many decodes
// one position per step for all its rows in one submission; a wider beam (the core allows 64) runs
// translate.logits per row instead.
constexpr int kBeamRows = 8;

struct Plan {
  std::string kind = "gpt";  // the model: "gpt" or "seq2seq" (the encoder-decoder)
  Config config;        // the run's (model and optimizer fields)
  int src_len = 0, tgt_len = 0;  // seq2seq: S and T of every batch (the pairs' longest, rounded up; shorter ones are padded)
  bool fused_forward = true;  // gpt: training's forward as block_forward dispatches where the model allows it (fused_forward)
  bool fused_decode = true;   // gpt: a byte decoded with decode_layer where the model allows it (fused_decode)
  // Regions the host writes before each train / eval step, in order (the batch's token arrays).
  std::vector<std::string> batch_inputs;
  // Regions the host fills once, after creating the buffers (seq2seq: "pe", the sinusoidal table).
  std::map<std::string, std::vector<float>> constants;
  int batch_size = 0;   // B
  int head_size = 0;    // HS
  int64_t num_params = 0;      // CPU layout
  int64_t gpu_params = 0;      // padded GPU layout (elements of params, grads, adam_m, adam_v)
  int64_t decay_params = 0;    // [0, decay_params) of the GPU layout gets weight decay
  std::vector<Buffer> buffers;
  std::vector<ParamSlot> params;
  std::map<std::string, Region> io;                 // regions the host writes or reads
  std::map<std::string, std::vector<Op>> programs;  // "train", "eval", "inspect", "prefill", "decode", "sample"

  int buffer_index(const std::string& name) const;  // throws if unknown
  // CPU layout (model.h) <-> GPU layout
  std::vector<float> to_gpu_layout(const float* cpu) const;
  void to_cpu_layout(const float* gpu, float* cpu) const;
};

// The plan for training the model of this config (its param_table()) with its batch and optimizer
// settings. Throws tinygpt::Error if the configuration is invalid.
// fuse_forward = false keeps one dispatch per GEMM in training's forward, fuse_decode = false five per
// block in decoding, even for small models: fusion saves dispatches, which is what a software adapter
// (SwiftShader) pays most for, but a fused block runs in few workgroups (one when decoding), which
// can leave a real GPU idle (docs/webgpu.md, "Fused or wide"). The parameters' layout is the same.
Plan make_plan(const Config& config, const std::vector<model::ParamInfo>& table, bool fuse_forward = true,
               bool fuse_decode = true);

// The plan as JSON (what the WebAssembly module hands to the executor):
// {"version":1, "model":{...}, "batch":B, "headSize":HS, "align":64, "numParams", "gpuParams", "decayParams",
//  "stateWords":16, "state":{"step":0,...} (every TINYGPT_GPU_STATE word), "sampleRecordWords":12, "maxChunk":256,
//  "kernels":{"embedding_forward":4,...} (every TINYGPT_GPU_KERNELS kernel and its number of arguments),
//  "buffers":[{"name","elements","type":"f32"|"u32"}], "params":[{"name","cpu","gpu","count","decay"}],
//  "io":{"name":[buffer,offset,count]}, "programs":{"train":[{"kernel","label","args":[[b,o,c]|null],
//  "dims":[...],"scalars":[f32 bit patterns as u32]}], ...}}
std::string to_json(const Plan& plan);

// The plan of the encoder-decoder (seq2seq.h) with its parameter table: programs "train" and "eval"
// over batches of src (B, S), tgt_in (B, T), targets (B, T), every batch padded to S = src_len and
// T = tgt_len (0: block_size; pair_lengths gives a dataset's). Padding (PAD tokens, -1 targets)
// changes no loss or gradient: padded keys are masked, padded targets ignored. And greedy
// translation, "translate.encode" then "translate.step" per token (with the cross-attention weights
// of every decoder layer), and "pair.inspect", both at block_size. Throws tinygpt::Error if invalid.
Plan make_seq2seq_plan(const Config& config, const std::vector<model::ParamInfo>& table, int src_len = 0,
                       int tgt_len = 0);
// S and T of a seq2seq plan's batches for pairs whose longest source has max_source tokens and
// longest target max_target (a batch's T is that + 1): rounded up to a multiple of kPairLenStep,
// at most block_size. Rounding lets a similar dataset keep its plan.
std::pair<int, int> pair_lengths(int max_source, int max_target, int block_size);
constexpr int kPairLenStep = 8;

}  // namespace tinygpt::gpu
