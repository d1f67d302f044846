// Command idemgen generates typed Go clients that retry safely from OpenAPI
// documents, checks the documents' retry contracts, and annotates documents
// that have none.
//
// Usage:
//
//	idemgen generate SPEC --package NAME --out DIR [--config FILE] [--check]
//	idemgen lint SPEC... [--format text|json] [--strict]
//	idemgen annotate SPEC... [-w]
//	idemgen diff OLD NEW [--format text|json|github] [--all]
//	idemgen verify SPEC --server URL --allow-writes [--operations a,b] [--fixtures FILE] [--format text|json|github]
//	idemgen ledger --dsn DSN [--key KEY [--operation OP] [--caller C] [--show-body]] [--format text|json]
//	idemgen version
//
// Exit status: 0 when all is well, 1 when a spec has problems (or `generate
// --check` finds the output out of date), 2 for usage errors.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK      = 0
	exitProblem = 1 // spec problems, drift under --check, or a failed run
	exitUsage   = 2 // bad flags, missing arguments, a bad config file
)

func main() {
	tuneGC(os.Args[1:])
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args with the real parser and generator and
// returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(defaultToolchain(), args, stdout, stderr)
}

// runWith executes args with the given toolchain; tests swap in fakes.
func runWith(tc toolchain, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(tc)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "idemgen: %v\n", ee.err)
		}
		return ee.code
	}
	// Everything cobra itself reports (unknown command or flag, wrong number
	// of arguments, a malformed flag value) is a usage error.
	fmt.Fprintf(stderr, "idemgen: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
	return exitUsage
}

// exitError carries the exit code a command wants; err is printed unless it
// is nil (the command already printed what it had to say).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// problemf reports a failed run (exit 1).
func problemf(format string, args ...any) error {
	return &exitError{code: exitProblem, err: fmt.Errorf(format, args...)}
}

// errProblemsPrinted is exit 1 after the command printed the problems.
var errProblemsPrinted = &exitError{code: exitProblem}

func newRootCmd(tc toolchain) *cobra.Command {
	root := &cobra.Command{
		Use:   "idemgen",
		Short: "Generate Go clients that retry safely from OpenAPI documents",
		Long: `idemgen reads an OpenAPI document (3.0, 3.1 or Swagger 2.0, YAML or JSON) and its
retry-contract extensions, x-idempotent and x-retryable-status, and generates a typed Go
client whose every call follows one retry protocol: one idempotency key per business
intent, fail fast on auth errors, Retry-After honoured, full-jitter backoff inside a
deadline, an attempt limit and a retry budget.

Exit status: 0 ok, 1 spec problems (or drift under generate --check), 2 usage errors.`,
		Version:       versionString(),
		SilenceErrors: true, // runWith prints errors once, with the exit code's context
		SilenceUsage:  true, // a spec problem is not a reason to print the flags
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return &exitError{code: exitUsage}
		},
	}
	root.SetVersionTemplate("idemgen {{.Version}}\n")
	root.AddCommand(newGenerateCmd(tc), newLintCmd(tc), newAnnotateCmd(), newMockCmd(), newLedgerCmd(tc), newJournalCmd(tc), newDiffCmd(tc), newVerifyCmd(tc), newVersionCmd())
	return root
}
