// test_data.cpp — the byte dataset: next-byte pairs, the split, sampling state.
#include <catch2/catch.hpp>

#include "tinygpt/data.h"
#include "tinygpt/error.h"

using namespace tinygpt;

TEST_CASE("bytes [2,1,3,0] make the walkthrough's pair x = [2,1,3], y = [1,3,0]", "[data][walkthrough]") {
  data::Dataset d({2, 1, 3, 0});
  data::Batch b = d.sample_batch(1, 3);  // the only window of 4 bytes
  CHECK(b.x == std::vector<int32_t>{2, 1, 3});
  CHECK(b.y == std::vector<int32_t>{1, 3, 0});
}

TEST_CASE("targets are the inputs shifted by one byte in every sampled window", "[data]") {
  std::vector<uint8_t> bytes(1000);
  for (size_t i = 0; i < bytes.size(); i++) bytes[i] = uint8_t((i * 37 + 11) % 251);
  data::Dataset d(bytes, 5);
  data::Batch b = d.sample_batch(8, 16);
  for (int r = 0; r < 8; r++)
    for (int t = 0; t + 1 < 16; t++) CHECK(b.y[size_t(r * 16 + t)] == b.x[size_t(r * 16 + t + 1)]);
}

TEST_CASE("the last 10% is validation and training windows never enter it", "[data]") {
  std::vector<uint8_t> bytes(1000, 'a');
  for (size_t i = 900; i < 1000; i++) bytes[i] = 'z';  // validation text is all 'z'
  data::Dataset d(bytes, 1);
  CHECK(d.train_size() == 900);
  CHECK(d.val_size() == 100);
  for (int k = 0; k < 50; k++) {
    data::Batch b = d.sample_batch(4, 32);
    for (int32_t x : b.x) CHECK(x == 'a');
    for (int32_t y : b.y) CHECK(y == 'a');
  }
  data::Batch v;
  d.val_batch(0, 4, 32, v);
  for (int32_t x : v.x) CHECK(x == 'z');
}

TEST_CASE("the sampling generator's state can be saved and restored", "[data]") {
  std::vector<uint8_t> bytes(5000);
  for (size_t i = 0; i < bytes.size(); i++) bytes[i] = uint8_t(i * 7);
  data::Dataset d(bytes, 42);
  d.sample_batch(4, 8);
  const data::Rng::State s = d.rng_state();
  data::Batch a = d.sample_batch(4, 8);
  d.set_rng_state(s);
  data::Batch b = d.sample_batch(4, 8);
  CHECK(a.x == b.x);
  data::Batch c = d.sample_batch(4, 8);
  CHECK(c.x != a.x);
}

TEST_CASE("validation batches are fixed: the k-th batch is always the same", "[data]") {
  std::vector<uint8_t> bytes(5000);
  for (size_t i = 0; i < bytes.size(); i++) bytes[i] = uint8_t(i * 13);
  data::Dataset d(bytes, 1);
  data::Batch a, b, c;
  d.val_batch(3, 2, 16, a);
  d.sample_batch(7, 16);  // sampling does not disturb validation
  d.val_batch(3, 2, 16, b);
  d.val_batch(4, 2, 16, c);
  CHECK(a.x == b.x);
  CHECK(a.x != c.x);
}

TEST_CASE("any bytes are tokens: binary and UTF-8 corpora work", "[data]") {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 512; i++) bytes.push_back(uint8_t(i));
  const std::string zh = "你好，世界";  // 3 bytes per character
  bytes.insert(bytes.end(), zh.begin(), zh.end());
  data::Dataset d(bytes);
  data::Batch b = d.sample_batch(16, 20);
  for (int32_t x : b.x) CHECK((x >= 0 && x < 256));
}

TEST_CASE("empty and too-short corpora are rejected with a clear message", "[data][errors]") {
  CHECK_THROWS_WITH(data::Dataset(std::vector<uint8_t>{}), Catch::Contains("corpus is empty"));
  data::Dataset d({1, 2, 3});
  CHECK_THROWS_WITH(d.sample_batch(1, 3), Catch::Contains("fewer than context + 1 = 4"));
  CHECK_THROWS_WITH(data::Dataset::from_file("/nonexistent/file.txt"), Catch::Contains("cannot open"));
}

TEST_CASE("the corpus fingerprint is standard FNV-1a 64", "[data]") {
  CHECK(data::Dataset({'a'}).fingerprint() == 0xaf63dc4c8601ec8cull);
  const std::string foobar = "foobar";
  CHECK(data::Dataset(std::vector<uint8_t>(foobar.begin(), foobar.end())).fingerprint() == 0x85944171f73967e8ull);
}
