package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/idemgen/idemgen/ledger"
)

// escapeText is the one place where stored data (callers, operations, keys,
// event ids, topics, bodies) is made safe for a terminal: printable runes
// and the space stay; a backslash is doubled; \n, \r and \t are written as
// such; any other byte or rune (ESC, the C1 controls, bidi overrides such as
// U+202E, invalid UTF-8) becomes \xNN or \uNNNN. The result is one line
// that reads back to the exact bytes.
func escapeText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || (unicode.IsPrint(r) && r != utf8.RuneError):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// quoteText is escapeText between double quotes, for values inside a
// sentence; an empty value then still shows.
func quoteText(s string) string {
	return `"` + strings.ReplaceAll(escapeText(s), `"`, `\"`) + `"`
}

// maxCell bounds a table cell, in runes of escaped text: a 1,024-byte caller
// would otherwise push every column off the screen. The --key view prints
// values in full.
const maxCell = 48

func cell(s string) string {
	e := escapeText(s)
	if utf8.RuneCountInString(e) <= maxCell {
		return e
	}
	r := []rune(e)
	return string(r[:maxCell-1]) + "…"
}

// cellEnds is cell for a value whose end tells it apart as much as its
// start: an operation's identity can be its binding, and two bindings may
// share their first 48 characters
// ("POST /api/v1/namespaces/{namespace}/workflows/{…}/signal/…" and
// "…/update/…"). It keeps the first third and the end.
func cellEnds(s string) string {
	e := escapeText(s)
	if utf8.RuneCountInString(e) <= maxCell {
		return e
	}
	r := []rune(e)
	head := maxCell / 3
	return string(r[:head]) + "…" + string(r[len(r)-(maxCell-head-1):])
}

// formatAge prints d for people, with its two largest units: 45s, 3m12s,
// 2h5m, 3d4h. Below a second it is 0s.
func formatAge(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	s := int64(d / time.Second)
	units := []struct {
		n    int64
		name string
	}{{s / 86400, "d"}, {s / 3600 % 24, "h"}, {s / 60 % 60, "m"}, {s % 60, "s"}}
	for i, u := range units {
		if u.n == 0 && i < len(units)-1 {
			continue
		}
		out := strconv.FormatInt(u.n, 10) + u.name
		if i < len(units)-1 {
			out += strconv.FormatInt(units[i+1].n, 10) + units[i+1].name
		}
		return out
	}
	return "0s"
}

// relative says when t is from now: "in 3m12s" or "3m12s ago".
func relative(t, now time.Time) string {
	if t.After(now) {
		return "in " + formatAge(t.Sub(now))
	}
	return formatAge(now.Sub(t)) + " ago"
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func writeOverviewText(w io.Writer, ov overviewReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "ledger %s at %s\n\n", escapeText(ov.Database), stamp(ov.Now))
	fmt.Fprintf(tw, "keys\t%d\n", ov.Keys.Total)
	states := make([]string, 0, len(ov.Keys.States))
	for s := range ov.Keys.States {
		states = append(states, s)
	}
	sort.Strings(states)
	for _, s := range states {
		fmt.Fprintf(tw, "  %s\t%d\n", escapeText(s), ov.Keys.States[s])
	}
	fmt.Fprintf(tw, "stuck\t%d\tin progress, lease expired: the sweeper releases them\n", ov.Keys.Stuck)
	fmt.Fprintf(tw, "expired\t%d\tpast their TTL: the sweeper purges them\n", ov.Keys.Expired)
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeStuckText(w, ov); err != nil {
		return err
	}
	return writeOutboxText(w, ov)
}

func writeStuckText(w io.Writer, ov overviewReport) error {
	fmt.Fprintf(w, "\nstuck executions: %d%s\n", ov.Keys.Stuck, shown(len(ov.Stuck), ov.Keys.Stuck, "oldest lease first"))
	if len(ov.Stuck) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CALLER\tOPERATION\tKEY\tSTUCK FOR\tAGE\tLEASE OWNER")
	for _, r := range ov.Stuck {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(r.Caller), cell(r.Operation), cell(r.Key),
			formatAge(ov.Now.Sub(r.LeaseExpiresAt)), formatAge(ov.Now.Sub(r.CreatedAt)), cell(r.LeaseOwner))
	}
	return tw.Flush()
}

func writeOutboxText(w io.Writer, ov overviewReport) error {
	o := ov.Outbox
	fmt.Fprintf(w, "\noutbox: %d undelivered, %d failing%s\n", o.Undelivered, o.Failing, shown(len(o.Oldest), o.Undelivered, "oldest first"))
	if len(o.Oldest) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SEQ\tEVENT\tTOPIC\tAGE\tATTEMPTS\tLAST ERROR")
		for _, e := range o.Oldest {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", e.Seq, cell(e.EventID), cell(e.Topic), formatAge(ov.Now.Sub(e.CreatedAt)), e.Attempts, errCell(e.LastError))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nparked by the relay: %d%s\n", o.Parked, shown(len(o.ParkedEvents), o.Parked, "oldest first"))
	if len(o.ParkedEvents) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SEQ\tEVENT\tTOPIC\tPARKED FOR\tATTEMPTS\tLAST ERROR")
		for _, e := range o.ParkedEvents {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", e.Seq, cell(e.EventID), cell(e.Topic), formatAge(ov.Now.Sub(*e.ParkedAt)), e.Attempts, cell(e.LastError))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return writeConsumersText(w, ov)
}

// errCell is a last-error cell: "-" before any error, so that no line of
// the table ends in padding.
func errCell(s string) string {
	if s == "" {
		return "-"
	}
	return cell(s)
}

func writeConsumersText(w io.Writer, ov overviewReport) error {
	c := ov.Consumers
	fmt.Fprintf(w, "\nparked by consumers: %d%s\n", c.Parked, shown(len(c.ParkedEvents), c.Parked, "oldest first"))
	if len(c.ParkedEvents) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONSUMER\tSOURCE\tEVENT\tTOPIC\tPARKED FOR\tDELIVERIES\tLAST ERROR")
	for _, e := range c.ParkedEvents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", cell(e.Consumer), cell(e.Source), cell(e.EventID), cell(e.Topic),
			formatAge(ov.Now.Sub(e.ParkedAt)), e.Deliveries, cell(e.LastError))
	}
	return tw.Flush()
}

// shown describes a bounded list: "(oldest first)" or "(20 shown, oldest
// first; --limit shows more)".
func shown(n int, total int64, order string) string {
	switch {
	case n == 0:
		return ""
	case int64(n) < total:
		return fmt.Sprintf(" (%d shown, %s; --limit shows more)", n, order)
	}
	return " (" + order + ")"
}

func writeKeyText(w io.Writer, kr keyReport, limit int) error {
	fmt.Fprintf(w, "ledger %s at %s\n", escapeText(kr.Database), stamp(kr.Now))
	for i, r := range kr.Records {
		fmt.Fprintf(w, "\nrecord %d of %d%s\n", i+1, len(kr.Records), more(len(kr.Records), limit))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		writeRecordText(tw, r, kr.Now)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func more(n, limit int) string {
	if n < limit {
		return ""
	}
	return " (--limit reached; narrow with --caller and --operation)"
}

func writeRecordText(w io.Writer, r recordView, now time.Time) {
	fmt.Fprintf(w, "caller\t%s\n", escapeText(r.Caller))
	fmt.Fprintf(w, "operation\t%s\n", escapeText(r.Operation))
	fmt.Fprintf(w, "key\t%s\n", escapeText(r.Key))
	fmt.Fprintf(w, "fingerprint\t%s\n", escapeText(r.Fingerprint))
	fmt.Fprintf(w, "state\t%s\n", stateText(r))
	fmt.Fprintf(w, "created\t%s (%s)\n", relative(r.CreatedAt, now), stamp(r.CreatedAt))
	fmt.Fprintf(w, "expires\t%s (%s)\n", relative(r.ExpiresAt, now), stamp(r.ExpiresAt))
	if r.State == string(ledger.StateCompleted) {
		fmt.Fprintf(w, "executed by\t%s\n", escapeText(r.LeaseOwner))
		fmt.Fprintf(w, "response\tstatus %d, body %d bytes\n", r.Status, r.BodyBytes)
	} else {
		fmt.Fprintf(w, "lease\t%s, ends %s (%s)\n", escapeText(r.LeaseOwner), relative(r.LeaseExpiresAt, now), stamp(r.LeaseExpiresAt))
	}
	fmt.Fprintf(w, "attempts\tnot stored: the ledger keeps one row per key, not per attempt\n")
	if r.BodyBase64 == nil {
		if r.BodyBytes > 0 {
			fmt.Fprintf(w, "body\thidden (--show-body prints it)\n")
		}
		return
	}
	writeHeaderLines(w, r.Headers)
	cut := ""
	if r.BodyTruncated {
		cut = fmt.Sprintf(" (first %d of %d bytes)", len(r.body), r.BodyBytes)
	}
	fmt.Fprintf(w, "body\t%s%s\n", quoteText(string(r.body)), cut)
}

// writeHeaderLines prints h as "header\tName: value" lines, names sorted,
// every name and value escaped.
func writeHeaderLines(w io.Writer, h map[string][]string) {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if len(h[name]) == 0 {
			// A call journal keeps an undeclared header by name only.
			fmt.Fprintf(w, "header\t%s (value not kept)\n", escapeText(name))
		}
		for _, v := range h[name] {
			fmt.Fprintf(w, "header\t%s: %s\n", escapeText(name), escapeText(v))
		}
	}
}

func stateText(r recordView) string {
	s := escapeText(r.State)
	switch {
	case r.Expired:
		s += " (past its TTL: a retry executes again; the sweeper purges it)"
	case r.Stuck:
		s += " (stuck: the lease expired; a retry or the sweeper releases it)"
	}
	return s
}
