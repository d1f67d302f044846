package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestOutcomeUnknownSaysWhatToDo: an unknown outcome's message tells the
// caller what the operation's safety allows: a keyed one is resent with
// the same key to learn the outcome, an idempotent one may be resent, an
// unsafe one is reconciled first; as a *CallError (every send lost) and as
// a *StatusError (a lost send, then 503s), always matching
// ErrOutcomeUnknown. The sentinel itself claims nothing about resending.
func TestOutcomeUnknownSaysWhatToDo(t *testing.T) {
	if msg := ErrOutcomeUnknown.Error(); strings.Contains(msg, "safe") || strings.Contains(msg, "resend") {
		t.Fatalf("the sentinel's text depends on the operation: %q", msg)
	}
	cases := []struct {
		op        *Operation
		want, not []string
	}{
		{&keyedOp, []string{"resend it with the same idempotency key (KeyOf) to learn the outcome, never with a new key"}, []string{"not safe"}},
		{&idempotentOp, []string{"the operation is idempotent: it is safe to resend"}, []string{"not safe", "same idempotency key"}},
		{&unsafeOp, []string{"not safe to resend", "reconcile"}, []string{"same idempotency key", "it is safe"}},
	}
	for _, tc := range cases {
		for _, script := range [][]step{{reset}, {reset, answer(503)}} {
			r := newTestRunner(&fakeDoer{script: script}, newFakeClock())
			_, err, _ := doCall(t, r, tc.op, "k-1")
			var se *StatusError
			if !errors.Is(err, ErrOutcomeUnknown) || (len(script) > 1 && tc.op.safe() && !errors.As(err, &se)) {
				t.Fatalf("%s, %d steps: %v", tc.op.ID, len(script), err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s, %d steps: %q lacks %q", tc.op.ID, len(script), err, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("%s, %d steps: %q says %q", tc.op.ID, len(script), err, n)
				}
			}
		}
	}
}
