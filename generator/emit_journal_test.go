package generator

import (
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ir"
)

// TestJournalFileAndKeyTTL: a client with keyed or unsafe operations gets
// ResendIntent mapping each of their ids to its contract, and a keyed
// operation's declared key TTL is in its contract; the files type-check.
func TestJournalFileAndKeyTTL(t *testing.T) {
	api := fixture()
	for _, op := range api.Operations {
		if op.Retry.Safety == ir.Keyed {
			op.Retry.KeyTTL = 48 * time.Hour
		}
	}
	out, err := Generate(api, Config{Package: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	var all, journal string
	for _, f := range out.Files {
		all += blanks.ReplaceAllString(string(f.Content), " ")
		if f.Name == "journal_gen.go" {
			journal = string(f.Content)
		}
	}
	if !strings.Contains(all, "KeyTTL: 48 * time.Hour") {
		t.Error("the keyed contract lacks KeyTTL: 48 * time.Hour")
	}
	if !strings.Contains(journal, "func (c *Client) ResendIntent(ctx context.Context, e *idemrt.JournalEntry) (*http.Response, error)") ||
		!strings.Contains(journal, "c.runner.Resend(ctx, op, server, e)") {
		t.Errorf("journal_gen.go:\n%s", journal)
	}
	for _, op := range api.Operations {
		if has := strings.Contains(journal, `case "`+op.ID+`":`); has != (op.Retry.Safety != ir.Idempotent) {
			t.Errorf("operation %s (%v): case present %v", op.ID, op.Retry.Safety, has)
		}
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
}
