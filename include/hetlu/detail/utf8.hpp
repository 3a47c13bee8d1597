// Whether text is well-formed UTF-8, for what hetlu writes as JSON or stores: names read from files
// (machine descriptions) and texts read back from the database.
#pragma once

#include <cstddef>
#include <string_view>

namespace hetlu::detail {

// RFC 3629: no overlong forms, surrogates or code points past U+10FFFF.
inline bool is_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = s[i];
    const int more = c < 0x80                 ? 0
                     : c >= 0xC2 && c <= 0xDF ? 1
                     : c >= 0xE0 && c <= 0xEF ? 2
                     : c >= 0xF0 && c <= 0xF4 ? 3
                                              : -1;
    if (more < 0 || i + more >= n) return false;
    for (int k = 1; k <= more; ++k)
      if ((s[i + k] & 0xC0) != 0x80) return false;
    if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] > 0x9F) || (c == 0xF0 && s[i + 1] < 0x90) ||
        (c == 0xF4 && s[i + 1] > 0x8F))
      return false;
    i += 1 + more;
  }
  return true;
}

// Whether text holds a control character that a terminal acts on: C0 (below U+0020; tab and line
// feed allowed where `allow_line_breaks`, as in a stored error message), DEL, or C1 (U+0080 to U+009F,
// the bytes C2 80 to C2 9F in UTF-8: U+009B opens an escape sequence as ESC [ does).
inline bool has_control_character(std::string_view text, bool allow_line_breaks = false) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned c = s[i];
    if (c < 0x20 && !(allow_line_breaks && (c == '\t' || c == '\n'))) return true;
    if (c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < text.size() && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F) return true;
  }
  return false;
}

}  // namespace hetlu::detail
