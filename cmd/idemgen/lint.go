package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/ir"
)

type lintFlags struct {
	format string
	strict bool
	load   loadSettings
}

func newLintCmd(tc toolchain) *cobra.Command {
	var flags lintFlags
	cmd := &cobra.Command{
		Use:   "lint SPEC...",
		Short: "Check the retry contracts of OpenAPI documents",
		Long:  lintLong,
		Example: `  idemgen lint api/orders.yaml
  idemgen lint --strict api/*.yaml
  idemgen lint --format json api/orders.yaml | jq '.[] | select(.severity == "error")'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if flags.format != "text" && flags.format != "json" {
				return usageErrorf("--format must be text or json, not %q", flags.format)
			}
			return runLint(tc, args, flags, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.format, "format", "text", "output format: text or json")
	f.BoolVar(&flags.strict, "strict", false, "treat warnings as errors (exit 1 when there are any)")
	f.BoolVar(&flags.load.AllowRemoteRefs, "allow-remote-refs", false, "follow $refs to http(s) URLs")
	f.StringVar(&flags.load.RefRoot, "ref-root", "", "let local $refs also read files under DIR (default: only the spec's folder tree)")
	addOverlayFlag(cmd, &flags.load.Overlays)
	_ = cmd.MarkFlagDirname("ref-root")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runLint(tc toolchain, specs []string, flags lintFlags, stdout io.Writer) error {
	var all ir.Diagnostics
	for _, ds := range lintAll(tc, specs, flags.load) {
		all = append(all, ds...)
	}
	var err error
	if flags.format == "json" {
		err = writeLintJSON(stdout, all)
	} else {
		err = writeLintText(stdout, all, len(specs))
	}
	if err != nil {
		return problemf("writing the report: %v", err)
	}
	if all.HasErrors() || (flags.strict && len(all.Warnings()) > 0) {
		return errProblemsPrinted
	}
	return nil
}

// lintAll loads the specs in parallel, as many at a time as there are CPUs
// (a large spec costs hundreds of megabytes while it loads), and returns
// each spec's findings in argument order so the report is deterministic.
func lintAll(tc toolchain, specs []string, ls loadSettings) []ir.Diagnostics {
	out := make([]ir.Diagnostics, len(specs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = lintOne(tc, spec, ls)
		})
	}
	wg.Wait()
	return out
}

// lintOne loads one spec and returns its findings; a spec that cannot be
// loaded at all becomes one error finding with the rule "load".
func lintOne(tc toolchain, spec string, ls loadSettings) ir.Diagnostics {
	api, diags, err := tc.safeLoad(spec, ls)
	if api != nil && tc.check != nil {
		diags = append(diags, tc.check(api)...)
	}
	var ds ir.Diagnostics
	switch {
	case errors.As(err, &ds):
		diags = append(diags, ds...)
	case err != nil:
		// The file name leads the line already; a loader error that starts
		// with it would print it twice.
		msg := strings.TrimPrefix(err.Error(), spec+": ")
		diags = append(diags, ir.Diagnostic{Severity: ir.SeverityError, Rule: "load", File: spec, Message: msg})
	}
	return diags
}

func writeLintText(w io.Writer, ds ir.Diagnostics, files int) error {
	for _, d := range ds {
		if _, err := fmt.Fprintln(w, formatDiagnostic(d)); err != nil {
			return err
		}
	}
	errs := len(ds) - len(ds.Warnings()) - len(ds.Infos())
	infos := ""
	if n := len(ds.Infos()); n > 0 {
		infos = ", " + plural(n, "info")
	}
	_, err := fmt.Fprintf(w, "%s, %s%s in %s\n", plural(errs, "error"), plural(len(ds.Warnings()), "warning"), infos, plural(files, "file"))
	return err
}

// lintFinding is the JSON form of one diagnostic.
type lintFinding struct {
	Severity  string `json:"severity"`
	Rule      string `json:"rule"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	Pointer   string `json:"pointer"`
	Operation string `json:"operation"`
	Message   string `json:"message"`
}

func writeLintJSON(w io.Writer, ds ir.Diagnostics) error {
	findings := make([]lintFinding, 0, len(ds)) // [] rather than null when clean
	for _, d := range ds {
		findings = append(findings, lintFinding{
			Severity: d.Severity.String(), Rule: d.Rule, File: d.File, Line: d.Line, Column: d.Column,
			Pointer: d.Pointer, Operation: d.Operation, Message: d.Message,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // messages quote <, > and & literally
	return enc.Encode(findings)
}

// lintLong is the command's --help text.
const lintLong = `Check OpenAPI documents and the retry contract of every operation.

Errors are what generate refuses: invalid x-idempotent or x-retryable-status values,
auth statuses (401, 403, 407) or 412 or 2xx/3xx in a retryable list, documents that
cannot be loaded. Warnings flag contracts that are legal but probably not what was
meant: a POST or PATCH without annotation (its unknown outcomes can never be retried),
x-idempotent: true on a POST without a key, 400/404/409/422 in a retryable list.
Infos are for review and never fatal: a pagination contract inferred for an operation
without x-pagination.

Every finding is printed as "severity: file:line:col: operation (pointer): message [rule]",
followed by a summary line. --format json prints one JSON array of objects with the keys
severity, rule, file, line, column, pointer, operation and message.

Exit status: 0 when there are no errors (warnings are allowed unless --strict; infos always), 1 when
there are, 2 for usage errors.`
