package annotate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// parseJSON parses src into the shared tree with encoding/json's tokenizer,
// which reports byte offsets; unlike a YAML parser it accepts any JSON
// whitespace, tabs included.
func parseJSON(src []byte, idx *lineIndex) (n *node, err error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	p := jsonParser{dec: dec, src: src, idx: idx}
	n, err = p.value()
	if err != nil {
		return nil, p.located(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, p.located(errTrailingData)
	}
	return n, nil
}

// errTrailingData reports a complete JSON value followed by more input.
var errTrailingData = errors.New("unexpected data after the top-level value")

// jsonParser builds nodes from a token stream.
type jsonParser struct {
	dec *json.Decoder
	src []byte
	idx *lineIndex
}

// located prefixes err with the line where decoding stopped.
func (p *jsonParser) located(err error) error {
	line, col := p.idx.position(int(p.dec.InputOffset()))
	return fmt.Errorf("parsing JSON at line %d, column %d: %w", line, col, err)
}

// value reads one value. The node's offset is where its first byte sits: the
// decoder's offset after the previous token, plus any whitespace and the
// separator (`:` or `,`) that json.Decoder consumes silently.
func (p *jsonParser) value() (*node, error) {
	start := p.skipSpace(int(p.dec.InputOffset()))
	tok, err := p.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := &node{off: start, flow: true}
	n.line, n.col = p.idx.position(start)
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return n, p.object(n)
		}
		return n, p.array(n)
	case string:
		n.value = t
	case json.Number:
		n.value = t.String()
	case bool:
		n.value = fmt.Sprint(t)
	case nil:
		n.value = "null"
	}
	return n, nil
}

// skipSpace returns the offset of the first byte at or after off that is
// neither JSON whitespace nor a separator.
func (p *jsonParser) skipSpace(off int) int {
	for off < len(p.src) {
		switch p.src[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func (p *jsonParser) object(n *node) error {
	n.kind = kindMap
	for p.dec.More() {
		k, err := p.value()
		if err != nil {
			return err
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		n.keys = append(n.keys, k)
		n.vals = append(n.vals, v)
	}
	_, err := p.dec.Token() // the closing brace
	return err
}

func (p *jsonParser) array(n *node) error {
	n.kind = kindSeq
	for p.dec.More() {
		v, err := p.value()
		if err != nil {
			return err
		}
		n.items = append(n.items, v)
	}
	_, err := p.dec.Token() // the closing bracket
	return err
}
