// test_main.cpp — Catch2's main, plus a global operator new that counts heap allocations
// (tests/test_util.h: testutil::allocations()), so a test can assert that a training step allocates nothing.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <new>

#include "test_util.h"

namespace testutil {
std::atomic<long> g_allocations{0};
}

#if defined(TINYGPT_COUNT_ALLOCATIONS)

void* operator new(std::size_t n) {
  testutil::g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  testutil::g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  testutil::g_allocations.fetch_add(1, std::memory_order_relaxed);
  std::size_t al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  testutil::g_allocations.fetch_add(1, std::memory_order_relaxed);
  std::size_t al = static_cast<std::size_t>(a);
  return std::aligned_alloc(al, (n + al - 1) / al * al);
}
// These replace the global operators, so new pairs with this free(); GCC 12 cannot see that once
// it inlines them into library code, and warns (-Wmismatched-new-delete) in optimised builds.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#endif  // TINYGPT_COUNT_ALLOCATIONS
