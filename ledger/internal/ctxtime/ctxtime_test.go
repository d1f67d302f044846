package ctxtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep under a cancelled context = %v, want context.Canceled", err)
	}
	if err := Sleep(ctx, 0); err != nil {
		t.Fatalf("Sleep(0) = %v, want nil", err)
	}
}
