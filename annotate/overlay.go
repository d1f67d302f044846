package annotate

import (
	"fmt"
	"strconv"
	"strings"
)

// Overlay renders the edits as an OpenAPI Overlay 1.0 document instead of
// changes to the spec: one action per edit, in document order, targeting
// the operation by JSONPath (`$.paths['/orders'].post`) with an `update`
// that adds its x-idempotent, then one per x-pagination added, then one per x-waiters added, then one per x-lookup added. Applied to the original spec (idemgen
// generate/lint/mock --overlay), it gives what the annotated spec gives,
// while the spec itself stays as its owner publishes it. title names the
// overlay; extends, when not empty, is the spec's location written in it.
// It returns nil when there are no edits: an overlay needs one action.
func (r *Result) Overlay(title, extends string) []byte {
	if len(r.Edits) == 0 && len(r.Pages) == 0 && len(r.Waiters) == 0 && len(r.Lookups) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "overlay: 1.0.0\ninfo:\n  title: %s\n  version: 1.0.0\n", quote(title))
	if extends != "" {
		fmt.Fprintf(&b, "extends: %s\n", quote(extends))
	}
	b.WriteString("actions:\n")
	for _, e := range r.Edits {
		fmt.Fprintf(&b, "  - target: %s\n    update:\n", quote(Target(e.Path, e.methodKey)))
		switch e.Value {
		case Keyed:
			fmt.Fprintf(&b, "      x-idempotent:\n        key:\n          in: header\n          name: %s\n", quote(e.KeyName))
		default:
			fmt.Fprintf(&b, "      x-idempotent: %s\n", e.Value)
		}
	}
	for _, e := range r.Pages {
		fmt.Fprintf(&b, "  - target: %s\n    update:\n      x-pagination:\n", quote(Target(e.Path, e.methodKey)))
		for _, m := range e.Members {
			fmt.Fprintf(&b, "        %s: %s\n", m.Name, quote(m.Value))
		}
	}
	overlayWaiters(&b, r.Waiters)
	overlayLookups(&b, r.Lookups)
	return []byte(b.String())
}

// Target is the JSONPath (RFC 9535) of the operation under the path key
// path and the method key method: `$.paths['/orders'].post`. The path key
// is a quoted name selector whatever it holds; the method uses the
// shorthand when it can.
func Target(path, method string) string {
	m := "." + method
	if !isShorthand(method) {
		m = "[" + nameLiteral(method) + "]"
	}
	return "$.paths[" + nameLiteral(path) + "]" + m
}

// nameLiteral writes s as an RFC 9535 single-quoted string literal.
func nameLiteral(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// isShorthand reports whether name can follow a dot in JSONPath (ASCII
// letters, digits and '_', not starting with a digit).
func isShorthand(name string) bool {
	for i, r := range name {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return name != ""
}

// quote writes s as a YAML double-quoted scalar: every escape strconv.Quote
// emits (\a \b \f \n \r \t \v \\ \" \xNN \uNNNN \UNNNNNNNN) is one of YAML's.
func quote(s string) string {
	return strconv.Quote(s)
}
