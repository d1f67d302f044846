package parser

import (
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
	yamlv4 "go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// maxKinRepairs bounds the repair loop on a document kin-openapi keeps
// refusing.
const maxKinRepairs = 64

// decodeFailure is one value kin-openapi's decoder could not read: the JSON
// pointer of the value in the root document, and the decoder's message.
type decodeFailure struct {
	pointer string
	msg     string
}

// kinDecodeFailures reads the values kin-openapi could not decode out of its
// error. It is the only place the parser reads kin-openapi's error text, and
// it reads no more of it than it must (kin-openapi v0.153.0, which decodes
// with go.yaml.in/yaml/v4 v4.0.0):
//
//   - the failures themselves are typed: a *yaml.LoadErrors (wrapped with %w)
//     holding one *yaml.LoadError per value, found with errors.As;
//   - the value's JSON pointer is not a field: kin-openapi appends it to each
//     Message (" in /paths/~1a/get", openapi3/native_yaml_path.go) after
//     finding it from the error's Mark in the tree of the bytes it read. Those
//     bytes are re-encoded when the root was repaired, so the Mark's line and
//     column do not point into the parser's own tree; the pointer does;
//   - a string field's failure names the field in the message
//     (`cannot unmarshal !!int into string field "operationId"`) and points
//     at the object holding it.
//
// An error of any other type (a YAML syntax error, a JSON error) yields
// nothing: there is no value to repair.
func kinDecodeFailures(err error) []decodeFailure {
	var errs *yamlv4.LoadErrors
	if !errors.As(err, &errs) {
		return nil
	}
	var out []decodeFailure
	for _, e := range errs.Errors {
		i := strings.LastIndex(e.Message, " in /")
		if i < 0 || !strings.HasPrefix(e.Message, "cannot ") {
			continue
		}
		f := decodeFailure{pointer: e.Message[i+len(" in "):], msg: e.Message[:i]}
		if field, ok := stringField(f.msg); ok {
			f.pointer = jsonpointer.Join(f.pointer, field)
		}
		out = append(out, f)
	}
	return out
}

// stringField returns the field a `cannot unmarshal !!T into string field "F"`
// message names.
func stringField(msg string) (string, bool) {
	_, quoted, ok := strings.Cut(msg, " into string field ")
	if !ok || !strings.HasPrefix(msg, "cannot unmarshal !!") {
		return "", false
	}
	field, err := strconv.Unquote(quoted)
	return field, err == nil
}

// repairFromKinError is the repair stage's safety net for shapes it does not
// know: it takes the values kin-openapi could not decode (kinDecodeFailures)
// and fixes the root document's tree there, a scalar of the wrong type by
// retagging it when the intent is plain (`operationId: 123`,
// `required: "true"`), anything else by dropping it. It reports whether it
// changed something, so the load can be tried again.
func (l *loader) repairFromKinError(err error) bool {
	changed := false
	for _, f := range kinDecodeFailures(err) {
		if l.repairAt(f.pointer, f.msg) {
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
