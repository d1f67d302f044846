package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver for a database that is not a ledger
)

func TestLedgerErrors(t *testing.T) {
	dir := t.TempDir()
	path, now := sqliteLedger(t)
	notLedger := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", notLedger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE orders (id TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	garbage := filepath.Join(dir, "notes.txt")
	writeFile(t, garbage, strings.Repeat("not a database\n", 100))
	missing := filepath.Join(dir, "missing.db")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no dsn", nil, exitUsage, "--dsn is required"},
		{"unknown scheme", []string{"--dsn", "mysql://root:hunter2@db/x"}, exitUsage, `--dsn must be sqlite:PATH or a postgres:// (postgresql://) URL, not a "mysql" DSN`},
		{"no scheme", []string{"--dsn", "/var/lib/app.db"}, exitUsage, `not a "" DSN`},
		{"empty path", []string{"--dsn", "sqlite:"}, exitUsage, "sqlite: needs a file path"},
		{"format", []string{"--dsn", "sqlite:" + path, "--format", "yaml"}, exitUsage, "--format must be text or json"},
		{"limit", []string{"--dsn", "sqlite:" + path, "--limit", "0"}, exitUsage, "--limit must be between 1 and 1000"},
		{"caller without key", []string{"--dsn", "sqlite:" + path, "--caller", "bob"}, exitUsage, "need --key"},
		{"show-body without key", []string{"--dsn", "sqlite:" + path, "--show-body"}, exitUsage, "need --key"},
		{"missing file", []string{"--dsn", "sqlite:" + missing}, exitProblem, missing + ": no such ledger file"},
		{"directory", []string{"--dsn", "sqlite:" + dir}, exitProblem, "no such ledger file"},
		{"not a ledger", []string{"--dsn", "sqlite:" + notLedger}, exitProblem, "app.db is not an idemgen ledger"},
		{"not a database", []string{"--dsn", "sqlite:" + garbage}, exitProblem, "notes.txt is not an idemgen ledger"},
		{"no such key", []string{"--dsn", "sqlite:" + path, "--key", "k-none", "--operation", "refund"}, exitProblem,
			`no record with key "k-none" for operation "refund" in sqlite:`},
		// Port 1 on loopback refuses at once; the password never shows.
		{"postgres unreachable", []string{"--dsn", "postgres://ops:hunter2@127.0.0.1:1/ledger?sslmode=disable&connect_timeout=5"},
			exitProblem, "cannot open postgres://ops@127.0.0.1:1/ledger: pgstore:"},
		{"postgres bad url", []string{"--dsn", "postgresql://ops:hunter2@[::1/ledger"}, exitUsage, "--dsn is not a valid postgres:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runLedgerCmd(t, now, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, tt.code, tt.want)
			}
			if strings.Contains(r.stderr+r.stdout, "hunter2") {
				t.Errorf("the password is printed: %q", r.stderr)
			}
		})
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the missing ledger was created: %v", err)
	}
}

func TestFormatAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 999 * time.Millisecond: "0s", 45 * time.Second: "45s", 192 * time.Second: "3m12s",
		time.Hour: "1h0m", 2*time.Hour + 5*time.Minute + 59*time.Second: "2h5m",
		76*time.Hour + 30*time.Minute: "3d4h", -90 * time.Second: "1m30s",
	} {
		if got := formatAge(d); got != want {
			t.Errorf("formatAge(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestEscapeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain key-1":        "plain key-1",
		"café ünïcode 日本":    "café ünïcode 日本",
		"a\\b":               `a\\b`,
		"\x1b[31mred\x1b[0m": `\x1b[31mred\x1b[0m`,
		"line\nfeed\r\ttab":  `line\nfeed\r\ttab`,
		"\x00\x7f":           `\x00\x7f`,
		"\u009b1m":           `\u009b1m`,
		"\u202eevil\u200b":   `\u202eevil\u200b`,
		"\xff\xfe":           `\xff\xfe`,
		"\ufffd":             `\ufffd`,
		"\U000e0041":         `\U000e0041`,
	} {
		if got := escapeText(in); got != want {
			t.Errorf("escapeText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDisplayDSNDropsCredentials(t *testing.T) {
	got := displayDSN(dsnPostgres, "postgres://ops:hunter2@db.internal:5432/ledger?sslmode=require&password=hunter2")
	if got != "postgres://ops@db.internal:5432/ledger" {
		t.Errorf("displayDSN = %q", got)
	}
}
