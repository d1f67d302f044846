package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

type ledgerFlags struct {
	dsn       string
	format    string
	key       string
	operation string
	caller    string
	limit     int
	showBody  bool
	bodyLimit int
	timeout   time.Duration
}

// maxLedgerLimit bounds --limit: the lists are for reading, not exporting.
const maxLedgerLimit = 1000

func newLedgerCmd(tc toolchain) *cobra.Command {
	var flags ledgerFlags
	cmd := &cobra.Command{
		Use:   "ledger --dsn DSN",
		Short: "Inspect an idempotency ledger, read-only: key states, stuck executions, the outbox backlog, parked events",
		Long:  ledgerLong,
		Example: `  idemgen ledger --dsn sqlite:/var/lib/payments/payments.db
  idemgen ledger --dsn "$DATABASE_URL" --format json | jq .keys
  idemgen ledger --dsn sqlite:app.db --key 5b8a2c1e-4f7d-4a57-9a3e-0c6f1d2b9e11 --caller alice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flags.validate(); err != nil {
				return err
			}
			now := tc.now
			if now == nil {
				now = time.Now
			}
			return runLedger(cmd.Context(), flags, now, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.dsn, "dsn", "", "the ledger's database: sqlite:PATH or a postgres:// URL (required)")
	f.StringVar(&flags.format, "format", "text", "output format: text or json")
	f.StringVar(&flags.key, "key", "", "show the records of this idempotency key instead of the overview")
	f.StringVar(&flags.operation, "operation", "", "with --key: only this operation")
	f.StringVar(&flags.caller, "caller", "", "with --key: only this caller")
	f.IntVar(&flags.limit, "limit", 20, fmt.Sprintf("longest list printed (stuck executions, outbox events, records), 1 to %d", maxLedgerLimit))
	f.BoolVar(&flags.showBody, "show-body", false, "with --key: also print the stored response's headers and body")
	f.IntVar(&flags.bodyLimit, "body-limit", 4096, "with --show-body: bytes of the body printed at most")
	f.DurationVar(&flags.timeout, "timeout", 30*time.Second, "give up (and cancel every statement) after this long")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (f ledgerFlags) validate() error {
	switch {
	case f.dsn == "":
		return usageErrorf("--dsn is required: sqlite:PATH or a postgres:// URL")
	case f.format != "text" && f.format != "json":
		return usageErrorf("--format must be text or json, not %q", f.format)
	case f.limit < 1 || f.limit > maxLedgerLimit:
		return usageErrorf("--limit must be between 1 and %d, not %d", maxLedgerLimit, f.limit)
	case f.bodyLimit < 0:
		return usageErrorf("--body-limit must not be negative")
	case f.timeout <= 0:
		return usageErrorf("--timeout must be positive")
	case f.key == "" && (f.operation != "" || f.caller != "" || f.showBody):
		return usageErrorf("--operation, --caller and --show-body need --key")
	}
	_, _, err := parseLedgerDSN(f.dsn)
	return err
}

// ledgerDSN kinds.
const (
	dsnSQLite   = "sqlite"
	dsnPostgres = "postgres"
)

// parseLedgerDSN splits a --dsn into its kind and what the driver opens.
// The error never repeats the DSN: a PostgreSQL URL can hold a password.
func parseLedgerDSN(dsn string) (kind, target string, err error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		if path := strings.TrimPrefix(dsn, "sqlite:"); path != "" {
			return dsnSQLite, path, nil
		}
		return "", "", usageErrorf("--dsn sqlite: needs a file path (sqlite:PATH)")
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		if _, err := url.Parse(dsn); err != nil {
			return "", "", usageErrorf("--dsn is not a valid postgres:// URL")
		}
		return dsnPostgres, dsn, nil
	}
	scheme, _, _ := strings.Cut(dsn, ":")
	if len(scheme) > 20 || scheme == dsn {
		scheme = ""
	}
	return "", "", usageErrorf("--dsn must be sqlite:PATH or a postgres:// (postgresql://) URL, not a %q DSN", escapeText(scheme))
}

// displayDSN names the database in the output without credentials: the
// path for SQLite, the user, host and database for PostgreSQL.
func displayDSN(kind, target string) string {
	if kind == dsnSQLite {
		return "sqlite:" + target
	}
	u, err := url.Parse(target)
	if err != nil {
		return "postgres://"
	}
	clean := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if u.User != nil {
		clean.User = url.User(u.User.Username())
	}
	return clean.String()
}

// openLedger opens the store read-only; no path through it can write.
func openLedger(ctx context.Context, kind, target string, timeout time.Duration) (*sqlstore.Store, error) {
	var s *sqlstore.Store
	var err error
	if kind == dsnSQLite {
		s, err = sqlitestore.OpenReadOnly(ctx, target)
	} else {
		s, err = pgstore.OpenReadOnly(ctx, target, timeout)
	}
	if err != nil {
		return nil, openProblem(kind, target, "ledger", err)
	}
	return s, nil
}

// openProblem is the error of a read-only open of a ledger or a journal
// (what) that failed.
func openProblem(kind, target, what string, err error) error {
	var nl *sqlstore.NotLedgerError
	switch {
	case errors.Is(err, sqlitestore.ErrNoFile):
		return problemf("%s: no such %s file", escapeText(target), what)
	case errors.As(err, &nl) && nl.Table != "":
		return problemf("%s is not an idemgen %s: reading table %s: %v", escapeText(displayDSN(kind, target)), what, nl.Table, nl.Err)
	case errors.As(err, &nl):
		return problemf("%s is not an idemgen %s: %v", escapeText(displayDSN(kind, target)), what, nl.Err)
	}
	return problemf("cannot open %s: %v", escapeText(displayDSN(kind, target)), err)
}

func runLedger(ctx context.Context, flags ledgerFlags, now func() time.Time, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, flags.timeout)
	defer cancel()
	kind, target, _ := parseLedgerDSN(flags.dsn) // validated
	s, err := openLedger(ctx, kind, target, flags.timeout)
	if err != nil {
		return err
	}
	defer s.Close()
	at := now()
	db := displayDSN(kind, target)
	if flags.key != "" {
		return runLedgerKey(ctx, s, flags, db, at, w)
	}
	ob := outbox.New(s.Reader(), s.Dialect(), now)
	ov, err := readOverview(ctx, s, ob, at, flags.limit)
	if err != nil {
		return problemf("reading %s: %v", escapeText(db), err)
	}
	ov.Database = db
	if flags.format == "json" {
		err = writeLedgerJSON(w, ov)
	} else {
		err = writeOverviewText(w, ov)
	}
	if err != nil {
		return problemf("writing the report: %v", err)
	}
	return nil
}

func runLedgerKey(ctx context.Context, s *sqlstore.Store, flags ledgerFlags, db string, at time.Time, w io.Writer) error {
	id := ledger.ID{Key: flags.key, Operation: flags.operation, Caller: flags.caller}
	recs, err := s.Find(ctx, id, flags.limit)
	if err != nil {
		return problemf("reading %s: %v", escapeText(db), err)
	}
	kr := keyReport{Database: db, Now: at.UTC(), Records: make([]recordView, 0, len(recs))}
	body := -1 // hidden
	if flags.showBody {
		body = flags.bodyLimit
	}
	for _, rec := range recs {
		kr.Records = append(kr.Records, newRecordView(rec, at, body))
	}
	if flags.format == "json" {
		err = writeLedgerJSON(w, kr)
	} else if len(recs) > 0 {
		err = writeKeyText(w, kr, flags.limit)
	}
	if err != nil {
		return problemf("writing the report: %v", err)
	}
	if len(recs) == 0 {
		return problemf("no record with key %s%s in %s", quoteText(flags.key), describeScope(id), escapeText(db))
	}
	return nil
}

func describeScope(id ledger.ID) string {
	var b strings.Builder
	if id.Operation != "" {
		b.WriteString(" for operation " + quoteText(id.Operation))
	}
	if id.Caller != "" {
		b.WriteString(" of caller " + quoteText(id.Caller))
	}
	return b.String()
}

// ledgerLong is the command's --help text.
const ledgerLong = `Inspect an idempotency ledger (package ledger) without changing it: for the people on call.

--dsn is sqlite:PATH (the file is opened with mode=ro and query_only) or a postgres:// or
postgresql:// URL (every session is read-only: default_transaction_read_only, and each statement
is cut off at --timeout). Nothing is migrated or written.

Without --key it prints the overview: keys by state; the stuck executions, in progress with an
expired lease, which the sweeper would release (its own rule and query); keys past their TTL,
which it would purge; the outbox events not delivered yet, oldest first, with their age,
failed attempts and last error; the events the relay parked after a permanent publish failure
(Outbox.Unpark returns one); and the events consumers parked after their apply failed on every
delivery (Consumer.Retry applies one). Lists stop at --limit.

With --key it prints that key's records (one per caller and operation; narrow with --operation
and --caller): fingerprint, state, stored status and body size, age, expiry, lease. The stored
response's headers and body are printed only with --show-body, at most --body-limit bytes.

Callers, operations, keys and bodies are shown as stored, with every byte that is not printable
text escaped (\x1b, \n, \u202e, \\), so stored data cannot drive the terminal. --format json
gives the exact values (see docs/cli.md for the field names).

Exit status: 0 ok, 1 the database cannot be opened or read, is not a ledger, or holds no record
for --key; 2 usage errors (a malformed --dsn among them).`
