package parser

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// scanJSONTree is parseJSONTree's fast path: one pass over the bytes that
// builds the same tree, without encoding/json's token interface (a value
// boxed per token, a buffer copy per read). It reports false for anything
// that is not plain, valid JSON within maxJSONDepth, and parseJSONTree then
// reads the bytes the careful way, so every error, and every tree the two
// could disagree on, is still encoding/json's (FuzzJSONScanMatches).
func scanJSONTree(body []byte) (*yaml.Node, bool) {
	s := &jsonScan{data: body, line: 1, col: 1}
	root, ok := s.value(0)
	if !ok {
		return nil, false
	}
	s.space()
	return root, s.pos == len(s.data)
}

// jsonScan is one scan: the read position and the line and column (in
// runes) of the byte at mark, which only moves forward.
type jsonScan struct {
	data      []byte
	pos       int
	mark      int
	line, col int
}

// space skips JSON white space.
func (s *jsonScan) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// here returns the line and column of the byte at pos, counting from mark.
func (s *jsonScan) here() (line, col int) {
	for s.mark < s.pos {
		c := s.data[s.mark]
		switch {
		case c == '\n':
			s.line, s.col = s.line+1, 1
			s.mark++
		case c < utf8.RuneSelf:
			s.col++
			s.mark++
		default:
			_, size := utf8.DecodeRune(s.data[s.mark:])
			s.col++
			s.mark += size
		}
	}
	return s.line, s.col
}

func (s *jsonScan) value(depth int) (*yaml.Node, bool) {
	s.space()
	if s.pos >= len(s.data) || depth > maxJSONDepth {
		return nil, false
	}
	line, col := s.here()
	n := &yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: col}
	switch c := s.data[s.pos]; {
	case c == '{' || c == '[':
		return n, s.container(n, c, depth)
	case c == '"':
		v, ok := s.str()
		n.Tag, n.Value, n.Style = "!!str", v, yaml.DoubleQuotedStyle
		return n, ok
	case c == '-' || c >= '0' && c <= '9':
		return n, s.number(n)
	}
	for _, lit := range [...]struct{ text, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
		if bytes.HasPrefix(s.data[s.pos:], []byte(lit.text)) {
			s.pos += len(lit.text)
			n.Tag, n.Value = lit.tag, lit.text
			return n, true
		}
	}
	return nil, false
}

// container reads an object or array whose opening delimiter is at pos.
func (s *jsonScan) container(n *yaml.Node, open byte, depth int) bool {
	n.Style = yaml.FlowStyle
	n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	closer := byte(']')
	if open == '{' {
		n.Kind, n.Tag, closer = yaml.MappingNode, "!!map", '}'
	}
	s.pos++
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == closer {
		s.pos++
		return true
	}
	for {
		if n.Kind == yaml.MappingNode && !s.member(n, depth) || n.Kind == yaml.SequenceNode && !s.item(n, depth) {
			return false
		}
		s.space()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case closer:
			s.pos++
			return true
		default:
			return false
		}
	}
}

func (s *jsonScan) member(n *yaml.Node, depth int) bool {
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return false
	}
	key, ok := s.value(depth + 1)
	if !ok {
		return false
	}
	key.Style = 0
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return false
	}
	s.pos++
	v, ok := s.value(depth + 1)
	n.Content = append(n.Content, key, v)
	return ok
}

func (s *jsonScan) item(n *yaml.Node, depth int) bool {
	v, ok := s.value(depth + 1)
	n.Content = append(n.Content, v)
	return ok
}

// str reads a string at pos. One of plain ASCII without escapes is sliced;
// any other is decoded by encoding/json, whose rules on escapes, surrogates
// and invalid UTF-8 it must follow exactly.
func (s *jsonScan) str() (string, bool) {
	start := s.pos
	plain := true
	for i := start + 1; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			if plain {
				return string(s.data[start+1 : i]), true
			}
			var v string
			return v, json.Unmarshal(s.data[start:s.pos], &v) == nil
		case c == '\\':
			plain = false
			i++
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return "", false
}

// number reads a number at pos with JSON's grammar; its text is the value.
func (s *jsonScan) number(n *yaml.Node) bool {
	start, d := s.pos, s.data
	i := start
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	tag := "!!int"
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
		tag = "!!float"
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
		tag = "!!float"
	}
	s.pos = i
	n.Tag, n.Value = tag, string(d[start:i])
	return true
}
