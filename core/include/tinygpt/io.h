// io.h — whole-file reads and crash-safe writes, for corpora and checkpoints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinygpt::io {

std::vector<uint8_t> read_file(const std::string& path);  // throws tinygpt::Error
// Writes to "<path>.tmp" and renames it over path, so a crash never leaves half a file.
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace tinygpt::io
