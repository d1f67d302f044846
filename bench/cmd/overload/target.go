package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// target is the server a run's fleet calls: in this process, or in a
// child process of its own under -split.
type target struct {
	url   string
	start time.Time
	// finish stops the server and returns what it counted and, for a
	// child process, the CPU time it used (in this process the fleet's
	// count includes the server's).
	finish func() (*counted, time.Duration, error)
	// close releases the server if finish was not reached.
	close func()
}

// start starts the run's server.
func start(cfg config, horizon time.Duration) (*target, error) {
	if cfg.split {
		return startChild(cfg)
	}
	srv, c, url, err := startServer(cfg, horizon)
	if err != nil {
		return nil, err
	}
	stop := func() { _ = srv.Close() }
	return &target{url: url, start: c.start, close: stop,
		finish: func() (*counted, time.Duration, error) { stop(); return c, 0, nil }}, nil
}

// report is what a child server tells its parent at the end of a run.
type report struct {
	Served, Shed, Hinted, Busy, BusyInWindow int64
	Arrivals                                 []int64
	CPU                                      time.Duration
}

// startChild runs this program with -serve as the run's server. The child
// prints its URL; the parent answers with the run's start (both read the
// same clock), which the child acknowledges; the parent closes the child's stdin when the fleet is done, upon
// which the child prints its report and exits.
func startChild(cfg config) (*target, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-serve", "-slots", strconv.Itoa(cfg.slots), "-service", cfg.service.String(),
		"-duration", cfg.duration.String(), "-queue", strconv.Itoa(cfg.queue))
	if cfg.cpuprofile != "" {
		cmd.Args = append(cmd.Args, "-cpuprofile", cfg.cpuprofile+".server")
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	kill := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	out := bufio.NewReader(outPipe)
	url, err := out.ReadString('\n')
	if err != nil {
		kill()
		return nil, fmt.Errorf("server process: %w", err)
	}
	begin := time.Now()
	if _, err := fmt.Fprintf(in, "%d\n", begin.UnixNano()); err != nil {
		kill()
		return nil, err
	}
	// The child has set the run's start before any request reaches it.
	if ack, err := out.ReadString('\n'); err != nil || ack != "ok\n" {
		kill()
		return nil, fmt.Errorf("server process: no acknowledgement of the start (%q, %v)", ack, err)
	}
	finish := func() (*counted, time.Duration, error) {
		_ = in.Close()
		var r report
		err := json.NewDecoder(out).Decode(&r)
		if werr := cmd.Wait(); err == nil {
			err = werr
		}
		return r.counted(), r.CPU, err
	}
	return &target{url: strings.TrimSpace(url), start: begin, finish: finish, close: kill}, nil
}

// counted turns a child's report back into the counts summarize reads.
func (r report) counted() *counted {
	c := &counted{arrivals: make([]atomic.Int64, len(r.Arrivals))}
	c.served.Store(r.Served)
	c.shed.Store(r.Shed)
	c.hinted.Store(r.Hinted)
	c.busy.Store(r.Busy)
	c.busyInWindow.Store(r.BusyInWindow)
	for i, n := range r.Arrivals {
		c.arrivals[i].Store(n)
	}
	return c
}

// serveChild is the -serve side of startChild.
func serveChild(cfg config, stdin io.Reader, stdout io.Writer) error {
	horizon := cfg.duration + 11*time.Second
	srv, c, url, err := startServer(cfg, horizon)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintln(stdout, url)
	in := bufio.NewReader(stdin)
	line, err := in.ReadString('\n')
	if err != nil {
		return err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	if err != nil {
		return err
	}
	// No request has arrived yet: the parent starts its fleet after this.
	c.start = time.Unix(0, ns)
	c.until = c.start.Add(cfg.duration)
	fmt.Fprintln(stdout, "ok")
	cpu0 := cpuTime()
	_, _ = io.Copy(io.Discard, in)
	_ = srv.Close()
	r := report{Served: c.served.Load(), Shed: c.shed.Load(), Hinted: c.hinted.Load(), Busy: c.busy.Load(),
		BusyInWindow: c.busyInWindow.Load(), CPU: cpuTime() - cpu0}
	for i := range c.arrivals {
		r.Arrivals = append(r.Arrivals, c.arrivals[i].Load())
	}
	return json.NewEncoder(stdout).Encode(r)
}
