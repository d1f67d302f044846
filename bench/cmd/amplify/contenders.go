package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/idemgen/idemgen/bench/clients/idemgen"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// caller makes logical call n (one GET of an order) and reports whether it
// succeeded.
type caller func(ctx context.Context, n int) error

// contender builds a caller against base for delays scaled down by scale.
type contender struct {
	name  string
	build func(base string, hc *http.Client, sc scaling) caller
}

// contenders are the three retry strategies the table compares.
var contenders = []contender{
	{"idemgen", func(base string, hc *http.Client, sc scaling) caller {
		return newIdemgen(base, hc, sc, idemrt.DefaultBudget(idemrt.Interactive))
	}},
	// The same without its retry budget and throttle: what the attempt cap
	// alone does.
	{"idemgen, attempt cap only", func(base string, hc *http.Client, sc scaling) caller {
		return newIdemgen(base, hc, sc, idemrt.Budget{Unlimited: true}, idemrt.WithoutAdaptiveThrottle())
	}},
	// A fleet: the same calls spread over 100 clients (processes), each with
	// its own budget, as when many instances of a service see one outage.
	// They share the process's adaptive throttle of the host (on by
	// default); the next row turns it off: the budgets alone.
	{"idemgen, 100 clients", func(base string, hc *http.Client, sc scaling) caller {
		return newFleet(base, hc, sc)
	}},
	{"idemgen, 100 clients, throttle off", func(base string, hc *http.Client, sc scaling) caller {
		return newFleet(base, hc, sc, idemrt.WithoutAdaptiveThrottle())
	}},
	{"go-retryablehttp", newRetryablehttp},
	{"nested 3x3x3", newNested},
}

// fleetSize is the number of clients of the fleet row.
const fleetSize = 100

// newFleet is fleetSize idemgen clients with the default budget each; call
// n goes to client n mod fleetSize.
func newFleet(base string, hc *http.Client, sc scaling, opts ...idemrt.Option) caller {
	fleet := make([]caller, fleetSize)
	for i := range fleet {
		fleet[i] = newIdemgen(base, hc, sc, idemrt.DefaultBudget(idemrt.Interactive), opts...)
	}
	return func(ctx context.Context, n int) error { return fleet[n%fleetSize](ctx, n) }
}

// withRefill is idemgen with the default budget but refill per healthy
// answer.
func withRefill(refill float64) contender {
	return contender{fmt.Sprintf("idemgen, refill %g", refill), func(base string, hc *http.Client, sc scaling) caller {
		b := idemrt.DefaultBudget(idemrt.Interactive)
		b.SuccessRefill = refill
		return newIdemgen(base, hc, sc, b)
	}}
}

// scaling is how a contender's delays shrink: every delay is divided by
// delays; the adaptive throttle's window too, unless window is set (a test
// keeps it whole so that its short run falls inside one window whatever the
// machine's load).
type scaling struct {
	delays float64
	window time.Duration
}

// of divides d by s.delays.
func (s scaling) of(d time.Duration) time.Duration { return scaled(d, s.delays) }

// throttleWindow is the window the idemgen contenders' throttle uses.
func (s scaling) throttleWindow() time.Duration {
	if s.window > 0 {
		return s.window
	}
	return s.of(idemrt.DefaultThrottleWindow)
}

// scaled divides d by scale: every contender's delays shrink by the same
// factor, so the run is fast and the ratios are those of the real defaults.
func scaled(d time.Duration, scale float64) time.Duration {
	return time.Duration(float64(d) / scale)
}

// newIdemgen is the client idemgen generates from bench/spec/api.yaml, with
// the interactive default policy (delays scaled), budget b, and the
// adaptive throttle's default window scaled like the delays.
func newIdemgen(base string, hc *http.Client, sc scaling, b idemrt.Budget, opts ...idemrt.Option) caller {
	p := idemrt.DefaultPolicy(idemrt.Interactive)
	p.BaseDelay, p.MaxDelay = sc.of(p.BaseDelay), sc.of(p.MaxDelay)
	p.Timeout, p.MinAttempt = sc.of(p.Timeout), sc.of(p.MinAttempt)
	p.MaxRetryAfter = sc.of(p.MaxRetryAfter)
	opts0 := []idemrt.Option{idemrt.WithHTTPClient(hc), idemrt.WithPolicy(idemrt.Interactive, p),
		idemrt.WithBudget(idemrt.Interactive, b),
		idemrt.WithAdaptiveThrottleWindow(sc.throttleWindow())}
	c, err := idemgen.NewClient(base, append(opts0, opts...)...)
	if err != nil {
		// base comes from httptest: an error here is a bug in the harness.
		panic(err)
	}
	params := idemgen.GetOrderParams{OrderID: "ord_7f3a9c"}
	return func(ctx context.Context, n int) error {
		_, err := c.GetOrder(ctx, params, idemrt.WithHeader(callHeader, strconv.Itoa(n)))
		return err
	}
}

// newRetryablehttp is go-retryablehttp's NewClient with its defaults (4
// retries, 1s..30s exponential backoff without jitter, retry on
// connection errors and 5xx but 501), waits scaled. Its logger is silenced
// and it shares the others' transport.
func newRetryablehttp(base string, hc *http.Client, sc scaling) caller {
	c := retryablehttp.NewClient()
	c.Logger = nil
	c.HTTPClient = hc
	c.RetryWaitMin, c.RetryWaitMax = sc.of(c.RetryWaitMin), sc.of(c.RetryWaitMax)
	return func(ctx context.Context, n int) error {
		req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, base+"/orders/ord_7f3a9c", nil)
		if err != nil {
			return err
		}
		req.Header.Set(callHeader, strconv.Itoa(n))
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		return drain(resp)
	}
}

// newNested is what the design forbids: an SDK, a service and a job
// runner, each retrying 3 times with its own 100ms-doubling backoff (delays
// scaled) around a plain http.Client: up to 27 sends per logical call.
func newNested(base string, hc *http.Client, sc scaling) caller {
	send := func(ctx context.Context, n int) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/orders/ord_7f3a9c", nil)
		if err != nil {
			return err
		}
		req.Header.Set(callHeader, strconv.Itoa(n))
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode >= 500 {
			_ = drain(resp)
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return drain(resp)
	}
	delay := sc.of(100 * time.Millisecond)
	return retry3(retry3(retry3(send, delay), delay), delay)
}

// retry3 wraps c in a loop of 3 attempts with doubling waits, stopping
// early when the context ends: a typical hand-written retry layer.
func retry3(c caller, delay time.Duration) caller {
	return func(ctx context.Context, n int) error {
		var err error
		for i := range 3 {
			if err = c(ctx, n); err == nil || ctx.Err() != nil {
				return err
			}
			if i < 2 {
				if werr := sleep(ctx, delay<<i); werr != nil {
					return err
				}
			}
		}
		return err
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drain reads and closes a response body so the connection is reused, and
// fails for statuses that are not a success.
func drain(resp *http.Response) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}
