// safetensors_tool.cpp — the C++ side of the Python package's tests (python/tests): the core's
// safetensors reader/writer and model, driven from the command line.
//
//   safetensors_tool check FILE                 parse strictly; exit 1 with the message on refusal
//   safetensors_tool check-many < LIST          one path a line; prints "ok" or "error: MESSAGE" per file
//   safetensors_tool copy IN OUT                parse IN, write its tensors and metadata again to OUT
//   safetensors_tool example OUT                the example file (every dtype, metadata with escapes)
//   safetensors_tool model-init OUT L NH C T SEED   a core-initialised model (config in the metadata)
//   safetensors_tool model-flat MODEL OUT       the model's parameter block as one tensor "params"
//   safetensors_tool model-logits MODEL TOKENS OUT   logits "logits" (B, T, 256) of tokens "tokens" I32 (B, T)
//
// The model's config travels in the metadata as n_layer, n_head, n_embd, block_size (provisional
// names, the same as python/tinygpt/model.py's Config.to_metadata).
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/model.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/tensor.h"

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

Config config_of(const st::Metadata& meta) {
  const auto get = [&](const char* key) {
    const auto it = meta.find(key);
    if (it == meta.end()) throw Error(std::string("the model file's metadata has no '") + key + "'");
    return std::stoi(it->second);
  };
  Config c;
  c.n_layer = get("n_layer"), c.n_head = get("n_head"), c.n_embd = get("n_embd"), c.block_size = get("block_size");
  return c;
}

std::unique_ptr<model::TinyGPT> load_model(const std::string& path, std::vector<uint8_t>& bytes) {
  bytes = st::read_file(path);
  const st::File file = st::parse(bytes.data(), bytes.size());
  auto m = std::make_unique<model::TinyGPT>(config_of(file.metadata));
  st::load_model(file, *m);
  return m;
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
    model::TinyGPT m(c);
    const st::Metadata meta = {{"format", "tinygpt"},          {"n_layer", a[2]},   {"n_head", a[3]},
                               {"n_embd", a[4]},               {"block_size", a[5]}, {"vocab_size", "256"}};
    io::write_file(a[1], st::serialize_model(m, meta));
    return 0;
  }
  if (cmd == "model-flat" && a.size() == 3) {
    std::vector<uint8_t> bytes;
    const auto m = load_model(a[1], bytes);
    st::write_file(a[2], {{"params", st::Dtype::F32, {uint64_t(m->num_parameters())}, m->params(),
                           size_t(m->num_parameters()) * 4}});
    return 0;
  }
  if (cmd == "model-logits" && a.size() == 4) {
    std::vector<uint8_t> model_bytes;
    const auto m = load_model(a[1], model_bytes);
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
    const nn::Tensor logits = m->forward_logits(arena, tokens.data(), B, T);  // (B, T, V)
    st::write_file(a[3], {{"logits", st::Dtype::F32, {uint64_t(B), uint64_t(T), 256}, logits.data(),
                           size_t(logits.numel()) * 4}});
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
