// error.h — the one exception type the core throws. Its message is meant for the user:
// it says what was wrong and, where possible, what would be accepted.
#pragma once

#include <stdexcept>
#include <string>

namespace tinygpt {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tinygpt
