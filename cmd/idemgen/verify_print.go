package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemgen/idemgen/verify"
)

// printVerify writes the report in the chosen format.
func printVerify(w io.Writer, format, spec string, rep *verify.Report) {
	switch format {
	case "json":
		printVerifyJSON(w, rep)
	case "github":
		printVerifyGitHub(w, rep)
	default:
		printVerifyText(w, spec, rep)
	}
}

// verifySummary is the closing count line.
func verifySummary(rep *verify.Report) string {
	return fmt.Sprintf("%d passed, %d failed, %d info, %d skipped", rep.Count(verify.Pass), rep.Count(verify.Fail),
		rep.Count(verify.Info), rep.Count(verify.Skip))
}

// printVerifyText prints one line per result and where in the spec it is;
// server text is escaped as ledger values are.
func printVerifyText(w io.Writer, spec string, rep *verify.Report) {
	fmt.Fprintf(w, "idemgen verify %s against %s\n\n", escapeText(spec), escapeText(rep.Server))
	for _, r := range rep.Results {
		fmt.Fprintf(w, "%-4s  %s  %s: %s\n", strings.ToUpper(string(r.Verdict)), escapeText(r.Operation), r.Check, escapeText(r.Message))
		fmt.Fprintf(w, "      %s\n", escapeText(location(r)))
	}
	fmt.Fprintf(w, "\n%s\n", verifySummary(rep))
}

// location is "file:line pointer".
func location(r verify.Result) string {
	at := r.File
	if r.Line > 0 {
		at = fmt.Sprintf("%s:%d", at, r.Line)
	}
	return at + " " + r.Pointer
}

// printVerifyJSON prints the report with its counts.
func printVerifyJSON(w io.Writer, rep *verify.Report) {
	out := struct {
		*verify.Report
		Counts map[verify.Verdict]int `json:"counts"`
	}{rep, map[verify.Verdict]int{}}
	for _, v := range []verify.Verdict{verify.Pass, verify.Fail, verify.Info, verify.Skip} {
		out.Counts[v] = rep.Count(v)
	}
	if out.Results == nil {
		out.Results = []verify.Result{}
	}
	_ = writeLedgerJSON(w, out) // server text is escaped as ledger values are
}

// printVerifyGitHub prints a failure as an ::error annotation at its place
// in the spec, an info or skip as a ::notice, and the count line.
func printVerifyGitHub(w io.Writer, rep *verify.Report) {
	for _, r := range rep.Results {
		kind := "notice"
		switch r.Verdict {
		case verify.Pass:
			continue
		case verify.Fail:
			kind = "error"
		}
		props := "file=" + githubProperty(r.File)
		if r.Line > 0 {
			props += fmt.Sprintf(",line=%d", r.Line)
		}
		props += ",title=" + githubProperty("verify "+r.Check)
		fmt.Fprintf(w, "::%s %s::%s\n", kind, props, githubData(r.Operation+": "+r.Message+" ("+r.Pointer+")"))
	}
	fmt.Fprintln(w, verifySummary(rep))
}
