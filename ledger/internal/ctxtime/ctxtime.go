// Package ctxtime holds the one context-aware sleep the server-side packages
// (the ledger and its stores) share.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx is done, whichever comes first, and returns
// ctx's error in the second case. A d of zero or less returns at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
