package runtime

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// ErrEventTooLarge is the Reason of the error that ends a stream whose
// event (or one line of it) is larger than the client's limit (Policy.MaxBody,
// WithMaxBody): the engine never buffers an unbounded event.
var ErrEventTooLarge = errors.New("stream event larger than the client's limit")

// recordReader splits a stream into records ended by one of its
// delimiters, each at most limit bytes. For event streams the delimiters
// are CR and LF, and a CR LF pair ends one line, not two.
type recordReader struct {
	r     *bufio.Reader
	delim string
	limit int
	buf   []byte
	// crlf: the delimiters are SSE line ends; skipLF: the last record
	// ended with a CR, so a LF right after it belongs to that end.
	crlf, skipLF bool
}

// newRecordReader reads records of at most limit bytes from r.
func newRecordReader(r io.Reader, delim string, limit int) *recordReader {
	return &recordReader{r: bufio.NewReaderSize(r, 16<<10), delim: delim, limit: limit, crlf: delim == "\r\n"}
}

// next returns the next record, valid until the following call. A record
// cut by the end of the input is returned with the read error (io.EOF on a
// clean end).
func (l *recordReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.Peek(max(1, l.r.Buffered()))
		if len(chunk) == 0 {
			return l.buf, err
		}
		if l.skipLF {
			l.skipLF = false
			if chunk[0] == '\n' {
				_, _ = l.r.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(chunk, l.delim)
		end := i
		if i < 0 {
			end = len(chunk)
		}
		if len(l.buf)+end > l.limit {
			return nil, fmt.Errorf("%w: a line of more than %d bytes", ErrEventTooLarge, l.limit)
		}
		l.buf = append(l.buf, chunk[:end]...)
		if i < 0 {
			_, _ = l.r.Discard(end)
			continue
		}
		_, _ = l.r.Discard(i + 1)
		l.skipLF = l.crlf && chunk[i] == '\r'
		return l.buf, nil
	}
}

// sseParser reads events from a text/event-stream body by the WHATWG rules
// (https://html.spec.whatwg.org/multipage/server-sent-events.html): lines
// "field: value", comments starting with ':', data lines joined with LF,
// an event dispatched at an empty line when it has data, the last event id
// kept across events, retry: taken when all digits, a leading BOM skipped.
type sseParser struct {
	lines *recordReader
	limit int
	// started: the BOM check is done.
	started bool
	// lastID is the last event ID buffer; retry the reconnection time.
	lastID string
	retry  time.Duration
	// the event being built.
	data    []byte
	hasData bool
	typ     string
	evRetry time.Duration
}

func newSSEParser(r io.Reader, limit int) *sseParser {
	return &sseParser{lines: newRecordReader(r, "\r\n", limit), limit: limit}
}

// next returns the next event; io.EOF at a clean end of the stream (an
// event not ended by an empty line is discarded, as the rules say).
func (p *sseParser) next() (Event, error) {
	for {
		line, err := p.lines.next()
		if err != nil {
			return Event{}, err
		}
		if !p.started {
			p.started = true
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			if ev, ok := p.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if err := p.field(line); err != nil {
			return Event{}, err
		}
	}
}

// field processes one non-empty line.
func (p *sseParser) field(line []byte) error {
	if line[0] == ':' {
		return nil
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "data":
		if len(p.data)+len(value)+1 > p.limit {
			return fmt.Errorf("%w: an event of more than %d bytes", ErrEventTooLarge, p.limit)
		}
		p.data = append(append(p.data, value...), '\n')
		p.hasData = true
	case "event":
		p.typ = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.lastID = string(value)
		}
	case "retry":
		if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil && allDigits(value) {
			p.retry = time.Duration(ms) * time.Millisecond
			p.evRetry = p.retry
		}
	}
	return nil
}

// allDigits reports whether b is one or more ASCII digits (ParseUint
// accepts a leading '+').
func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// dispatch ends the event being built at an empty line: one with data is
// returned, one without is dropped (its id stays in lastID).
func (p *sseParser) dispatch() (Event, bool) {
	defer func() { p.data, p.hasData, p.typ, p.evRetry = p.data[:0], false, "", 0 }()
	if !p.hasData {
		return Event{}, false
	}
	ev := Event{ID: p.lastID, Type: p.typ, Retry: p.evRetry}
	if ev.Type == "" {
		ev.Type = "message"
	}
	// The data is copied: the parser reuses its buffer.
	ev.Data = bytes.Clone(p.data[:len(p.data)-1])
	return ev, true
}

// lineParser reads JSON Lines (application/jsonl, application/x-ndjson:
// one value per line, blank lines skipped, a CR before the LF dropped) and
// JSON text sequences (application/json-seq, RFC 7464: each value after an
// RS byte, surrounding whitespace dropped; seqReader).
type lineParser struct {
	records recordSource
}

func newLineParser(r io.Reader, f Framing, limit int) *lineParser {
	if f == FramingJSONSeq {
		return &lineParser{records: newSeqReader(r, limit)}
	}
	return &lineParser{records: newRecordReader(r, "\n", limit)}
}

// next returns the next non-empty record as an event's data.
func (p *lineParser) next() (Event, error) {
	for {
		rec, err := p.records.next()
		rec = bytes.TrimSpace(rec)
		if len(rec) > 0 && (err == nil || err == io.EOF) {
			// A last value without its final LF is still whole: the
			// stream ended cleanly after it.
			return Event{Data: bytes.Clone(rec)}, nil
		}
		if err != nil {
			return Event{}, err
		}
	}
}
