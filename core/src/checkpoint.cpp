// checkpoint.cpp — writing and validating the checkpoint format described in checkpoint.h.
#include "tinygpt/checkpoint.h"

#include <array>
#include <cmath>
#include <cstring>

#include "tinygpt/error.h"
#include "tinygpt/trainer.h"

namespace tinygpt::train {
// The checkpoint code reads and restores the trainer's private state.
struct CheckpointAccess {
  static const std::unique_ptr<data::ByteDataset>& dataset(const Trainer& t) { return t.dataset_; }
  static data::Rng::State data_rng(const Trainer& t) { return t.dataset_ ? t.dataset_->rng_state() : t.data_rng_state_; }
  static uint64_t corpus_fingerprint(const Trainer& t) { return t.dataset_ ? t.dataset_->fingerprint() : t.checkpoint_fingerprint_; }
  static void restore(Trainer& t, int64_t step, const data::Rng::State& rng, uint64_t fingerprint,
                      std::vector<float> train_losses, std::vector<ValPoint> val_losses) {
    t.step_ = step;
    t.data_rng_state_ = rng;
    t.checkpoint_fingerprint_ = fingerprint;
    t.train_losses_ = std::move(train_losses);
    t.train_losses_.reserve(std::max<size_t>(t.train_losses_.size(), size_t(t.config_.steps)));
    t.val_losses_ = std::move(val_losses);
  }
};
}  // namespace tinygpt::train

namespace tinygpt::ckpt {

using tinygpt::Error;
using train::CheckpointAccess;

uint32_t crc32(const uint8_t* bytes, size_t n) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) c = table[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

namespace {

class Writer {
 public:
  std::vector<uint8_t> out;
  void u32(uint32_t v) {
    for (int i = 0; i < 4; i++) out.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; i++) out.push_back(uint8_t(v >> (8 * i)));
  }
  void f32(float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    u32(v);
  }
  void floats(const float* p, size_t n) {
    for (size_t i = 0; i < n; i++) f32(p[i]);
  }
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= uint32_t(p_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  uint64_t u64() {
    uint64_t lo = u32();
    return lo | (uint64_t(u32()) << 32);
  }
  float f32() {
    uint32_t v = u32();
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  void floats(float* dst, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = f32();
  }
  size_t pos() const { return pos_; }

 private:
  void need(size_t k) {
    // unreachable for well-formed sizes (checked before reading), kept as a guard
    if (pos_ + k > n_) throw Error("checkpoint is truncated: it ends at byte " + std::to_string(n_));
  }
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

int32_t as_int(uint32_t v) { return v > 0x7FFFFFFFu ? -1 : int32_t(v); }

}  // namespace

std::vector<uint8_t> serialize(const train::Trainer& t) {
  const model::Config& mc = t.model_config();
  const train::TrainConfig& tc = t.train_config();
  const int64_t P = t.model().num_parameters();
  Writer w;
  w.out.reserve(kHeaderBytes + size_t(P) * 12 + t.train_losses().size() * 4 + t.val_losses().size() * 12 + 4);
  w.out.insert(w.out.end(), kMagic, kMagic + 8);
  w.u32(kVersion);
  w.u32(uint32_t(mc.n_layer));
  w.u32(uint32_t(mc.n_head));
  w.u32(uint32_t(mc.n_embd));
  w.u32(uint32_t(mc.block_size));
  w.u32(uint32_t(model::Config::vocab_size));
  w.u64(mc.seed);
  w.u32(uint32_t(tc.batch_size));
  w.f32(tc.lr);
  w.f32(tc.min_lr);
  w.u32(uint32_t(tc.warmup));
  w.u32(uint32_t(tc.steps));
  w.f32(tc.weight_decay);
  w.f32(tc.beta1);
  w.f32(tc.beta2);
  w.f32(tc.eps);
  w.f32(tc.grad_clip);
  w.u32(uint32_t(tc.eval_batches));
  w.u64(uint64_t(t.steps_done()));
  w.u64(uint64_t(t.optimizer().t()));
  for (uint64_t s : CheckpointAccess::data_rng(t)) w.u64(s);
  const auto& ds = CheckpointAccess::dataset(t);
  w.u64(CheckpointAccess::corpus_fingerprint(t));
  w.u64(ds ? ds->size() : 0);
  w.u64(uint64_t(P));
  w.u64(t.train_losses().size());
  w.u64(t.val_losses().size());
  w.floats(t.model().params(), size_t(P));
  w.floats(t.optimizer().m().data(), size_t(P));
  w.floats(t.optimizer().v().data(), size_t(P));
  w.floats(t.train_losses().data(), t.train_losses().size());
  for (const train::ValPoint& p : t.val_losses()) {
    w.u64(uint64_t(p.step));
    w.f32(p.loss);
  }
  w.u32(crc32(w.out.data(), w.out.size()));
  return std::move(w.out);
}

std::unique_ptr<train::Trainer> deserialize(const uint8_t* bytes, size_t n, int64_t memory_limit) {
  if (n < 12 || std::memcmp(bytes, kMagic, 8) != 0) {
    if (n >= 8 && std::memcmp(bytes, kMagic, 8) != 0)
      throw Error("not a tinygpt checkpoint: the file does not start with the TGPTCKPT magic bytes");
    throw Error("not a tinygpt checkpoint: the file is only " + std::to_string(n) + " bytes long");
  }
  Reader r(bytes + 8, n - 8);
  const uint32_t version = r.u32();
  if (version != kVersion)
    throw Error("checkpoint version " + std::to_string(version) + " is not supported (this build reads version " +
                std::to_string(kVersion) + ")");
  if (n < kHeaderBytes)
    throw Error("checkpoint is truncated: " + std::to_string(n) + " bytes, but the header alone is " +
                std::to_string(kHeaderBytes));
  model::Config mc;
  mc.n_layer = as_int(r.u32());
  mc.n_head = as_int(r.u32());
  mc.n_embd = as_int(r.u32());
  mc.block_size = as_int(r.u32());
  const uint32_t vocab = r.u32();
  mc.seed = r.u64();
  train::TrainConfig tc;
  tc.batch_size = as_int(r.u32());
  tc.lr = r.f32();
  tc.min_lr = r.f32();
  tc.warmup = as_int(r.u32());
  tc.steps = as_int(r.u32());
  tc.weight_decay = r.f32();
  tc.beta1 = r.f32();
  tc.beta2 = r.f32();
  tc.eps = r.f32();
  tc.grad_clip = r.f32();
  tc.eval_batches = as_int(r.u32());
  const uint64_t step = r.u64();
  const uint64_t adam_t = r.u64();
  data::Rng::State rng;
  for (uint64_t& s : rng) s = r.u64();
  const uint64_t fingerprint = r.u64();
  r.u64();  // corpus size: informational
  const uint64_t n_params = r.u64();
  const uint64_t n_train = r.u64();
  const uint64_t n_val = r.u64();

  if (vocab != uint32_t(model::Config::vocab_size))
    throw Error("checkpoint has a vocabulary of " + std::to_string(vocab) + ", this build uses 256 bytes");
  try {
    mc.validate();
    tc.validate();
  } catch (const Error& e) {
    throw Error(std::string("checkpoint has an invalid config: ") + e.what());
  }
  if (n_params != uint64_t(mc.num_parameters()))
    throw Error("checkpoint holds " + std::to_string(n_params) + " parameters but its config (" +
                std::to_string(mc.n_layer) + " layers, width " + std::to_string(mc.n_embd) + ", context " +
                std::to_string(mc.block_size) + ") needs " + std::to_string(mc.num_parameters()));
  if (n_train != step || adam_t > step)
    throw Error("checkpoint is inconsistent: " + std::to_string(n_train) + " recorded losses for " +
                std::to_string(step) + " steps");
  if (n_val > step + 1) throw Error("checkpoint is inconsistent: more validation points than steps");
  const uint64_t expected = kHeaderBytes + n_params * 12 + n_train * 4 + n_val * 12 + 4;
  if (n < expected)
    throw Error("checkpoint is truncated: " + std::to_string(n) + " bytes, expected " + std::to_string(expected));
  if (n > expected)
    throw Error("checkpoint has " + std::to_string(n - expected) + " unexpected bytes after its end (expected " +
                std::to_string(expected) + " bytes)");
  uint32_t stored_crc = 0;
  for (int i = 0; i < 4; i++) stored_crc |= uint32_t(bytes[n - 4 + i]) << (8 * i);
  if (crc32(bytes, n - 4) != stored_crc) throw Error("checkpoint is corrupt: its checksum does not match its contents");

  // Everything checks out structurally: build the trainer, then fill it.
  auto t = std::make_unique<train::Trainer>(mc, tc, memory_limit);
  const size_t P = size_t(n_params);
  r.floats(t->model().params(), P);
  r.floats(t->optimizer().m().data(), P);
  r.floats(t->optimizer().v().data(), P);
  std::vector<float> train_losses(static_cast<size_t>(n_train));
  r.floats(train_losses.data(), train_losses.size());
  std::vector<train::ValPoint> val(static_cast<size_t>(n_val));
  for (train::ValPoint& p : val) {
    p.step = int64_t(r.u64());
    p.loss = r.f32();
  }
  auto check_finite = [&](const float* p, size_t count, const char* what) {
    for (size_t i = 0; i < count; i++)
      if (!std::isfinite(p[i])) {
        std::string where;
        if (p == t->model().params())
          for (const model::ParamInfo& info : t->model().param_table())
            if (int64_t(i) >= info.offset && int64_t(i) < info.offset + info.shape.numel()) where = " (in " + info.name + ")";
        throw Error(std::string("checkpoint contains NaN or Inf values in ") + what + " at index " + std::to_string(i) + where);
      }
  };
  check_finite(t->model().params(), P, "the parameters");
  check_finite(t->optimizer().m().data(), P, "the optimizer's first moments");
  check_finite(t->optimizer().v().data(), P, "the optimizer's second moments");
  check_finite(train_losses.data(), train_losses.size(), "the loss history");
  for (const train::ValPoint& p : val)
    if (!std::isfinite(p.loss)) throw Error("checkpoint contains NaN or Inf values in the validation history");
  t->optimizer().set_t(int64_t(adam_t));
  CheckpointAccess::restore(*t, int64_t(step), rng, fingerprint, std::move(train_losses), std::move(val));
  return t;
}

}  // namespace tinygpt::ckpt

namespace tinygpt::train {

std::vector<uint8_t> Trainer::save() const { return ckpt::serialize(*this); }

std::unique_ptr<Trainer> Trainer::load(const uint8_t* bytes, size_t n, int64_t memory_limit) {
  return ckpt::deserialize(bytes, n, memory_limit);
}

}  // namespace tinygpt::train
