package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
)

type ctxMark struct{}

// callRecorder is a CallObserver that marks the call's context and records
// what each hook saw.
type callRecorder struct {
	starts   int
	ends     []Outcome
	attempts []int // records passed to EndCall
	endErr   error
	marked   []bool // per ObserveAttempt: the mark was in ctx
}

func (r *callRecorder) StartCall(ctx context.Context, op *Operation, req *Request) context.Context {
	r.starts++
	return context.WithValue(ctx, ctxMark{}, op.ID)
}

func (r *callRecorder) ObserveAttempt(ctx context.Context, a Attempt) {
	r.marked = append(r.marked, ctx.Value(ctxMark{}) == a.Operation)
}

func (r *callRecorder) EndCall(ctx context.Context, out Outcome, recs []Attempt, err error) {
	r.ends, r.attempts, r.endErr = append(r.ends, out), append(r.attempts, len(recs)), err
}

// TestCallObserver: StartCall's context reaches the editors and every
// ObserveAttempt; EndCall runs once per call with the outcome and records,
// also when the last attempt was never sent.
func TestCallObserver(t *testing.T) {
	rec := &callRecorder{}
	var editorSaw []any
	fail := errors.New("no credentials")
	failOn := 0
	d := &fakeDoer{script: []step{answer(503), ok200, answer(503)}}
	r := newTestRunner(d, newFakeClock(), WithObserver(rec),
		WithRequestEditor(func(ctx context.Context, _ *http.Request) error {
			editorSaw = append(editorSaw, ctx.Value(ctxMark{}))
			if len(editorSaw) == failOn {
				return fail
			}
			return nil
		}))
	if _, err, _ := doCall(t, r, &keyedOp, "k-1"); err != nil {
		t.Fatal(err)
	}
	if rec.starts != 1 || len(rec.ends) != 1 || rec.ends[0] != OutcomeSuccess || rec.attempts[0] != 2 || rec.endErr != nil {
		t.Fatalf("after a 503 and a 200: %+v", rec)
	}
	if len(editorSaw) != 2 || editorSaw[0] != keyedOp.ID || editorSaw[1] != keyedOp.ID || len(rec.marked) != 2 || !rec.marked[0] || !rec.marked[1] {
		t.Fatalf("editors saw %v, observers %v", editorSaw, rec.marked)
	}
	// A 503, then an editor refuses the retry: the call still ends once.
	failOn = len(editorSaw) + 2
	_, err, _ := doCall(t, r, &keyedOp, "k-2")
	if !errors.Is(err, fail) || rec.starts != 2 || len(rec.ends) != 2 || rec.attempts[1] != 1 || !errors.Is(rec.endErr, fail) {
		t.Fatalf("editor failure: err %v, %+v", err, rec)
	}
}

// TestCallObserverEndsAfterTheDecode: a call that returns a response ends
// for the CallObservers when the caller is done with its body: a body that
// does not decode ends it with the error the caller gets (ErrDecode) and
// the outcome rejected, recorded on the final attempt too; a body decoded,
// read to its end or closed ends it as a success, once.
func TestCallObserverEndsAfterTheDecode(t *testing.T) {
	rec := &callRecorder{}
	d := &fakeDoer{script: []step{{status: 201, body: "{not json", wrote: 1}, {status: 200, body: `{"a":1}`, wrote: 1},
		{status: 200, body: "text", wrote: 1}, {status: 200, body: "text", wrote: 1}}}
	r := newTestRunner(d, newFakeClock(), WithObserver(rec))
	do := func() *http.Response {
		resp, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := do()
	if len(rec.ends) != 0 {
		t.Fatalf("the call ended before its body was decoded: %+v", rec)
	}
	var v map[string]any
	err := DecodeJSON(resp, &v)
	recs := AttemptsOf(err)
	if !errors.Is(err, ErrDecode) || len(rec.ends) != 1 || rec.ends[0] != OutcomeRejected || rec.endErr != err ||
		len(recs) != 1 || recs[0].Outcome != OutcomeRejected {
		t.Fatalf("undecodable: err %v, records %+v, observer %+v", err, recs, rec)
	}
	resp.Body.Close()
	if err := DecodeJSON(do(), &v); err != nil || len(rec.ends) != 2 || rec.ends[1] != OutcomeSuccess || rec.endErr != nil {
		t.Fatalf("decoded: err %v, observer %+v", err, rec)
	}
	resp = do()
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(rec.ends) != 3 || rec.ends[2] != OutcomeSuccess {
		t.Fatalf("read and closed: observer %+v", rec)
	}
	resp = do()
	resp.Body.Close()
	if len(rec.ends) != 4 || rec.ends[3] != OutcomeSuccess {
		t.Fatalf("closed unread: observer %+v", rec)
	}
}
