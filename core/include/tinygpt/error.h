// error.h — the one exception type the core throws, and the coded message it (and other results
// meant for a person) can carry. The English text is for the CLI and the tests; the page words a
// message from its stable code and args in the reader's language (web/src/i18n/*/errors.ts).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tinygpt {

// A message's parameters by name ("field" -> "n_embd"), as the English shows them.
using MessageArgs = std::vector<std::pair<std::string, std::string>>;

struct Message {
  std::string code;  // stable, listed in message_codes() ("config.range"); "" for an uncoded message
  MessageArgs args;
  std::string text;  // the English sentence
};

// Every code the core can put on a message: the page checks that both catalogues word each one.
const std::vector<std::string_view>& message_codes();
bool is_message_code(std::string_view code);

// A coded message; the code must be one of message_codes() (checked: a typo is an internal error).
Message coded(std::string_view code, MessageArgs args, std::string text);

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  explicit Error(Message m) : std::runtime_error(m.text), code_(std::move(m.code)), args_(std::move(m.args)) {}
  const std::string& code() const { return code_; }
  const MessageArgs& args() const { return args_; }
  Message message() const { return {code_, args_, what()}; }

 private:
  std::string code_;
  MessageArgs args_;
};

}  // namespace tinygpt
