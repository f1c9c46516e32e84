// runtime.h — what the build can do and how many threads it uses.
#pragma once

namespace tinygpt {

const char* simd_backend();  // "avx2", "sse2", "simd128", "neon" or "scalar"
int max_threads();           // hardware threads available (1 in a build without threads)
int num_threads();           // threads the kernels use now (default 1)
void set_num_threads(int n); // 1 .. 256; throws tinygpt::Error otherwise (or if the build has no threads)

}  // namespace tinygpt
