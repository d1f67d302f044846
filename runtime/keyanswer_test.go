package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// problemStep is a keyed operation's 409 or 422 as a problem document of
// the given type.
func problemStep(status int, typ string) step {
	return step{status: status, wrote: 1, header: http.Header{"Content-Type": {"application/problem+json"}},
		body: fmt.Sprintf(`{"type":%q,"title":"t","status":%d}`, typ, status)}
}

// TestKeyAnswerIsTheProblemType: after an earlier attempt (a shed 503), a
// keyed operation's 409 or 422 is read by the problem type the server
// sends: the idempotency layer's types keep their meaning, any other type is
// the operation's own answer, returned with its whole body; without a
// problem type the status decides, as before.
func TestKeyAnswerIsTheProblemType(t *testing.T) {
	const base = "https://idemgen.dev/problems/"
	rows := []struct {
		name   string
		second step
		rule   error
		retry  bool
	}{
		{"422 the handler's validation problem", problemStep(422, "https://api.example/problems/invalid-amount"), nil, false},
		{"409 the handler's conflict problem", problemStep(409, "https://api.example/problems/out-of-stock"), nil, false},
		{"422 key reused", problemStep(422, base+"idempotency-key-reused"), ErrKeyReuse, false},
		{"409 in progress", problemStep(409, base+"request-in-progress"), nil, true},
		{"422 without a problem type", answer(422), ErrKeyReuse, false},
		{"422 problem without a type", step{status: 422, wrote: 1, body: `{"title":"x"}`,
			header: http.Header{"Content-Type": {"application/problem+json"}}}, ErrKeyReuse, false},
		{"409 without a problem type", answer(409), nil, true},
	}
	for _, row := range rows {
		for _, key := range []string{"", "caller-key"} {
			t.Run(row.name+"/key="+key, func(t *testing.T) {
				d := &fakeDoer{script: []step{answer(503), row.second, ok200}}
				body, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, key)
				switch {
				case row.retry:
					if err != nil || body != "ok" || log[2].Reason != ReasonInProgress {
						t.Fatalf("want a retry as in progress: %v, %d attempts", err, len(log))
					}
				case row.rule != nil:
					if !errors.Is(err, row.rule) || d.count() != 2 {
						t.Fatalf("want %v after 2 sends: %v after %d", row.rule, err, d.count())
					}
				default:
					var se *StatusError
					if !errors.As(err, &se) || se.Reason != nil || d.count() != 2 || string(se.Body) != row.second.body {
						t.Fatalf("want the operation's own answer, body whole: %v after %d sends", err, d.count())
					}
				}
			})
		}
	}
}

// TestLoopbackShedThenValidationProblem: a real server sheds the first
// attempt (503, nothing executed), then the key's first execution answers
// the operation's own declared 422. The client returns that 422 with its
// body, not ErrKeyReuse, and the business action ran once.
func TestLoopbackShedThenValidationProblem(t *testing.T) {
	var hits, executions atomic.Int32
	const problem = `{"type":"https://api.example/problems/amount-too-large","title":"amount too large","status":422}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		executions.Add(1)
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(problem))
	}))
	t.Cleanup(srv.Close)
	r, _ := loopRunner(t, quickPolicy())
	_, err, log := post(t, r, &keyedOp, srv.URL, "")
	var se *StatusError
	if !errors.As(err, &se) || errors.Is(err, ErrKeyReuse) || se.StatusCode != 422 || !strings.Contains(string(se.Body), "amount-too-large") {
		t.Fatalf("want the handler's 422 with its body: %v", err)
	}
	if n := executions.Load(); n != 1 || len(log) != 2 {
		t.Fatalf("%d executions over %d attempts; want 1 over 2", n, len(log))
	}
}
