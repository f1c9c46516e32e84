// test_safetensors.cpp — the safetensors writer against the reference's published bytes, the strict
// reader against every kind of bad file, the model's parameters through a file, and a fuzz run.
//
// The expected bytes in "safetensors writer reproduces the reference's bytes" are those of the
// serialization tests of huggingface/safetensors (safetensors/src/tensor.rs: test_serialization,
// test_empty, test_serialization_forced_alignement), written here as header text + padding + data.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/model.h"
#include "tinygpt/rng.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;
namespace st = tinygpt::safetensors;

namespace {

// u64 length + header (as given, no padding added) + data
std::vector<uint8_t> file_of(const std::string& header, const std::vector<uint8_t>& data = {}) {
  std::vector<uint8_t> b;
  for (int i = 0; i < 8; i++) b.push_back(uint8_t(uint64_t(header.size()) >> (8 * i)));
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

std::vector<uint8_t> floats_bytes(const std::vector<float>& f) {
  std::vector<uint8_t> b(f.size() * 4);
  std::memcpy(b.data(), f.data(), b.size());
  return b;
}

std::string parse_error(const std::vector<uint8_t>& b, const st::Limits& limits = {}) {
  try {
    st::parse(b.data(), b.size(), limits);
  } catch (const tinygpt::Error& e) {
    return e.what();
  }
  return "(parsed without error)";
}

Config tiny_config() {
  Config c;
  c.n_layer = 2, c.n_head = 2, c.n_embd = 8, c.block_size = 8, c.seed = 7;
  return c;
}

}  // namespace

TEST_CASE("safetensors writer reproduces the reference's bytes", "[safetensors]") {
  const std::vector<float> six = {0, 1, 2, 3, 4, 5};
  SECTION("one F32 tensor, header already a multiple of 8") {
    const auto out = st::serialize({{"attn.0", st::Dtype::F32, {1, 2, 3}, six.data(), 24}});
    CHECK(out == file_of(R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})", floats_bytes(six)));
    CHECK(out[0] == 64);
  }
  SECTION("padding with spaces so that the data is 8-byte aligned") {
    const auto out = st::serialize({{"attn0", st::Dtype::F32, {1, 1, 2, 3}, six.data(), 24}});
    CHECK(out == file_of(R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})" + std::string(7, ' '),
                         floats_bytes(six)));
    CHECK(out[0] == 72);
  }
  SECTION("no tensors, with and without metadata") {
    CHECK(st::serialize({}) == file_of("{}      "));
    CHECK(st::serialize({}, {{"framework", "pt"}}) == file_of(R"({"__metadata__":{"framework":"pt"}})" + std::string(5, ' ')));
  }
  SECTION("tensors ordered by dtype (the reference's enum order, last first), then by name") {
    const uint8_t u8[2] = {1, 2};
    const int64_t i64[1] = {-1};
    const float f[1] = {1.5f};
    const auto out = st::serialize({{"b", st::Dtype::F32, {1}, f, 4}, {"a", st::Dtype::U8, {2}, u8, 2},
                                    {"c", st::Dtype::I64, {}, i64, 8}, {"a2", st::Dtype::F32, {1}, f, 4}});
    const st::File file = st::parse(out.data(), out.size());
    REQUIRE(file.tensors.size() == 4);
    CHECK(file.tensors[0].name == "c");
    CHECK(file.tensors[1].name == "a2");
    CHECK(file.tensors[2].name == "b");
    CHECK(file.tensors[3].name == "a");
    CHECK(file.tensors[0].shape.empty());
    CHECK(file.header_bytes % 8 == 0);
  }
}

TEST_CASE("safetensors reader accepts the reference's valid examples", "[safetensors]") {
  // unpadded header (N = 60), I32 (2, 2) of zeros
  const std::string h = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";
  auto b = file_of(h, std::vector<uint8_t>(16, 0));
  st::File f = st::parse(b.data(), b.size());
  REQUIRE(f.tensors.size() == 1);
  CHECK(f.header_bytes == 60);
  CHECK(f.at("test").dtype == st::Dtype::I32);
  CHECK(f.at("test").shape == std::vector<uint64_t>{2, 2});
  CHECK(f.at("test").nbytes == 16);
  CHECK(f.at("test").data == b.data() + 8 + 60);
  CHECK_THROWS_WITH(f.at("other"), "safetensors: missing tensor 'other'");
  // a scalar, an empty tensor, whitespace around the object
  b = file_of(R"({"test":{"dtype":"I32","shape":[],"data_offsets":[0,4]}})", {0, 0, 0, 0});
  CHECK(st::parse(b.data(), b.size()).at("test").numel() == 1);
  b = file_of(R"({"test":{"dtype":"I32","shape":[2,0],"data_offsets":[0, 0]}})");
  CHECK(st::parse(b.data(), b.size()).at("test").nbytes == 0);
  b = file_of("{}\r \t\n");
  CHECK(st::parse(b.data(), b.size()).tensors.empty());
  b = file_of("\t\n{}\r ");
  CHECK(st::parse(b.data(), b.size()).tensors.empty());
  // zero-size tensors may share an offset with the tensor that starts there; file order is free
  b = file_of(R"({"z":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"y":{"dtype":"U8","shape":[4],"data_offsets":[4,8]},)"
              R"("x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"__metadata__":{"k":"v"}})",
              std::vector<uint8_t>(8, 1));
  f = st::parse(b.data(), b.size());
  CHECK(f.tensors[0].name == "x");
  CHECK(f.tensors[1].name == "z");
  CHECK(f.tensors[2].name == "y");
  CHECK(f.metadata == st::Metadata{{"k", "v"}});
}

TEST_CASE("safetensors round trip keeps every byte, every dtype and the metadata", "[safetensors]") {
  std::vector<st::TensorData> tensors;
  std::vector<std::vector<uint8_t>> storage;
  data::Rng rng(99);
  const st::Dtype all[] = {st::Dtype::BOOL, st::Dtype::U8,  st::Dtype::I8,  st::Dtype::F8_E5M2, st::Dtype::F8_E4M3,
                           st::Dtype::I16,  st::Dtype::U16, st::Dtype::F16, st::Dtype::BF16,    st::Dtype::I32,
                           st::Dtype::U32,  st::Dtype::F32, st::Dtype::C64, st::Dtype::F64,     st::Dtype::I64,
                           st::Dtype::U64};
  for (st::Dtype d : all) {
    const std::vector<uint64_t> shape = {3, 5};
    std::vector<uint8_t> bytes(15 * st::dtype_size(d));
    for (uint8_t& x : bytes) x = uint8_t(rng.next_u64());
    storage.push_back(bytes);
  }
  for (size_t i = 0; i < storage.size(); i++)
    tensors.push_back({std::string("t.") + st::dtype_name(all[i]) + " \xe4\xb8\xad", all[i], {3, 5}, storage[i].data(),
                       storage[i].size()});
  const st::Metadata meta = {{"format", "pt"}, {"note", "quote \" newline \n tab \t \xc3\xa9"}, {"", "empty key"}};
  const auto out = st::serialize(tensors, meta);
  const st::File f = st::parse(out.data(), out.size());
  CHECK(f.metadata == meta);
  REQUIRE(f.tensors.size() == tensors.size());
  for (size_t i = 0; i < tensors.size(); i++) {
    const st::TensorView& v = f.at(tensors[i].name);
    CHECK(v.dtype == all[i]);
    CHECK(v.shape == tensors[i].shape);
    REQUIRE(v.nbytes == storage[i].size());
    CHECK(std::memcmp(v.data, storage[i].data(), v.nbytes) == 0);
  }
  // writing what was read gives the same bytes
  std::vector<st::TensorData> again;
  for (const st::TensorView& v : f.tensors) again.push_back({v.name, v.dtype, v.shape, v.data, v.nbytes});
  CHECK(st::serialize(again, f.metadata) == out);
}

TEST_CASE("safetensors writer refuses what it cannot write", "[safetensors]") {
  const float f[2] = {1, 2};
  CHECK_THROWS_WITH(st::serialize({{"a", st::Dtype::F32, {3}, f, 8}}), Catch::Contains("has 8 bytes, but shape [3] of F32 needs 12"));
  CHECK_THROWS_WITH(st::serialize({{"a", st::Dtype::F32, {2}, f, 8}, {"a", st::Dtype::F32, {2}, f, 8}}),
                    Catch::Contains("two tensors are named 'a'"));
  CHECK_THROWS_WITH(st::serialize({{"__metadata__", st::Dtype::F32, {2}, f, 8}}), Catch::Contains("reserved"));
  CHECK_THROWS_WITH(st::serialize({{"", st::Dtype::F32, {2}, f, 8}}), Catch::Contains("needs a name"));
  CHECK_THROWS_WITH(st::serialize({{"\xff", st::Dtype::F32, {2}, f, 8}}), Catch::Contains("UTF-8"));
  CHECK_THROWS_WITH(st::serialize({}, {{"k", "\xc0\xaf"}}), Catch::Contains("metadata must be UTF-8"));
  CHECK_THROWS_WITH(st::serialize({{"a", st::Dtype::F32, {1ull << 62, 8}, f, 8}}), Catch::Contains("overflows 64 bits"));
}

TEST_CASE("safetensors reader refuses every kind of bad file with its own message", "[safetensors]") {
  const std::vector<uint8_t> d16(16, 0);
  const auto tensor = [](const std::string& body) { return "{\"t\":" + body + "}"; };
  struct Case {
    const char* what;
    std::vector<uint8_t> bytes;
    std::string message;
  };
  std::vector<uint8_t> huge_len = file_of("{}");
  huge_len[7] = 0xff;  // header length ~ 2^63
  std::vector<uint8_t> past_end = file_of("{}");
  past_end[0] = 3;
  const std::vector<Case> cases = {
      {"empty file", {}, "the file is 0 bytes, too short for the 8-byte header length"},
      {"7 bytes", {1, 0, 0, 0, 0, 0, 0}, "too short for the 8-byte header length"},
      {"header above 100 MB", huge_len, "is above the limit of 100000000 bytes"},
      {"header past the end", past_end, "header length 3 runs past the end of the file (10 bytes)"},
      {"header not UTF-8", file_of("{\"\xff\":1}"), "header: JSON: invalid UTF-8 in a string at line 1, column 3"},
      {"header not JSON", file_of("{"), "header: JSON: expected a string key in an object, found the end of the text"},
      {"header an array", file_of("[]"), "the header is a JSON array, not an object"},
      {"duplicate tensor", file_of(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"t":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", {0, 0}),
       "duplicate key \"t\""},
      {"metadata not strings", file_of(R"({"__metadata__":{"n":1}})"), "__metadata__ maps strings to strings, but \"n\" is a number"},
      {"metadata not an object", file_of(R"({"__metadata__":"x"})"), "__metadata__ must be an object of strings"},
      {"entry not an object", file_of(tensor("[1]")), "tensor 't': expected an object {dtype, shape, data_offsets}, got a array"},
      {"missing dtype", file_of(tensor(R"({"shape":[4],"data_offsets":[0,16]})"), d16), "tensor 't': missing \"dtype\""},
      {"missing shape", file_of(tensor(R"({"dtype":"F32","data_offsets":[0,16]})"), d16), "tensor 't': missing \"shape\""},
      {"missing offsets", file_of(tensor(R"({"dtype":"F32","shape":[4]})"), d16), "tensor 't': missing \"data_offsets\""},
      {"extra member", file_of(tensor(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16],"stride":[1]})"), d16),
       "tensor 't': unexpected member \"stride\""},
      {"unknown dtype", file_of(tensor(R"({"dtype":"F33","shape":[4],"data_offsets":[0,16]})"), d16),
       "tensor 't': unknown dtype \"F33\" (known: BOOL, U8"},
      {"lower-case dtype", file_of(tensor(R"({"dtype":"f32","shape":[4],"data_offsets":[0,16]})"), d16), "unknown dtype \"f32\""},
      {"dtype not a string", file_of(tensor(R"({"dtype":4,"shape":[4],"data_offsets":[0,16]})"), d16), "dtype must be a string"},
      {"sub-byte dtype", file_of(tensor(R"({"dtype":"F4","shape":[4],"data_offsets":[0,2]})"), {0, 0}),
       "dtype F4 packs several values into a byte"},
      {"negative dimension", file_of(tensor(R"({"dtype":"F32","shape":[-4],"data_offsets":[0,16]})"), d16),
       "shape must hold non-negative integers, got -4"},
      {"fractional dimension", file_of(tensor(R"({"dtype":"F32","shape":[4.0],"data_offsets":[0,16]})"), d16),
       "shape must hold non-negative integers, got 4.0"},
      {"dimension above 2^64", file_of(tensor(R"({"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,16]})"), d16),
       "shape value 18446744073709551616 does not fit in 64 bits"},
      {"shape overflow", file_of(tensor(R"({"dtype":"I32","shape":[2,18446744073709551614],"data_offsets":[0,16]})"), d16),
       "shape [2, 18446744073709551614] of I32 overflows 64 bits"},
      {"shape not an array", file_of(tensor(R"({"dtype":"F32","shape":4,"data_offsets":[0,16]})"), d16), "shape must be an array"},
      {"offsets of 3", file_of(tensor(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16,16]})"), d16),
       "data_offsets must be an array [begin, end], got [0,16,16]"},
      {"offsets reversed", file_of(tensor(R"({"dtype":"F32","shape":[4],"data_offsets":[16,0]})"), d16),
       "data_offsets [16, 0] end before they begin"},
      {"wrong byte count", file_of(tensor(R"({"dtype":"I32","shape":[2,2],"data_offsets":[0,4]})"), {0, 0, 0, 0}),
       "data_offsets [0, 4] hold 4 bytes, but shape [2, 2] of I32 needs 16"},
      {"out of range", file_of(tensor(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})"), {0, 0, 0, 0}),
       "tensor 't' data_offsets [0, 16] run past the end of the data (4 bytes)"},
      {"overlap", file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", d16),
       "tensor 'b' data_offsets [4, 12] overlap tensor 'a' [0, 8]"},
      {"same offsets (the reference's JSON attack)",
       file_of(R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", d16),
       "overlap tensor 'a' [0, 16]"},
      {"gap", file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                      std::vector<uint8_t>(12, 0)),
       "tensor 'b' begins at data byte 8, leaving bytes 4..7 unused"},
      {"gap at the start", file_of(tensor(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})"), std::vector<uint8_t>(8, 0)),
       "begins at data byte 4, leaving bytes 0..3 unused"},
      {"trailing bytes (a polyglot file)", file_of(tensor(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})"), std::vector<uint8_t>(20, 0)),
       "4 bytes after the last tensor"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string message = parse_error(c.bytes);
    CHECK_THAT(message, Catch::StartsWith("safetensors: "));
    CHECK_THAT(message, Catch::Contains(c.message));
  }
  // a file above the caller's limit is refused before anything else is looked at
  st::Limits small;
  small.max_file_bytes = 10;
  CHECK_THAT(parse_error(file_of("{}      "), small), Catch::Contains("the file is 16 bytes, above the limit of 10"));
  small = st::Limits{};
  small.max_header_bytes = 4;
  CHECK_THAT(parse_error(file_of("{}      "), small), Catch::Contains("header length 8 is above the limit of 4 bytes"));
}

TEST_CASE("the model's parameters go through a safetensors file bit for bit", "[safetensors][model]") {
  model::TinyGPT a(tiny_config());
  Config other = tiny_config();
  other.seed = 8;
  model::TinyGPT b(other);
  const st::Metadata meta = {{"n_layer", "2"}, {"n_head", "2"}, {"n_embd", "8"}, {"block_size", "8"}};
  const auto bytes = st::serialize_model(a, meta);
  const st::File f = st::parse(bytes.data(), bytes.size());
  CHECK(f.tensors.size() == a.param_table().size());
  CHECK(f.at("h.1.attn.c_attn.weight").shape == std::vector<uint64_t>{8, 24});  // (in, out)
  CHECK(f.at("lm_head.weight").shape == std::vector<uint64_t>{8, 256});
  REQUIRE(std::memcmp(a.params(), b.params(), size_t(a.num_parameters()) * 4) != 0);
  CHECK(st::load_model(bytes.data(), bytes.size(), b) == meta);
  CHECK(std::memcmp(a.params(), b.params(), size_t(a.num_parameters()) * 4) == 0);
}

TEST_CASE("a safetensors file that does not fit the model is refused and changes nothing", "[safetensors][model]") {
  model::TinyGPT a(tiny_config());
  Config other = tiny_config();
  other.seed = 8;
  model::TinyGPT b(other);
  const std::vector<float> before(b.params(), b.params() + b.num_parameters());
  const auto unchanged = [&] { return std::memcmp(before.data(), b.params(), before.size() * 4) == 0; };
  const auto load_error = [&](const std::vector<uint8_t>& bytes) -> std::string {
    try {
      st::load_model(bytes.data(), bytes.size(), b);
    } catch (const tinygpt::Error& e) {
      return e.what();
    }
    return "(loaded)";
  };

  SECTION("another configuration") {
    Config wide = tiny_config();
    wide.n_embd = 16;
    model::TinyGPT w(wide);
    CHECK_THAT(load_error(st::serialize_model(w, {})), Catch::Contains("tensor 'wte' has shape [256, 16], the model's is [256, 8]"));
  }
  SECTION("a missing tensor") {
    Config shallow = tiny_config();
    shallow.n_layer = 1;
    model::TinyGPT s(shallow);
    CHECK_THAT(load_error(st::serialize_model(s, {})), Catch::Contains("the file has no tensor 'h.1.ln_1.weight'"));
  }
  SECTION("an extra tensor") {
    std::vector<st::TensorData> t;
    for (const auto& p : a.param_table())
      t.push_back({p.name, st::Dtype::F32, {}, a.params() + p.offset, size_t(p.shape.numel()) * 4});
    for (size_t i = 0; i < t.size(); i++)
      for (int k = 0; k < a.param_table()[i].shape.ndim; k++) t[i].shape.push_back(uint64_t(a.param_table()[i].shape[k]));
    const float extra = 1;
    t.push_back({"h.0.attn.bias", st::Dtype::F32, {1}, &extra, 4});
    CHECK_THAT(load_error(st::serialize(t)), Catch::Contains("the file has a tensor 'h.0.attn.bias' that the model does not have"));
  }
  SECTION("another dtype") {
    std::vector<uint8_t> bytes = st::serialize_model(a, {});
    const std::string from = "\"wpe\":{\"dtype\":\"F32\"", to = "\"wpe\":{\"dtype\":\"I32\"";
    std::string text(bytes.begin(), bytes.end());
    text.replace(text.find(from), from.size(), to);
    CHECK_THAT(load_error(std::vector<uint8_t>(text.begin(), text.end())), Catch::Contains("tensor 'wpe' is I32; tinygpt's parameters are F32"));
  }
  SECTION("a non-finite value") {
    const float saved = a.params()[a.param_info("ln_f.bias").offset + 3];
    a.params()[a.param_info("ln_f.bias").offset + 3] = std::numeric_limits<float>::infinity();
    CHECK_THAT(load_error(st::serialize_model(a, {})), Catch::Contains("tensor 'ln_f.bias' holds a non-finite value at index 3"));
    a.params()[a.param_info("ln_f.bias").offset + 3] = saved;
  }
  CHECK(unchanged());
}

TEST_CASE("a model file carries every config field under its schema name", "[safetensors][config]") {
  Config c = tiny_config();
  c.learning_rate = 3e-3f, c.max_iters = 777, c.eval_interval = 0;
  const train::Trainer m(c);
  const auto bytes = st::export_model(m);
  const st::File f = st::parse(bytes.data(), bytes.size());
  CHECK(f.metadata.size() == config_schema().size() + 1);
  for (const FieldSpec& field : config_schema()) CHECK(f.metadata.at(field.name) == field_text(c, field));
  CHECK(f.metadata.at("format") == "pt");
  CHECK(f.metadata.at("learning_rate") == "0.003");
  CHECK(f.metadata.at("model") == "gpt");
  CHECK(st::config_from_metadata(f.metadata) == c);
}

TEST_CASE("a model file's metadata is read like flags: defaults, refusals, other keys ignored", "[safetensors][config]") {
  const auto error = [](const st::Metadata& m) -> std::string {
    try {
      st::config_from_metadata(m);
    } catch (const tinygpt::Error& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const st::Metadata shape = {{"n_layer", "2"}, {"n_head", "2"}, {"n_embd", "8"}, {"block_size", "8"}};
  Config expected;
  expected.n_layer = 2, expected.n_head = 2, expected.n_embd = 8, expected.block_size = 8;
  st::Metadata with_other_keys = shape;
  with_other_keys["format"] = "pt";
  with_other_keys["written_by"] = "someone's tool";
  CHECK(st::config_from_metadata(with_other_keys) == expected);  // the rest: the schema's defaults
  st::Metadata m = shape;
  m.erase("n_embd");
  CHECK(error(m) == "safetensors: not a tinygpt model file: its metadata has no \"n_embd\" (tinygpt export writes the whole config there)");
  m = shape, m["n_head"] = "3";
  CHECK_THAT(error(m), Catch::Contains("the config in the file's metadata is invalid: n_embd 8 is not divisible by n_head 3"));
  m = shape, m["learning_rate"] = "fast";
  CHECK_THAT(error(m), Catch::Contains("learning_rate expects a number, got 'fast'"));
  m = shape, m["model"] = "bert";
  CHECK_THAT(error(m), Catch::Contains("model must be one of gpt, seq2seq, rnn, gru, lstm, lstm_seq2seq (got 'bert')"));
  m = shape, m["n_layer"] = "0";
  CHECK_THAT(error(m), Catch::Contains("n_layer must be in [1, 96] (got 0)"));
}

TEST_CASE("a run started from a model file holds its weights at step 0", "[safetensors][train]") {
  Config c = tiny_config();
  const train::Trainer m(c);
  const auto bytes = st::export_model(m);
  const st::File f = st::parse(bytes.data(), bytes.size());
  Config run = st::config_from_metadata(f.metadata);
  run.seed = 99, run.max_iters = 300, run.learning_rate = 1e-4f;  // a new run: training fields and the data order may change
  const auto t = st::start_run(f, run);
  CHECK(t->steps_done() == 0);
  CHECK(t->optimizer().t() == 0);
  CHECK(t->config() == run);
  CHECK(std::memcmp(t->params(), m.params(), size_t(m.num_parameters()) * 4) == 0);
  Config wider = run;
  wider.n_embd = 16;
  CHECK_THROWS_WITH(st::start_run(f, wider),
                    Catch::Contains("n_embd is 16 but the file's model has 8: the model's shape comes from the file"));
}

TEST_CASE("a seq2seq model file starts a seq2seq run with its weights", "[safetensors][train]") {
  Config c = preset_config("s2s-tiny");
  c.seed = 5;
  const train::Trainer m(c);
  const auto bytes = st::export_model(m);
  const st::File f = st::parse(bytes.data(), bytes.size());
  CHECK(f.metadata.at("model") == "seq2seq");
  CHECK(st::config_from_metadata(f.metadata) == c);
  const auto t = st::start_run(f, c);
  CHECK(t->kind() == ModelKind::seq2seq);
  CHECK(std::memcmp(t->params(), m.params(), size_t(m.num_parameters()) * 4) == 0);
  // the fields that shape a seq2seq model are required, the gpt-only ones are not
  st::Metadata meta = f.metadata;
  meta.erase("n_layer");
  CHECK(st::config_from_metadata(meta) == c);
  meta.erase("d_ff");
  CHECK_THROWS_WITH(st::config_from_metadata(meta), Catch::Contains("its metadata has no \"d_ff\""));
}

// Random damage to valid files: every outcome is either a parsed file whose views lie inside the
// buffer and tile the data section, or a tinygpt::Error. (Under -DTINYGPT_SANITIZE=ON this also
// catches out-of-bounds reads.) A libFuzzer target for longer runs: tests/fuzz/fuzz_readers.cpp (reader "safetensors").
TEST_CASE("the safetensors reader survives random damage to valid files", "[safetensors][fuzz]") {
  model::TinyGPT m(tiny_config());
  const float f[3] = {1, 2, 3};
  const uint8_t u[5] = {1, 2, 3, 4, 5};
  const std::vector<std::vector<uint8_t>> seeds = {
      st::serialize({{"a", st::Dtype::F32, {3}, f, 12}, {"b", st::Dtype::U8, {5}, u, 5}, {"c", st::Dtype::U8, {0}, u, 0}},
                    {{"k", "v"}, {"n_layer", "2"}}),
      st::serialize({{"x", st::Dtype::F32, {1, 3}, f, 12}}),
      file_of(R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})", std::vector<uint8_t>(16, 7)),
  };
  data::Rng rng(2024);
  int accepted = 0, refused = 0;
  const int iterations = 20000;
  for (int it = 0; it < iterations; it++) {
    std::vector<uint8_t> b = seeds[rng.next_u64() % seeds.size()];
    const int edits = 1 + int(rng.next_u64() % 4);
    for (int e = 0; e < edits; e++) {
      const size_t at = b.empty() ? 0 : size_t(rng.next_u64() % b.size());
      switch (rng.next_u64() % 7) {
        case 0: if (!b.empty()) b[at] ^= uint8_t(1u << (rng.next_u64() % 8)); break;  // flip a bit
        case 1: if (!b.empty()) b[at] = uint8_t(rng.next_u64()); break;              // set a byte
        case 2: b.resize(size_t(rng.next_u64() % (b.size() + 1))); break;           // truncate
        case 3: b.insert(b.begin() + long(at), uint8_t(rng.next_u64())); break;     // insert a byte
        case 4: if (!b.empty()) b.erase(b.begin() + long(at)); break;               // delete a byte
        case 5: {                                                                   // a JSON-ish byte
          const char tokens[] = "{}[]\",:0123456789-.e \\u";
          if (!b.empty()) b[at] = uint8_t(tokens[rng.next_u64() % (sizeof tokens - 1)]);
          break;
        }
        case 6: if (b.size() >= 8) b[rng.next_u64() % 8] ^= uint8_t(1u << (rng.next_u64() % 8)); break;  // the length
      }
    }
    try {
      const st::File file = st::parse(b.data(), b.size());
      accepted++;
      uint64_t covered = 0;
      for (const st::TensorView& t : file.tensors) {
        REQUIRE(t.begin == covered);
        REQUIRE(t.data >= b.data() + 8 + file.header_bytes);
        REQUIRE(t.data + t.nbytes <= b.data() + b.size());
        covered = t.end;
      }
      REQUIRE(8 + file.header_bytes + covered == b.size());
    } catch (const tinygpt::Error& e) {
      refused++;
      REQUIRE_THAT(std::string(e.what()), Catch::StartsWith("safetensors: "));
    }
  }
  std::printf("[fuzz] safetensors reader: %d damaged files, %d accepted, %d refused\n", iterations, accepted, refused);
  CHECK(accepted + refused == iterations);
  CHECK(refused > iterations / 2);
}
