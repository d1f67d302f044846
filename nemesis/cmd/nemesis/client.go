package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/nemesis/api"
	"github.com/idemgen/idemgen/nemesis/check"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// clientOptions are the flags of "nemesis client": one client process of
// the open-loop workload, with its SQLite call journal and reconciler.
type clientOptions struct {
	name, url, journalPath, historyPath string
	seed                                uint64
	rate                                float64
	until                               time.Time
	grace, callTimeout                  time.Duration
}

func clientMain(args []string) error {
	var o clientOptions
	var untilMS int64
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	fs.StringVar(&o.name, "name", "c1", "the client's name (its tenant)")
	fs.StringVar(&o.url, "url", "", "the balancer's URL (through its toxiproxy)")
	fs.StringVar(&o.journalPath, "journal", "", "the SQLite call journal")
	fs.StringVar(&o.historyPath, "history", "", "the history file (JSON lines, appended)")
	fs.Uint64Var(&o.seed, "seed", 1, "the workload's random seed")
	fs.Float64Var(&o.rate, "rate", 10, "intents per second (open loop)")
	fs.Int64Var(&untilMS, "until", 0, "when the workload stops, Unix milliseconds")
	fs.DurationVar(&o.grace, "grace", 8*time.Second, "the reconciler's grace")
	fs.DurationVar(&o.callTimeout, "call-timeout", 10*time.Second, "each call's total deadline")
	fs.Parse(args)
	o.until = time.UnixMilli(untilMS)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	j, err := sqlitestore.OpenJournal(ctx, o.journalPath, sqlitestore.WithSynchronous("NORMAL"))
	if err != nil {
		return err
	}
	defer j.Close()
	h, err := check.OpenHistoryWriter(o.historyPath)
	if err != nil {
		return err
	}
	defer h.Close()
	c, err := api.NewClient(o.url, idemrt.WithJournal(j), api.WithBearerAuth(o.name), idemrt.WithTimeout(o.callTimeout))
	if err != nil {
		return err
	}
	rec := &journal.Reconciler{Journal: j, Client: c, Grace: o.grace, Interval: time.Second, Lease: 2 * time.Second,
		OnResolved: func(e journal.Entry, out journal.Outcome) {
			h.Write(check.Record{Type: check.RecSettled, Client: o.name, Op: e.Operation, Ref: e.Key, Kind: out.Kind.String(), Why: out.Why})
		}}
	recCtx, stopRec := context.WithCancel(ctx)
	go rec.Run(recCtx)
	w := &workload{o: o, c: c, h: h, rng: rand.New(rand.NewPCG(o.seed, 0x776f726b))}
	w.run(ctx)
	stopRec()
	return reconcileUntilQuiet(ctx, rec, j, 60*time.Second)
}

// reconcileUntilQuiet runs reconciler passes until the journal holds no
// unresolved entry, or the bound passes.
func reconcileUntilQuiet(ctx context.Context, rec *journal.Reconciler, j *journal.SQL, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for {
		rec.Pass(ctx)
		counts, err := j.Counts(ctx)
		if err == nil && counts[journal.StateUnresolved] == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("client: %d journal entries still unresolved after %v", counts[journal.StateUnresolved], bound)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// workload issues intents at a fixed rate until o.until, whatever the
// answers (open loop), each in its own goroutine.
type workload struct {
	o   clientOptions
	c   *api.Client
	h   *check.HistoryWriter
	mu  sync.Mutex
	rng *rand.Rand
	// orders are the ids of the orders this process saw created.
	orders []string
}

func (w *workload) run(ctx context.Context) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / w.o.rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	for time.Now().Before(w.o.until) && ctx.Err() == nil {
		<-tick.C
		op, order := w.pick()
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.intent(ctx, op, order)
		}()
	}
	wg.Wait()
}

// pick draws the next intent: a create, or (once orders exist) an update
// or a refund of one of them.
func (w *workload) pick() (op, order string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.rng.Float64()
	if len(w.orders) == 0 || p < 0.5 {
		return "createOrder", ""
	}
	order = w.orders[w.rng.IntN(len(w.orders))]
	if p < 0.75 {
		return "updateOrder", order
	}
	return "createRefund", order
}

func (w *workload) intent(ctx context.Context, op, order string) {
	ref := uuid.NewString()
	if op == "updateOrder" {
		got, err := w.c.GetOrder(ctx, api.GetOrderParams{OrderID: order})
		if err != nil {
			return // a read, not an intent
		}
		w.h.Write(check.Record{Type: check.RecInvoke, Client: w.o.name, Op: op, Ref: ref, Order: order})
		start := time.Now()
		_, err = w.c.UpdateOrder(ctx, api.OrderUpdate{Reference: ref, Note: ref[:8]},
			api.UpdateOrderParams{IdempotencyKey: ref, OrderID: order, IfMatch: got.ETag})
		w.done(op, ref, start, "", err)
		return
	}
	w.h.Write(check.Record{Type: check.RecInvoke, Client: w.o.name, Op: op, Ref: ref, Order: order})
	start := time.Now()
	switch op {
	case "createOrder":
		res, err := w.c.CreateOrder(ctx, api.NewOrder{Reference: ref, Item: "book", AmountCents: 1250}, api.CreateOrderParams{IdempotencyKey: ref})
		id := ""
		if err == nil {
			id = res.Body.ID
			w.mu.Lock()
			w.orders = append(w.orders, id)
			w.mu.Unlock()
		}
		w.done(op, ref, start, id, err)
	case "createRefund":
		res, err := w.c.CreateRefund(ctx, api.NewRefund{OrderID: order, Reference: ref, AmountCents: 100})
		id := ""
		if err == nil {
			id = res.ID
		}
		w.done(op, ref, start, id, err)
	}
}

// done records how the call ended, as the client saw it.
func (w *workload) done(op, ref string, start time.Time, id string, err error) {
	r := check.Record{Type: check.RecOK, Client: w.o.name, Op: op, Ref: ref, ID: id, Micros: time.Since(start).Microseconds()}
	switch {
	case err == nil:
	case errors.Is(err, idemrt.ErrOutcomeUnknown):
		r.Type, r.Why = check.RecUnknown, err.Error()
	default:
		r.Type, r.Why = check.RecFailed, err.Error()
		var se *idemrt.StatusError
		if errors.As(err, &se) {
			r.Status = se.StatusCode
		}
	}
	w.h.Write(r)
}
