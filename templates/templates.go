// Package templates holds the non-Go text idemgen writes into generated
// packages, embedded so the binary is self-contained.
package templates

import "embed"

// FS holds the templates: doc.go.tmpl is the package documentation file of a
// generated client.
//
//go:embed *.tmpl
var FS embed.FS
