// test_export.cpp — the writers of export.h, by their structure: the protobuf wire format against
// bytes worked out by hand, the ONNX model's messages read back field by field (IR version, opset,
// inputs and outputs of the GPT-2 layout with their dimensions, every weight once with its shape and
// bytes, every node's inputs defined before it), the CLI's formats. The runtimes themselves run the
// files in tests/wasm/export*.test.mjs (onnxruntime-node, transformers.js, node-llama-cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "protobuf.h"
#include "test_util.h"
#include "tinygpt/error.h"
#include "tinygpt/export.h"
#include "tinygpt/model.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/tokenizer.h"
#include "tinygpt/trainer.h"
#include "tokenizer_impl.h"

using namespace tinygpt;

namespace {

Config awkward_config() {
  Config c;
  c.n_layer = 3, c.n_head = 3, c.n_embd = 12, c.block_size = 13, c.seed = 7;
  return c;
}

std::vector<pb::Field> fields(const pb::Field& f) { return pb::read_fields(f.data, f.size); }

std::vector<pb::Field> numbered(const std::vector<pb::Field>& all, int number) {
  std::vector<pb::Field> out;
  for (const pb::Field& f : all)
    if (f.number == number) out.push_back(f);
  return out;
}

std::string text_of(const std::vector<pb::Field>& all, int number) {
  const auto f = numbered(all, number);
  return f.empty() ? "" : std::string(f[0].text());
}

// A ValueInfoProto as "name: type [dims]" with symbolic dims by name.
std::string value_info(const pb::Field& vi) {
  const auto v = fields(vi);
  const auto type = fields(numbered(v, 2)[0]);    // TypeProto
  const auto tensor = fields(numbered(type, 1)[0]);  // TypeProto.Tensor
  std::string s = text_of(v, 1) + ": " + std::to_string(numbered(tensor, 1)[0].value) + " [";
  for (const pb::Field& d : numbered(fields(numbered(tensor, 2)[0]), 1)) {
    const auto dim = fields(d);
    s += numbered(dim, 1).empty() ? text_of(dim, 2) : std::to_string(numbered(dim, 1)[0].value);
    s += ", ";
  }
  return s.substr(0, s.size() - 2) + "]";
}

}  // namespace

TEST_CASE("protobuf writer encodes varints, tags and lengths as the reference does", "[export]") {
  pb::Writer w;
  w.int64(1, 150);  // the reference's own example: 08 96 01
  CHECK(w.data() == std::vector<uint8_t>{0x08, 0x96, 0x01});
  pb::Writer s;
  s.string(2, "testing");  // 12 07 74 65 73 74 69 6e 67
  CHECK(s.data() == std::vector<uint8_t>{0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'});
  pb::Writer neg;
  neg.int64(3, -1);  // a negative int64 is ten bytes: 18 ff ff ff ff ff ff ff ff ff 01
  CHECK(neg.data() == std::vector<uint8_t>{0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  pb::Writer f;
  f.float32(2, 1.0f);  // wire 5, 0x3f800000 little-endian
  CHECK(f.data() == std::vector<uint8_t>{0x15, 0x00, 0x00, 0x80, 0x3f});
  pb::Writer outer;
  outer.message(3, w);  // an embedded message: 1a 03 08 96 01
  CHECK(outer.data() == std::vector<uint8_t>{0x1a, 0x03, 0x08, 0x96, 0x01});

  const auto back = pb::read_fields(outer.data().data(), outer.size());
  REQUIRE(back.size() == 1);
  CHECK(back[0].number == 3);
  const auto inner = fields(back[0]);
  CHECK(inner[0].value == 150);
  const auto n = pb::read_fields(neg.data().data(), neg.size());
  CHECK(int64_t(n[0].value) == -1);
}

TEST_CASE("protobuf reader refuses bytes that are not a message", "[export]") {
  const auto error = [](std::vector<uint8_t> b) {
    try {
      pb::read_fields(b.data(), b.size());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  CHECK(error({0x12, 0x05, 'a'}) == "protobuf: a field runs past the end");
  CHECK(error({0x08, 0x96}) == "protobuf: a field runs past the end");
  // the start of a longer message: the whole fields before the cut
  const std::vector<uint8_t> cut = {0x08, 0x96, 0x01, 0x12, 0x05, 'a'};
  const auto head = pb::read_fields(cut.data(), cut.size(), true);
  REQUIRE(head.size() == 1);
  CHECK(head[0].value == 150);
  CHECK(error({0x0b}) == "protobuf: wire type 3 is not one this reader knows");
  CHECK(error({0x00, 0x01}) == "protobuf: field number 0");
  CHECK(error({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}) == "protobuf: a varint longer than 10 bytes");
}

TEST_CASE("ONNX export of the GPT has the Hugging Face GPT-2 layout, opset 17 and every weight once", "[export]") {
  const Config c = awkward_config();
  model::TinyGPT m(c);
  const std::vector<uint8_t> bytes = onnx::export_gpt(m);
  const auto model = pb::read_fields(bytes.data(), bytes.size());

  CHECK(numbered(model, 1)[0].value == 8);  // ir_version
  const auto opset = fields(numbered(model, 8)[0]);
  CHECK(text_of(opset, 1).empty());         // the default domain
  CHECK(numbered(opset, 2)[0].value == 17);
  std::map<std::string, std::string> meta;
  for (const pb::Field& e : numbered(model, 14)) meta[text_of(fields(e), 1)] = text_of(fields(e), 2);
  CHECK(meta["vocab_size"] == "256");
  CHECK(meta["n_layer"] == "3");

  const auto graph = fields(numbered(model, 7)[0]);
  std::vector<std::string> inputs, outputs;
  for (const pb::Field& f : numbered(graph, 11)) inputs.push_back(value_info(f));
  for (const pb::Field& f : numbered(graph, 12)) outputs.push_back(value_info(f));
  // elem_type 7 = int64, 1 = float
  CHECK(inputs == std::vector<std::string>{
                      "input_ids: 7 [batch_size, sequence_length]",
                      "attention_mask: 7 [batch_size, past_sequence_length + sequence_length]",
                      "position_ids: 7 [batch_size, sequence_length]",
                      "past_key_values.0.key: 1 [batch_size, 3, past_sequence_length, 4]",
                      "past_key_values.0.value: 1 [batch_size, 3, past_sequence_length, 4]",
                      "past_key_values.1.key: 1 [batch_size, 3, past_sequence_length, 4]",
                      "past_key_values.1.value: 1 [batch_size, 3, past_sequence_length, 4]",
                      "past_key_values.2.key: 1 [batch_size, 3, past_sequence_length, 4]",
                      "past_key_values.2.value: 1 [batch_size, 3, past_sequence_length, 4]"});
  REQUIRE(outputs.size() == 7);
  CHECK(outputs[0] == "logits: 1 [batch_size, sequence_length, 256]");
  CHECK(outputs[6] == "present.2.value: 1 [batch_size, 3, past_sequence_length + sequence_length, 4]");

  // every parameter is one float initializer with its shape and its bytes
  std::set<std::string> weights;
  std::set<std::string> defined(  // the graph's inputs
      {"input_ids", "attention_mask", "position_ids"});
  for (int l = 0; l < 3; l++)
    for (const char* kv : {".key", ".value"}) defined.insert("past_key_values." + std::to_string(l) + kv);
  for (const pb::Field& t : numbered(graph, 5)) {
    const auto tf = fields(t);
    const std::string name = text_of(tf, 8);
    defined.insert(name);
    if (numbered(tf, 2)[0].value != 1) continue;  // constants: int64 shapes and float scalars
    if (numbered(tf, 9).empty()) continue;        // float scalars (float_data)
    weights.insert(name);
    const model::ParamInfo& p = m.param_info(name);
    const auto dims = numbered(tf, 1);
    REQUIRE(int(dims.size()) == p.shape.ndim);
    for (int d = 0; d < p.shape.ndim; d++) CHECK(int64_t(dims[size_t(d)].value) == p.shape.dims[d]);
    const pb::Field raw = numbered(tf, 9)[0];
    REQUIRE(raw.size == size_t(p.shape.numel()) * 4);
    CHECK(std::memcmp(raw.data, m.params() + p.offset, raw.size) == 0);
  }
  CHECK(weights.size() == m.param_table().size());

  // nodes in an order that computes every input before it is used, from the ops of opset 17
  const std::set<std::string> ops = {"Gather", "Add", "Mul", "MatMul", "LayerNormalization", "Split", "Reshape", "Transpose",
                                     "Concat", "Softmax", "Where", "Tanh", "Shape", "Range", "LessOrEqual", "Unsqueeze",
                                     "Cast", "And", "Identity"};
  int nodes = 0;
  for (const pb::Field& n : numbered(graph, 1)) {
    const auto nf = fields(n);
    const std::string op = text_of(nf, 4);
    CHECK(ops.count(op) == 1);
    for (const pb::Field& in : numbered(nf, 1)) {
      INFO(op << " reads " << in.text());
      CHECK(defined.count(std::string(in.text())) == 1);
    }
    for (const pb::Field& out : numbered(nf, 2)) defined.insert(std::string(out.text()));
    nodes++;
  }
  CHECK(nodes > 3 * 30);  // about 40 nodes per block
  for (const char* out : {"logits", "present.0.key", "present.2.value"}) CHECK(defined.count(out) == 1);
}

TEST_CASE("export formats are named as the CLI takes them", "[export]") {
  CHECK(exporter::parse_format("onnx") == exporter::Format::onnx);
  CHECK(exporter::parse_format("gguf") == exporter::Format::gguf);
  CHECK_THROWS_WITH(exporter::parse_format("tflite"), "unknown export format 'tflite': the formats are safetensors, onnx, hf, gguf");
  CHECK(gguf::parse_type("q8_0") == gguf::Type::q8_0);
  CHECK_THROWS_WITH(gguf::parse_type("q4_0"), "unknown GGUF type 'q4_0': the types are f32, f16, q8_0");

  Config c = awkward_config();
  train::Trainer gpt(c);
  const auto files = exporter::export_model(gpt, exporter::Format::onnx);
  REQUIRE(files.size() == 1);
  CHECK(files[0].path == "model.onnx");
  CHECK(files[0].bytes == onnx::export_gpt(gpt.model()));
  const auto st = exporter::export_model(gpt, exporter::Format::safetensors);
  CHECK(st[0].path == "model.safetensors");
}

// ---- the GPT-2 layout (tie_weights) -----------------------------------------------------------------

TEST_CASE("the GPT-2 layout has no lm_head: its logits are those of an untied model whose head is wte^T", "[export][model]") {
  Config c = awkward_config();
  c.tie_weights = 1;
  model::TinyGPT tied(c);
  for (const model::ParamInfo& p : tied.param_table()) CHECK(p.name.rfind("lm_head", 0) != 0);
  Config u = c;
  u.tie_weights = 0;
  const int C = c.n_embd, V = 256;
  CHECK(num_parameters(c) == num_parameters(u) - (int64_t(C) * V + V));
  CHECK(tied.num_parameters() == num_parameters(c));

  // the same weights in an untied model, its head wte^T and a zero bias: the same logits
  model::TinyGPT untied(u);
  for (const model::ParamInfo& p : tied.param_table())
    std::memcpy(untied.params() + untied.param_info(p.name).offset, tied.params() + p.offset, size_t(p.shape.numel()) * 4);
  const float* wte = tied.params() + tied.param_info("wte").offset;  // (V, C)
  float* head = untied.params() + untied.param_info("lm_head.weight").offset;  // (C, V)
  for (int v = 0; v < V; v++)
    for (int i = 0; i < C; i++) head[i * V + v] = wte[v * C + i] * 3.0f;  // larger logits than the init's
  for (int v = 0; v < V; v++)
    for (int i = 0; i < C; i++) tied.params()[tied.param_info("wte").offset + v * C + i] *= 3.0f;
  for (int v = 0; v < V; v++)
    for (int i = 0; i < C; i++) untied.params()[untied.param_info("wte").offset + v * C + i] *= 3.0f;
  const int32_t tokens[9] = {84, 111, 32, 98, 101, 44, 32, 111, 114};
  nn::GradMode no_grad(false);
  nn::Arena a1, a2;
  const nn::Tensor lt = tied.forward_logits(a1, tokens, 1, 9), lu = untied.forward_logits(a2, tokens, 1, 9);  // (1, 9, V)
  double worst = 0;
  for (int64_t i = 0; i < lt.numel(); i++) worst = std::max(worst, double(std::fabs(lt.data()[i] - lu.data()[i])));
  CHECK(worst < 1e-5);
  // the KV-cache decoder agrees with the full forward pass
  model::KVCache cache;
  tied.reset_cache(cache);
  const float* last = tied.decode(cache, tokens, 9);
  for (int v = 0; v < V; v++) CHECK(last[v] == Approx(lt.data()[8 * V + v]).margin(1e-5));
}

TEST_CASE("the GPT-2 layout trains: the shared embedding gets the head's gradient too, and the loss falls", "[export][model]") {
  Config c = awkward_config();
  c.tie_weights = 1;
  c.batch_size = 8, c.max_iters = 60, c.warmup_iters = 5, c.learning_rate = 3e-3f;
  train::Trainer t(c);
  t.set_corpus(testutil::numbered_lines("the cat sat on the mat", 200));
  const float first = t.step();
  float last = first;
  for (int i = 1; i < 60; i++) last = t.step();
  INFO("loss " << first << " -> " << last);
  CHECK(last < first - 1.0f);
  // a checkpoint of it loads back with the same parameters and no lm_head
  const std::vector<uint8_t> saved = t.save();
  const auto back = train::Trainer::load(saved.data(), saved.size());
  CHECK(back->config().tie_weights == 1);
  CHECK(back->num_parameters() == t.num_parameters());
  CHECK(std::memcmp(back->params(), t.params(), size_t(t.num_parameters()) * 4) == 0);
}

// ---- GGUF ------------------------------------------------------------------------------------------

namespace {

// A GGUF file read back: its metadata (strings, and numbers as doubles) and tensor infos.
struct GgufRead {
  uint32_t version = 0;
  std::map<std::string, std::string> strings;
  std::map<std::string, double> numbers;
  std::map<std::string, std::vector<std::string>> string_arrays;
  struct Info {
    std::vector<uint64_t> ne;
    uint32_t type;
    uint64_t offset;
  };
  std::map<std::string, Info> tensors;
  std::vector<std::string> order;
  size_t data_start = 0;
};

GgufRead read_gguf(const std::vector<uint8_t>& b) {
  GgufRead r;
  size_t at = 0;
  const auto u32 = [&] { uint32_t v; std::memcpy(&v, b.data() + at, 4); at += 4; return v; };
  const auto u64 = [&] { uint64_t v; std::memcpy(&v, b.data() + at, 8); at += 8; return v; };
  const auto str = [&] { const uint64_t n = u64(); std::string s(reinterpret_cast<const char*>(b.data() + at), n); at += n; return s; };
  REQUIRE(std::string(reinterpret_cast<const char*>(b.data()), 4) == "GGUF");
  at = 4;
  r.version = u32();
  const uint64_t n_tensors = u64(), n_kv = u64();
  for (uint64_t i = 0; i < n_kv; i++) {
    const std::string key = str();
    const uint32_t type = u32();
    if (type == 8) r.strings[key] = str();
    else if (type == 4 || type == 5) r.numbers[key] = double(u32());
    else if (type == 6) { float f; std::memcpy(&f, b.data() + at, 4); at += 4; r.numbers[key] = f; }
    else if (type == 7) r.numbers[key] = b[at++];
    else if (type == 9) {
      const uint32_t et = u32();
      const uint64_t n = u64();
      for (uint64_t k = 0; k < n; k++) {
        if (et == 8) r.string_arrays[key].push_back(str());
        else at += 4;  // int32 elements
      }
      if (et != 8) r.numbers[key + ".count"] = double(n);
    } else FAIL("unexpected metadata type " << type);
  }
  for (uint64_t i = 0; i < n_tensors; i++) {
    const std::string name = str();
    GgufRead::Info info;
    const uint32_t nd = u32();
    for (uint32_t d = 0; d < nd; d++) info.ne.push_back(u64());
    info.type = u32();
    info.offset = u64();
    r.tensors[name] = info;
    r.order.push_back(name);
  }
  r.data_start = (at + 31) / 32 * 32;
  return r;
}

}  // namespace

TEST_CASE("half precision rounds to nearest even, keeps subnormals and saturates to infinity", "[export]") {
  CHECK(gguf::float_to_half(1.0f) == 0x3c00);
  CHECK(gguf::float_to_half(-2.0f) == 0xc000);
  CHECK(gguf::float_to_half(65504.0f) == 0x7bff);   // the largest half
  CHECK(gguf::float_to_half(65536.0f) == 0x7c00);   // beyond: infinity
  CHECK(gguf::float_to_half(0.1f) == 0x2e66);       // 0.0999755859375
  CHECK(gguf::float_to_half(5.9604645e-8f) == 0x0001);  // the smallest subnormal, 2^-24
  CHECK(gguf::float_to_half(1e-9f) == 0x0000);
  CHECK(gguf::float_to_half(1.0f + 1.0f / 2048) == 0x3c00);  // halfway between 1 and 1 + 2^-10: even (down)
  CHECK(gguf::float_to_half(1.0f + 3.0f / 2048) == 0x3c02);  // halfway between 1 + 2^-10 and 1 + 2^-9: even (up)
  CHECK(gguf::float_to_half(1e-5f) == 168);  // a subnormal: 1e-5 / 2^-24 = 167.8
  for (float f : {0.0f, 1.0f, -0.5f, 3.140625f, 1e-4f, 60000.0f}) CHECK(gguf::half_to_float(gguf::float_to_half(f)) == Approx(f).epsilon(1e-3));
}

TEST_CASE("GGUF export writes gpt2's metadata, a byte vocabulary and llama.cpp's tensor names, shapes and types", "[export]") {
  Config c = awkward_config();
  c.n_embd = 32, c.n_head = 4, c.tie_weights = 1;  // rows of 32: q8_0 blocks
  model::TinyGPT m(c);
  const std::vector<uint8_t> f32 = gguf::export_gpt(m, tok::Tokenizer(), gguf::Type::f32);
  const GgufRead r = read_gguf(f32);
  CHECK(r.version == 3);
  CHECK(r.strings.at("general.architecture") == "gpt2");
  CHECK(r.numbers.at("gpt2.context_length") == 13);
  CHECK(r.numbers.at("gpt2.embedding_length") == 32);
  CHECK(r.numbers.at("gpt2.feed_forward_length") == 128);
  CHECK(r.numbers.at("gpt2.block_count") == 3);
  CHECK(r.numbers.at("gpt2.attention.head_count") == 4);
  CHECK(r.numbers.at("gpt2.attention.layer_norm_epsilon") == Approx(1e-5));
  CHECK(r.strings.at("tokenizer.ggml.model") == "gpt2");
  CHECK(r.strings.at("tokenizer.ggml.pre") == "trillion");
  const auto& tokens = r.string_arrays.at("tokenizer.ggml.tokens");
  REQUIRE(tokens.size() == 256);
  CHECK(tokens['A'] == "A");
  CHECK(tokens[' '] == "\xc4\xa0");   // GPT-2's printable form of a space: U+0120 "Ġ"
  CHECK(tokens['\n'] == "\xc4\x8a");  // U+010A "Ċ"
  CHECK(r.string_arrays.count("tokenizer.ggml.merges") == 0);  // written, but empty: no entry in string_arrays
  CHECK(r.numbers.at("tokenizer.ggml.add_bos_token") == 0);

  // tied: no output.weight; 2 embeddings, ln_f, 12 per block
  CHECK(r.tensors.size() == 2 + 2 + 3 * 12);
  CHECK(r.tensors.count("output.weight") == 0);
  CHECK(r.tensors.at("token_embd.weight").ne == std::vector<uint64_t>{32, 256});      // PyTorch (V, C) reversed
  CHECK(r.tensors.at("position_embd.weight").ne == std::vector<uint64_t>{32, 13});
  CHECK(r.tensors.at("blk.2.attn_qkv.weight").ne == std::vector<uint64_t>{32, 96});   // nn.Linear (3C, C)
  CHECK(r.tensors.at("blk.0.ffn_down.weight").ne == std::vector<uint64_t>{128, 32});  // nn.Linear (C, 4C)
  CHECK(r.tensors.at("blk.0.attn_norm.bias").ne == std::vector<uint64_t>{32});
  for (const auto& [name, info] : r.tensors) CHECK(info.offset % 32 == 0);

  // the data: token_embd as it is, attn_qkv transposed ((in, out) -> (out, in))
  const auto floats_at = [&](const std::vector<uint8_t>& b, const GgufRead& g, const std::string& name, size_t i) {
    float v;
    std::memcpy(&v, b.data() + g.data_start + g.tensors.at(name).offset + 4 * i, 4);
    return v;
  };
  const float* wte = m.params() + m.param_info("wte").offset;
  CHECK(floats_at(f32, r, "token_embd.weight", 5 * 32 + 7) == wte[5 * 32 + 7]);
  const float* qkv = m.params() + m.param_info("h.2.attn.c_attn.weight").offset;  // (C, 3C)
  CHECK(floats_at(f32, r, "blk.2.attn_qkv.weight", 70 * 32 + 3) == qkv[3 * 96 + 70]);  // row 70 (out), column 3 (in)

  // f16 and q8_0: matrices change type (1 = F16, 8 = Q8_0), vectors stay F32 (0)
  const GgufRead h = read_gguf(gguf::export_gpt(m, tok::Tokenizer(), gguf::Type::f16));
  CHECK(h.tensors.at("blk.0.ffn_up.weight").type == 1);
  CHECK(h.tensors.at("blk.0.ffn_up.bias").type == 0);
  CHECK(h.numbers.at("general.file_type") == 1);
  const std::vector<uint8_t> q8 = gguf::export_gpt(m, tok::Tokenizer(), gguf::Type::q8_0);
  const GgufRead q = read_gguf(q8);
  CHECK(q.tensors.at("token_embd.weight").type == 8);
  CHECK(q.numbers.at("general.file_type") == 7);
  // the first q8_0 block of token_embd: an f16 scale max|x| / 127, then round(x / scale)
  const uint8_t* block = q8.data() + q.data_start + q.tensors.at("token_embd.weight").offset;
  float amax = 0;
  for (int i = 0; i < 32; i++) amax = std::max(amax, std::fabs(wte[i]));
  const float d = gguf::half_to_float(uint16_t(block[0] | block[1] << 8));
  CHECK(d == Approx(amax / 127).epsilon(1e-3));
  for (int i = 0; i < 32; i++) CHECK(std::abs(int8_t(block[2 + i]) - wte[i] * 127 / amax) <= 0.5f + 1e-3f);
}

TEST_CASE("GGUF export refuses a head bias that is not zero, and a vocabulary that is not the model's", "[export]") {
  Config c = awkward_config();
  model::TinyGPT m(c);  // untied: the bias starts at zero, so it exports (with output.weight)
  const GgufRead r = read_gguf(gguf::export_gpt(m, tok::Tokenizer(), gguf::Type::f32));
  CHECK(r.tensors.at("output.weight").ne == std::vector<uint64_t>{12, 256});
  m.params()[m.param_info("lm_head.bias").offset + 3] = 0.5f;
  try {
    gguf::export_gpt(m, tok::Tokenizer(), gguf::Type::f32);
    FAIL("exported a head bias");
  } catch (const Error& e) {
    CHECK(e.code() == "export.head_bias");
  }
  m.params()[m.param_info("lm_head.bias").offset + 3] = 0.0f;
  const tok::Tokenizer bpe = tok::Tokenizer::from_merges({{'a', 'b'}});
  CHECK_THROWS_WITH(gguf::export_gpt(m, bpe, gguf::Type::f32), Catch::Contains("the tokenizer has 257 text tokens, the model 256"));
}

// ---- a Hugging Face folder read back ----------------------------------------------------------------

namespace {

hf::FolderFiles folder_of(const std::vector<exporter::File>& files) {
  hf::FolderFiles f;
  for (const exporter::File& x : files) f[x.path] = x.bytes;
  return f;
}

std::string import_error(const hf::FolderFiles& f) {
  try {
    hf::model_file_from_folder(f);
  } catch (const Error& e) {
    return e.code() + ": " + e.what();
  }
  return "(read)";
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace

TEST_CASE("a Hugging Face folder tinygpt exported reads back as the same model and config", "[export]") {
  Config c = awkward_config();
  c.tie_weights = 1;
  model::TinyGPT m(c);
  const std::vector<uint8_t> file = hf::model_file_from_folder(folder_of(hf::export_folder(m, tok::Tokenizer())));
  const safetensors::File f = safetensors::parse(file.data(), file.size());
  const Config back = safetensors::config_from_metadata(f.metadata);
  CHECK(back.n_layer == 3);
  CHECK(back.n_head == 3);
  CHECK(back.n_embd == 12);
  CHECK(back.block_size == 13);
  CHECK(back.tie_weights == 1);
  std::vector<float> params(size_t(m.num_parameters()));
  safetensors::load_params(f, m.param_table(), params.data());
  CHECK(std::memcmp(params.data(), m.params(), params.size() * 4) == 0);
  const auto t = safetensors::start_run(f, back);  // a new run from it, as train --init does
  CHECK(t->steps_done() == 0);
}

TEST_CASE("a GPT-2-shaped folder of other making reads back: no prefix, F16, an untied head becomes tinygpt's own", "[export]") {
  // GPT-2's own file layout: names without "transformer.", the attention-mask buffers, half precision
  const int C = 8, L = 1, V = 256, T = 5;
  std::map<std::string, std::vector<uint64_t>> shapes = {{"wte.weight", {V, C}}, {"wpe.weight", {T, C}}, {"ln_f.weight", {C}},
                                                        {"ln_f.bias", {C}}, {"lm_head.weight", {V, C}}, {"h.0.attn.bias", {1, 1, T, T}}};
  const char* block[][2] = {{"ln_1.weight", "C"}, {"ln_1.bias", "C"}, {"attn.c_attn.weight", "C,3C"}, {"attn.c_attn.bias", "3C"},
                            {"attn.c_proj.weight", "C,C"}, {"attn.c_proj.bias", "C"}, {"ln_2.weight", "C"}, {"ln_2.bias", "C"},
                            {"mlp.c_fc.weight", "C,4C"}, {"mlp.c_fc.bias", "4C"}, {"mlp.c_proj.weight", "4C,C"}, {"mlp.c_proj.bias", "C"}};
  const std::map<std::string, std::vector<uint64_t>> dims = {{"C", {C}}, {"3C", {3 * C}}, {"4C", {4 * C}}, {"C,3C", {C, 3 * C}},
                                                             {"C,C", {C, C}}, {"C,4C", {C, 4 * C}}, {"4C,C", {4 * C, C}}};
  for (const auto& b : block) shapes["h.0." + std::string(b[0])] = dims.at(b[1]);
  std::map<std::string, std::vector<uint16_t>> halves;
  std::vector<safetensors::TensorData> tensors;
  uint64_t seed = 1;
  for (const auto& [name, shape] : shapes) {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    std::vector<uint16_t>& h = halves[name];
    for (uint64_t i = 0; i < n; i++) h.push_back(gguf::float_to_half(float(testutil::random_vector(1, seed++)[0]) * 0.1f));
    tensors.push_back({name, safetensors::Dtype::F16, shape, h.data(), h.size() * 2});
  }
  hf::FolderFiles folder;
  folder["model.safetensors"] = safetensors::serialize(tensors);
  folder["config.json"] = bytes_of(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 2, "n_embd": 8, "n_positions": 5,
                                       "vocab_size": 256, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})");
  const std::vector<uint8_t> file = hf::model_file_from_folder(folder);
  const safetensors::File f = safetensors::parse(file.data(), file.size());
  const Config c = safetensors::config_from_metadata(f.metadata);
  CHECK(c.tie_weights == 0);  // its lm_head differs from wte: a head of its own
  CHECK(c.n_layer == L);
  CHECK(c.block_size == T);
  const float* lm = reinterpret_cast<const float*>(f.at("lm_head.weight").data);  // (C, V): the transpose
  CHECK(lm[3 * V + 200] == gguf::half_to_float(halves["lm_head.weight"][200 * C + 3]));
  const float* qkv = reinterpret_cast<const float*>(f.at("h.0.attn.c_attn.weight").data);  // Conv1D (in, out): as it is
  CHECK(qkv[7] == gguf::half_to_float(halves["h.0.attn.c_attn.weight"][7]));
  for (int v = 0; v < V; v++) CHECK(reinterpret_cast<const float*>(f.at("lm_head.bias").data)[v] == 0.0f);

  SECTION("bad folders are refused, each with its code") {
    hf::FolderFiles no_config = folder;
    no_config.erase("config.json");
    CHECK(import_error(no_config) ==
          "import.no_config: no config.json among the files (model.safetensors): a Hugging Face model folder has config.json beside "
          "model.safetensors");
    hf::FolderFiles llama = folder;
    llama["config.json"] = bytes_of(R"({"model_type": "llama", "n_layer": 1})");
    CHECK(import_error(llama) == "import.model_type: config.json says model_type \"llama\": tinygpt reads GPT-2's layout (model_type gpt2) only");
    hf::FolderFiles relu = folder;
    relu["config.json"] = bytes_of(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 2, "n_embd": 8, "n_positions": 5, "vocab_size": 256,
                                       "activation_function": "relu"})");
    CHECK(import_error(relu) ==
          "import.unsupported: config.json: activation_function \"relu\" (tinygpt computes GELU's tanh form: gelu_new)");
    hf::FolderFiles wide = folder;
    wide["config.json"] = bytes_of(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 2, "n_embd": 16, "n_positions": 5, "vocab_size": 256})");
    CHECK(import_error(wide) == "import.shape: model.safetensors: wte.weight is [256, 8] but config.json makes it [256, 16]");
    hf::FolderFiles deep = folder;
    deep["config.json"] = bytes_of(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8, "n_positions": 5, "vocab_size": 256})");
    CHECK(import_error(deep) == "import.missing_tensor: model.safetensors has no tensor transformer.h.1.ln_1.weight");
    hf::FolderFiles no_weights = folder;
    no_weights.erase("model.safetensors");
    CHECK(import_error(no_weights).rfind("import.no_weights: ", 0) == 0);
    hf::FolderFiles gpt2_vocab = folder;  // GPT-2's own byte order (bytes_to_unicode ids) is not the bytes in order
    gpt2_vocab["tokenizer.json"] = bytes_of(tok::Tokenizer::from_merges({{'a', 'b'}}).to_hf_json());
    CHECK(import_error(gpt2_vocab).rfind("import.tokenizer: tokenizer.json: its tokens are not the 256 bytes in order (257 tokens)", 0) == 0);
  }
}

TEST_CASE("export formats are told apart from the files a run starts from", "[export]") {
  Config c = awkward_config();
  c.tie_weights = 1;
  model::TinyGPT m(c);
  const std::vector<uint8_t> g = gguf::export_gpt(m, tok::Tokenizer(), gguf::Type::f16);
  const std::vector<uint8_t> o = onnx::export_gpt(m);
  CHECK(exporter::export_format_of(g.data(), g.size()) == "gguf");
  CHECK(exporter::export_format_of(o.data(), o.size()) == "onnx");
  CHECK(exporter::export_format_of(o.data(), 100) == "onnx");  // its first bytes, as the page sniffs a file
  CHECK(exporter::export_format_of(g.data(), 4) == "gguf");
  const std::vector<uint8_t> st = safetensors::serialize({}, {{"format", "pt"}});
  CHECK(exporter::export_format_of(st.data(), st.size()).empty());
  const std::vector<uint8_t> text = bytes_of("\x08 some text that starts with a backspace");
  CHECK(exporter::export_format_of(text.data(), text.size()).empty());
  try {
    exporter::refuse_export_format(o.data(), o.size(), "model.onnx");
    FAIL("an ONNX file passed");
  } catch (const Error& e) {
    CHECK(e.code() == "import.export_format");
    CHECK(std::string(e.what()).rfind("model.onnx is an ONNX file, a format tinygpt exports for ONNX Runtime and transformers.js and does not read back", 0) == 0);
  }
}

TEST_CASE("ONNX export of the recurrent models uses ONNX's RNN, GRU and LSTM ops with the state in and out", "[export]") {
  for (const char* kind : {"rnn", "gru", "lstm"}) {
    INFO(kind);
    Config c;
    set_field_text(c, field("model"), kind);
    c.n_layer = 2, c.n_embd = 6, c.n_hidden = 5, c.block_size = 9;
    model::Recurrent m(c);
    const std::vector<uint8_t> bytes = onnx::export_recurrent(m);
    const auto graph = fields(numbered(pb::read_fields(bytes.data(), bytes.size()), 7)[0]);
    std::vector<std::string> inputs, outputs, ops;
    for (const pb::Field& f : numbered(graph, 11)) inputs.push_back(value_info(f));
    for (const pb::Field& f : numbered(graph, 12)) outputs.push_back(value_info(f));
    for (const pb::Field& n : numbered(graph, 1)) ops.push_back(text_of(fields(n), 4));
    const bool lstm = std::string(kind) == "lstm";
    std::vector<std::string> want_in = {"input_ids: 7 [batch_size, sequence_length]", "h0: 1 [2, batch_size, 5]"};
    std::vector<std::string> want_out = {"logits: 1 [batch_size, sequence_length, 256]", "hn: 1 [2, batch_size, 5]"};
    if (lstm) want_in.push_back("c0: 1 [2, batch_size, 5]"), want_out.push_back("cn: 1 [2, batch_size, 5]");
    CHECK(inputs == want_in);
    CHECK(outputs == want_out);
    const std::string op = lstm ? "LSTM" : std::string(kind) == "gru" ? "GRU" : "RNN";
    CHECK(std::count(ops.begin(), ops.end(), op) == 2);  // one per layer
  }
  // the LSTM's gates: torch's i f g o rows become ONNX's i o f c
  Config c;
  set_field_text(c, field("model"), "lstm");
  c.n_layer = 1, c.n_embd = 3, c.n_hidden = 2, c.block_size = 4;
  model::Recurrent m(c);
  float* w = m.params() + m.param_info("rnn.weight_ih_l0").offset;  // (4H, E) = (8, 3)
  for (int i = 0; i < 24; i++) w[i] = float(i);
  const std::vector<uint8_t> bytes = onnx::export_recurrent(m);
  const auto graph = fields(numbered(pb::read_fields(bytes.data(), bytes.size()), 7)[0]);
  bool found = false;
  for (const pb::Field& t : numbered(graph, 5)) {
    const auto tf = fields(t);
    if (text_of(tf, 8) != "W_0") continue;
    found = true;
    const pb::Field raw = numbered(tf, 9)[0];
    std::vector<float> got(raw.size / 4);
    std::memcpy(got.data(), raw.data, raw.size);
    // rows (H = 2 each): i = 0-1, o = torch's 6-7, f = torch's 2-3, c = torch's g 4-5
    const int rows[8] = {0, 1, 6, 7, 2, 3, 4, 5};
    for (int r = 0; r < 8; r++)
      for (int e = 0; e < 3; e++) CHECK(got[size_t(r * 3 + e)] == float(rows[r] * 3 + e));
  }
  CHECK(found);
}

// ---- a BPE model through every exporter and back ------------------------------------------------------

namespace {

// A text whose words repeat, so that a vocabulary of 300 tokens is learned from it: a few words and
// 60 made-up ones of one to three syllables.
std::vector<uint8_t> bpe_text() {
  std::vector<std::string> words = {"the", "king", "and", "queen", "of", "hearts", "sang", "low,", "lower", "lowest.\n", "12", "\"345\""};
  const char* syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "te", "vi", "do", "pe", "gu", "zo"};
  uint64_t x = 9;
  const auto below = [&](uint64_t n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % n;
  };
  for (int w = 0; w < 60; w++) {
    std::string word;
    for (uint64_t k = 0, n = 1 + below(3); k < n; k++) word += syllables[below(12)];
    words.push_back(word);
  }
  std::string s;
  while (s.size() < 20000) s += words[below(words.size())] + " ";
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

TEST_CASE("a BPE model exports with its own vocabulary (HF, GGUF, ONNX) and its HF folder reads back with its tokenizer", "[export][tokenizer]") {
  const std::vector<uint8_t> text = bpe_text();
  const data::MemorySource src(text);
  const auto tok = std::make_shared<const tok::Tokenizer>(*tok::train_bpe(src, 300));
  Config c = awkward_config();
  c.tie_weights = 1, c.tokenizer = TokenizerKind::bpe, c.vocab_size = 300, c.batch_size = 2, c.max_iters = 2, c.warmup_iters = 1;
  train::Trainer t(c);
  t.set_tokenizer(tok);
  t.set_corpus(text);

  // HF: tokenizer.json is the run's, config.json has its vocabulary
  const std::vector<exporter::File> files = exporter::export_model(t, exporter::Format::hf);
  const hf::FolderFiles folder = folder_of(files);
  CHECK(folder.at("tokenizer.json") == bytes_of(tok->to_hf_json()));
  const std::string config(folder.at("config.json").begin(), folder.at("config.json").end());
  CHECK(config.find("\"vocab_size\": 300") != std::string::npos);
  CHECK(tok::Tokenizer::from_hf_json(std::string(folder.at("tokenizer.json").begin(), folder.at("tokenizer.json").end())).fingerprint() ==
        tok->fingerprint());

  // read back: a bpe run of the same tokenizer and weights
  const std::vector<uint8_t> file = hf::model_file_from_folder(folder);
  const safetensors::File f = safetensors::parse(file.data(), file.size());
  const Config back = safetensors::config_from_metadata(f.metadata);
  CHECK(back.tokenizer == TokenizerKind::bpe);
  CHECK(back.vocab_size == 300);
  const auto run = safetensors::start_run(f, back);
  REQUIRE(run->tokenizer() != nullptr);
  CHECK(run->tokenizer()->fingerprint() == tok->fingerprint());
  const std::vector<int32_t> probe = tok->encode("the queen sang lower");
  CHECK(std::any_of(probe.begin(), probe.end(), [](int32_t id) { return id >= 256; }));
  CHECK(exporter::reference_logits(*run, probe) == exporter::reference_logits(t, probe));

  // GGUF: the vocabulary's 300 tokens and its merges in GPT-2's printable form
  const GgufRead g = read_gguf(exporter::export_model(t, exporter::Format::gguf)[0].bytes);
  const auto& tokens = g.string_arrays.at("tokenizer.ggml.tokens");
  REQUIRE(tokens.size() == 300);
  const auto& merges = g.string_arrays.at("tokenizer.ggml.merges");
  REQUIRE(merges.size() == 44);
  for (int r = 0; r < 44; r++) {
    const tok::Merge& m = tok->merges()[size_t(r)];
    CHECK(merges[size_t(r)] == tok::bytes_to_gpt2(tok->token_bytes(m.left)) + " " + tok::bytes_to_gpt2(tok->token_bytes(m.right)));
    CHECK(tokens[size_t(m.id)] == tok::bytes_to_gpt2(tok->token_bytes(m.id)));
  }
  CHECK(g.tensors.at("token_embd.weight").ne == std::vector<uint64_t>{12, 300});
  CHECK(g.numbers.at("tokenizer.ggml.eos_token_id") == 11);  // the byte 0x0B's token

  // ONNX: the logits are (batch, sequence, 300)
  const std::vector<uint8_t> onnx = exporter::export_model(t, exporter::Format::onnx)[0].bytes;
  const std::vector<pb::Field> model = pb::read_fields(onnx.data(), onnx.size());
  const std::vector<pb::Field> graph = fields(numbered(model, 7).at(0));
  bool found = false;
  for (const pb::Field& out : numbered(graph, 12))
    if (value_info(out).rfind("logits: ", 0) == 0) {
      found = true;
      CHECK(value_info(out) == "logits: 1 [batch_size, sequence_length, 300]");
    }
  CHECK(found);

  SECTION("a folder whose tokenizer is missing or of another size is refused") {
    hf::FolderFiles none = folder;
    none.erase("tokenizer.json");
    CHECK(import_error(none).rfind("import.tokenizer: config.json says vocab_size 300: a model of more tokens than the 256 bytes needs its tokenizer", 0) == 0);
    hf::FolderFiles other = folder;
    other["tokenizer.json"] = bytes_of(tok::Tokenizer::from_merges({{'a', 'b'}}).to_hf_json());
    CHECK(import_error(other).rfind("import.tokenizer: tokenizer.json: it has 257 text tokens and config.json says vocab_size 300", 0) == 0);
    // GPT-2's vocab.json + merges.txt serve as well
    hf::FolderFiles gpt2 = folder;
    gpt2.erase("tokenizer.json");
    std::string vocab = "{", merges_txt = "#version: 0.2\n";
    for (int id = 0; id < 300; id++) vocab += (id ? ", \"" : "\"") + json_escape(tok::bytes_to_gpt2(tok->token_bytes(id))) + "\": " + std::to_string(id);
    for (const tok::Merge& m : tok->merges())
      merges_txt += tok::bytes_to_gpt2(tok->token_bytes(m.left)) + " " + tok::bytes_to_gpt2(tok->token_bytes(m.right)) + "\n";
    gpt2["vocab.json"] = bytes_of(vocab + "}");
    gpt2["merges.txt"] = bytes_of(merges_txt);
    const std::vector<uint8_t> from_gpt2 = hf::model_file_from_folder(gpt2);
    const safetensors::File g2 = safetensors::parse(from_gpt2.data(), from_gpt2.size());
    CHECK(safetensors::tokenizer_from_metadata(g2.metadata)->fingerprint() == tok->fingerprint());
  }
}

TEST_CASE("ONNX export of the translator is an encoder giving the cross-attention keys and values, and a decoder with past", "[export][seq2seq]") {
  model::Seq2SeqDims d;
  d.n_enc_layer = 2, d.n_dec_layer = 3, d.n_head = 3, d.n_embd = 12, d.d_ff = 20, d.block_size = 7;
  const model::Seq2Seq m(d);
  const std::vector<exporter::File> files = onnx::export_seq2seq(m);
  REQUIRE(files.size() == 2);
  CHECK(files[0].path == "encoder_model.onnx");
  CHECK(files[1].path == "decoder_model.onnx");
  std::set<std::string> all_weights;
  for (const exporter::File& f : files) {
    const auto model = pb::read_fields(f.bytes.data(), f.bytes.size());
    std::map<std::string, std::string> meta;
    for (const pb::Field& e : numbered(model, 14)) meta[text_of(fields(e), 1)] = text_of(fields(e), 2);
    CHECK(meta["model"] == "seq2seq");
    CHECK(meta["vocab_size"] == "259");
    CHECK(meta["bos_token_id"] == "256");
    CHECK(meta["eos_token_id"] == "257");
    CHECK(meta["pad_token_id"] == "258");
    const auto graph = fields(numbered(model, 7)[0]);
    std::vector<std::string> inputs, outputs;
    std::set<std::string> defined;
    for (const pb::Field& vi : numbered(graph, 11)) inputs.push_back(value_info(vi)), defined.insert(text_of(fields(vi), 1));
    for (const pb::Field& vi : numbered(graph, 12)) outputs.push_back(value_info(vi));
    if (f.path == "encoder_model.onnx") {
      CHECK(inputs == std::vector<std::string>{"input_ids: 7 [batch_size, encoder_sequence_length]",
                                               "attention_mask: 7 [batch_size, encoder_sequence_length]"});
      REQUIRE(outputs.size() == 1 + 2 * 3);
      CHECK(outputs[0] == "last_hidden_state: 1 [batch_size, encoder_sequence_length, 12]");
      CHECK(outputs[6] == "present.2.encoder.value: 1 [batch_size, 3, encoder_sequence_length, 4]");
    } else {
      REQUIRE(inputs.size() == 2 + 4 * 3);
      CHECK(inputs[0] == "input_ids: 7 [batch_size, decoder_sequence_length]");
      CHECK(inputs[1] == "encoder_attention_mask: 7 [batch_size, encoder_sequence_length]");
      CHECK(inputs[2] == "past_key_values.0.decoder.key: 1 [batch_size, 3, past_decoder_sequence_length, 4]");
      CHECK(inputs[4] == "past_key_values.0.encoder.key: 1 [batch_size, 3, encoder_sequence_length, 4]");
      REQUIRE(outputs.size() == 1 + 2 * 3);
      CHECK(outputs[0] == "logits: 1 [batch_size, decoder_sequence_length, 259]");
      CHECK(outputs[6] == "present.2.decoder.value: 1 [batch_size, 3, past_decoder_sequence_length + decoder_sequence_length, 4]");
    }
    // the weights: the core's parameters as they are, and the sinusoidal table
    for (const pb::Field& t : numbered(graph, 5)) {
      const auto tf = fields(t);
      const std::string name = text_of(tf, 8);
      defined.insert(name);
      if (numbered(tf, 2)[0].value != 1 || numbered(tf, 9).empty()) continue;  // constants
      const pb::Field raw = numbered(tf, 9)[0];
      if (name == "positional_encoding") {
        REQUIRE(raw.size == size_t(7 * 12) * 4);
        CHECK(std::memcmp(raw.data, m.positional_encoding(), raw.size) == 0);
        continue;
      }
      all_weights.insert(name);
      const model::ParamInfo& p = m.param_info(name);
      REQUIRE(raw.size == size_t(p.shape.numel()) * 4);
      CHECK(std::memcmp(raw.data, m.params() + p.offset, raw.size) == 0);
    }
    // every node reads what is defined before it
    for (const pb::Field& n : numbered(graph, 1)) {
      const auto nf = fields(n);
      for (const pb::Field& in : numbered(nf, 1)) {
        INFO(text_of(nf, 4) << " reads " << in.text());
        CHECK(defined.count(std::string(in.text())) == 1);
      }
      for (const pb::Field& out : numbered(nf, 2)) defined.insert(std::string(out.text()));
    }
  }
  // between them the two graphs hold every parameter (the decoder's cross-attention kv in the encoder)
  CHECK(all_weights.size() == m.param_table().size());
}

TEST_CASE("ONNX export of the LSTM translator is an encoder giving the decoder's first state, and a decoder with its state in and out", "[export][rnn]") {
  model::LstmSeq2SeqDims d;
  d.n_enc_layer = 1, d.n_dec_layer = 2, d.n_embd = 6, d.n_hidden = 10, d.block_size = 7;
  const model::LstmSeq2Seq m(d);
  const std::vector<exporter::File> files = onnx::export_lstm_seq2seq(m);
  REQUIRE(files.size() == 2);
  std::set<std::string> weights;
  for (const exporter::File& f : files) {
    const auto model = pb::read_fields(f.bytes.data(), f.bytes.size());
    const auto graph = fields(numbered(model, 7)[0]);
    std::vector<std::string> inputs, outputs;
    std::set<std::string> defined;
    for (const pb::Field& vi : numbered(graph, 11)) inputs.push_back(value_info(vi)), defined.insert(text_of(fields(vi), 1));
    for (const pb::Field& vi : numbered(graph, 12)) outputs.push_back(value_info(vi));
    if (f.path == "encoder_model.onnx") {
      CHECK(inputs == std::vector<std::string>{"input_ids: 7 [batch_size, encoder_sequence_length]",
                                               "attention_mask: 7 [batch_size, encoder_sequence_length]"});
      CHECK(outputs == std::vector<std::string>{"last_hidden_state: 1 [batch_size, encoder_sequence_length, 10]",
                                                "h0: 1 [2, batch_size, 10]", "c0: 1 [2, batch_size, 10]"});
    } else {
      CHECK(f.path == "decoder_model.onnx");
      CHECK(inputs == std::vector<std::string>{"input_ids: 7 [batch_size, decoder_sequence_length]",
                                               "encoder_hidden_states: 1 [batch_size, encoder_sequence_length, 10]",
                                               "encoder_attention_mask: 7 [batch_size, encoder_sequence_length]",
                                               "h0: 1 [2, batch_size, 10]", "c0: 1 [2, batch_size, 10]"});
      CHECK(outputs == std::vector<std::string>{"logits: 1 [batch_size, decoder_sequence_length, 259]", "hn: 1 [2, batch_size, 10]",
                                                "cn: 1 [2, batch_size, 10]"});
    }
    for (const pb::Field& t : numbered(graph, 5)) {
      const auto tf = fields(t);
      const std::string name = text_of(tf, 8);
      defined.insert(name);
      if (numbered(tf, 2)[0].value == 1 && !numbered(tf, 9).empty()) weights.insert(name);
    }
    for (const pb::Field& n : numbered(graph, 1)) {
      const auto nf = fields(n);
      for (const pb::Field& in : numbered(nf, 1)) {
        INFO(text_of(nf, 4) << " reads " << in.text());
        CHECK((in.text().empty() || defined.count(std::string(in.text())) == 1));  // "": an optional input left out
      }
      for (const pb::Field& out : numbered(nf, 2)) defined.insert(std::string(out.text()));
    }
  }
  // the LSTM layers as ONNX's W, R, B (3 per layer, 3 layers); the embeddings, attention, combine and projection as they are
  CHECK(weights.size() == 3 * 3 + 2 + 1 + 3 + 2);
  for (const char* name : {"src_embed.weight", "tgt_embed.weight", "attn.weight", "combine.context.weight", "combine.hidden.weight",
                           "combine.bias", "proj.weight", "proj.bias", "encoder.W_0", "decoder.R_1"})
    CHECK(weights.count(name) == 1);
}
