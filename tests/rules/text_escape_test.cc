// The one JSON and one HTML escaper every layer uses (rules/text_escape.h),
// against outputs worked by hand from JSON (RFC 8259, section 7) and HTML's
// character references.
#include "rules/text_escape.h"

#include <string>

#include "gtest/gtest.h"

namespace gunbai::base {
namespace {

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
  // Worked by hand: each of & < > " ' becomes its character reference.
  EXPECT_EQ(HtmlEscape("<script>alert(\"x\")</script> & 'y'"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; "
            "&#39;y&#39;");
  EXPECT_EQ(HtmlEscape("&amp;"), "&amp;amp;");  // escaped again, not kept
  EXPECT_EQ(HtmlEscape("plain id-1.x"), "plain id-1.x");
  EXPECT_EQ(HtmlEscape(""), "");
}

TEST(HtmlEscape, KeepsUtf8AndReplacesWhatIsNot) {
  const std::string fffd = "\xEF\xBF\xBD";
  // Valid UTF-8 (2, 3 and 4 bytes) is kept as it is.
  EXPECT_EQ(HtmlEscape("\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x8E\xB2"),
            "\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x8E\xB2");
  // A stray byte, a cut sequence (E2 82 then the end: two bytes replaced
  // one by one), an overlong '/' (C0 AF) and a surrogate (ED A0 80).
  EXPECT_EQ(HtmlEscape("a\xFF"
                       "b"),
            "a" + fffd + "b");
  EXPECT_EQ(HtmlEscape("\xE2\x82"), fffd + fffd);
  EXPECT_EQ(HtmlEscape("\xC0\xAF"), fffd + fffd);
  EXPECT_EQ(HtmlEscape("\xED\xA0\x80"), fffd + fffd + fffd);
  // Controls other than tab and newline are not allowed in HTML text.
  EXPECT_EQ(HtmlEscape(std::string("a\x01\tb\n\x7F", 6)),
            "a" + fffd + "\tb\n" + fffd);
  EXPECT_EQ(HtmlEscape(std::string("\0", 1)), fffd);
}

TEST(JsonString, EscapesQuotesBackslashesControlsAndMarkup) {
  // Worked by hand: " and \ take a backslash; a newline (0x0A), 0x01 and
  // DEL (0x7F) become \u00XX; < > & become \u003c \u003e \u0026 so that
  // the literal can sit in a page's script without ending it.
  EXPECT_EQ(JsonString("a \"q\" \\ b"), "\"a \\\"q\\\" \\\\ b\"");
  EXPECT_EQ(JsonString(std::string("x\n\x01\x7F", 4)),
            "\"x\\u000a\\u0001\\u007f\"");
  EXPECT_EQ(JsonString("<b>&"), "\"\\u003cb\\u003e\\u0026\"");
  EXPECT_EQ(JsonString(""), "\"\"");
  EXPECT_EQ(JsonString(std::string("\0", 1)), "\"\\u0000\"");
}

TEST(JsonString, KeepsUtf8AndReplacesWhatIsNot) {
  const std::string fffd = "\xEF\xBF\xBD";
  // Valid UTF-8 (2, 3 and 4 bytes) is kept; a stray byte, an overlong '/'
  // (C0 AF: two bytes, each replaced) and a sequence cut short become
  // U+FFFD, so the literal is always valid JSON text.
  EXPECT_EQ(JsonString("\xC3\xA9\xE6\x97\xA5\xF0\x9F\x8E\xB2"),
            "\"\xC3\xA9\xE6\x97\xA5\xF0\x9F\x8E\xB2\"");
  EXPECT_EQ(JsonString("a\xFF"), "\"a" + fffd + "\"");
  EXPECT_EQ(JsonString("\xC0\xAF"), "\"" + fffd + fffd + "\"");
  EXPECT_EQ(JsonString("\xE2\x82"), "\"" + fffd + fffd + "\"");
}

TEST(Utf8Length, CountsWellFormedSequencesOnly) {
  // By hand from the UTF-8 table: a lead byte says the length; E0 needs a
  // second byte of A0 or more (no overlong forms), ED one of 9F or less (no
  // surrogates), F4 one of 8F or less (nothing past U+10FFFF).
  EXPECT_EQ(Utf8Length("a", 0), 1);
  EXPECT_EQ(Utf8Length("\xC3\xA9", 0), 2);
  EXPECT_EQ(Utf8Length("\xE6\x97\xA5", 0), 3);
  EXPECT_EQ(Utf8Length("\xF0\x9F\x8E\xB2", 0), 4);
  EXPECT_EQ(Utf8Length("\xE0\x9F\x80", 0), 0);
  EXPECT_EQ(Utf8Length("\xED\xA0\x80", 0), 0);
  EXPECT_EQ(Utf8Length("\xF4\x90\x80\x80", 0), 0);
  EXPECT_EQ(Utf8Length("\x80", 0), 0);
  EXPECT_EQ(Utf8Length("\xC3", 0), 0);
}

}  // namespace
}  // namespace gunbai::base
