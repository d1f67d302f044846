// Package overlay reads OpenAPI Overlay Specification 1.0 documents and
// applies them to a document's YAML node tree.
//
// Targets are RFC 9535 JSONPath expressions, evaluated with
// github.com/theory/jsonpath on a plain-value view of the tree; each selected
// value's normalized path then leads to the yaml.Node to change, so the tree
// keeps every position. Nodes an `update` brings in are clones of the
// overlay's own nodes: they keep the overlay file's lines and columns, and
// Applied.Origins names the overlay file each of them came from, so a finding
// about such a value can be located in the overlay.
//
// Actions run in order, each on the result of the ones before it (overlays
// given one after the other are the concatenation of their actions).
package overlay

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/theory/jsonpath"
	"go.yaml.in/yaml/v4"
)

// Document is one parsed overlay file.
type Document struct {
	// Name is the file name findings and errors show.
	Name    string
	Actions []Action
}

// Action is one entry of an overlay's `actions` list.
type Action struct {
	// Target is the JSONPath as written; Path is it parsed.
	Target string
	Path   *jsonpath.Path
	// Update is the value to merge into every selected node (nil when
	// absent); Remove removes every selected node.
	Update *yaml.Node
	Remove bool
	// Node is the action's target value node, where findings about the
	// action are located.
	Node *yaml.Node
}

// Error is a problem that makes an overlay file unusable, located in it.
type Error struct {
	File         string
	Line, Column int
	// Pointer is the JSON pointer of the offending value in the overlay
	// file ("/actions/3/target"), when known.
	Pointer string
	Message string
}

// Error renders `file:line:col: (pointer): message`, as the parser's
// diagnostics read (line, column and pointer only when known).
func (e *Error) Error() string {
	s := e.File
	if e.Line != 0 {
		s += fmt.Sprintf(":%d:%d", e.Line, e.Column)
	}
	if e.Pointer != "" {
		s += ": (" + e.Pointer + ")"
	}
	return s + ": " + e.Message
}

func errorAt(name string, n *yaml.Node, format string, args ...any) *Error {
	e := &Error{File: name, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// ReadFile reads and parses the overlay file at path; name it as given.
func ReadFile(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return nil, &Error{File: path, Message: "cannot read the overlay: " + err.Error()}
	}
	return Parse(path, data)
}

// Parse reads an overlay document (YAML or JSON). Anything Overlay 1.0 does
// not define is an error, so a misspelt member never silently does nothing:
// a version other than 1.0.x, a missing or empty `actions` list, an action
// without a valid JSONPath `target`, or with both `update` and `remove`.
// Members starting with `x-` are allowed everywhere.
func Parse(name string, data []byte) (*Document, error) {
	var top yaml.Node
	if err := yaml.Unmarshal(data, &top); err != nil {
		return nil, &Error{File: name, Message: "not a YAML or JSON document: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if top.Kind != yaml.DocumentNode || len(top.Content) == 0 || top.Content[0].Kind != yaml.MappingNode {
		return nil, errorAt(name, &top, "not an overlay document (the top level is not an object)")
	}
	root := top.Content[0]
	if err := knownFields(name, root, "overlay", "info", "extends", "actions"); err != nil {
		return nil, err
	}
	v := get(root, "overlay")
	switch {
	case v == nil:
		return nil, errorAt(name, root, "not an overlay document (no `overlay` version field)")
	case v.Kind != yaml.ScalarNode || (v.Value != "1.0" && !strings.HasPrefix(v.Value, "1.0.")):
		return nil, errorAt(name, v, "overlay version %q is not supported (1.0.x is)", v.Value)
	}
	acts := get(root, "actions")
	switch {
	case acts == nil:
		return nil, errorAt(name, root, "no `actions` list")
	case acts.Kind != yaml.SequenceNode:
		return nil, errorAt(name, acts, "`actions` must be a list")
	case len(acts.Content) == 0:
		return nil, errorAt(name, acts, "`actions` is empty (Overlay 1.0 requires at least one action)")
	}
	doc := &Document{Name: name}
	for _, a := range acts.Content {
		act, err := parseAction(name, a)
		if err != nil {
			return nil, err
		}
		doc.Actions = append(doc.Actions, act)
	}
	return doc, nil
}

func parseAction(name string, n *yaml.Node) (Action, error) {
	if n.Kind != yaml.MappingNode {
		return Action{}, errorAt(name, n, "an action must be an object with `target` and `update` or `remove`")
	}
	if err := knownFields(name, n, "target", "description", "update", "remove"); err != nil {
		return Action{}, err
	}
	t := get(n, "target")
	if t == nil || t.Kind != yaml.ScalarNode || t.Value == "" {
		return Action{}, errorAt(name, n, "an action needs a `target` (a JSONPath expression)")
	}
	p, err := jsonpath.Parse(t.Value)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), jsonpath.ErrPathParse.Error()+": ")
		return Action{}, errorAt(name, t, "target %q is not a JSONPath expression: %s", t.Value, msg)
	}
	act := Action{Target: t.Value, Path: p, Update: get(n, "update"), Node: t}
	if r := get(n, "remove"); r != nil {
		if r.Kind != yaml.ScalarNode || r.ShortTag() != "!!bool" {
			return Action{}, errorAt(name, r, "`remove` must be true or false")
		}
		act.Remove = r.Value == "true" || r.Value == "True" || r.Value == "TRUE"
	}
	if act.Remove && act.Update != nil {
		return Action{}, errorAt(name, n, "an action with both `update` and `remove` (Overlay 1.0 leaves the result undefined)")
	}
	return act, nil
}

// knownFields refuses a member of n that is neither allowed nor an x- one.
func knownFields(name string, n *yaml.Node, allowed ...string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if strings.HasPrefix(k.Value, "x-") || slices.Contains(allowed, k.Value) {
			continue
		}
		return errorAt(name, k, "unknown member %q (allowed: %s, and x- extensions)", k.Value, strings.Join(allowed, ", "))
	}
	return nil
}

// get returns the value of key in a mapping (the last one, as JSON parsers
// keep), or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	if i := lastKey(n, key); i >= 0 {
		return n.Content[i+1]
	}
	return nil
}

// lastKey returns the index in n.Content of the last key node equal to key,
// or -1.
func lastKey(n *yaml.Node, key string) int {
	if n == nil || n.Kind != yaml.MappingNode {
		return -1
	}
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		if n.Content[i].Value == key {
			return i
		}
	}
	return -1
}
