package main

import (
	"go/token"
	"go/types"
	"strings"
	"unicode"
)

// derivedName is the package name derived from a module path. Reserved,
// when not empty, is the element Go could not import, to which "api" was
// appended to make Name.
type derivedName struct {
	Name, Reserved string
}

// derivePackage derives a package name from a module path: its last element
// (the one before a /vN major-version suffix), without a "go-" prefix or a
// "-go"/".go" suffix, lower-cased, keeping letters and digits:
// "github.com/acme/payments-go" -> "payments". A name Go cannot import
// ("init", "main", "type", "len") gets "api" appended, since a module path
// ending in /init is legal and the user did not choose the package name.
// Name is "" when nothing usable is left ("123").
func derivePackage(path string) derivedName {
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
	if !token.IsIdentifier(name) && !token.IsKeyword(name) {
		return derivedName{}
	}
	if packageNameProblem(name) != "" {
		return derivedName{Name: name + "api", Reserved: name}
	}
	return derivedName{Name: name}
}

// packageNameProblem says why name cannot be the package name of a library
// others import, or returns "". Besides what the Go spec forbids, it
// refuses what compiles but cannot be used: a package named init or main
// cannot be imported, and one named after a predeclared identifier (len,
// string, nil) shadows it in every file that imports it.
func packageNameProblem(name string) string {
	switch {
	case token.IsKeyword(name):
		return "is a Go keyword"
	case !token.IsIdentifier(name):
		return "is not a Go identifier (ASCII or Unicode letters, digits and _, not starting with a digit)"
	case name == "_":
		return "is the blank identifier"
	case name == "init":
		return "cannot be imported: Go reserves init for functions"
	case name == "main":
		return "is a program, not a library: it cannot be imported"
	case types.Universe.Lookup(name) != nil:
		return "is a predeclared Go identifier: every file importing the package would shadow it"
	}
	return ""
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
