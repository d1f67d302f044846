package runtime

import (
	"errors"
	"net/http"
	"testing"
)

// TestDecisionTable runs every row of DESIGN.md section 4 for the three
// safety levels through the engine: the first attempt plays the row's
// outcome, any retry gets 200. The caller supplies the key, so a keyed
// operation's 409 and 422 may be the idempotency layer speaking (a key the
// engine made is TestFreshKeyConflictIsTheAnswer's case).
func TestDecisionTable(t *testing.T) {
	noTrace := step{err: errNoDoc, noTrace: true}
	rows := []struct {
		name  string
		first step
		// per safety level: Unsafe, Idempotent, Keyed. rule nil and retry
		// false means the status is handed back as a plain StatusError.
		retry [3]bool
		rule  [3]error
	}{
		{"never written (refused)", refused, [3]bool{true, true, true}, [3]error{}},
		{"written then reset", reset, [3]bool{false, true, true}, [3]error{ErrOutcomeUnknown, nil, nil}},
		{"doer without trace info", noTrace, [3]bool{false, true, true}, [3]error{ErrOutcomeUnknown, nil, nil}},
		{"401", answer(401), [3]bool{}, [3]error{ErrUnauthorized, ErrUnauthorized, ErrUnauthorized}},
		{"403", answer(403), [3]bool{}, [3]error{ErrUnauthorized, ErrUnauthorized, ErrUnauthorized}},
		{"407", answer(407), [3]bool{}, [3]error{ErrUnauthorized, ErrUnauthorized, ErrUnauthorized}},
		{"412", answer(412), [3]bool{}, [3]error{ErrPreconditionFailed, ErrPreconditionFailed, ErrPreconditionFailed}},
		{"409", answer(409), [3]bool{false, false, true}, [3]error{}},
		{"422", answer(422), [3]bool{}, [3]error{nil, nil, ErrKeyReuse}},
		{"retryable 503", answer(503), [3]bool{false, true, true}, [3]error{}},
		{"retryable 429", answer(429), [3]bool{true, true, true}, [3]error{}},
		{"retryable 408", answer(408), [3]bool{false, true, true}, [3]error{}},
		{"not retryable 500", answer(500), [3]bool{}, [3]error{}},
		{"404", answer(404), [3]bool{}, [3]error{}},
		{"success", ok200, [3]bool{}, [3]error{}},
	}
	ops := [3]*Operation{&unsafeOp, &idempotentOp, &keyedOp}
	for _, row := range rows {
		for i, op := range ops {
			t.Run(row.name+"/"+op.Safety.String(), func(t *testing.T) {
				d := &fakeDoer{script: []step{row.first, ok200}}
				body, err, log := doCall(t, newTestRunner(d, newFakeClock()), op, "caller-key")
				checkRow(t, row.first, row.retry[i], row.rule[i], body, err, log)
			})
		}
	}
}

// checkRow asserts one cell of the decision table.
func checkRow(t *testing.T, first step, retry bool, rule error, body string, err error, log []Attempt) {
	t.Helper()
	switch {
	case retry:
		if err != nil || body != "ok" || len(log) != 2 {
			t.Fatalf("want a retry then success, got body %q err %v, %d attempts", body, err, len(log))
		}
	case first.err == nil && first.status < 400:
		if err != nil || len(log) != 1 || log[0].Outcome != OutcomeSuccess {
			t.Fatalf("want the success handed back, got err %v, %d attempts", err, len(log))
		}
	case rule != nil:
		if !errors.Is(err, rule) || len(log) != 1 {
			t.Fatalf("want %v after one attempt, got %v after %d", rule, err, len(log))
		}
	default:
		var se *StatusError
		if !errors.As(err, &se) || se.Reason != nil || se.StatusCode != first.status || len(log) != 1 {
			t.Fatalf("want plain status %d after one attempt, got %v after %d", first.status, err, len(log))
		}
		if string(se.Body) != http.StatusText(first.status) {
			t.Fatalf("StatusError body %q", se.Body)
		}
	}
	if !log[len(log)-1].Final {
		t.Fatal("last record not final")
	}
}

// TestNeverRetriedEvenWhenListed: a spec cannot make auth failures or 412
// retryable; the rules come first.
func TestNeverRetriedEvenWhenListed(t *testing.T) {
	op := idempotentOp
	op.Retryable = StatusSet{Codes: []int{401, 403, 407, 412}, Classes: []int{4}}
	for _, code := range []int{401, 403, 407, 412} {
		d := &fakeDoer{script: []step{answer(code), ok200}}
		_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &op, "")
		if err == nil || len(log) != 1 {
			t.Fatalf("%d: retried (%d attempts, err %v)", code, len(log), err)
		}
	}
}

// TestOutcomes: the final record says success, rejected or unknown.
func TestOutcomes(t *testing.T) {
	cases := []struct {
		op     *Operation
		script []step
		want   Outcome
	}{
		{&unsafeOp, []step{ok200}, OutcomeSuccess},
		{&unsafeOp, []step{answer(404)}, OutcomeRejected},
		{&unsafeOp, []step{reset}, OutcomeUnknown},
		{&unsafeOp, []step{answer(504)}, OutcomeUnknown},
		{&idempotentOp, []step{refused}, OutcomeNotSent},
		{&idempotentOp, []step{answer(503), refused}, OutcomeRejected},
		{&idempotentOp, []step{reset, refused}, OutcomeUnknown},
		{&keyedOp, []step{answer(503), answer(409)}, OutcomeUnknown},
		{&keyedOp, []step{reset, answer(503)}, OutcomeUnknown},
		{&keyedOp, []step{reset, answer(404)}, OutcomeRejected},
	}
	for i, c := range cases {
		d := &fakeDoer{script: c.script}
		_, _, log := doCall(t, newTestRunner(d, newFakeClock()), c.op, "")
		if got := log[len(log)-1].Outcome; got != c.want {
			t.Errorf("case %d: outcome %v, want %v (%d attempts)", i, got, c.want, len(log))
		}
	}
}

// TestReplayedConflictIsFinal: a keyed operation's 409 or 422 that the server
// marks as the stored answer of the key's first execution is that business
// answer: returned after one attempt, not retried as "in progress" nor
// reported as a reused key.
func TestReplayedConflictIsFinal(t *testing.T) {
	for _, status := range []int{409, 422} {
		replayed := step{status: status, body: `{"code":"business"}`, wrote: 1, header: http.Header{ReplayedHeader: {"true"}}}
		d := &fakeDoer{script: []step{replayed, ok200}}
		_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, "k-1")
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != status || se.Reason != nil || d.count() != 1 || len(log) != 1 {
			t.Fatalf("%d: err %v after %d sends; want the stored answer, final, after one", status, err, d.count())
		}
		if errors.Is(err, ErrInProgress) || errors.Is(err, ErrKeyReuse) {
			t.Fatalf("%d: a replayed business answer read as %v", status, err)
		}
	}
}

// TestFreshKeyConflictIsTheAnswer: with a key the engine made, the first
// send's 409 and 422 cannot be "in progress" or "key reused" (nobody sent
// the key before): they are returned at once as plain status errors. With
// the caller's key, or after an earlier attempt, the idempotency reading
// holds.
func TestFreshKeyConflictIsTheAnswer(t *testing.T) {
	for _, status := range []int{409, 422} {
		d := &fakeDoer{script: []step{answer(status), ok200}}
		_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, "")
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != status || se.Reason != nil || d.count() != 1 || len(log) != 1 ||
			log[0].Outcome != OutcomeRejected || se.Key == "" {
			t.Fatalf("fresh %d: %v after %d sends", status, err, d.count())
		}
	}
	d := &fakeDoer{script: []step{answer(503), answer(422)}}
	if _, err, _ := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, ""); !errors.Is(err, ErrKeyReuse) {
		t.Fatalf("422 after an earlier attempt: %v", err)
	}
	d = &fakeDoer{script: []step{answer(503), answer(409), ok200}}
	if _, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, ""); err != nil || log[2].Reason != ReasonInProgress {
		t.Fatalf("409 after an earlier attempt: %v, records %+v", err, log)
	}
}
