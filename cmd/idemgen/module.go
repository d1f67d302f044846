package main

import (
	"strings"
	"unicode"
)

// packageFromModule derives a package name from a module path: its last
// element (the one before a /vN major-version suffix), without a "go-"
// prefix or a "-go"/".go" suffix, lower-cased, keeping letters and digits:
// "github.com/acme/payments-go" -> "payments". It returns "" when nothing
// usable is left.
func packageFromModule(path string) string {
	elems := strings.Split(strings.Trim(path, "/"), "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && isMajorSuffix(last) {
		last = elems[len(elems)-2]
	}
	last = strings.ToLower(last)
	last = strings.TrimPrefix(last, "go-")
	last = strings.TrimSuffix(strings.TrimSuffix(last, "-go"), ".go")
	var b strings.Builder
	for _, r := range last {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	name := b.String()
	if !isPackageName(name) || name == "main" {
		return ""
	}
	return name
}

// isMajorSuffix reports a "v2", "v3"... path element.
func isMajorSuffix(s string) bool {
	return len(s) > 1 && s[0] == 'v' && strings.Trim(s[1:], "0123456789") == "" && s[1] != '0'
}

// isModulePath is a light check of a module path: slash-separated
// non-empty elements of letters, digits and "-._~", not starting with a dot
// or a dash. The go command checks the rest when it reads the go.mod.
func isModulePath(path string) bool {
	if path == "" || len(path) > 400 {
		return false
	}
	for _, e := range strings.Split(path, "/") {
		if e == "" || e[0] == '.' || e[0] == '-' {
			return false
		}
		for _, r := range e {
			if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || strings.ContainsRune("-._~", r)) {
				return false
			}
		}
	}
	return true
}
