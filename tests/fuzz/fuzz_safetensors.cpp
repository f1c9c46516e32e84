// fuzz_safetensors.cpp — libFuzzer target: the strict safetensors reader, and the JSON parser under
// it, on arbitrary bytes. Every input must give either a file whose views lie inside the input and
// tile its data section, or a tinygpt::Error; ASan/UBSan catch the rest. Run: tests/fuzz/run.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "json.h"
#include "tinygpt/error.h"
#include "tinygpt/safetensors.h"

using namespace tinygpt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const safetensors::File file = safetensors::parse(data, size);
    uint64_t covered = 0;
    for (const safetensors::TensorView& t : file.tensors) {
      if (t.begin != covered || t.data < data + 8 + file.header_bytes || t.data + t.nbytes > data + size) std::abort();
      covered = t.end;
    }
    if (8 + file.header_bytes + covered != size) std::abort();
    // what was read writes back to a file that reads the same
    std::vector<safetensors::TensorData> again;
    for (const auto& t : file.tensors) again.push_back({t.name, t.dtype, t.shape, t.data, t.nbytes});
    const auto bytes = safetensors::serialize(again, file.metadata);
    if (safetensors::parse(bytes.data(), bytes.size()).tensors.size() != file.tensors.size()) std::abort();
  } catch (const Error&) {
  }
  // the JSON parser on the raw bytes too; a parsed value writes back and parses to the same value
  try {
    const json::Value v = json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!(json::parse(json::write(v)) == v)) std::abort();
  } catch (const Error&) {
  }
  return 0;
}
