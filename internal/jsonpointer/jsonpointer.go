// Package jsonpointer holds the JSON pointer (RFC 6901) helpers the parser and
// `idemgen annotate` both need: escaping one token, reading it back, joining
// tokens into a pointer and splitting a pointer into tokens. It is stdlib-only
// and knows nothing of the trees either package walks.
package jsonpointer

import "strings"

// Escape escapes one pointer token: "~" becomes "~0" and "/" becomes "~1".
func Escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Unescape reverses Escape. "~1" is replaced before "~0", so "~01" reads as
// "~1" (RFC 6901 section 4).
func Unescape(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// Join appends tokens to the pointer base, escaping each:
// Join("/paths", "/orders", "post") is "/paths/~1orders/post".
func Join(base string, toks ...string) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// Split returns the unescaped tokens of a pointer: nil for "" (the whole
// document), and for "/" the one empty token RFC 6901 says it names.
// A pointer that does not start with "/" is read as if it did.
func Split(pointer string) []string {
	if pointer == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks
}

// Last returns the unescaped last token of a pointer ("" for "").
func Last(pointer string) string {
	return Unescape(pointer[strings.LastIndexByte(pointer, '/')+1:])
}
