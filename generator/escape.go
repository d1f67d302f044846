package generator

import (
	"strings"
	"unicode"
)

// Spec text reaches generated source in exactly two ways, and each has one
// path:
//
//   - in comments: specText cleans it here, then docLinesWrap splits it into
//     lines and canonicalComment prefixes every line with "// " (inline
//     fragments, such as a media type inside a sentence, go through
//     inlineText). A line can then never start a directive (//go:, //line,
//     //export need the text right after the slashes), never close a block
//     comment (none is emitted), and never hold a byte the compiler
//     refuses (NUL, a byte order mark, invalid UTF-8);
//   - in string literals: jen.Lit, which quotes with strconv (every control
//     character, invalid byte, backtick and quote escaped).
//
// Identifiers are made by GoName, file names by the tag file namer; neither
// keeps anything but letters, digits and underscores.

// specText makes free text from a document safe to place in comments:
// invalid UTF-8 becomes U+FFFD; every line terminator a reader might honour
// (CR, CRLF, NEL, VT, FF, U+2028, U+2029) becomes "\n", so what looks like a
// separate line in an editor is a separate "// " line; other control
// characters and byte order marks are dropped.
func specText(s string) string {
	if plainASCII(s) {
		return s // the common case: nothing to replace or drop
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n':
			return r
		case '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			return '\n'
		case '\uFEFF':
			return -1
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// plainASCII reports whether s holds only printable ASCII, tabs and
// newlines, which specText keeps as they are.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < ' ' && b != '\t' && b != '\n') || b > '~' {
			return false
		}
	}
	return true
}

// inlineText is specText for a fragment placed inside one line of a
// comment: line breaks become spaces.
func inlineText(s string) string {
	return strings.Join(strings.Fields(specText(s)), " ")
}

// neutralLine keeps a printed comment line from reading as a build
// constraint: "// +build" is one even with the space (and gofmt then hoists
// it above the package clause as a //go:build line), and white space of any
// kind before "+build" does not help (the go command trims Unicode spaces),
// so a line of spec text starting with "+build" gets a backslash first.
func neutralLine(text string) string {
	if strings.HasPrefix(strings.TrimSpace(text), "+build") {
		return "\\" + strings.TrimSpace(text)
	}
	return text
}
