package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
)

type journalFlags struct {
	dsn       string
	format    string
	state     string
	limit     int
	showBody  bool
	bodyLimit int
	timeout   time.Duration
}

func newJournalCmd(tc toolchain) *cobra.Command {
	var flags journalFlags
	cmd := &cobra.Command{
		Use:   "journal ls|show --dsn DSN",
		Short: "Inspect a client's call journal, read-only: unresolved intents, what the reconciler settled, what needs a person",
		Long:  journalLong,
		Args:  cobra.NoArgs,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&flags.dsn, "dsn", "", "the journal's database: sqlite:PATH or a postgres:// URL (required)")
	pf.StringVar(&flags.format, "format", "text", "output format: text or json")
	pf.DurationVar(&flags.timeout, "timeout", 30*time.Second, "give up (and cancel every statement) after this long")
	now := func() time.Time {
		if tc.now != nil {
			return tc.now()
		}
		return time.Now()
	}
	ls := &cobra.Command{
		Use:     "ls --dsn DSN",
		Short:   "Count the entries by state and list the latest",
		Example: "  idemgen journal ls --dsn sqlite:/var/lib/shop/journal.db --state needs-person",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flags.validate(); err != nil {
				return err
			}
			return runJournal(cmd.Context(), flags, func(ctx context.Context, j *journal.SQL, db string) error {
				return journalList(ctx, j, flags, db, now(), cmd.OutOrStdout())
			})
		},
	}
	ls.Flags().StringVar(&flags.state, "state", "", "only entries in this state: unresolved, resolved or needs-person")
	ls.Flags().IntVar(&flags.limit, "limit", 20, "longest list printed, 1 to 1000")
	show := &cobra.Command{
		Use:     "show --dsn DSN ID",
		Short:   "Print one entry: its request (no credentials are ever stored), its attempts and how it was settled",
		Example: "  idemgen journal show --dsn \"$DATABASE_URL\" 0b6e1f5c-3d1e-4c4e-9a43-7d0f3c7a9e12 --show-body",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := flags.validate(); err != nil {
				return err
			}
			return runJournal(cmd.Context(), flags, func(ctx context.Context, j *journal.SQL, db string) error {
				return journalShow(ctx, j, flags, args[0], db, now(), cmd.OutOrStdout())
			})
		},
	}
	show.Flags().BoolVar(&flags.showBody, "show-body", false, "also print the request body")
	show.Flags().IntVar(&flags.bodyLimit, "body-limit", 4096, "with --show-body: bytes of the body printed at most")
	cmd.AddCommand(ls, show)
	return cmd
}

func (f *journalFlags) validate() error {
	if f.limit == 0 {
		f.limit = 20
	}
	lf := ledgerFlags{dsn: f.dsn, format: f.format, limit: f.limit, bodyLimit: f.bodyLimit, timeout: f.timeout}
	if err := lf.validate(); err != nil {
		return err
	}
	switch journal.State(f.state) {
	case "", journal.StateUnresolved, journal.StateResolved, journal.StateNeedsPerson:
		return nil
	}
	return usageErrorf("--state must be unresolved, resolved or needs-person, not %s", quoteText(f.state))
}

// runJournal opens the journal read-only and runs do on it.
func runJournal(ctx context.Context, flags journalFlags, do func(context.Context, *journal.SQL, string) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, flags.timeout)
	defer cancel()
	kind, target, _ := parseLedgerDSN(flags.dsn) // validated
	var j *journal.SQL
	var err error
	if kind == dsnSQLite {
		j, err = sqlitestore.OpenJournalReadOnly(ctx, target)
	} else {
		j, err = pgstore.OpenJournalReadOnly(ctx, target, flags.timeout)
	}
	if err != nil {
		return openProblem(kind, target, "journal", err)
	}
	defer j.Close()
	return do(ctx, j, displayDSN(kind, target))
}

// writeJournal writes a report as JSON or with text, and says so on error.
func writeJournal(w io.Writer, format string, v any, text func() error) error {
	var err error
	if format == "json" {
		err = writeLedgerJSON(w, v)
	} else {
		err = text()
	}
	if err != nil {
		return problemf("writing the report: %v", err)
	}
	return nil
}

// journalLong is the command's --help text.
const journalLong = `Inspect the call journal of an idemgen client (idemrt.WithJournal on a SQL journal, package
ledger/journal) without changing it: for the people on call.

--dsn is sqlite:PATH (opened with mode=ro and query_only) or a postgres:// or postgresql:// URL
(read-only sessions, each statement cut off at --timeout). Nothing is migrated or written.

ls prints the entries by state (unresolved: in flight, unknown or queued, the reconciler's work;
resolved; needs-person: the reconciler will not settle them alone) and the latest entries, newest
first, narrowed with --state and stopped at --limit.

show ID prints one entry: operation, safety, method, URL, key, fingerprint, deadline, TTL, its
stored headers (credentials are never stored), its attempts in order, and how it was settled. The
body is printed only with --show-body, at most --body-limit bytes.

Operations, URLs, keys, headers, errors and bodies are shown with every byte that is not printable
text escaped (\x1b, \n, \u202e, \\), so stored data cannot drive the terminal. --format json
gives the exact values.

Exit status: 0 ok, 1 the database cannot be opened or read, is not a journal, or holds no entry
ID; 2 usage errors.`
