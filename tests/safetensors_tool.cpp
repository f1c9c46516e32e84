// safetensors_tool.cpp — the C++ side of the Python package's tests (python/tests): the core's
// safetensors reader/writer and model, driven from the command line.
//
//   safetensors_tool check FILE                 parse strictly; exit 1 with the message on refusal
//   safetensors_tool check-many < LIST          one path a line; prints "ok" or "error: MESSAGE" per file
//   safetensors_tool copy IN OUT                parse IN, write its tensors and metadata again to OUT
//   safetensors_tool example OUT                the example file (every dtype, metadata with escapes)
//   safetensors_tool model-init OUT L NH C T SEED   a core-initialised model (config in the metadata)
//   safetensors_tool rnn-init OUT KIND L E H SEED   a core-initialised recurrent model (rnn, gru, lstm)
//   safetensors_tool model-flat MODEL OUT       the model's parameter block as one tensor "params"
//   safetensors_tool model-logits MODEL TOKENS OUT   logits "logits" (B, T, 256) of tokens "tokens" I32 (B, T);
//                                               MODEL: a model file or a checkpoint
//   safetensors_tool ckpt-check-many < LIST     one checkpoint path a line: "ok" or "error: MESSAGE" (Trainer::load)
//   safetensors_tool ckpt-batches CKPT DATA N OUT   the next N training batches of the checkpoint's data generator
//                                               on corpus DATA ("x.K", "y.K" I32 (B, T)) and validation batches
//                                               0 and 1 ("val_x.K", "val_y.K"), plus "rng" U64 (4): the state after
//   safetensors_tool ckpt-lr CKPT MAX_ITERS N OUT   the learning rate of steps 0..N-1 ("lr" F32 (N)) after the schedule
//                                               is moved to end at MAX_ITERS (Trainer::update_field; 0 = as it is)
//
// A model file's config travels in its metadata under the schema's names (safetensors::config_metadata).
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/checkpoint.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/model.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/tensor.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;
namespace st = tinygpt::safetensors;

namespace {

// The example file's tensors: every byte-sized dtype, shape (2, 3), bytes 0x00, 0x11, ... with a
// dtype-dependent start; also a scalar and an empty tensor. python/tests/test_safetensors.py
// builds the same content.
std::vector<st::TensorData> example(std::vector<std::vector<uint8_t>>& storage) {
  const char* names[] = {"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16",
                         "F16", "BF16", "I32", "U32", "F32", "C64", "F64", "I64", "U64"};
  std::vector<st::TensorData> out;
  storage.clear();
  storage.reserve(std::size(names) + 2);
  for (size_t k = 0; k < std::size(names); k++) {
    st::Dtype d;
    st::parse_dtype(names[k], &d);
    std::vector<uint8_t> bytes(6 * st::dtype_size(d));
    for (size_t i = 0; i < bytes.size(); i++) bytes[i] = d == st::Dtype::BOOL ? uint8_t(i % 2) : uint8_t(k * 7 + i * 0x11);
    storage.push_back(bytes);
    out.push_back({std::string("t.") + names[k], d, {2, 3}, storage.back().data(), storage.back().size()});
  }
  const float scalar = 3.25f;
  storage.push_back(std::vector<uint8_t>(4));
  std::memcpy(storage.back().data(), &scalar, 4);
  out.push_back({"scalar", st::Dtype::F32, {}, storage.back().data(), 4});
  out.push_back({"empty \xe4\xb8\xad\xe6\x96\x87", st::Dtype::F32, {0, 4}, nullptr, 0});
  return out;
}

const st::Metadata kExampleMetadata = {
    {"format", "pt"}, {"note", "quote \" backslash \\ newline \n tab \t bell \x07 \xc3\xa9 \xe4\xb8\xad"}, {"\xc3\xa9", "key"}};

// A trainer holding the model of a checkpoint or of a model file.
std::unique_ptr<train::Trainer> load_trainer(const std::string& path) {
  const std::vector<uint8_t> bytes = io::read_file(path);
  if (ckpt::has_magic(bytes.data(), bytes.size())) return train::Trainer::load(bytes.data(), bytes.size());
  const st::File file = st::parse(bytes.data(), bytes.size());
  return st::start_run(file, st::config_from_metadata(file.metadata));
}

void put_ints(std::vector<st::TensorData>& out, std::vector<std::vector<int32_t>>& storage, const std::string& name,
              const std::vector<int32_t>& v, int B, int T) {
  storage.push_back(v);
  out.push_back({name, st::Dtype::I32, {uint64_t(B), uint64_t(T)}, storage.back().data(), v.size() * 4});
}

int run(const std::vector<std::string>& a) {
  const std::string cmd = a.empty() ? "" : a[0];
  if (cmd == "check" && a.size() == 2) {
    const auto bytes = st::read_file(a[1]);
    const st::File f = st::parse(bytes.data(), bytes.size());
    std::printf("ok: %zu tensors, %zu metadata entries\n", f.tensors.size(), f.metadata.size());
    return 0;
  }
  if (cmd == "check-many" && a.size() == 1) {
    std::string path;
    while (std::getline(std::cin, path)) {
      try {
        const auto bytes = io::read_file(path);
        st::parse(bytes.data(), bytes.size());
        std::printf("ok\n");
      } catch (const Error& e) {
        std::string m = e.what();
        for (char& c : m)
          if (c == '\n') c = ' ';
        std::printf("error: %s\n", m.c_str());
      }
    }
    return 0;
  }
  if (cmd == "copy" && a.size() == 3) {
    const auto bytes = st::read_file(a[1]);
    const st::File f = st::parse(bytes.data(), bytes.size());
    std::vector<st::TensorData> t;
    for (const st::TensorView& v : f.tensors) t.push_back({v.name, v.dtype, v.shape, v.data, v.nbytes});
    st::write_file(a[2], t, f.metadata);
    return 0;
  }
  if (cmd == "example" && a.size() == 2) {
    std::vector<std::vector<uint8_t>> storage;
    st::write_file(a[1], example(storage), kExampleMetadata);
    return 0;
  }
  if (cmd == "model-init" && a.size() == 7) {
    Config c;
    c.n_layer = std::stoi(a[2]), c.n_head = std::stoi(a[3]), c.n_embd = std::stoi(a[4]), c.block_size = std::stoi(a[5]);
    c.seed = std::stoull(a[6]);
    const train::Trainer t(c);  // the core's initialisation from the seed
    io::write_file(a[1], st::export_model(t));
    return 0;
  }
  if (cmd == "rnn-init" && a.size() == 7) {
    Config c;
    set_field_text(c, field("model"), a[2]);
    c.n_layer = std::stoi(a[3]), c.n_embd = std::stoi(a[4]), c.n_hidden = std::stoi(a[5]);
    c.seed = std::stoull(a[6]);
    const train::Trainer t(c);
    io::write_file(a[1], st::export_model(t));
    return 0;
  }
  if (cmd == "model-flat" && a.size() == 3) {
    const auto t = load_trainer(a[1]);  // any kind: the trainer's parameter block
    st::write_file(a[2], {{"params", st::Dtype::F32, {uint64_t(t->num_parameters())}, t->params(),
                           size_t(t->num_parameters()) * 4}});
    return 0;
  }
  if (cmd == "model-logits" && a.size() == 4) {
    const auto t = load_trainer(a[1]);
    const auto token_bytes = st::read_file(a[2]);
    const st::File tf = st::parse(token_bytes.data(), token_bytes.size());
    const st::TensorView& tv = tf.at("tokens");
    if (tv.dtype != st::Dtype::I32 || tv.shape.size() != 2) throw Error("'tokens' must be I32 (B, T)");
    const int B = int(tv.shape[0]), T = int(tv.shape[1]);
    std::vector<int32_t> tokens(size_t(B) * T);
    std::memcpy(tokens.data(), tv.data, tv.nbytes);
    for (int32_t t : tokens)
      if (t < 0 || t > 255) throw Error("token " + std::to_string(t) + " is not a byte");
    nn::Arena arena;
    nn::GradMode no_grad(false);
    const nn::Tensor logits = is_recurrent(t->kind()) ? t->recurrent().forward_logits(arena, tokens.data(), B, T)
                                                      : t->model().forward_logits(arena, tokens.data(), B, T);  // (B, T, V)
    st::write_file(a[3], {{"logits", st::Dtype::F32, {uint64_t(B), uint64_t(T), 256}, logits.data(),
                           size_t(logits.numel()) * 4}});
    return 0;
  }
  if (cmd == "ckpt-check-many" && a.size() == 1) {
    std::string path;
    while (std::getline(std::cin, path)) {
      try {
        const auto bytes = io::read_file(path);
        train::Trainer::load(bytes.data(), bytes.size());
        std::printf("ok\n");
      } catch (const Error& e) {
        std::string m = e.what();
        for (char& c : m)
          if (c == '\n') c = ' ';
        std::printf("error: %s\n", m.c_str());
      }
    }
    return 0;
  }
  if (cmd == "ckpt-batches" && a.size() == 5) {
    const auto bytes = io::read_file(a[1]);
    auto t = train::Trainer::load(bytes.data(), bytes.size());
    t->set_corpus(io::read_file(a[2]));  // the dataset continues from the checkpoint's generator state
    // the trainer owns a non-const dataset and is not used again: sampling from it here is the next step's draw
    data::Dataset* ds = &const_cast<data::Dataset&>(t->dataset());
    const int B = t->config().batch_size, T = t->config().block_size, n = std::stoi(a[3]);
    std::vector<st::TensorData> out;
    std::vector<std::vector<int32_t>> storage;
    storage.reserve(size_t(2 * n + 4));
    data::Batch batch;
    for (int k = 0; k < n; k++) {
      ds->sample_batch(B, T, batch);
      put_ints(out, storage, "x." + std::to_string(k), batch.x, B, T);
      put_ints(out, storage, "y." + std::to_string(k), batch.y, B, T);
    }
    for (int k = 0; k < 2; k++) {
      ds->val_batch(k, B, T, batch);
      put_ints(out, storage, "val_x." + std::to_string(k), batch.x, B, T);
      put_ints(out, storage, "val_y." + std::to_string(k), batch.y, B, T);
    }
    const data::Rng::State rng = ds->rng_state();
    out.push_back({"rng", st::Dtype::U64, {4}, rng.data(), 32});
    st::write_file(a[4], out);
    return 0;
  }
  if (cmd == "ckpt-lr" && a.size() == 5) {
    const auto bytes = io::read_file(a[1]);
    auto t = train::Trainer::load(bytes.data(), bytes.size());
    if (std::stoi(a[2]) > 0) t->update_field("max_iters", std::stod(a[2]));
    std::vector<float> lr(size_t(std::stoi(a[3])));
    for (size_t s = 0; s < lr.size(); s++) lr[s] = t->schedule().lr_at(int64_t(s));
    st::write_file(a[4], {{"lr", st::Dtype::F32, {uint64_t(lr.size())}, lr.data(), lr.size() * 4}});
    return 0;
  }
  std::fprintf(stderr, "usage: see the top of tests/safetensors_tool.cpp\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
