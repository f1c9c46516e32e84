// test_checkpoint.cpp — round trips, exact resume, and every way a checkpoint can be bad.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "tinygpt/checkpoint.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

namespace {

// Byte offsets of header fields (checkpoint.h)
constexpr size_t kVersionAt = 8, kLayersAt = 12, kEmbdAt = 20, kParamsCountAt = 148, kPayloadAt = ckpt::kHeaderBytes;

std::vector<uint8_t> corpus() {
  std::string s;
  for (int i = 0; i < 200; i++) s += "It is a truth universally acknowledged, line " + std::to_string(i) + ".\n";
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::unique_ptr<train::Trainer> make_trainer() {
  model::Config c;
  c.n_layer = 2, c.n_head = 2, c.n_embd = 16, c.block_size = 16, c.seed = 21;
  train::TrainConfig tc;
  tc.batch_size = 4;
  tc.steps = 12;
  tc.warmup = 3;
  tc.eval_batches = 2;
  auto t = std::make_unique<train::Trainer>(c, tc);
  t->set_corpus(corpus());
  return t;
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b[at + size_t(i)] = uint8_t(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; i++) b[at + size_t(i)] = uint8_t(v >> (8 * i));
}
// Rewrites the trailing CRC so that a deliberate edit is caught by the check that targets it.
void fix_crc(std::vector<uint8_t>& b) { put_u32(b, b.size() - 4, ckpt::crc32(b.data(), b.size() - 4)); }

std::string load_error(const std::vector<uint8_t>& b) {
  try {
    train::Trainer::load(b.data(), b.size());
  } catch (const tinygpt::Error& e) {
    return e.what();
  }
  return "(loaded without error)";
}

}  // namespace

TEST_CASE("CRC-32 matches the standard check value", "[checkpoint]") {
  const char* s = "123456789";
  CHECK(ckpt::crc32(reinterpret_cast<const uint8_t*>(s), 9) == 0xCBF43926u);
}

TEST_CASE("a checkpoint round-trips: loading and saving again gives the same bytes", "[checkpoint]") {
  auto t = make_trainer();
  for (int i = 0; i < 5; i++) t->step();
  t->evaluate();
  const std::vector<uint8_t> a = t->save();
  REQUIRE(a.size() == ckpt::kHeaderBytes + size_t(t->model().num_parameters()) * 12 + 5 * 4 + 1 * 12 + 4);
  CHECK(std::memcmp(a.data(), "TGPTCKPT", 8) == 0);
  auto u = train::Trainer::load(a.data(), a.size());
  u->set_corpus(corpus());
  CHECK(u->corpus_matches_checkpoint());
  CHECK(u->steps_done() == 5);
  CHECK(u->train_losses() == t->train_losses());
  REQUIRE(u->val_losses().size() == 1);
  CHECK(u->val_losses()[0].loss == t->val_losses()[0].loss);
  CHECK(u->save() == a);
}

TEST_CASE("N steps straight equal N/2 steps, save, load, N/2 steps, bit for bit", "[checkpoint][train]") {
  auto straight = make_trainer();
  for (int i = 0; i < 12; i++) straight->step();

  auto first = make_trainer();
  for (int i = 0; i < 6; i++) first->step();
  const std::vector<uint8_t> bytes = first->save();
  io::write_file("test_resume.ckpt", bytes);  // through a real file, as the CLI does
  const std::vector<uint8_t> read = io::read_file("test_resume.ckpt");
  std::remove("test_resume.ckpt");
  auto resumed = train::Trainer::load(read.data(), read.size());
  resumed->adopt_dataset(first->take_dataset());
  for (int i = 0; i < 6; i++) resumed->step();

  REQUIRE(resumed->train_losses().size() == 12);
  CHECK(std::memcmp(resumed->train_losses().data(), straight->train_losses().data(), 12 * sizeof(float)) == 0);
  CHECK(std::memcmp(resumed->model().params(), straight->model().params(),
                    size_t(straight->model().num_parameters()) * sizeof(float)) == 0);
  CHECK(resumed->optimizer().m() == straight->optimizer().m());
  CHECK(resumed->optimizer().v() == straight->optimizer().v());
  CHECK(resumed->evaluate() == straight->evaluate());
}

TEST_CASE("a different corpus after loading is reported", "[checkpoint]") {
  auto t = make_trainer();
  t->step();
  const std::vector<uint8_t> b = t->save();
  auto u = train::Trainer::load(b.data(), b.size());
  std::vector<uint8_t> other = corpus();
  other[0] ^= 1;
  u->set_corpus(other);
  CHECK_FALSE(u->corpus_matches_checkpoint());
}

TEST_CASE("bad checkpoints are rejected, each with its own message", "[checkpoint][errors]") {
  auto t = make_trainer();
  for (int i = 0; i < 3; i++) t->step();
  const std::vector<uint8_t> good = t->save();
  REQUIRE(load_error(good) == "(loaded without error)");

  SECTION("empty or tiny file") {
    CHECK_THAT(load_error({}), Catch::Contains("only 0 bytes"));
    CHECK_THAT(load_error({'T', 'G'}), Catch::Contains("only 2 bytes"));
  }
  SECTION("wrong magic: some other file") {
    std::vector<uint8_t> b(good);
    std::memcpy(b.data(), "PK\x03\x04zip!", 8);
    CHECK_THAT(load_error(b), Catch::Contains("does not start with the TGPTCKPT magic"));
    const std::string text = "Hello, this is a text file, not a checkpoint at all.";
    CHECK_THAT(load_error(std::vector<uint8_t>(text.begin(), text.end())), Catch::Contains("magic"));
  }
  SECTION("another version") {
    std::vector<uint8_t> b(good);
    put_u32(b, kVersionAt, 7);
    CHECK_THAT(load_error(b), Catch::Contains("version 7 is not supported"));
  }
  SECTION("truncated anywhere") {
    for (size_t keep : {size_t(12), size_t(100), kPayloadAt, kPayloadAt + 1000, good.size() - 1}) {
      std::vector<uint8_t> b(good.begin(), good.begin() + long(keep));
      INFO("kept " << keep << " bytes");
      CHECK_THAT(load_error(b), Catch::Contains("truncated"));
    }
  }
  SECTION("trailing garbage") {
    std::vector<uint8_t> b(good);
    b.push_back(0);
    CHECK_THAT(load_error(b), Catch::Contains("1 unexpected bytes after its end"));
  }
  SECTION("a config that cannot be") {
    std::vector<uint8_t> b(good);
    put_u32(b, kLayersAt, 0);
    fix_crc(b);
    CHECK_THAT(load_error(b), Catch::Contains("invalid config") && Catch::Contains("layers"));
  }
  SECTION("sizes that disagree with the config") {
    std::vector<uint8_t> b(good);
    put_u32(b, kEmbdAt, 32);  // width 32 with 2 heads is valid, but needs more parameters
    fix_crc(b);
    CHECK_THAT(load_error(b), Catch::Contains("parameters but its config") && Catch::Contains("width 32"));
    std::vector<uint8_t> c(good);
    put_u64(c, kParamsCountAt, uint64_t(t->model().num_parameters()) - 1);
    fix_crc(c);
    CHECK_THAT(load_error(c), Catch::Contains("parameters but its config"));
  }
  SECTION("a flipped bit in the payload") {
    std::vector<uint8_t> b(good);
    b[kPayloadAt + 77] ^= 0x10;
    CHECK_THAT(load_error(b), Catch::Contains("checksum does not match"));
  }
  SECTION("NaN or Inf in the parameters or optimizer state") {
    const float bad[2] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
    const size_t P = size_t(t->model().num_parameters());
    const size_t wte_elem = 5, m_elem = P + 3;
    for (float f : bad) {
      std::vector<uint8_t> b(good);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      put_u32(b, kPayloadAt + 4 * wte_elem, u);
      fix_crc(b);
      CHECK_THAT(load_error(b), Catch::Contains("NaN or Inf values in the parameters") && Catch::Contains("wte"));
      std::vector<uint8_t> c(good);
      put_u32(c, kPayloadAt + 4 * m_elem, u);
      fix_crc(c);
      CHECK_THAT(load_error(c), Catch::Contains("first moments"));
    }
  }
  SECTION("a failed load leaves the current trainer untouched and usable") {
    std::vector<float> before(t->model().params(), t->model().params() + t->model().num_parameters());
    std::vector<uint8_t> b(good);
    b[kPayloadAt] ^= 1;
    CHECK_THROWS_AS(train::Trainer::load(b.data(), b.size()), tinygpt::Error);
    CHECK(std::memcmp(before.data(), t->model().params(), before.size() * 4) == 0);
    CHECK(std::isfinite(t->step()));
  }
}
