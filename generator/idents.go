package generator

import (
	"strconv"
	"unicode"
)

// lowerFirst makes an exported name unexported, lowering a leading
// initialism as a whole ("URLList" -> "urlList", "CreateOrder" ->
// "createOrder").
func lowerFirst(s string) string {
	runes := []rune(s)
	n := 0
	for n < len(runes) && unicode.IsUpper(runes[n]) {
		n++
	}
	switch {
	case n == 0:
		return s
	case n > 1 && n < len(runes):
		n-- // keep the start of the next word: "URLList" -> "url" + "List"
	}
	for i := 0; i < n; i++ {
		runes[i] = unicode.ToLower(runes[i])
	}
	return string(runes)
}

// namespace hands out unique identifiers.
type namespace map[string]bool

// claim returns base, or base+suffix, base+suffix+"2"... whichever is free,
// and marks it taken.
func (ns namespace) claim(base, suffix string) string {
	name := base
	if ns[name] && suffix != "" {
		name = base + suffix
	}
	for i := 2; ns[name]; i++ {
		name = base + suffix + strconv.Itoa(i)
	}
	ns[name] = true
	return name
}
