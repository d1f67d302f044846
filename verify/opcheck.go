package verify

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/idemgen/idemgen/ir"
)

// opCheck is the checks of one operation: what they sent and saw, and
// what they concluded.
type opCheck struct {
	v       *verifier
	op      *ir.Operation
	in      Input
	results []Result
	// seen is every answer of the operation, for retry-after and
	// retryable-mismatch.
	seen []exchange
	// replayKey is the key keyed-replay executed with, for keyed-reuse.
	replayKey string
}

// add records a result located at src (the operation when src is empty).
func (c *opCheck) add(check string, src ir.Source, verdict Verdict, format string, args ...any) {
	if src.Pointer == "" {
		src = c.op.Source
	}
	c.results = append(c.results, Result{Operation: c.op.ID, Check: check, File: src.File, Line: src.Line,
		Pointer: src.Pointer, Verdict: verdict, Message: fmt.Sprintf(format, args...)})
}

// send makes one request of the operation and keeps its answer.
func (c *opCheck) send(ctx context.Context, so sendOpts) exchange {
	ex := c.v.send(ctx, c.op, c.in, so)
	if ex.err == nil {
		c.seen = append(c.seen, ex)
	}
	return ex
}

// success reports whether the exchange is a 2xx answer.
func (ex exchange) success() bool { return ex.err == nil && ex.status >= 200 && ex.status < 300 }

// String describes the answer for a message: its status and the start of
// its body, or the transport error.
func (ex exchange) String() string {
	if ex.err != nil {
		return "no answer: " + ex.err.Error()
	}
	body := string(ex.body)
	if len(body) > 80 {
		body = body[:77] + "..."
	}
	if body == "" {
		return fmt.Sprintf("%d", ex.status)
	}
	return fmt.Sprintf("%d %s", ex.status, oneLine(body))
}

// oneLine keeps a server's text on one line of a report: line breaks and
// tabs become spaces, and every other rune that is not printable (ESC and
// the C0 controls, DEL, the C1 controls, bidi overrides, zero-width
// characters) is written as a \u escape, so no report shows or runs it.
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r == ' ' || (r != utf8.RuneError && unicode.IsPrint(r)):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

// keySource locates the operation's key: its x-idempotent or key
// parameter.
func (c *opCheck) keySource() ir.Source { return c.op.Retry.IdempotencySource }
