package runtime

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parseAll reads every event of body with the SSE parser, the error that
// ended it, and the parser.
func parseAll(body string, limit int) ([]Event, error, *sseParser) {
	p := newSSEParser(strings.NewReader(body), limit)
	var evs []Event
	for {
		ev, err := p.next()
		if err != nil {
			return evs, err, p
		}
		evs = append(evs, ev)
	}
}

// TestSSEParser: the WHATWG rules, one case each.
func TestSSEParser(t *testing.T) {
	msg := func(id, data string) Event { return Event{ID: id, Type: "message", Data: []byte(data)} }
	cases := []struct {
		name, body string
		want       []Event
	}{
		{"multi-line data", "data: a\ndata: b\ndata\n\n", []Event{msg("", "a\nb\n")}},
		{"LF", "data: 1\n\ndata: 2\n\n", []Event{msg("", "1"), msg("", "2")}},
		{"CRLF", "data: 1\r\n\r\ndata: 2\r\n\r\n", []Event{msg("", "1"), msg("", "2")}},
		{"CR", "data: 1\r\rdata: 2\r\r", []Event{msg("", "1"), msg("", "2")}},
		{"mixed ends", "data: 1\r\n\ndata: 2\r\r\n", []Event{msg("", "1"), msg("", "2")}},
		{"comments", ": ping\ndata: x\n: more\n\n", []Event{msg("", "x")}},
		{"event type", "event: delta\ndata: x\n\n", []Event{{Type: "delta", Data: []byte("x")}}},
		{"one space only removed", "data:  x\ndata:y\n\n", []Event{msg("", " x\ny")}},
		{"id carries over", "id: 7\ndata: a\n\ndata: b\n\n", []Event{msg("7", "a"), msg("7", "b")}},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", []Event{msg("1", "a"), msg("1", "b")}},
		{"empty id resets", "id: 1\ndata: a\n\nid\ndata: b\n\n", []Event{msg("1", "a"), msg("", "b")}},
		{"BOM", "\uFEFFdata: x\n\n", []Event{msg("", "x")}},
		{"no data, not dispatched", "event: x\nid: 4\n\ndata: y\n\n", []Event{msg("4", "y")}},
		{"unknown field ignored", "foo: bar\ndata: y\n\n", []Event{msg("", "y")}},
		{"incomplete last event dropped", "data: a\n\ndata: b\n", []Event{msg("", "a")}},
		{"[DONE] is data", "data: [DONE]\n\n", []Event{msg("", "[DONE]")}},
	}
	for _, c := range cases {
		got, err, _ := parseAll(c.body, 1<<10)
		if err != io.EOF || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// TestSSERetry: retry: takes all-digit values only, and is reported on the
// event that set it.
func TestSSERetry(t *testing.T) {
	got, _, p := parseAll("retry: 1500\ndata: a\n\nretry: 2x\nretry: +3\nretry: -1\nretry:\ndata: b\n\n", 1<<10)
	if len(got) != 2 || got[0].Retry != 1500*time.Millisecond || got[1].Retry != 0 || p.retry != 1500*time.Millisecond {
		t.Fatalf("events %+v, retry %v", got, p.retry)
	}
}

// TestSSEBounded: a line or an event longer than the limit is an error,
// never an unbounded buffer.
func TestSSEBounded(t *testing.T) {
	long := "data: " + strings.Repeat("x", 100) + "\n\n"
	if _, err, _ := parseAll(long, 64); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("long line: %v", err)
	}
	// Short lines, but too many of them in one event.
	many := strings.Repeat("data: "+strings.Repeat("x", 20)+"\n", 5) + "\n"
	if _, err, _ := parseAll(many, 64); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("long event: %v", err)
	}
	// A line that never ends is cut at the limit too.
	p := newSSEParser(io.MultiReader(strings.NewReader("data: "), endless{}), 1<<10)
	if _, err := p.next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("endless line: %v", err)
	}
}

// endless reads 'x' forever.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestLineParsers: JSON lines skip blank lines and CRs; a json-seq splits
// at RS, whitespace and newlines inside a value allowed.
func TestLineParsers(t *testing.T) {
	read := func(body string, f Framing) []string {
		p := newLineParser(strings.NewReader(body), f, 1<<10)
		var out []string
		for {
			ev, err := p.next()
			if err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return out
			}
			out = append(out, string(ev.Data))
		}
	}
	if got := read("{\"a\":1}\r\n\n{\"a\":2}\n{\"a\":3}", FramingJSONLines); !reflect.DeepEqual(got, []string{`{"a":1}`, `{"a":2}`, `{"a":3}`}) {
		t.Fatalf("jsonl %q", got)
	}
	if got := read("\x1e{\"a\":\n 1}\n\x1e{\"a\":2}\n", FramingJSONSeq); !reflect.DeepEqual(got, []string{"{\"a\":\n 1}", `{"a":2}`}) {
		t.Fatalf("json-seq %q", got)
	}
}
