package main

import (
	"context"
	"net"
	"net/http"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	idemsrv "github.com/idemgen/idemgen/server"
)

// slow answers GetHealth after a fixed time, and adds up how long its
// calls took in fact (a loaded machine oversleeps). The embedded Handler is
// nil: the fleet calls GetHealth only, so no other method is ever reached.
type slow struct {
	orders.Handler
	service time.Duration
	c       *counted
}

func (s slow) GetHealth(context.Context) (*orders.GetHealthResponse, error) {
	start := time.Now()
	time.Sleep(s.service)
	end := time.Now()
	s.c.busy.Add(int64(end.Sub(start)))
	if end.Before(s.c.until) {
		s.c.busyInWindow.Add(int64(end.Sub(start)))
	}
	return &orders.GetHealthResponse{Status: "ok"}, nil
}

// counted wraps the generated server and counts what it answered: served
// (any status but 503), shed (503) and shed with a Retry-After header, and
// the arrivals of every 100 ms since start, to see whether they bunch.
type counted struct {
	h                    http.Handler
	start                time.Time
	served, shed, hinted atomic.Int64
	// busy is the handler's time, summed over requests; busyInWindow that
	// of the requests that ended before until (the end of the load window).
	busy, busyInWindow atomic.Int64
	until              time.Time
	arrivals           []atomic.Int64
}

// bucket is the width of one arrival count.
const bucket = 100 * time.Millisecond

func (c *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if i := int(time.Since(c.start) / bucket); i < len(c.arrivals) {
		c.arrivals[i].Add(1)
	}
	c.h.ServeHTTP(w, r)
}

// tally is wired as the response's last look: see watch.
func (c *counted) tally(status int, h http.Header) {
	if status != http.StatusServiceUnavailable {
		c.served.Add(1)
		return
	}
	c.shed.Add(1)
	if h.Get("Retry-After") != "" {
		c.hinted.Add(1)
	}
}

// watch records the status a handler writes.
type watch struct {
	http.ResponseWriter
	c    *counted
	done bool
}

func (w *watch) WriteHeader(code int) {
	if !w.done {
		w.done = true
		w.c.tally(code, w.Header())
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *watch) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// startServer serves golden/orders with the shedder in front of slow on a
// loopback port; horizon is how long arrivals are counted for.
func startServer(cfg config, horizon time.Duration) (*http.Server, *counted, string, error) {
	start := time.Now()
	c := &counted{start: start, until: start.Add(cfg.duration), arrivals: make([]atomic.Int64, horizon/bucket+1)}
	opts := []idemsrv.Option{idemsrv.WithMaxInFlight(cfg.slots), idemsrv.WithoutLedger()}
	if cfg.queue >= 0 {
		opts = append(opts, idemsrv.WithMaxQueued(cfg.queue))
	}
	gen, err := orders.NewServer(slow{service: cfg.service, c: c}, opts...)
	if err != nil {
		return nil, nil, "", err
	}
	c.h = gen
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, "", err
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c.ServeHTTP(&watch{ResponseWriter: w, c: c}, r)
		}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	// The label sorts the server's CPU from the fleet's in -cpuprofile
	// (go tool pprof -tagfocus side=server): its connections' goroutines
	// inherit it.
	go pprof.Do(context.Background(), pprof.Labels("side", "server"), func(context.Context) { _ = srv.Serve(ln) })
	return srv, c, "http://" + ln.Addr().String(), nil
}
