package topology

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// PGNode is one PostgreSQL server of the pair.
type PGNode struct {
	Name string
	Port int
	Data string
	proc *Proc
}

// PG is a primary and a synchronous streaming standby made with
// pg_basebackup -R, on loopback.
type PG struct {
	Bin   string
	User  string
	dir   string
	cred  *syscall.Credential
	procs *Procs
	Nodes [2]*PGNode
	// Primary indexes Nodes.
	Primary int
}

// StartPG initialises the primary in dir, starts it, and builds and starts
// the standby from it.
func StartPG(ctx context.Context, procs *Procs, bin, dir string) (*PG, error) {
	pg := &PG{Bin: bin, dir: dir, procs: procs}
	var err error
	if pg.cred, pg.User, err = runAs(); err != nil {
		return nil, err
	}
	if err := pg.ownedDir(dir); err != nil {
		return nil, err
	}
	for i := range pg.Nodes {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		pg.Nodes[i] = &PGNode{Name: fmt.Sprintf("pg%d", i), Port: port, Data: filepath.Join(dir, fmt.Sprintf("pg%d", i))}
	}
	p := pg.Nodes[0]
	if out, err := pg.run("initdb", "-D", p.Data, "-U", pg.User, "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(p.Data, "postgresql.auto.conf"), []byte(primaryConf), 0o600); err != nil {
		return nil, err
	}
	if err := pg.chown(filepath.Join(p.Data, "postgresql.auto.conf")); err != nil {
		return nil, err
	}
	if err := pg.start(ctx, p); err != nil {
		return nil, err
	}
	if err := pg.exec(ctx, p, "CREATE DATABASE shop"); err != nil {
		return nil, err
	}
	return pg, pg.rebuildStandby(ctx, 1)
}

// primaryConf is the primary's configuration; synchronous_standby_names
// is set once its standby streams (syncWith), because a primary that waits
// for a standby it does not have commits nothing (CREATE DATABASE
// included).
const primaryConf = `wal_level = replica
max_wal_senders = 10
wal_keep_size = '256MB'
hot_standby = on
synchronous_commit = on
fsync = off
full_page_writes = off
max_connections = 300
listen_addresses = '127.0.0.1'
`

// DSN is the multi-host DSN of the pair through the given ports (the
// toxiproxy listeners in front of each node, in Nodes' order).
func (pg *PG) DSN(ports [2]int, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d,127.0.0.1:%d/%s?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		pg.User, ports[0], ports[1], db)
}

// NodeDSN is a direct DSN to one node.
func (pg *PG) NodeDSN(i int, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", pg.User, pg.Nodes[i].Port, db)
}

// Failover kills the primary with SIGKILL (its whole process group, as a
// lost machine), promotes the standby, then rebuilds the old primary as
// the new standby. Until the rebuilt standby streams, commits on the new
// primary wait (synchronous replication), as they would in production.
func (pg *PG) Failover(ctx context.Context) error {
	old, standby := pg.Primary, 1-pg.Primary
	pg.Nodes[old].proc.Kill()
	if out, err := pg.run("pg_ctl", "promote", "-w", "-t", "30", "-D", pg.Nodes[standby].Data); err != nil {
		return fmt.Errorf("promote: %v\n%s", err, out)
	}
	pg.Primary = standby
	return pg.rebuildStandby(ctx, old)
}

// rebuildStandby makes node i a fresh standby of the primary and waits
// until it streams synchronously.
func (pg *PG) rebuildStandby(ctx context.Context, i int) error {
	n, p := pg.Nodes[i], pg.Nodes[pg.Primary]
	if err := os.RemoveAll(n.Data); err != nil {
		return err
	}
	if out, err := pg.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-U", pg.User,
		"-D", n.Data, "-R", "-X", "stream", "-c", "fast", "--no-sync"); err != nil {
		return fmt.Errorf("pg_basebackup: %v\n%s", err, out)
	}
	if err := pg.start(ctx, n); err != nil {
		return err
	}
	return pg.syncWith(ctx, p)
}

// syncWith makes every commit on the primary p wait for its standby's
// flush (synchronous_standby_names, synchronous_commit = on), so a commit
// acknowledged to a server survives the primary's loss, and waits until
// the standby streams synchronously. A promoted standby runs alone, without
// waiting, until its own standby is rebuilt: it could commit nothing
// otherwise (what a failover manager such as Patroni does too, unless told
// to stop writes instead).
func (pg *PG) syncWith(ctx context.Context, p *PGNode) error {
	db, err := sql.Open("pgx", pg.NodeDSN(pg.Primary, "postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{`ALTER SYSTEM SET synchronous_standby_names = '*'`, `SELECT pg_reload_conf()`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'`).Scan(&n)
		if err == nil && n > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: no synchronous standby after 30s (%v)", p.Name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// start runs the postmaster of n directly (not through pg_ctl), so that
// it is this process's child in its own group: SIGKILL to the group is a
// lost machine.
func (pg *PG) start(ctx context.Context, n *PGNode) error {
	proc, err := pg.procs.Start(n.Name, pg.cred, []string{"LC_ALL=C"}, filepath.Join(pg.Bin, "postgres"),
		"-D", n.Data, "-p", strconv.Itoa(n.Port), "-k", pg.dir, "-c", "listen_addresses=127.0.0.1")
	if err != nil {
		return err
	}
	n.proc = proc
	deadline := time.Now().Add(30 * time.Second)
	for {
		db, err := sql.Open("pgx", pg.NodeDSN(indexOf(pg, n), "postgres"))
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-proc.Done():
			return fmt.Errorf("%s exited at start (see %s.log)", n.Name, n.Name)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after 30s: %v", n.Name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func indexOf(pg *PG, n *PGNode) int {
	if pg.Nodes[1] == n {
		return 1
	}
	return 0
}

func (pg *PG) exec(ctx context.Context, n *PGNode, q string) error {
	db, err := sql.Open("pgx", pg.NodeDSN(indexOf(pg, n), "postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, q)
	return err
}

func (pg *PG) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(pg.Bin, name), args...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred, Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd.CombinedOutput()
}

// ownedDir makes dir (and its ancestors traversable) for the server user.
func (pg *PG) ownedDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if pg.cred == nil {
		return nil
	}
	for p := dir; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o711); err != nil {
			return err
		}
	}
	return pg.chown(dir)
}

func (pg *PG) chown(path string) error {
	if pg.cred == nil {
		return nil
	}
	return os.Chown(path, int(pg.cred.Uid), int(pg.cred.Gid))
}

// runAs picks the user the servers run as: the current one, or, as root
// (initdb refuses root), postgres or else nobody.
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
	return nil, "", fmt.Errorf("topology: running as root and neither the postgres nor the nobody user exists")
}
