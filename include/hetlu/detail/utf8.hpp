// Whether text is well-formed UTF-8 and free of control characters, for what hetlu writes as JSON,
// stores or prints: names read from files (machine descriptions), texts read back from the database,
// messages quoting the user's input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace hetlu::detail {

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, surrogates or
// code points past U+10FFFF), 0 where none starts there.
inline int utf8_length_at(std::string_view text, std::size_t i) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned c = s[i];
  const int more = c < 0x80                 ? 0
                   : c >= 0xC2 && c <= 0xDF ? 1
                   : c >= 0xE0 && c <= 0xEF ? 2
                   : c >= 0xF0 && c <= 0xF4 ? 3
                                            : -1;
  if (more < 0 || i + more >= text.size()) return 0;
  for (int k = 1; k <= more; ++k)
    if ((s[i + k] & 0xC0) != 0x80) return 0;
  if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] > 0x9F) || (c == 0xF0 && s[i + 1] < 0x90) ||
      (c == 0xF4 && s[i + 1] > 0x8F))
    return 0;
  return 1 + more;
}

inline bool is_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const int length = utf8_length_at(text, i);
    if (length == 0) return false;
    i += length;
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

// The character the `length` bytes at text[i] encode where it reorders or breaks a line as it is
// shown, else 0: the directional marks, embeddings, overrides and isolates (U+200E, U+200F, U+202A to
// U+202E, U+2066 to U+2069) and the line and paragraph separators (U+2028, U+2029).
inline unsigned reorders_or_breaks_line(std::string_view text, std::size_t i, int length) {
  if (length != 3 || static_cast<unsigned char>(text[i]) != 0xE2) return 0;
  const unsigned code = 0x2000u | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
                        (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
  const bool reorders =
      code == 0x200E || code == 0x200F || (code >= 0x2028 && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
  return reorders ? code : 0;
}

// text as one line a terminal shows as it is: a control character (as above, line breaks too) as
// \n, \t or \xNN (C1 as \u0080 to \u009f), a byte that is not UTF-8 as \xNN, a character that
// reorders or breaks the line as \uNNNN, and every other character as it is. For messages that
// quote what the user gave (a file's bytes, a path, an imported text): ESC [ 2 J in a Matrix Market
// value cleared the screen, a newline split an error.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char code[8];
  for (std::size_t i = 0; i < text.size();) {
    const int length = utf8_length_at(text, i);
    const unsigned c = static_cast<unsigned char>(text[i]);
    const unsigned next = length == 2 ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c == '\n' || c == '\t')
      out += c == '\n' ? "\\n" : "\\t";
    else if (length == 0 || c < 0x20 || c == 0x7F)
      out += (std::snprintf(code, sizeof code, "\\x%02X", c), code);
    else if (c == 0xC2 && next <= 0x9F)
      out += (std::snprintf(code, sizeof code, "\\u%04x", next), code);
    else if (const unsigned format = reorders_or_breaks_line(text, i, length))
      out += (std::snprintf(code, sizeof code, "\\u%04x", format), code);
    else
      out.append(text.substr(i, length));
    i += std::max(1, length);
  }
  return out;
}

// An environment variable's value as a message quotes it: printable, and at most `most` bytes of it
// ("..." after a cut). A 5000-byte value was echoed whole, and ESC [ 2 J or a newline raw.
inline std::string printable_value(std::string_view text, std::size_t most = 64) {
  return text.size() <= most ? printable(text) : printable(text.substr(0, most)) + "...";
}

}  // namespace hetlu::detail
