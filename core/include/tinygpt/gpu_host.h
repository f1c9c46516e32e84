// gpu_host.h — the host's half of a run whose steps execute on a GPU (the WebGPU backend).
//
// The core's Trainer stays the owner of everything that is not arithmetic on tensors: the
// corpus and its sampling generator (so the GPU trains on exactly the batches step() would
// have drawn), the loss history, the step counter and the checkpoint format. The GPU holds the
// parameters and AdamW moments while it trains; export_state / import_state move them in the
// plan's GPU layout (gpu_plan.h), so a run moves between the CPU and the GPU at any step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/gpu_plan.h"
#include "tinygpt/trainer.h"

namespace tinygpt::gpu {

// The plan for this trainer's model and training settings (fuse_forward, fuse_decode: make_plan's); a
// translator's batches are sized by its pairs (pair_lengths), so new pairs may need a new plan.
Plan plan_for(const train::Trainer& trainer, bool fuse_forward = true, bool fuse_decode = true);

// Tokens of one batch: x (B, T) and y (B, T) for a language model (2 B T); src (B, S), tgt_in (B, T)
// and tgt_out (B, T) for the seq2seq translator, padded to the plan's S and T (batch_lengths), the
// plan's batch_inputs in order.
int64_t batch_tokens(const train::Trainer& trainer);
// A translator's S and T of every batch, the plan's (pair_lengths of its pairs); {0, 0} for a language model.
std::pair<int, int> batch_lengths(const train::Trainer& trainer);
// Tokens of the next k training batches, each laid out as batch_tokens says: out holds k of them.
// Consumes them like k calls of step() would.
void next_batches(train::Trainer& trainer, int k, int32_t* out);
// The learning rate and AdamW's bias corrections of k steps starting at `step` after `adam_t`
// updates, exactly as Trainer::step (schedule times the NaN guard's scale) and AdamW::step compute them: out holds k * 3 floats
// (lr, 1 - beta1^t, 1 - beta2^t with t = adam_t + 1 + i).
void step_scalars(const train::Trainer& trainer, int64_t step, int64_t adam_t, int k, float* out);
// The fixed validation batches evaluate() uses, laid out like next_batches': eval_iters of them.
void val_batches(const train::Trainer& trainer, int32_t* out);

// Records k steps computed elsewhere (their losses and gradient norms, in order). A step that
// diverged (Trainer::step's test: a non-finite loss or norm, a loss above kDivergedLoss) stops
// there: the steps before it are recorded, then it throws train::Diverged with step()'s message.
// The GPU applied none of it (its halt flag); Trainer::roll_back then goes back to the last good
// state, which on the GPU path is the last one import_state kept.
void record_steps(train::Trainer& trainer, const float* losses, const float* grad_norms, int k);
// Records an evaluation from the losses of the eval_iters validation batches; returns the mean. A
// translator's evaluation also scores greedy translations of held-out pairs on the host's parameters
// (Trainer::evaluate's exact match and CER): bring the GPU's state back first (import_state).
float record_eval(train::Trainer& trainer, const float* batch_losses, int n);

struct State {
  std::vector<float> params, m, v;  // GPU layout, plan.gpu_params each
  int64_t step = 0, adam_t = 0;
};
State export_state(const train::Trainer& trainer, const Plan& plan);
// Parameters and moments (GPU layout) computed elsewhere, after adam_t updates; the step
// counter must already agree (record_steps). With good_state (when no step is in flight, so the
// corpus generator is where the step counter says) it is also the state Trainer::roll_back returns
// to: while the GPU trains, the trainer's own copy of the parameters is not current.
void import_state(train::Trainer& trainer, const Plan& plan, const float* params, const float* m, const float* v,
                  int64_t adam_t, bool good_state);

// Back to the trainer's last good state (Trainer::roll_back) with the learning rate as it was: when
// the GPU's state is lost (a lost device) while the trainer's own parameters are behind its step
// counter, the run continues elsewhere from the last state import_state kept as good.
train::Rollback return_to_good_state(train::Trainer& trainer, const std::string& reason);

// The uniform numbers a sample::Generator seeded with `seed` draws (one per sampled byte at a
// temperature above 0), numbers start .. start + k - 1.
void sample_draws(uint64_t seed, int64_t start, int k, float* out);

}  // namespace tinygpt::gpu
