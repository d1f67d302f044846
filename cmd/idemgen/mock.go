package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/mock"
)

type mockFlags struct {
	addr    string
	dynamic bool
	seed    uint64
	ledger  string
	faults  []string
	proxy   string
	maxBody int64
	readMax time.Duration
	quiet   bool
	overlay []string
	// stateful and stateLimit: --stateful, --state-limit.
	stateful   bool
	stateLimit int
}

func newMockCmd() *cobra.Command {
	var flags mockFlags
	cmd := &cobra.Command{
		Use:   "mock SPEC",
		Short: "Serve a validating, fault-injecting mock of an OpenAPI document",
		Long: `mock serves every operation of SPEC. It validates each request (path, query, headers,
cookies, body, content type, presence of credentials) and answers 400/401/415 with an
RFC 9457 problem naming the parameter and JSON pointer; it answers from the examples
(Prefer: example=NAME, Prefer: code=NNN) or from values built from the response schemas.
Keyed operations go through the idempotency ledger: a repeated key replays, another
payload gets 422, a concurrent twin 409. If-Match is checked (412 on a stale ETag).

Faults, by --fault or per request with the X-Idemgen-Fault header (comma-separated):
  drop-after-commit        execute, store, then close the connection instead of answering
  reset-before-body        reset the connection before reading the request
  503:0.3                  answer 503 with probability 0.3 (seeded), without executing
  retry-after=1            add Retry-After (seconds or an HTTP-date)
  latency=50ms             wait before handling
  slow-body=16/10ms        send the body 16 bytes every 10ms
  cut-stream=2             cut a text/event-stream answer after 2 events
each optionally followed by *N (first N requests) and @operationId.

With --stateful, a POST on a collection (/orders) stores the resource it creates, and
GET, PATCH, PUT and DELETE on its item path (/orders/{id}) and GET on the collection
read, update, delete and list (paged as the document says) what was stored; a missing
one is 404. What has no resource is listed at start-up and answered as without
--stateful. --state-limit bounds the resources (507 past it); POST /__idemgen/reset
empties the store.

GET /__idemgen/stats gives executions per operation and per key (DELETE resets them).
One line per request is logged on stderr. See docs/mock.md.`,
		Example: `  idemgen mock testdata/specs/orders.yaml
  idemgen mock --fault 'drop-after-commit*1@createPayment' --fault '503:0.3' api.yaml
  idemgen mock --proxy https://staging.example.com api.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMock(cmd.Context(), args[0], flags, cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.addr, "addr", "127.0.0.1:4010", "address to listen on")
	f.BoolVar(&flags.dynamic, "dynamic", false, "random values (from --seed) instead of the static ones")
	f.Uint64Var(&flags.seed, "seed", 1, "seed of dynamic values and storm probabilities")
	f.StringVar(&flags.ledger, "ledger", "", "SQLite file of the idempotency ledger (default: a temporary one)")
	f.StringArrayVar(&flags.faults, "fault", nil, "fault to inject (repeatable; see above)")
	f.StringVar(&flags.proxy, "proxy", "", "forward to this server, validating requests and responses")
	f.Int64Var(&flags.maxBody, "max-body", 1<<20, "largest request body accepted, in bytes")
	f.DurationVar(&flags.readMax, "read-timeout", 30*time.Second, "longest time to read one request, headers and body")
	f.BoolVar(&flags.quiet, "quiet", false, "do not log each request")
	f.BoolVar(&flags.stateful, "stateful", false, "keep the resources operations create, read, update, list and delete")
	f.IntVar(&flags.stateLimit, "state-limit", mock.DefaultStateLimit, "most resources --stateful keeps; past it a create is answered 507")
	addOverlayFlag(cmd, &flags.overlay)
	return cmd
}

// httpServer serves h with every read bounded: a client that sends its
// body slowly is cut at readMax, so it cannot hold a connection and its
// goroutine forever.
func httpServer(h http.Handler, readMax time.Duration) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: min(10*time.Second, readMax), ReadTimeout: readMax,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 1 << 20}
}

// mockOptions checks the flags and turns them into the mock's options.
func mockOptions(flags mockFlags) (mock.Options, error) {
	opts := mock.Options{Dynamic: flags.dynamic, Seed: flags.seed, Ledger: flags.ledger, MaxBody: flags.maxBody,
		Overlays: flags.overlay, Stateful: flags.stateful, StateLimit: flags.stateLimit}
	if flags.stateLimit <= 0 {
		return opts, usageErrorf("--state-limit must be positive, not %d", flags.stateLimit)
	}
	if flags.stateful && flags.proxy != "" {
		return opts, usageErrorf("--stateful and --proxy exclude each other: a proxy keeps no resources")
	}
	for _, s := range flags.faults {
		fs, err := mock.ParseFaults(s)
		if err != nil {
			return opts, usageErrorf("--fault: %v", err)
		}
		opts.Faults = append(opts.Faults, fs...)
	}
	if flags.readMax <= 0 {
		return opts, usageErrorf("--read-timeout must be positive, not %v", flags.readMax)
	}
	if flags.proxy != "" {
		u, err := url.Parse(flags.proxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return opts, usageErrorf("--proxy must be an http(s) URL, not %q", flags.proxy)
		}
		opts.Proxy = u
	}
	return opts, nil
}

func runMock(ctx context.Context, spec string, flags mockFlags, cmd *cobra.Command) error {
	opts, err := mockOptions(flags)
	if err != nil {
		return err
	}
	if !flags.quiet {
		opts.Log = cmd.ErrOrStderr()
	}
	start := time.Now()
	srv, err := mock.New(spec, opts)
	if err != nil {
		return problemf("%v", err)
	}
	defer srv.Close()
	for _, w := range srv.Warnings() {
		fmt.Fprintln(cmd.ErrOrStderr(), w)
	}
	printState(cmd.ErrOrStderr(), srv)
	ln, err := net.Listen("tcp", flags.addr)
	if err != nil {
		return problemf("listen: %v", err)
	}
	mode := "mocking"
	if opts.Proxy != nil {
		mode = "proxying to " + opts.Proxy.String() + " and validating"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "idemgen mock: %s %d operations of %s on http://%s (ready in %v)\n",
		mode, srv.Operations(), spec, ln.Addr(), time.Since(start).Round(time.Millisecond))
	hs := httpServer(srv, flags.readMax)
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return problemf("serve: %v", err)
		}
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}
	return nil
}

// printState lists, for --stateful, each resource found and each operation
// left stateless with the reason, one line each.
func printState(w io.Writer, srv *mock.Server) {
	for _, r := range srv.Resources() {
		fmt.Fprintf(w, "stateful: %s and %s, id %q: %s\n", r.Collection, r.Item, r.ID, strings.Join(r.Operations, ", "))
	}
	for _, op := range srv.Stateless() {
		fmt.Fprintf(w, "stateless: %s (%s %s): %s\n", op.Operation, op.Method, op.Path, op.Why)
	}
}
