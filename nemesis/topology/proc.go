// Package topology starts and stops the nemesis's processes on loopback:
// the PostgreSQL primary and standby, the servers, HAProxy, the NATS nodes,
// the clients and the consumer. Every process runs in its own process
// group, dies with the orchestrator (Pdeathsig), and is killed by group on
// Close, so nothing outlives a run, whether it passed, failed or timed out.
package topology

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one child process, started in its own process group.
type Proc struct {
	Name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Procs tracks every child a run started, to kill them all at the end.
type Procs struct {
	mu    sync.Mutex
	procs []*Proc
	// LogDir receives each process's combined output, one file per name.
	LogDir string
}

// Start runs argv as name, its output appended to LogDir/name.log; cred,
// when set, is the user it runs as. ready, when set, receives the first
// line the process prints on stdout (its "listening on" line).
func (ps *Procs) Start(name string, cred *syscall.Credential, env []string, argv ...string) (*Proc, error) {
	p, _, err := ps.start(name, cred, env, false, argv...)
	return p, err
}

// StartReady is Start, waiting (at most timeout) for the first stdout line.
func (ps *Procs) StartReady(name string, timeout time.Duration, env []string, argv ...string) (*Proc, string, error) {
	p, lines, err := ps.start(name, nil, env, true, argv...)
	if err != nil {
		return nil, "", err
	}
	select {
	case line, ok := <-lines:
		if !ok {
			return p, "", fmt.Errorf("%s exited before it was ready (see %s.log)", name, name)
		}
		return p, line, nil
	case <-time.After(timeout):
		p.Kill()
		return p, "", fmt.Errorf("%s not ready after %v (see %s.log)", name, timeout, name)
	}
}

func (ps *Procs) start(name string, cred *syscall.Credential, env []string, firstLine bool, argv ...string) (*Proc, <-chan string, error) {
	logf, err := os.OpenFile(ps.LogDir+"/"+name+".log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: cred}
	var lines chan string
	var stdout io.ReadCloser
	if firstLine {
		if stdout, err = cmd.StdoutPipe(); err != nil {
			logf.Close()
			return nil, nil, err
		}
	} else {
		cmd.Stdout = logf
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, done: make(chan struct{})}
	if firstLine {
		lines = make(chan string, 1)
		go forwardFirstLine(stdout, logf, lines)
	}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	ps.mu.Lock()
	ps.procs = append(ps.procs, p)
	ps.mu.Unlock()
	return p, lines, nil
}

// forwardFirstLine hands the first stdout line to lines and copies the
// rest to the log.
func forwardFirstLine(r io.Reader, log io.Writer, lines chan<- string) {
	br := bufio.NewReader(r)
	line, err := br.ReadString('\n')
	if err == nil {
		lines <- strings.TrimSpace(line)
	}
	close(lines)
	io.Copy(log, br)
}

// Signal sends sig to the process's whole group (a postmaster's backends
// with it).
func (p *Proc) Signal(sig syscall.Signal) error {
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// Kill sends SIGKILL to the group and waits (at most 10s) for the exit.
func (p *Proc) Kill() {
	p.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is the process's exit error, once Done is closed.
func (p *Proc) Err() error { return p.err }

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Close kills every process still running, by group.
func (ps *Procs) Close() {
	ps.mu.Lock()
	procs := ps.procs
	ps.procs = nil
	ps.mu.Unlock()
	for _, p := range procs {
		select {
		case <-p.done:
		default:
			p.Signal(syscall.SIGCONT) // a stopped process cannot die otherwise
			p.Kill()
		}
	}
}

// FreePort returns a TCP port free on 127.0.0.1 now, below Linux's
// ephemeral range (32768-60999): a port the kernel hands out for outgoing
// connections can be taken by one of the many this run opens before the
// process it was meant for binds it (or binds it again after a restart).
// Each port is handed out once per process.
func FreePort() (int, error) {
	portMu.Lock()
	defer portMu.Unlock()
	for range 1000 {
		p := 20000 + rand.IntN(12000)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven[p] = true
		return p, nil
	}
	return 0, errors.New("topology: no free port in 20000-32000")
}

var (
	portMu     sync.Mutex
	portsGiven = map[int]bool{}
)

// WaitTCP waits until something accepts on addr, at most timeout.
func WaitTCP(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return errors.Join(fmt.Errorf("%s not accepting after %v", addr, timeout), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
