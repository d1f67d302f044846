package parser

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// maxKinRepairs bounds the repair loop on a document kin-openapi keeps
// refusing.
const maxKinRepairs = 64

// constructError matches one decoding failure kin-openapi reports with the
// JSON pointer of the value it could not decode:
//
//	line 8: cannot construct !!str `true` into bool in /paths/~1a/get/parameters/0/required
//	line 6: cannot unmarshal !!int into string field "operationId" in /paths/~1a/get
var constructError = regexp.MustCompile("line \\d+: (cannot (?:construct|unmarshal) [^\\n]*?) in (/[^\\s]*|)(?:\\n|$)")

var stringField = regexp.MustCompile(`^cannot unmarshal !!\w+ into string field "([^"]+)"`)

// repairFromKinError is the pre-pass's safety net for shapes it does not
// know: it reads the pointers out of kin-openapi's decoding errors and fixes
// the root document's tree there, a scalar of the wrong type by retagging it
// when the intent is plain (`operationId: 123`, `required: "true"`), anything
// else by dropping it. It reports whether it changed something, so the load
// can be tried again.
func (l *loader) repairFromKinError(err error) bool {
	changed := false
	for _, m := range constructError.FindAllStringSubmatch(err.Error(), -1) {
		msg, pointer := m[1], m[2]
		if f := stringField.FindStringSubmatch(msg); f != nil {
			pointer = jsonpointer.Join(pointer, f[1])
		}
		if l.repairAt(pointer, msg) {
			changed = true
		}
	}
	if changed {
		l.root.repaired = true
	}
	return changed
}

func (l *loader) repairAt(pointer, msg string) bool {
	if pointer == "" {
		return false
	}
	i := strings.LastIndexByte(pointer, '/')
	parent, _ := lookup(l.root.root, pointer[:i])
	n, _ := lookup(l.root.root, pointer)
	parent = unalias(parent)
	if n == nil || parent == nil {
		return false
	}
	at := loc{l.root.key, pointer, n}
	switch {
	case n.Kind == yaml.ScalarNode && strings.Contains(msg, "into bool") && boolString(n):
		l.sink.warnf(at, "", ruleShape, "%s should be a boolean; repaired", jsonpointer.Last(pointer))
		return true
	case n.Kind == yaml.ScalarNode && strings.Contains(msg, "into string field") && n.ShortTag() != "!!str":
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
		l.sink.warnf(at, "", ruleShape, "%s should be a string; read as %q", jsonpointer.Last(pointer), n.Value)
		return true
	}
	key := jsonpointer.Unescape(pointer[i+1:])
	for j := 0; j < len(parent.Content); j++ {
		if c := parent.Content[j]; c == n {
			l.sink.warnf(at, "", ruleShape, "kin-openapi cannot read %s (%s); dropped", key, msg)
			if parent.Kind == yaml.MappingNode {
				parent.Content = append(parent.Content[:j-1], parent.Content[j+1:]...)
			} else {
				parent.Content = append(parent.Content[:j], parent.Content[j+1:]...)
			}
			return true
		}
	}
	return false
}
