// Collects the first parse error of protobuf's text format with its line and
// column, for messages that tell the user where to look.
#ifndef GUNBAI_REPLAY_TEXT_ERRORS_H_
#define GUNBAI_REPLAY_TEXT_ERRORS_H_

#include <string>

#include "google/protobuf/io/tokenizer.h"

namespace gunbai::replay {

class FirstTextError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (!has_error_) {
      has_error_ = true;
      line_ = line + 1;  // The parser counts from 0.
      column_ = column + 1;
      message_ = message;
    }
  }
  void AddWarning(int, int, const std::string&) override {}

  bool has_error() const { return has_error_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_TEXT_ERRORS_H_
