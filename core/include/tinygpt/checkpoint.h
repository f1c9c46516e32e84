// checkpoint.h — one versioned, little-endian file that resumes a run exactly.
//
// Layout (version 2). Integers little-endian; f32/f64 IEEE-754 little-endian.
//   magic          8 bytes  "TGPTCKPT"
//   version        u32      2
//   header_bytes   u32      bytes from the start of the file to the payload (a multiple of 4)
//   fields         u32 count, then for each: u8 name length, name (ASCII), u8 type, value, where
//                  type 'i' = i64, 'u' = u64, 'f' = f64, 's' = u32 length + UTF-8 bytes
//   sections       u32 count, then for each: u8 name length, name, u8 dtype ('f' = f32,
//                  'i' = i64, 'b' = u8), u64 element count, u64 offset in bytes from the payload start
//   zero padding up to header_bytes
//   payload        the sections, each starting at a multiple of 4 bytes (zero padding after a
//                  section of 'b' bytes), in any order, not overlapping
//   checksum       u32 CRC-32 (IEEE) of every byte before it
//
// Fields: every field of the config schema under its own name (config.h; choices as 's', integers
// as 'i', reals as 'f'), then the run's state:
//   step, adam_t (i64); data_rng (four u64: data_rng.0 .. data_rng.3); corpus_fingerprint (u64,
//   FNV-1a 64), corpus_size (u64); schedule_from_step (i64), schedule_from_lr (f64) (see
//   optim::Schedule::extended); lr_scale (f64, 1 unless the NaN guard halved it: train::Trainer::roll_back);
//   tokens_per_byte (f64: of the validation text, train::Trainer::tokens_per_byte; 0 = not known).
// Sections: params, adam_m, adam_v (f32, one per parameter, in the model's param_table order);
//   train_losses (f32, one per step); val_steps (i64) and val_losses (f32), one per evaluation;
//   seq2seq runs add val_exact_match and val_cer (f32, one per evaluation) (lstm_seq2seq too).
//   A stateful recurrent run (rnn.h) adds rnn_state (f32): the hidden state its last training window
//   left, (L, B, H) h then (L, B, H) c for the LSTM (train::Trainer::carried_state).
//   A run that keeps a history for the page's views (train::Trainer::start_history, watch.h)
//   adds history.meta, history.probe, history.bytes, history.baselines, history.steps,
//   history.attention, history.embedding, history.probe_loss and history.position_loss, and
//   a BPE language model's history.tokens (watch::History::Packed says what each holds); a build that does not know them skips them,
//   and `tinygpt train --resume` carries them on (and adds to them).
//   A tokenizer bpe run adds tokenizer ('b'): its tokenizer in the compact form (tok::Tokenizer::serialize,
//   docs/tokenizer.md), so that the run reads and writes text as it was trained. Loading refuses a bpe
//   run without it (checkpoint.tokenizer_missing), one whose tokenizer does not read back or does
//   not have vocab_size tokens (checkpoint.tokenizer_damaged), and a bytes run with one.
// A config field missing from a file takes the schema's default (files written before the field
// existed); a config field this build does not know is refused (the file is from a newer build and
// could mean something this one cannot do). Sections this build does not know are skipped.
//
// Version 1 files (a fixed binary header, read by read_v1 in checkpoint.cpp) still load.
//
// Loading checks, in order: size and magic, version, header structure (every length and offset in
// bounds, sections inside the payload and not overlapping), the config (schema ranges and rules),
// parameter count against the config, history consistency (one loss per step, adam_t <= step,
// validation points <= step + 1), total size, checksum, then every float for NaN/Inf. Each failure
// throws tinygpt::Error with its own message; nothing is changed until everything passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tinygpt/config.h"

namespace tinygpt::train {
class Trainer;
}

namespace tinygpt::ckpt {

constexpr char kMagic[8] = {'T', 'G', 'P', 'T', 'C', 'K', 'P', 'T'};
constexpr uint32_t kVersion = 2;

std::vector<uint8_t> serialize(const train::Trainer& trainer);
// The same bytes, handed to `write` in pieces and in order after `begin(total)` gives their number:
// the checkpoint is never held whole in this memory (the page writes the pieces into a JS buffer,
// so that a save, whose size grows with the run's history, allocates nothing on the wasm heap).
struct Sink {
  virtual ~Sink() = default;
  virtual void begin(size_t total_bytes) = 0;
  virtual void write(const uint8_t* bytes, size_t n) = 0;
};
void serialize_to(const train::Trainer& trainer, Sink& sink);
std::unique_ptr<train::Trainer> deserialize(const uint8_t* bytes, size_t n, int64_t memory_limit);

// What a checkpoint holds, read from its header without building the model (for the page's
// "Loading run.ckpt: 4 layers ..., step 750" and the CLI). Checks the structure and the checksum;
// throws tinygpt::Error with the same messages as deserialize.
struct Summary {
  uint32_t version = 0;
  Config config;
  int64_t step = 0;
  uint64_t corpus_fingerprint = 0;
  uint64_t corpus_size = 0;
  int64_t num_parameters = 0;
  int64_t history_snapshots = 0;  // snapshots in the run's history (0: none kept)
  uint64_t tokenizer_fingerprint = 0;  // tokenizer bpe: tok::Tokenizer::fingerprint of its section (0: bytes)
  double tokens_per_byte = 0.0;        // of the validation text (0: not kept)
};
Summary describe(const uint8_t* bytes, size_t n);

// True if the bytes start with the magic (the file claims to be a checkpoint).
bool has_magic(const uint8_t* bytes, size_t n);

uint32_t crc32(const uint8_t* bytes, size_t n);
// crc32 over pieces: crc32_final(crc32_update(crc32_update(kCrc32Start, a), b)) == crc32(a + b).
constexpr uint32_t kCrc32Start = 0xFFFFFFFFu;
uint32_t crc32_update(uint32_t state, const uint8_t* bytes, size_t n);
inline uint32_t crc32_final(uint32_t state) { return state ^ 0xFFFFFFFFu; }

}  // namespace tinygpt::ckpt
