// runtime.cpp — the public runtime API (runtime.h): which kernels run and on how many threads.
#include "tinygpt/runtime.h"

#include "kernels.h"
#include "threadpool.h"

namespace tinygpt {

const char* simd_backend() { return kernels::simd_backend(); }
int max_threads() { return tp::max_threads(); }
int num_threads() { return tp::num_threads(); }
void set_num_threads(int n) { tp::set_num_threads(n); }

}  // namespace tinygpt
