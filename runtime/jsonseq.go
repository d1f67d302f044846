package runtime

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// recordSource yields a stream's records one by one; a record cut by the
// end of the input comes with the read error (io.EOF on a clean end).
type recordSource interface {
	next() ([]byte, error)
}

// seqReader splits a JSON text sequence (application/json-seq, RFC 7464)
// into its texts. A text ends at the RS that begins the next one, or as
// soon as a LF follows a complete top-level value: a live stream's event
// is delivered when its own LF arrives, not held until the server sends
// the next one. The scan is one pass over the bytes, whatever a hostile
// server puts in a text.
type seqReader struct {
	r     *bufio.Reader
	limit int
	buf   []byte
	scan  textScan
}

func newSeqReader(r io.Reader, limit int) *seqReader {
	return &seqReader{r: bufio.NewReaderSize(r, 16<<10), limit: limit}
}

// textScan follows a JSON text closely enough to tell where it ends: the
// nesting depth outside strings, and whether a value has begun.
type textScan struct {
	depth                    int
	inString, escaped, value bool
}

// step advances over c and reports whether c is a LF that ends a complete
// top-level value.
func (s *textScan) step(c byte) bool {
	switch {
	case s.inString:
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
		}
	case c == '"':
		s.inString, s.value = true, true
	case c == '{' || c == '[':
		s.depth++
		s.value = true
	case c == '}' || c == ']':
		s.depth = max(s.depth-1, 0)
	case c == '\n':
		return s.value && s.depth == 0
	case c == ' ' || c == '\t' || c == '\r':
	default:
		s.value = true
	}
	return false
}

// next returns the next text, valid until the following call.
func (q *seqReader) next() ([]byte, error) {
	q.buf, q.scan = q.buf[:0], textScan{}
	for {
		chunk, err := q.r.Peek(max(1, q.r.Buffered()))
		if len(chunk) == 0 {
			return q.buf, err
		}
		end, delim := q.consume(chunk)
		if len(q.buf)+end > q.limit {
			return nil, fmt.Errorf("%w: a JSON text of more than %d bytes", ErrEventTooLarge, q.limit)
		}
		q.buf = append(q.buf, chunk[:end]...)
		switch delim {
		case 0:
			_, _ = q.r.Discard(end)
			continue
		case '\n':
			_, _ = q.r.Discard(end + 1)
			return q.buf, nil
		}
		_, _ = q.r.Discard(end + 1)
		if len(bytes.TrimSpace(q.buf)) > 0 {
			// The RS that begins the next text ends this one.
			return q.buf, nil
		}
		q.buf, q.scan = q.buf[:0], textScan{}
	}
}

// consume scans chunk up to an RS or a LF that ends the value, and returns
// its index and that byte; else len(chunk) and 0.
func (q *seqReader) consume(chunk []byte) (end int, delim byte) {
	for i, c := range chunk {
		if c == 0x1e || q.scan.step(c) {
			return i, c
		}
	}
	return len(chunk), 0
}
