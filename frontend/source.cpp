// Source files: their text, lines and locations.
#include "frontend/source.h"

namespace kite {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string SourceFile::line(int n) const {
  if (n < 1 || size_t(n) > line_starts_.size()) return "";
  size_t begin = line_starts_[n - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string s = text_.substr(begin, end - begin);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

}  // namespace kite
