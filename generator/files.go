package generator

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/idemgen/idemgen/ir"
)

// opGroup is the set of operations that share one file.
type opGroup struct {
	name string
	ops  []*ir.Operation
}

// reservedFiles are the file stems the generator writes for itself; a tag
// that maps to one of them gets an "_ops" suffix.
// (A document tagged "API", as fire.com's and Postman's are, would
// otherwise replace the interface file with its operations.)
var reservedFiles = map[string]bool{"client": true, "models": true, "api": true, "journal": true, "doc": true,
	"server": true, "webhook_receiver": true}

// groupByFile splits operations into files: one per tag (snake_case of the
// first tag), untagged ones in operations_gen.go. Tags that map to the same
// stem share a file. Groups come out in order of first appearance, which is
// the IR's order (sorted by GoName), so the result is deterministic.
func groupByFile(ops []*ir.Operation) []opGroup {
	var groups []opGroup
	index := map[string]int{}
	for _, op := range ops {
		name := fileStem(op.Tag) + "_gen.go"
		i, ok := index[name]
		if !ok {
			i = len(groups)
			index[name] = i
			groups = append(groups, opGroup{name: name})
		}
		groups[i].ops = append(groups[i].ops, op)
	}
	return groups
}

// maxFileStem bounds a tag's file stem: file systems refuse names over 255
// bytes, and a document's tag can be any length. Tags that agree on their
// first maxFileStem bytes share a file, like tags with the same stem.
const maxFileStem = 64

// fileStem is the snake_case file stem of a tag ("Pet Store" -> "pet_store").
// It never starts with '_' or '.', which the go tool would ignore, and is at
// most maxFileStem bytes (ASCII only).
func fileStem(tag string) string {
	if tag == "" {
		return "operations"
	}
	var b strings.Builder
	prevLower := false
	for _, r := range tag {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		default:
			if s := b.String(); s != "" && !strings.HasSuffix(s, "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	stem := b.String()
	stem = strings.Trim(stem[:min(len(stem), maxFileStem)], "_")
	switch {
	case stem == "":
		return "tag"
	case reservedFiles[stem]:
		return stem + "_ops"
	}
	return stem
}
