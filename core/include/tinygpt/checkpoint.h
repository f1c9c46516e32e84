// checkpoint.h — one versioned, little-endian file that resumes a run exactly.
//
// Layout (version 1); u32/u64 little-endian integers, f32 IEEE-754 little-endian:
//   magic            8 bytes  "TGPTCKPT"
//   version          u32      1
//   model config     u32 n_layer, n_head, n_embd, block_size, vocab_size; u64 seed
//   train config     u32 batch_size; f32 lr, min_lr; u32 warmup, steps;
//                    f32 weight_decay, beta1, beta2, eps, grad_clip; u32 eval_batches
//   progress         u64 step, adam_t; u64 data_rng[4]
//   corpus           u64 fingerprint (FNV-1a 64), u64 size in bytes
//   counts           u64 n_params, n_train_losses, n_val_points
//   payload          f32 params[n_params], adam_m[n_params], adam_v[n_params]
//                    f32 train_losses[n_train_losses]
//                    (u64 step, f32 loss)[n_val_points]
//   checksum         u32 CRC-32 (IEEE) of every byte before it
//
// Loading checks, in order: size and magic, version, header size, vocabulary, config validity,
// parameter count against the config, history consistency (one loss per step, adam_t <= step,
// validation points <= step + 1), total size, checksum, then every float for NaN/Inf. Each failure
// throws tinygpt::Error with its own message; nothing is changed until everything passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tinygpt::train {
class Trainer;
}

namespace tinygpt::ckpt {

constexpr char kMagic[8] = {'T', 'G', 'P', 'T', 'C', 'K', 'P', 'T'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 8 + 4 + 5 * 4 + 8 + (4 + 2 * 4 + 2 * 4 + 5 * 4 + 4) + (8 + 8 + 4 * 8) + 16 + 24;

std::vector<uint8_t> serialize(const train::Trainer& trainer);
std::unique_ptr<train::Trainer> deserialize(const uint8_t* bytes, size_t n, int64_t memory_limit);

uint32_t crc32(const uint8_t* bytes, size_t n);

}  // namespace tinygpt::ckpt
