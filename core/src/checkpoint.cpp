// checkpoint.cpp — writing and validating the checkpoint format described in checkpoint.h.
#include "tinygpt/checkpoint.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "tinygpt/error.h"
#include "tinygpt/tokenizer.h"
#include "tinygpt/trainer.h"

namespace tinygpt::train {
// The checkpoint code reads and restores the trainer's private state.
struct CheckpointAccess {
  static data::Rng::State data_rng(const Trainer& t) { return t.rng_state(); }
  static uint64_t corpus_fingerprint(const Trainer& t) { return t.corpus_fingerprint(); }
  static uint64_t corpus_size(const Trainer& t) { return t.has_corpus() ? t.corpus_size() : t.checkpoint_corpus_size_; }
  static void restore(Trainer& t, int64_t step, const data::Rng::State& rng, uint64_t fingerprint, uint64_t corpus_size,
                      const optim::Schedule& schedule, float lr_scale, std::vector<float> train_losses,
                      std::vector<ValPoint> val_losses, watch::History history) {
    t.step_ = step;
    t.data_rng_state_ = rng;
    t.checkpoint_fingerprint_ = fingerprint;
    t.checkpoint_corpus_size_ = corpus_size;
    t.schedule_ = schedule;
    t.lr_scale_ = lr_scale;
    t.train_losses_ = std::move(train_losses);
    t.train_losses_.reserve(std::max<size_t>(t.train_losses_.size(), size_t(t.config_.max_iters)));
    t.val_losses_ = std::move(val_losses);
    t.history_ = std::move(history);
    t.keep_good_state();  // the loaded state is the one a divergence rolls back to
  }
  static void restore_tokenizer(Trainer& t, std::shared_ptr<const tok::Tokenizer> tokenizer, double tokens_per_byte) {
    if (tokenizer) t.set_tokenizer(std::move(tokenizer));
    t.tokens_per_byte_ = is_language_model(t.kind()) && !t.tokenizer() ? 1.0 : tokens_per_byte;
    for (ValPoint& v : t.val_losses_) v.bits_per_byte = float(t.bits_per_byte(v.loss));
  }
};
}  // namespace tinygpt::train

namespace tinygpt::ckpt {

using train::CheckpointAccess;

uint32_t crc32_update(uint32_t c, const uint8_t* bytes, size_t n) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  for (size_t i = 0; i < n; i++) c = table[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
  return c;
}

uint32_t crc32(const uint8_t* bytes, size_t n) { return crc32_final(crc32_update(kCrc32Start, bytes, n)); }

bool has_magic(const uint8_t* bytes, size_t n) { return n >= 8 && std::memcmp(bytes, kMagic, 8) == 0; }

namespace {

class Writer {
 public:
  std::vector<uint8_t> out;
  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; i++) out.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; i++) out.push_back(uint8_t(v >> (8 * i)));
  }
  void f64(double d) {
    uint64_t v;
    std::memcpy(&v, &d, 8);
    u64(v);
  }
  void name(const std::string& s) {
    u8(uint8_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  void int_field(const std::string& n, int64_t v) { name(n), u8('i'), u64(uint64_t(v)); }
  void u64_field(const std::string& n, uint64_t v) { name(n), u8('u'), u64(v); }
  void real_field(const std::string& n, double v) { name(n), u8('f'), f64(v); }
  void text_field(const std::string& n, const std::string& v) {
    name(n), u8('s'), u32(uint32_t(v.size()));
    out.insert(out.end(), v.begin(), v.end());
  }
  template <class T>
  void raw(const T* p, size_t n) {  // little-endian hosts only (x86, wasm, arm64): checked below
    const size_t at = out.size();
    out.resize(at + n * sizeof(T));
    if (n) std::memcpy(out.data() + at, p, n * sizeof(T));
  }
};
static_assert(std::endian::native == std::endian::little, "checkpoints are written by memcpy on little-endian hosts");

class Reader {
 public:
  Reader(const uint8_t* p, size_t n, size_t pos, const char* what) : p_(p), n_(n), pos_(pos), what_(what) {}
  uint8_t u8() { return need(1), p_[pos_++]; }
  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= uint32_t(p_[pos_ + size_t(i)]) << (8 * i);
    pos_ += 4;
    return v;
  }
  uint64_t u64() {
    const uint64_t lo = u32();
    return lo | (uint64_t(u32()) << 32);
  }
  float f32() {
    const uint32_t v = u32();
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  double f64() {
    const uint64_t v = u64();
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  std::string text(size_t len) {
    need(len);
    std::string s(reinterpret_cast<const char*>(p_ + pos_), len);
    pos_ += len;
    return s;
  }
  size_t pos() const { return pos_; }

 private:
  void need(size_t k) {
    if (k > n_ || pos_ > n_ - k)
      throw Error(coded("checkpoint.truncated", {}, std::string("checkpoint is truncated: ") + what_ + " goes past byte " + std::to_string(n_)));
  }
  const uint8_t* p_;
  size_t n_;
  size_t pos_;
  const char* what_;
};

int64_t as_count(uint64_t v) { return v > (uint64_t(1) << 62) ? -1 : int64_t(v); }

// Where a section's elements are in the file.
struct Span {
  const uint8_t* data = nullptr;
  uint64_t count = 0;
};

// Everything a checkpoint holds, read and checked, whichever version wrote it.
struct Contents {
  uint32_t version = 0;
  Config config;
  int64_t step = 0, adam_t = 0;
  data::Rng::State rng{};
  uint64_t fingerprint = 0, corpus_size = 0;
  optim::Schedule schedule;
  float lr_scale = 1.0f;  // halved by every rollback of the NaN guard
  Span params, adam_m, adam_v, train_losses;
  std::vector<train::ValPoint> val;
  bool has_history = false;
  watch::History::Packed history;  // the history.* sections, as stored
  Span rnn_state;                  // a stateful recurrent run's carried hidden state (or none)
  std::shared_ptr<const tok::Tokenizer> tokenizer;  // tokenizer bpe: the run's vocabulary (its section)
  double tokens_per_byte = 0.0;    // of the validation text (0: not kept)
};

optim::Schedule schedule_of(const Config& c) { return {c.learning_rate, c.min_lr, c.warmup_iters, c.max_iters}; }

void check_checksum(const uint8_t* bytes, size_t n) {
  uint32_t stored = 0;
  for (int i = 0; i < 4; i++) stored |= uint32_t(bytes[n - 4 + size_t(i)]) << (8 * i);
  if (crc32(bytes, n - 4) != stored) throw Error(coded("checkpoint.corrupt", {}, "checkpoint is corrupt: its checksum does not match its contents"));
}

void check_size(size_t n, uint64_t expected) {
  if (n < expected)
    throw Error(coded("checkpoint.truncated", {}, "checkpoint is truncated: " + std::to_string(n) + " bytes, expected " + std::to_string(expected)));
  if (n > expected)
    throw Error(coded("checkpoint.trailing", {{"extra", std::to_string(n - expected)}}, "checkpoint has " + std::to_string(n - expected) + " unexpected bytes after its end (expected " +
                std::to_string(expected) + " bytes)"));
}

void check_config(const Config& c) {
  const std::vector<ConfigProblem> problems = config_problems(c);
  if (problems.empty()) return;
  const ConfigProblem& p = problems.front();
  throw Error(coded("checkpoint.invalid_config", {{"problem", p.message}}, "checkpoint has an invalid config: " + p.message));
}

void check_history(const Contents& k, uint64_t n_params, uint64_t n_val) {
  if (n_params != uint64_t(num_parameters(k.config)))
    throw Error(coded("checkpoint.inconsistent", {}, "checkpoint holds " + std::to_string(n_params) + " parameters but its config (n_layer " +
                std::to_string(k.config.n_layer) + ", n_embd " + std::to_string(k.config.n_embd) + ", block_size " +
                std::to_string(k.config.block_size) + ") needs " + std::to_string(num_parameters(k.config))));
  if (k.step < 0 || k.train_losses.count != uint64_t(k.step) || k.adam_t < 0 || k.adam_t > k.step)
    throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: " + std::to_string(k.train_losses.count) + " recorded losses for " +
                std::to_string(k.step) + " steps"));
  if (n_val > uint64_t(k.step) + 1) throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: more validation points than steps"));
}

// ---- version 1: a fixed header ---------------------------------------------------------------

constexpr size_t kV1HeaderBytes = 8 + 4 + 5 * 4 + 8 + (4 + 2 * 4 + 2 * 4 + 5 * 4 + 4) + (8 + 8 + 4 * 8) + 16 + 24;

Contents read_v1(const uint8_t* bytes, size_t n) {
  if (n < kV1HeaderBytes)
    throw Error(coded("checkpoint.truncated", {}, "checkpoint is truncated: " + std::to_string(n) + " bytes, but the header alone is " +
                std::to_string(kV1HeaderBytes)));
  Reader r(bytes, n, 12, "the header");
  Contents k;
  k.version = 1;
  Config& c = k.config;
  auto as_int = [](uint32_t v) { return v > 0x7FFFFFFFu ? -1 : int(v); };
  c.n_layer = as_int(r.u32());
  c.n_head = as_int(r.u32());
  c.n_embd = as_int(r.u32());
  c.block_size = as_int(r.u32());
  const uint32_t vocab = r.u32();
  c.seed = r.u64();
  c.batch_size = as_int(r.u32());
  c.learning_rate = r.f32();
  c.min_lr = r.f32();
  c.warmup_iters = as_int(r.u32());
  c.max_iters = as_int(r.u32());
  c.weight_decay = r.f32();
  c.beta1 = r.f32();
  c.beta2 = r.f32();
  c.eps = r.f32();
  c.grad_clip = r.f32();
  c.eval_iters = as_int(r.u32());
  k.step = as_count(r.u64());
  k.adam_t = as_count(r.u64());
  for (uint64_t& s : k.rng) s = r.u64();
  k.fingerprint = r.u64();
  k.corpus_size = r.u64();
  const uint64_t n_params = r.u64(), n_train = r.u64(), n_val = r.u64();
  if (vocab != 256) throw Error(coded("checkpoint.corrupt", {}, "checkpoint has a vocabulary of " + std::to_string(vocab) + ", this build uses 256 bytes"));
  check_config(c);
  k.schedule = schedule_of(c);
  k.train_losses.count = n_train;
  check_history(k, n_params, n_val);
  check_size(n, kV1HeaderBytes + n_params * 12 + n_train * 4 + n_val * 12 + 4);
  check_checksum(bytes, n);
  k.val.resize(size_t(n_val));
  const uint8_t* p = bytes + kV1HeaderBytes;
  k.params = {p, n_params};
  k.adam_m = {p + n_params * 4, n_params};
  k.adam_v = {p + n_params * 8, n_params};
  k.train_losses = {p + n_params * 12, n_train};
  Reader val(bytes, n, kV1HeaderBytes + n_params * 12 + n_train * 4, "the validation history");
  for (train::ValPoint& v : k.val) {
    v.step = as_count(val.u64());
    v.loss = val.f32();
  }
  return k;
}

// ---- version 2: named fields and sections ----------------------------------------------------

// The tokenizer section (tokenizer bpe): the compact form (tok::Tokenizer::serialize), checked
// against the config. A bpe run without one cannot read text: refused, as is one that is damaged.
void read_tokenizer(Contents& k, const Span& section) {
  const Config& c = k.config;
  const std::string vocab = std::to_string(c.vocab_size);
  if (c.tokenizer == TokenizerKind::bytes) {
    if (section.data) throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: a run of bytes with a tokenizer section"));
    return;
  }
  if (!section.data)
    throw Error(coded("checkpoint.tokenizer_missing", {{"vocab", vocab}},
                      "this checkpoint's run reads BPE tokens (vocab_size " + vocab +
                          ") but the file has no tokenizer: without it no text can be read or written (load its tokenizer.json, or train anew)"));
  try {
    auto t = std::make_shared<tok::Tokenizer>(tok::Tokenizer::deserialize(section.data, size_t(section.count), "the checkpoint's tokenizer"));
    if (t->vocab_size() != c.vocab_size)
      throw Error("it has " + std::to_string(t->vocab_size()) + " tokens, the config's vocab_size is " + vocab);
    k.tokenizer = std::move(t);
  } catch (const Error& e) {
    throw Error(coded("checkpoint.tokenizer_damaged", {{"problem", e.what()}},
                      std::string("checkpoint's tokenizer section is damaged: ") + e.what()));
  }
}

struct Section {
  std::string name;
  char dtype;
  uint64_t count, offset;
};

size_t dtype_size(char d) { return d == 'f' ? 4 : d == 'i' ? 8 : d == 'b' ? 1 : 0; }

Contents read_v2(const uint8_t* bytes, size_t n) {
  Reader r(bytes, n, 12, "the header");
  const uint32_t header_bytes = r.u32();
  if (header_bytes % 4 != 0 || header_bytes < 24 || header_bytes > n - 4)
    throw Error(coded("checkpoint.truncated", {}, "checkpoint is truncated or corrupt: its header claims " + std::to_string(header_bytes) +
                " bytes in a file of " + std::to_string(n)));
  Reader h(bytes, header_bytes, 16, "the header");
  Contents k;
  k.version = 2;
  bool have_step = false, have_adam = false, have_rng[4] = {}, have_fp = false;
  const uint32_t n_fields = h.u32();
  for (uint32_t i = 0; i < n_fields; i++) {
    const std::string name = h.text(h.u8());
    const char type = char(h.u8());
    int64_t iv = 0;
    double fv = 0.0;
    std::string sv;
    if (type == 'i' || type == 'u') iv = int64_t(h.u64());
    else if (type == 'f') fv = h.f64();
    else if (type == 's') sv = h.text(h.u32());
    else throw Error(coded("checkpoint.corrupt", {}, "checkpoint field " + name + " has an unknown type code " + std::to_string(int(type))));
    auto want = [&](char t) {
      if (type != t) throw Error(coded("checkpoint.corrupt", {}, "checkpoint field " + name + " has type '" + type + "', expected '" + t + "'"));
    };
    if (const FieldSpec* f = find_field(name)) {
      const char expected = f->type == FieldType::choice ? 's' : f->type == FieldType::real ? 'f' : 'i';
      want(expected);
      try {
        if (type == 's') set_field_text(k.config, *f, sv);
        else set_field(k.config, *f, type == 'f' ? fv : double(iv));
      } catch (const Error& e) {
        throw Error(coded("checkpoint.invalid_config", {{"problem", e.what()}}, std::string("checkpoint has an invalid config: ") + e.what()));
      }
    } else if (name == "step") {
      want('i'), k.step = iv, have_step = true;
    } else if (name == "adam_t") {
      want('i'), k.adam_t = iv, have_adam = true;
    } else if (name.rfind("data_rng.", 0) == 0 && name.size() == 10 && name[9] >= '0' && name[9] <= '3') {
      want('u'), k.rng[size_t(name[9] - '0')] = uint64_t(iv), have_rng[name[9] - '0'] = true;
    } else if (name == "corpus_fingerprint") {
      want('u'), k.fingerprint = uint64_t(iv), have_fp = true;
    } else if (name == "corpus_size") {
      want('u'), k.corpus_size = uint64_t(iv);
    } else if (name == "schedule_from_step") {
      want('i'), k.schedule.from_step = iv;
    } else if (name == "schedule_from_lr") {
      want('f'), k.schedule.from_lr = float(fv);
    } else if (name == "lr_scale") {
      want('f'), k.lr_scale = float(fv);
    } else if (name == "tokens_per_byte") {
      want('f'), k.tokens_per_byte = fv;
    } else {
      throw Error(coded("checkpoint.newer", {{"field", name}},
                        "checkpoint sets '" + name + "', which this build of tinygpt does not know: it was written by a newer version"));
    }
  }
  if (!have_step || !have_adam || !have_fp || !(have_rng[0] && have_rng[1] && have_rng[2] && have_rng[3]))
    throw Error(coded("checkpoint.corrupt", {}, "checkpoint is missing part of its state (step, adam_t, data_rng or corpus_fingerprint)"));
  check_config(k.config);
  const optim::Schedule plain = schedule_of(k.config);
  const int64_t from_step = k.schedule.from_step;
  const float from_lr = k.schedule.from_lr;
  k.schedule = plain;
  k.schedule.from_step = from_step;
  k.schedule.from_lr = from_lr;
  if (from_step < 0 || from_step > k.step || !std::isfinite(from_lr))
    throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: its schedule restarts at step " + std::to_string(from_step)));
  if (!(k.lr_scale > 0.0f && k.lr_scale <= 1.0f))
    throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: its learning-rate scale is " + std::to_string(k.lr_scale)));

  const uint32_t n_sections = h.u32();
  std::vector<Section> sections;
  const uint64_t payload = n - 4 - header_bytes;
  for (uint32_t i = 0; i < n_sections; i++) {
    Section s;
    s.name = h.text(h.u8());
    s.dtype = char(h.u8());
    s.count = h.u64();
    s.offset = h.u64();
    const size_t size = dtype_size(s.dtype);
    if (size == 0) throw Error(coded("checkpoint.corrupt", {}, "checkpoint section " + s.name + " has an unknown type code " + std::to_string(int(s.dtype))));
    if (s.offset % 4 != 0 || s.count > payload / size || s.offset > payload - s.count * size)
      throw Error(coded("checkpoint.truncated", {}, "checkpoint is truncated or corrupt: section " + s.name + " (" + std::to_string(s.count) +
                  " elements at byte " + std::to_string(s.offset) + ") lies outside the " + std::to_string(payload) +
                  "-byte payload"));
    for (const Section& o : sections) {
      if (o.name == s.name) throw Error(coded("checkpoint.corrupt", {}, "checkpoint has two sections called " + s.name));
      const uint64_t a0 = s.offset, a1 = s.offset + s.count * size, b0 = o.offset, b1 = o.offset + o.count * dtype_size(o.dtype);
      if (a0 < b1 && b0 < a1) throw Error(coded("checkpoint.corrupt", {}, "checkpoint is corrupt: sections " + o.name + " and " + s.name + " overlap"));
    }
    sections.push_back(s);
  }
  auto optional_section = [&](const char* name, char dtype) -> Span {
    for (const Section& s : sections)
      if (s.name == name) {
        if (s.dtype != dtype) throw Error(coded("checkpoint.corrupt", {}, std::string("checkpoint section ") + name + " has the wrong type"));
        return {bytes + header_bytes + s.offset, s.count};
      }
    return {};
  };
  auto section = [&](const char* name, char dtype) -> Span {
    const Span s = optional_section(name, dtype);
    if (!s.data && !std::any_of(sections.begin(), sections.end(), [&](const Section& x) { return x.name == name; }))
      throw Error(coded("checkpoint.corrupt", {}, std::string("checkpoint has no section ") + name));
    return s;
  };
  k.params = section("params", 'f');
  k.adam_m = section("adam_m", 'f');
  k.adam_v = section("adam_v", 'f');
  k.train_losses = section("train_losses", 'f');
  const Span val_steps = section("val_steps", 'i'), val_losses = section("val_losses", 'f');
  if (k.adam_m.count != k.params.count || k.adam_v.count != k.params.count)
    throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: the optimizer moments do not match the parameters in size"));
  if (val_steps.count != val_losses.count) throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: validation steps and losses differ in number"));
  check_history(k, k.params.count, val_steps.count);
  check_checksum(bytes, n);
  // seq2seq runs also keep the translation metrics of every evaluation
  const Span exact = optional_section("val_exact_match", 'f'), cer = optional_section("val_cer", 'f');
  if ((exact.data && exact.count != val_steps.count) || (cer.data && cer.count != val_steps.count))
    throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: validation metrics and losses differ in number"));
  k.val.resize(size_t(val_steps.count));
  for (size_t i = 0; i < k.val.size(); i++) {
    int64_t step;
    std::memcpy(&step, val_steps.data + 8 * i, 8);
    std::memcpy(&k.val[i].loss, val_losses.data + 4 * i, 4);
    if (exact.data) std::memcpy(&k.val[i].exact_match, exact.data + 4 * i, 4);
    if (cer.data) std::memcpy(&k.val[i].cer, cer.data + 4 * i, 4);
    k.val[i].step = step;
  }
  k.rnn_state = optional_section("rnn_state", 'f');
  read_tokenizer(k, optional_section("tokenizer", 'b'));
  if (!(k.tokens_per_byte >= 0.0 && k.tokens_per_byte < 1e6))
    throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: its tokens per byte is " + std::to_string(k.tokens_per_byte)));
  // the run's history for the page's views (watch.h), when it keeps one
  const Span meta = optional_section("history.meta", 'i');
  if (meta.data || std::any_of(sections.begin(), sections.end(), [](const Section& x) { return x.name == "history.meta"; })) {
    k.has_history = true;
    watch::History::Packed& p = k.history;
    auto read_into = [&](auto& out, const char* name, char dtype) {
      const Span sp = optional_section(name, dtype);
      out.resize(size_t(sp.count));
      if (sp.count) std::memcpy(out.data(), sp.data, size_t(sp.count) * dtype_size(dtype));
    };
    read_into(p.meta, "history.meta", 'i');
    read_into(p.probe, "history.probe", 'b');
    read_into(p.bytes, "history.bytes", 'b');
    read_into(p.tokens, "history.tokens", 'i');
    read_into(p.baselines, "history.baselines", 'f');
    read_into(p.steps, "history.steps", 'i');
    read_into(p.attention, "history.attention", 'b');
    read_into(p.embedding, "history.embedding", 'f');
    read_into(p.probe_loss, "history.probe_loss", 'f');
    read_into(p.position_loss, "history.position_loss", 'f');
  }
  return k;
}

Contents read(const uint8_t* bytes, size_t n) {
  if (n < 12 || !has_magic(bytes, n)) {
    if (n >= 8 && !has_magic(bytes, n))
      throw Error(coded("checkpoint.not_checkpoint", {}, "not a tinygpt checkpoint: the file does not start with the TGPTCKPT magic bytes"));
    throw Error(coded("checkpoint.too_short", {{"bytes", std::to_string(n)}},
                      "not a tinygpt checkpoint: the file is only " + std::to_string(n) + " bytes long"));
  }
  const uint32_t version = Reader(bytes, n, 8, "the header").u32();
  if (version == 1) return read_v1(bytes, n);
  if (version == 2) {
    if (n < 24) throw Error(coded("checkpoint.truncated", {}, "checkpoint is truncated: " + std::to_string(n) + " bytes"));
    return read_v2(bytes, n);
  }
  throw Error(coded("checkpoint.version", {{"version", std::to_string(version)}, {"supported", std::to_string(kVersion)}},
                    "checkpoint version " + std::to_string(version) + " is not supported (this build reads versions 1 and " +
                        std::to_string(kVersion) + ")"));
}

void copy_floats(float* dst, const Span& s) {
  if (s.count) std::memcpy(dst, s.data, size_t(s.count) * 4);
}

}  // namespace

void serialize_to(const train::Trainer& t, Sink& sink) {
  const Config& c = t.config();
  const size_t P = size_t(t.num_parameters());
  Writer w;
  w.out.insert(w.out.end(), kMagic, kMagic + 8);
  w.u32(kVersion);
  w.u32(0);  // header_bytes, filled in below
  const std::vector<FieldSpec>& schema = config_schema();
  w.u32(uint32_t(schema.size() + 12));
  for (const FieldSpec& f : schema) {
    if (f.type == FieldType::choice) w.text_field(f.name, field_text(c, f));
    else if (f.type == FieldType::real) w.real_field(f.name, f.get(c));
    else w.int_field(f.name, int64_t(f.get(c)));
  }
  const data::Rng::State rng = CheckpointAccess::data_rng(t);
  w.int_field("step", t.steps_done());
  w.int_field("adam_t", t.optimizer().t());
  for (int i = 0; i < 4; i++) w.u64_field("data_rng." + std::to_string(i), rng[size_t(i)]);
  w.u64_field("corpus_fingerprint", CheckpointAccess::corpus_fingerprint(t));
  w.u64_field("corpus_size", CheckpointAccess::corpus_size(t));
  w.int_field("schedule_from_step", t.schedule().from_step);
  w.real_field("schedule_from_lr", t.schedule().from_lr);
  w.real_field("lr_scale", t.lr_scale());
  w.real_field("tokens_per_byte", t.tokens_per_byte());

  const std::vector<train::ValPoint>& val = t.val_losses();
  std::vector<int64_t> val_steps;
  std::vector<float> val_losses, val_exact, val_cer;
  for (const train::ValPoint& v : val) {
    val_steps.push_back(v.step), val_losses.push_back(v.loss);
    val_exact.push_back(v.exact_match), val_cer.push_back(v.cer);
  }
  const bool metrics = is_translator(c.model);
  // a section: its elements in one or more pieces (the history's are its snapshots' own arrays,
  // written where they are: no packed copy)
  struct Piece {
    const void* data;
    size_t bytes;
  };
  struct Out {
    const char* name;
    char dtype;
    uint64_t count;
    std::vector<Piece> pieces;
    Out(const char* n, char d, uint64_t c, const void* p) : name(n), dtype(d), count(c), pieces{{p, size_t(c) * dtype_size(d)}} {}
    Out(const char* n, char d, std::vector<Piece> ps) : name(n), dtype(d), count(0), pieces(std::move(ps)) {
      size_t b = 0;
      for (const Piece& p : pieces) b += p.bytes;
      count = b / dtype_size(d);
    }
  };
  std::vector<Out> sections = {
      {"params", 'f', P, t.params()},
      {"adam_m", 'f', P, t.optimizer().m().data()},
      {"adam_v", 'f', P, t.optimizer().v().data()},
      {"train_losses", 'f', t.train_losses().size(), t.train_losses().data()},
      {"val_steps", 'i', val_steps.size(), val_steps.data()},  // 8-byte elements: keep 4-byte alignment below
      {"val_losses", 'f', val_losses.size(), val_losses.data()},
  };
  if (metrics) {
    sections.push_back({"val_exact_match", 'f', val_exact.size(), val_exact.data()});
    sections.push_back({"val_cer", 'f', val_cer.size(), val_cer.data()});
  }
  // a stateful recurrent run continues from the hidden state its last window left
  const std::vector<float> carried = t.carried_state();
  if (!carried.empty()) sections.push_back({"rnn_state", 'f', carried.size(), carried.data()});
  // the run's history (watch.h): 8-byte and 1-byte sections last, so every f32 stays aligned
  watch::History::Packed h;  // the small sections, packed; the snapshots' arrays as pieces
  if (t.history().enabled()) {
    h = t.history().pack(/*snapshots=*/false);
    const watch::History::Pieces big = t.history().pieces();
    auto pieces = [](const std::vector<watch::History::Piece>& v) {
      std::vector<Piece> out;
      for (const watch::History::Piece& p : v) out.push_back({p.data, p.bytes});
      return out;
    };
    sections.push_back({"history.baselines", 'f', h.baselines.size(), h.baselines.data()});
    sections.push_back({"history.embedding", 'f', pieces(big.embedding)});
    sections.push_back({"history.probe_loss", 'f', pieces(big.probe_loss)});
    sections.push_back({"history.position_loss", 'f', pieces(big.position_loss)});
    sections.push_back({"history.meta", 'i', h.meta.size(), h.meta.data()});
    sections.push_back({"history.steps", 'i', h.steps.size(), h.steps.data()});
    if (!h.tokens.empty()) sections.push_back({"history.tokens", 'i', h.tokens.size(), h.tokens.data()});
    sections.push_back({"history.probe", 'b', h.probe.size(), h.probe.data()});
    sections.push_back({"history.bytes", 'b', h.bytes.size(), h.bytes.data()});
    sections.push_back({"history.attention", 'b', pieces(big.attention)});
  }
  // the run's tokenizer (tokenizer bpe), in its compact form
  std::vector<uint8_t> tokenizer;
  if (t.tokenizer()) {
    tokenizer = t.tokenizer()->serialize();
    sections.push_back({"tokenizer", 'b', tokenizer.size(), tokenizer.data()});
  }
  w.u32(uint32_t(sections.size()));
  uint64_t offset = 0;
  auto align4 = [](uint64_t x) { return (x + 3) & ~uint64_t(3); };  // every section starts at a multiple of 4
  for (const Out& s : sections) {
    offset = align4(offset);
    w.name(s.name);
    w.u8(uint8_t(s.dtype));
    w.u64(s.count);
    w.u64(offset);
    offset += s.count * dtype_size(s.dtype);
  }
  while (w.out.size() % 4) w.u8(0);
  const uint32_t header_bytes = uint32_t(w.out.size());
  for (int i = 0; i < 4; i++) w.out[12 + size_t(i)] = uint8_t(header_bytes >> (8 * i));
  // the data: each section at its offset (zero padding after a section of bytes), then the crc32
  sink.begin(size_t(header_bytes) + size_t(offset) + 4);
  uint32_t crc = kCrc32Start;
  auto put = [&](const void* p, size_t n) {
    if (!n) return;
    crc = crc32_update(crc, static_cast<const uint8_t*>(p), n);
    sink.write(static_cast<const uint8_t*>(p), n);
  };
  put(w.out.data(), w.out.size());
  uint64_t at = 0;
  const uint8_t zeros[4] = {0, 0, 0, 0};
  for (const Out& s : sections) {
    put(zeros, size_t(align4(at) - at));
    at = align4(at);
    for (const Piece& p : s.pieces) put(p.data, p.bytes);
    at += s.count * dtype_size(s.dtype);
  }
  uint8_t tail[4];
  const uint32_t sum = crc32_final(crc);
  for (int i = 0; i < 4; i++) tail[i] = uint8_t(sum >> (8 * i));
  sink.write(tail, 4);
}

std::vector<uint8_t> serialize(const train::Trainer& t) {
  struct Bytes : Sink {
    std::vector<uint8_t> out;
    void begin(size_t total) override { out.reserve(total); }
    void write(const uint8_t* b, size_t n) override { out.insert(out.end(), b, b + n); }
  } sink;
  serialize_to(t, sink);
  return std::move(sink.out);
}

std::unique_ptr<train::Trainer> deserialize(const uint8_t* bytes, size_t n, int64_t memory_limit) {
  Contents k = read(bytes, n);
  // Everything checks out structurally: build the trainer, then fill it.
  auto t = std::make_unique<train::Trainer>(k.config, memory_limit);
  const size_t P = size_t(k.params.count);
  copy_floats(t->params(), k.params);
  copy_floats(t->optimizer().m().data(), k.adam_m);
  copy_floats(t->optimizer().v().data(), k.adam_v);
  std::vector<float> train_losses(size_t(k.train_losses.count));
  copy_floats(train_losses.data(), k.train_losses);
  auto check_finite = [&](const float* p, size_t count, const char* what) {
    for (size_t i = 0; i < count; i++)
      if (!std::isfinite(p[i])) {
        std::string where;
        if (p == t->params())
          for (const model::ParamInfo& info : t->param_table())
            if (int64_t(i) >= info.offset && int64_t(i) < info.offset + info.shape.numel()) where = " (in " + info.name + ")";
        throw Error(coded("checkpoint.not_finite", {}, std::string("checkpoint contains NaN or Inf values in ") + what + " at index " + std::to_string(i) + where));
      }
  };
  check_finite(t->params(), P, "the parameters");
  check_finite(t->optimizer().m().data(), P, "the optimizer's first moments");
  check_finite(t->optimizer().v().data(), P, "the optimizer's second moments");
  check_finite(train_losses.data(), train_losses.size(), "the loss history");
  for (const train::ValPoint& p : k.val)
    if (!std::isfinite(p.loss)) throw Error(coded("checkpoint.not_finite", {}, "checkpoint contains NaN or Inf values in the validation history"));
  watch::History history;
  if (k.has_history) {
    history = watch::History::unpack(k.history, k.step);
    const watch::Layout& l = history.layout();
    const watch::Layout want = watch::layout_of(k.config);
    if (l.kind != want.kind || l.NH != want.NH || l.L != want.L || l.Le != want.Le)
      throw Error(coded("checkpoint.inconsistent", {}, "checkpoint has a damaged run history: its attention maps do not fit the model's layers and heads"));
    for (const int32_t id : history.tokens())
      if (id >= k.config.vocab_size)
        throw Error(coded("checkpoint.inconsistent", {}, "checkpoint has a damaged run history: a token of its probe or map is outside the vocabulary"));
  }
  if (k.rnn_state.count) {
    std::vector<float> state(size_t(k.rnn_state.count));
    copy_floats(state.data(), k.rnn_state);
    check_finite(state.data(), state.size(), "the carried hidden state");
    const Config& c = k.config;
    const size_t want = is_recurrent(c.model) && c.stateful
                            ? size_t(c.n_layer) * c.batch_size * c.n_hidden * (c.model == ModelKind::lstm ? 2 : 1)
                            : 0;
    if (state.size() != want)
      throw Error(coded("checkpoint.inconsistent", {}, "checkpoint is inconsistent: its carried hidden state does not fit the model"));
    t->set_carried_state(state);
  }
  t->optimizer().set_t(k.adam_t);
  CheckpointAccess::restore(*t, k.step, k.rng, k.fingerprint, k.corpus_size, k.schedule, k.lr_scale,
                            std::move(train_losses), std::move(k.val), std::move(history));
  CheckpointAccess::restore_tokenizer(*t, k.tokenizer, k.tokens_per_byte);
  return t;
}

Summary describe(const uint8_t* bytes, size_t n) {
  const Contents k = read(bytes, n);
  Summary s;
  s.version = k.version;
  s.config = k.config;
  s.step = k.step;
  s.corpus_fingerprint = k.fingerprint;
  s.corpus_size = k.corpus_size;
  s.num_parameters = int64_t(k.params.count);
  s.history_snapshots = k.has_history && k.history.steps.size() ? int64_t(k.history.steps.size()) : 0;
  s.tokenizer_fingerprint = k.tokenizer ? k.tokenizer->fingerprint() : 0;
  s.tokens_per_byte = k.tokens_per_byte;
  return s;
}

}  // namespace tinygpt::ckpt

namespace tinygpt::train {

std::vector<uint8_t> Trainer::save() const { return ckpt::serialize(*this); }

std::unique_ptr<Trainer> Trainer::load(const uint8_t* bytes, size_t n, int64_t memory_limit) {
  return ckpt::deserialize(bytes, n, memory_limit);
}

}  // namespace tinygpt::train
