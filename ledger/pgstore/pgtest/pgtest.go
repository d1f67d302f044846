// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb and
// pg_ctl from $IDEMGEN_PG_BIN (default /usr/lib/postgresql/15/bin), data in
// the test's temp dir, listening on a free loopback port only, fsync off,
// stopped when the test ends.
//
// Without the binaries the test is skipped with a message saying how to get
// them, except when CI=true, where it fails: CI must run these tests.
// initdb refuses to run as root, so as root the server runs as the
// "postgres" (or else "nobody") user. It is a package of the pgstore module
// (not internal) so that every module built on the ledger shares one copy.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for NewDatabase
)

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	// Port is the loopback TCP port; User the superuser name.
	Port int
	User string
	bin  string
	n    atomic.Int64
}

// BinDir returns the directory of the server binaries, or "" if absent.
func BinDir() string {
	dir := os.Getenv("IDEMGEN_PG_BIN")
	if dir == "" {
		dir = "/usr/lib/postgresql/15/bin"
	}
	if _, err := os.Stat(filepath.Join(dir, "initdb")); err != nil {
		return ""
	}
	return dir
}

// ErrNoBinaries is returned by Launch when initdb is not found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries not found (set IDEMGEN_PG_BIN or install postgresql-15: apt-get install postgresql-15)")

// Start starts a cluster for t (and its subtests) or skips t (fails it with
// CI=true) when the binaries are missing. The cluster stops when t ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	if BinDir() == "" {
		Unavailable(t, ErrNoBinaries)
	}
	c, stop, err := launch(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return c
}

// Unavailable skips t because of err, or fails it when CI=true: CI must run
// the PostgreSQL tests.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v; CI=true requires PostgreSQL", err)
	}
	t.Skip(err)
}

// Launch starts a cluster outside any test (from TestMain, to share one
// cluster across a package's tests) in a fresh temp dir; stop shuts it down
// and removes the dir. It returns ErrNoBinaries when initdb is missing.
func Launch() (c *Cluster, stop func(), err error) {
	if BinDir() == "" {
		return nil, nil, ErrNoBinaries
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, nil, err
	}
	c, stopPG, err := launch(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return c, func() { stopPG(); os.RemoveAll(dir) }, nil
}

func launch(dir string) (*Cluster, func(), error) {
	cred, owner, err := runAs()
	if err != nil {
		return nil, nil, err
	}
	if err := prepareDirs(dir, cred); err != nil {
		return nil, nil, err
	}
	c := &Cluster{User: owner, bin: BinDir()}
	stop, err := c.start(dir, cred)
	if err != nil {
		return nil, nil, err
	}
	return c, stop, nil
}

// runAs picks the user the server runs as: the current one, or a non-root
// system user when running as root.
func runAs() (*syscall.Credential, string, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return nil, "", err
		}
		return nil, u.Username, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, name, nil
	}
	return nil, "", fmt.Errorf("pgtest: running as root and neither the postgres nor the nobody user exists")
}

// prepareDirs creates data and socket dirs the server user owns, and makes
// the temp dir's ancestors traversable by it (t.TempDir creates them 0700).
func prepareDirs(dir string, cred *syscall.Credential) error {
	for _, sub := range []string{"data", "sock"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			return err
		}
	}
	if cred == nil {
		return nil
	}
	for p := dir; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o711); err != nil {
			return err
		}
	}
	for _, sub := range []string{"", "data", "sock"} {
		if err := os.Chown(filepath.Join(dir, sub), int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) start(dir string, cred *syscall.Credential) (func(), error) {
	data, sock, logf := filepath.Join(dir, "data"), filepath.Join(dir, "sock"), filepath.Join(dir, "server.log")
	if out, err := c.run(cred, "initdb", "-D", data, "-U", c.User, "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c.Port = port
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300", port, sock)
	if out, err := c.run(cred, "pg_ctl", "start", "-w", "-t", "60", "-D", data, "-l", logf, "-o", opts); err != nil {
		log, _ := os.ReadFile(logf)
		return nil, fmt.Errorf("pgtest: pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return func() {
		if out, err := c.run(cred, "pg_ctl", "stop", "-D", data, "-m", "immediate", "-w"); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: pg_ctl stop: %v\n%s\n", err, out)
		}
	}, nil
}

func (c *Cluster) run(cred *syscall.Credential, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = "/"
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd.CombinedOutput()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// DSN returns a connection URL for database db.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", c.User, c.Port, db)
}

// NewDatabase creates a fresh, empty database for one test and returns its
// DSN; the database is dropped when t ends.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%s", c.n.Add(1), sanitize(t.Name()))
	admin, err := sql.Open("pgx", c.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", c.DSN("postgres"))
		if err != nil {
			return
		}
		defer a.Close()
		a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	return c.DSN(name)
}

func sanitize(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return b.String()
}
