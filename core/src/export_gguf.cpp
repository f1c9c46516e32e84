// export_gguf.cpp — the GPT as a GGUF file for llama.cpp (architecture gpt2).
//
// GGUF version 3 (ggml's docs/gguf.md), all little-endian:
//   u32 magic "GGUF", u32 version 3, u64 tensor count, u64 metadata count
//   metadata: key (u64 length + UTF-8), u32 value type, value (strings as keys; arrays as
//             u32 element type, u64 count, elements)
//   tensor infos: name, u32 n_dims, u64 ne[n_dims] (ggml's order: ne[0] is the contiguous one, so
//             PyTorch's shape reversed), u32 ggml type, u64 offset into the data section
//   padding to general.alignment (32), then the data section, every tensor at a multiple of 32
//
// The names and layouts are llama.cpp's for gpt2 (src/llama-model.cpp, LLM_ARCH_GPT2): its matrices
// are PyTorch nn.Linear's (out, in) while the core keeps (in, out) (Conv1D's), so every block matrix
// and the untied head are transposed; token_embd and position_embd are the core's wte and wpe as
// they are. gpt2 in llama.cpp has no output bias: a model with a head bias is refused (the GPT-2
// layout, tie_weights 1, has none). A missing output.weight makes llama.cpp use token_embd (tied).
//
// The vocabulary (tokenizer.ggml.*): model "gpt2" (byte-level BPE), one string per token id, the
// token's bytes in GPT-2's printable form (bytes_to_unicode: byte 0x20 is "Ġ"), so the 256 bytes of
// a byte model are 256 one-character tokens; merges "left right" in rank order, in the same form
// (an empty list for bytes: llama.cpp insists on the key). Pre-tokenizer "trillion": llama.cpp's
// name for GPT-2's own regex (the core's pretokenize) without cleaning spaces when detokenizing
// ("gpt-2" has the same regex but drops the space of " ." and " ," in text it decodes; "qwen2"
// cuts digits one by one, which a BPE vocabulary's merged numbers would notice). No BOS or EOS is
// added to a prompt. A vocabulary of text tokens only has no end-of-text token of its own: the
// token of the byte 0x0B (vertical tab; llama.cpp's default for gpt2, id 11, in a byte model) is
// written as BOS and EOS.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/export.h"
#include "tinygpt/model.h"
#include "tinygpt/tokenizer.h"
#include "tokenizer_impl.h"

namespace tinygpt::gguf {

namespace {

constexpr Type kTypes[] = {Type::f32, Type::f16, Type::q8_0};
constexpr uint64_t kAlignment = 32;
constexpr int kQ8Block = 32;  // values per q8_0 block

// gguf_metadata_value_type and ggml_type values used here
enum ValueType : uint32_t { kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kString = 8, kArray = 9 };
enum GgmlType : uint32_t { kGgmlF32 = 0, kGgmlF16 = 1, kGgmlQ8_0 = 8 };

class Buffer {
 public:
  void u8(uint8_t v) { b_.push_back(v); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void f32(float v) { raw(&v, 4); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void raw(const void* p, size_t n) {  // little-endian: as x86-64 and wasm hold numbers
    const auto* c = static_cast<const uint8_t*>(p);
    b_.insert(b_.end(), c, c + n);
  }
  void pad(uint64_t alignment) {
    while (b_.size() % alignment) b_.push_back(0);
  }
  size_t size() const { return b_.size(); }
  std::vector<uint8_t>& bytes() { return b_; }

 private:
  std::vector<uint8_t> b_;
};

// float -> IEEE half, rounding to nearest even; overflow to infinity, subnormals kept.
uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));  // inf, NaN
  if (exp >= 31) return uint16_t(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000;  // the implicit bit, then shift into a subnormal
    const int shift = 14 - exp;
    uint32_t half = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) half++;
    return uint16_t(sign | half);
  }
  uint32_t half = uint32_t(exp) << 10 | (mant >> 13);
  const uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++;  // may carry into the exponent: still right
  return uint16_t(sign | half);
}

float from_half(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(float(mant), -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(float(mant | 0x400), exp - 25);
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits |= sign;
  std::memcpy(&v, &bits, 4);
  return v;
}

struct Tensor {
  std::string name;
  std::vector<uint64_t> ne;  // ggml order
  GgmlType type;
  std::vector<uint8_t> data;
};

// values (rows, cols) row-major -> a matrix ne [cols, rows] of `type`, or a vector ne [cols] (f32)
Tensor make_tensor(const std::string& name, const std::vector<float>& values, bool matrix, int64_t rows, int64_t cols, Type type) {
  Tensor t{name, {uint64_t(cols)}, kGgmlF32, {}};
  if (matrix) t.ne.push_back(uint64_t(rows));
  if (!matrix || type == Type::f32) {
    t.data.resize(values.size() * 4);
    std::memcpy(t.data.data(), values.data(), t.data.size());
    return t;
  }
  if (type == Type::q8_0 && cols % kQ8Block == 0) {
    t.type = kGgmlQ8_0;
    t.data.reserve(size_t(values.size() / kQ8Block) * 34);
    for (size_t b = 0; b < values.size(); b += kQ8Block) {
      float amax = 0;
      for (int i = 0; i < kQ8Block; i++) amax = std::max(amax, std::fabs(values[b + size_t(i)]));
      const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
      const uint16_t dh = to_half(d);
      t.data.push_back(uint8_t(dh)), t.data.push_back(uint8_t(dh >> 8));
      for (int i = 0; i < kQ8Block; i++) t.data.push_back(uint8_t(int8_t(std::lround(values[b + size_t(i)] * id))));
    }
    return t;
  }
  t.type = kGgmlF16;  // f16, or q8_0's fallback for rows that are not whole blocks
  t.data.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); i++) {
    const uint16_t h = to_half(values[i]);
    t.data[2 * i] = uint8_t(h), t.data[2 * i + 1] = uint8_t(h >> 8);
  }
  return t;
}

// The parameter as it is (rows, cols), or transposed (the core's (in, out) -> nn.Linear's (out, in)).
Tensor param_tensor(const model::TinyGPT& m, const std::string& ours, const std::string& theirs, bool transpose, Type type) {
  const model::ParamInfo& p = m.param_info(ours);
  const float* w = m.params() + p.offset;
  const bool matrix = p.shape.ndim == 2;
  const int64_t rows = matrix ? p.shape.dims[0] : 1, cols = p.shape.dims[p.shape.ndim - 1];
  std::vector<float> v(w, w + rows * cols);
  if (!transpose) return make_tensor(theirs, v, matrix, rows, cols, type);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) v[size_t(c * rows + r)] = w[r * cols + c];
  return make_tensor(theirs, v, matrix, cols, rows, type);
}

bool has_param(const model::TinyGPT& m, const std::string& name) {
  for (const model::ParamInfo& p : m.param_table())
    if (p.name == name) return true;
  return false;
}

std::vector<Tensor> tensors_of(const model::TinyGPT& m, Type type) {
  std::vector<Tensor> t;
  t.push_back(param_tensor(m, "wte", "token_embd.weight", false, type));
  t.push_back(param_tensor(m, "wpe", "position_embd.weight", false, type));
  t.push_back(param_tensor(m, "ln_f.weight", "output_norm.weight", false, type));
  t.push_back(param_tensor(m, "ln_f.bias", "output_norm.bias", false, type));
  if (has_param(m, "lm_head.weight")) t.push_back(param_tensor(m, "lm_head.weight", "output.weight", true, type));
  const struct { const char* ours; const char* theirs; bool transpose; } per_block[] = {
      {"ln_1.weight", "attn_norm.weight", false},      {"ln_1.bias", "attn_norm.bias", false},
      {"attn.c_attn.weight", "attn_qkv.weight", true}, {"attn.c_attn.bias", "attn_qkv.bias", false},
      {"attn.c_proj.weight", "attn_output.weight", true}, {"attn.c_proj.bias", "attn_output.bias", false},
      {"ln_2.weight", "ffn_norm.weight", false},       {"ln_2.bias", "ffn_norm.bias", false},
      {"mlp.c_fc.weight", "ffn_up.weight", true},      {"mlp.c_fc.bias", "ffn_up.bias", false},
      {"mlp.c_proj.weight", "ffn_down.weight", true},  {"mlp.c_proj.bias", "ffn_down.bias", false},
  };
  for (int l = 0; l < m.config().n_layer; l++)
    for (const auto& e : per_block)
      t.push_back(param_tensor(m, "h." + std::to_string(l) + "." + e.ours, "blk." + std::to_string(l) + "." + e.theirs, e.transpose, type));
  return t;
}

struct Metadata {
  Buffer b;
  uint64_t count = 0;
  void key(const std::string& k, ValueType t) {
    b.str(k);
    b.u32(t);
    count++;
  }
  void u32(const std::string& k, uint32_t v) { key(k, kU32), b.u32(v); }
  void f32(const std::string& k, float v) { key(k, kF32), b.f32(v); }
  void boolean(const std::string& k, bool v) { key(k, kBool), b.u8(v ? 1 : 0); }
  void str(const std::string& k, const std::string& v) { key(k, kString), b.str(v); }
  void strings(const std::string& k, const std::vector<std::string>& v) {
    key(k, kArray), b.u32(kString), b.u64(v.size());
    for (const std::string& s : v) b.str(s);
  }
  void i32s(const std::string& k, const std::vector<int32_t>& v) {
    key(k, kArray), b.u32(kI32), b.u64(v.size());
    for (int32_t x : v) b.raw(&x, 4);
  }
};

void vocabulary(Metadata& md, const tok::Tokenizer& tok, int V) {
  if (tok.vocab_size() != V)
    throw Error("gguf: the tokenizer has " + std::to_string(tok.vocab_size()) + " text tokens, the model " + std::to_string(V));
  std::vector<std::string> tokens, merges;
  for (int32_t id = 0; id < V; id++) tokens.push_back(tok::bytes_to_gpt2(tok.token_bytes(id)));
  for (const tok::Merge& mg : tok.merges())
    merges.push_back(tok::bytes_to_gpt2(tok.token_bytes(mg.left)) + " " + tok::bytes_to_gpt2(tok.token_bytes(mg.right)));
  md.str("tokenizer.ggml.model", "gpt2");
  md.str("tokenizer.ggml.pre", "trillion");
  md.strings("tokenizer.ggml.tokens", tokens);
  md.i32s("tokenizer.ggml.token_type", std::vector<int32_t>(size_t(V), 1));  // 1: a normal token
  md.strings("tokenizer.ggml.merges", merges);
  const std::vector<int32_t> vt = tok.encode("\x0b");  // one token: the byte's (a merge never makes a single byte)
  md.u32("tokenizer.ggml.bos_token_id", uint32_t(vt.at(0)));
  md.u32("tokenizer.ggml.eos_token_id", uint32_t(vt.at(0)));
  md.boolean("tokenizer.ggml.add_bos_token", false);
  md.boolean("tokenizer.ggml.add_eos_token", false);
}

}  // namespace

const char* type_name(Type t) {
  switch (t) {
    case Type::f32: return "f32";
    case Type::f16: return "f16";
    case Type::q8_0: return "q8_0";
  }
  return "?";
}

Type parse_type(const std::string& name) {
  std::string list;
  for (Type t : kTypes) {
    if (name == type_name(t)) return t;
    list += std::string(list.empty() ? "" : ", ") + type_name(t);
  }
  throw Error("unknown GGUF type '" + name + "': the types are " + list);
}

float half_to_float(uint16_t h) { return from_half(h); }
uint16_t float_to_half(float f) { return to_half(f); }

std::vector<uint8_t> export_gpt(const model::TinyGPT& m, const tok::Tokenizer& tok, Type type) {
  const Config& c = m.config();
  if (has_param(m, "lm_head.bias")) {
    const model::ParamInfo& b = m.param_info("lm_head.bias");
    for (int64_t i = 0; i < b.shape.numel(); i++)
      if (m.params()[b.offset + i] != 0.0f)
        throw Error(coded("export.head_bias", {},
                          "gguf: llama.cpp's gpt2 has no head bias, and this model's is not zero: train with the GPT-2 layout "
                          "(tie_weights 1) for llama.cpp, or export ONNX"));
  }
  const int V = int(m.param_info("wte").shape[0]);
  Metadata md;
  md.str("general.architecture", "gpt2");
  md.str("general.name", "tinygpt");
  md.u32("general.file_type", type == Type::f32 ? 0 : type == Type::f16 ? 1 : 7);  // ALL_F32, MOSTLY_F16, MOSTLY_Q8_0
  md.u32("general.alignment", uint32_t(kAlignment));
  md.u32("gpt2.context_length", uint32_t(c.block_size));
  md.u32("gpt2.embedding_length", uint32_t(c.n_embd));
  md.u32("gpt2.feed_forward_length", uint32_t(4 * c.n_embd));
  md.u32("gpt2.block_count", uint32_t(c.n_layer));
  md.u32("gpt2.attention.head_count", uint32_t(c.n_head));
  md.f32("gpt2.attention.layer_norm_epsilon", 1e-5f);
  vocabulary(md, tok, V);

  const std::vector<Tensor> tensors = tensors_of(m, type);
  Buffer out;
  out.raw("GGUF", 4);
  out.u32(3);
  out.u64(tensors.size());
  out.u64(md.count);
  out.raw(md.b.bytes().data(), md.b.size());
  uint64_t offset = 0;
  for (const Tensor& t : tensors) {
    out.str(t.name);
    out.u32(uint32_t(t.ne.size()));
    for (uint64_t d : t.ne) out.u64(d);
    out.u32(t.type);
    out.u64(offset);
    offset += (t.data.size() + kAlignment - 1) / kAlignment * kAlignment;
  }
  out.pad(kAlignment);
  for (const Tensor& t : tensors) {
    out.raw(t.data.data(), t.data.size());
    out.pad(kAlignment);
  }
  return std::move(out.bytes());
}

}  // namespace tinygpt::gguf
