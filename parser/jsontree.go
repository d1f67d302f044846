package parser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// bom is the UTF-8 byte order mark some editors write first.
var bom = []byte("\xef\xbb\xbf")

// looksLikeJSON reports whether a document starts like JSON: an object or an
// array after optional white space and byte order mark.
func looksLikeJSON(data []byte) bool {
	s := bytes.TrimLeft(bytes.TrimPrefix(data, bom), " \t\r\n")
	return len(s) > 0 && (s[0] == '{' || s[0] == '[')
}

// parseJSONTree reads a JSON document into the same yaml.Node tree the YAML
// parser builds (kinds, tags, 1-based lines and columns counted in runes),
// so diagnostics and the pre-pass do not care which syntax a file used. A
// YAML flow mapping also starts with '{': when the JSON decoder refuses the
// bytes but the YAML parser takes them, the YAML tree is used.
func parseJSONTree(data []byte) (*yaml.Node, error) {
	body := bytes.TrimPrefix(data, bom)
	if root, ok := scanJSONTree(body); ok {
		return root, nil
	}
	root, err := readJSONTree(body)
	if err == nil {
		return root, nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		if err := checkAliasBudget(doc.Content[0]); err != nil {
			return nil, err
		}
		return doc.Content[0], nil
	}
	return nil, err
}

// readJSONTree reads a JSON document with encoding/json's decoder, token by
// token; an error is located (line, column).
func readJSONTree(body []byte) (*yaml.Node, error) {
	p := &jsonTree{data: body, dec: json.NewDecoder(bytes.NewReader(body)), line: 1, col: 1}
	p.dec.UseNumber()
	root, err := p.value(0)
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, p.locate(err)
	}
	return root, nil
}

// jsonTree is one JSON parse: the decoder and a cursor that turns byte
// offsets into lines and columns (offsets only grow, so the whole document
// is scanned once).
type jsonTree struct {
	data      []byte
	dec       *json.Decoder
	off       int
	line, col int
}

// maxJSONDepth bounds nesting (encoding/json's own limit is 10000).
const maxJSONDepth = 2000

// value reads one JSON value and returns its node.
func (p *jsonTree) value(depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("nesting deeper than 2000 levels")
	}
	line, col := p.next()
	tok, err := p.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) && depth == 0 {
			return nil, errEmptyDocument
		}
		return nil, err
	}
	n := &yaml.Node{Line: line, Column: col}
	switch t := tok.(type) {
	case json.Delim:
		return n, p.container(n, t, depth)
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", t, yaml.DoubleQuotedStyle
	case json.Number:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", t.String()
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(t)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}

// container reads the members of an object or the items of an array whose
// opening delimiter was just read, and its closing delimiter.
func (p *jsonTree) container(n *yaml.Node, open json.Delim, depth int) error {
	n.Style = yaml.FlowStyle
	n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	if open == '{' {
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
	}
	for p.dec.More() {
		if n.Kind == yaml.MappingNode {
			key, err := p.value(depth + 1)
			if err != nil {
				return err
			}
			key.Style = 0
			n.Content = append(n.Content, key)
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		n.Content = append(n.Content, v)
	}
	_, err := p.dec.Token() // the closing delimiter
	return err
}

// end checks that nothing but white space follows the document.
func (p *jsonTree) end() error {
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("data after the top-level value")
		}
		return err
	}
	return nil
}

// next returns the line and column of the token the decoder reads next: the
// first byte after the previous token that is not white space or a
// separator.
func (p *jsonTree) next() (line, col int) {
	to := int(p.dec.InputOffset())
	for to < len(p.data) && strings.IndexByte(" \t\r\n,:", p.data[to]) >= 0 {
		to++
	}
	p.advance(to)
	return p.line, p.col
}

// advance moves the cursor to the byte offset to, counting lines and runes.
func (p *jsonTree) advance(to int) {
	for p.off < to && p.off < len(p.data) {
		r, size := utf8.DecodeRune(p.data[p.off:])
		p.off += size
		if r == '\n' {
			p.line, p.col = p.line+1, 1
		} else {
			p.col++
		}
	}
}

// locate prefixes a decoding error with the line and column it happened at.
func (p *jsonTree) locate(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		p.advance(int(se.Offset))
	} else {
		p.advance(int(p.dec.InputOffset()))
	}
	return fmt.Errorf("line %d, column %d: %w", p.line, p.col, err)
}
