package runtime

import (
	"errors"
	"strings"
	"testing"
)

// errNotYet stands for a server that has sent nothing more yet: a read
// that reaches it would have blocked.
var errNotYet = errors.New("the server has sent nothing more yet")

// pending returns sent, then errNotYet.
type pending struct{ sent []byte }

func (p *pending) Read(b []byte) (int, error) {
	if len(p.sent) == 0 {
		return 0, errNotYet
	}
	n := copy(b, p.sent)
	p.sent = p.sent[n:]
	return n, nil
}

// TestJSONSeqEventArrivesWithItsLF: a JSON text sequence event is
// delivered when its LF arrives, not when the next event's RS does: a live
// stream (job progress) whose server is quiet after an event shows it. A
// LF inside a value (pretty-printed, or escaped in a string) does not end
// it.
func TestJSONSeqEventArrivesWithItsLF(t *testing.T) {
	cases := map[string]string{
		"\x1e{\"n\":1}\n":                 `{"n":1}`,
		"\x1e{\"n\":\n 1}\n":              "{\"n\":\n 1}",
		"\x1e 42\n":                       "42",
		"\x1e\"a\\\"\\n}\"\n":             `"a\"\n}"`,
		"\x1e[1,{\"b\":[2]}]\r\n":         `[1,{"b":[2]}]`,
		"\x1e\x1e{\"after\":\"rs\"}\n":    `{"after":"rs"}`,
		"\x1e{\"cut\":\x1e{\"next\":1}\n": `{"cut":`,
	}
	for sent, want := range cases {
		ev, err := newLineParser(&pending{sent: []byte(sent)}, FramingJSONSeq, 1<<20).next()
		if err != nil || string(ev.Data) != want {
			t.Errorf("%q: event %q, %v; want %q before any more is read", sent, ev.Data, err, want)
		}
	}
}

// TestJSONSeqIncompleteValueWaits: a value whose LF comes inside it waits
// for the rest: reading on reaches the server's silence.
func TestJSONSeqIncompleteValueWaits(t *testing.T) {
	for _, sent := range []string{"\x1e{\"n\":\n", "\x1e\"a\n", "\x1e[[1]\n"} {
		if ev, err := newLineParser(&pending{sent: []byte(sent)}, FramingJSONSeq, 1<<20).next(); !errors.Is(err, errNotYet) {
			t.Errorf("%q: event %q, %v; want a read past it", sent, ev.Data, err)
		}
	}
}

// TestJSONSeqHostileText: a text past the limit is ErrEventTooLarge, and
// one of a million nested LFs and brackets is read in one pass (the scan
// keeps a depth, never re-reads the text).
func TestJSONSeqHostileText(t *testing.T) {
	big := "\x1e[\"" + strings.Repeat("x", 200) + "\"]\n"
	if _, err := newLineParser(strings.NewReader(big), FramingJSONSeq, 100).next(); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("a text past the limit: %v, want ErrEventTooLarge", err)
	}
	n := 1 << 20
	deep := "\x1e" + strings.Repeat("[\n", n) + strings.Repeat("]", n) + "\n"
	ev, err := newLineParser(strings.NewReader(deep), FramingJSONSeq, 4<<20).next()
	if err != nil || len(ev.Data) != 3*n {
		t.Errorf("a text of %d nested brackets and LFs: %d bytes, %v", n, len(ev.Data), err)
	}
}
