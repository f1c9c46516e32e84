// io.cpp — file helpers shared by the corpus loader, checkpoints and the CLI.
#include "tinygpt/io.h"

#include <cstdio>

#include "tinygpt/error.h"

namespace tinygpt::io {

using tinygpt::Error;

std::vector<uint8_t> read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error("cannot open '" + path + "'");
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw Error("error reading '" + path + "'");
  return bytes;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error("cannot write '" + path + "'");
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("error writing '" + path + "'");
  }
}

}  // namespace tinygpt::io
