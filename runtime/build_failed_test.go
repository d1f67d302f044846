package runtime

import (
	"errors"
	"testing"
)

func TestBuildFailedNamesTheOperationAndTheKey(t *testing.T) {
	cause := errors.Join(ErrInvalidParam, errors.New(`"id": path value ".."`))
	err := BuildFailed(&Operation{ID: "getO"}, "", cause)
	var ce *CallError
	if !errors.As(err, &ce) || ce.Operation != "getO" || !errors.Is(err, ErrInvalidParam) {
		t.Fatalf("err = %v, want a CallError for getO matching ErrInvalidParam", err)
	}
	// Nothing was sent, but the error names the intent's key like every
	// failed call: the caller's, or a fresh one.
	if KeyOf(err) == "" || len(AttemptsOf(err)) != 0 {
		t.Fatalf("key %q, %d attempts", KeyOf(err), len(AttemptsOf(err)))
	}
	if err := BuildFailed(&Operation{ID: "postO"}, "k9", cause); KeyOf(err) != "k9" {
		t.Fatalf("err %v, key %q", err, KeyOf(err))
	}
}
