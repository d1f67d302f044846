package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/specdiff"
)

// diffLine renders one change as lint renders a finding:
//
//	breaking: new.yaml:10:7: createOrder (/paths/~1orders/post): CreateOrder is no longer keyed ... [key-removed]
//
// with "(was old.yaml:12:7)" after the message when the element is gone
// from NEW, so the line points at both places. The line is escaped as
// idemgen ledger and idemgen journal escape what they print (escapeText):
// a spec string is the document author's, and its line breaks (a CI log
// reader such as GitHub's runner reads every step's output for "::"
// commands), escape sequences (an OSC 8 hyperlink, ESC[2J) and bidi
// overrides must never reach the terminal or start a line of their own.
func diffLine(c specdiff.Change) string {
	d := ir.Diagnostic{File: c.At.File, Line: c.At.Line, Column: c.At.Column, Pointer: c.Pointer, Operation: c.Operation, Message: c.Message}
	s := ifBreaking(c, "breaking: ", "change: ") + d.String()
	if gone(c) {
		s += " (was " + position(c.Was) + ")"
	}
	return escapeText(s + " [" + c.Rule + "]")
}

// gone reports whether a change's element is in OLD only.
func gone(c specdiff.Change) bool {
	return c.Was.File != "" && c.Pointer == c.Was.Pointer && c.Pointer != c.At.Pointer
}

func position(s ir.Source) string {
	if s.Line == 0 {
		return s.File
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Column)
}

func ifBreaking(c specdiff.Change, yes, no string) string {
	if c.Breaking {
		return yes
	}
	return no
}

// writeDiffText prints the shown changes and a summary that counts all of
// them, so a run without --all still says how many it left out.
func writeDiffText(w io.Writer, all, shown []specdiff.Change) error {
	for _, c := range shown {
		if _, err := fmt.Fprintln(w, diffLine(c)); err != nil {
			return err
		}
	}
	var contract, breaking int
	for _, c := range all {
		if c.Breaking {
			breaking++
			if c.Area == specdiff.AreaContract {
				contract++
			}
		}
	}
	others := len(all) - breaking
	hidden := ""
	if len(shown) < len(all) && others > 0 {
		hidden = " (listed with --all)"
	}
	_, err := fmt.Fprintf(w, "%s (%d to the retry contract), %s%s\n",
		plural(breaking, "breaking change"), contract, plural(others, "other change"), hidden)
	return err
}

// diffFinding is the JSON form of one change.
type diffFinding struct {
	Rule      string `json:"rule"`
	Area      string `json:"area"`
	Breaking  bool   `json:"breaking"`
	Operation string `json:"operation"`
	Pointer   string `json:"pointer"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	OldFile   string `json:"old_file,omitempty"`
	OldLine   int    `json:"old_line,omitempty"`
	Message   string `json:"message"`
}

// writeDiffJSON writes the changes as idemgen ledger writes its JSON
// (writeLedgerJSON), so no rune of a spec string prints raw.
func writeDiffJSON(w io.Writer, cs []specdiff.Change) error {
	out := make([]diffFinding, 0, len(cs)) // [] rather than null when nothing changed
	for _, c := range cs {
		out = append(out, diffFinding{
			Rule: c.Rule, Area: string(c.Area), Breaking: c.Breaking, Operation: c.Operation, Pointer: c.Pointer,
			File: c.At.File, Line: c.At.Line, Column: c.At.Column, OldFile: c.Was.File, OldLine: c.Was.Line, Message: c.Message,
		})
	}
	return writeLedgerJSON(w, out)
}

// writeDiffGitHub prints one GitHub Actions workflow command per change:
//
//	::error file=api/orders.yaml,line=10,col=7,title=idemgen diff: key-removed::CreateOrder is no longer keyed ...
//
// Everything taken from the documents is escaped for the terminal as the
// text is (escapeText), then as the workflow-command rules say
// (githubData, githubProperty), so a spec string can neither start a
// second command nor write escape sequences to whoever reads the log.
func writeDiffGitHub(w io.Writer, cs []specdiff.Change) error {
	for _, c := range cs {
		var b strings.Builder
		b.WriteString(ifBreaking(c, "::error ", "::notice "))
		b.WriteString("file=" + githubProperty(escapeText(c.At.File)))
		if c.At.Line > 0 {
			fmt.Fprintf(&b, ",line=%d", c.At.Line)
			if c.At.Column > 0 {
				fmt.Fprintf(&b, ",col=%d", c.At.Column)
			}
		}
		b.WriteString(",title=" + githubProperty("idemgen diff: "+escapeText(c.Rule)))
		msg := c.Message
		if c.Operation != "" {
			msg = c.Operation + " (" + c.Pointer + "): " + msg
		} else if c.Pointer != "" {
			msg = "(" + c.Pointer + "): " + msg
		}
		if gone(c) {
			msg += " (was " + position(c.Was) + ")"
		}
		b.WriteString("::" + githubData(escapeText(msg)))
		if _, err := fmt.Fprintln(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// githubData escapes a workflow command's message: %, CR and LF (the
// runner's escapeData). Other line breaks the runner does not split on.
func githubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// githubProperty escapes a property value, which also ends at ":" and ","
// (the runner's escapeProperty).
func githubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
