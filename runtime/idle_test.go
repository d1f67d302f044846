package runtime

import (
	"errors"
	"io"
	"testing"
	"time"
)

// TestIdleWatch: on a fake clock, a read that gets data within the idle
// timeout is not cut, and the next one, silent for longer than it, is: with
// an *IdleTimeoutError, the body closed. The advancing goroutine acts on
// each timer armed, so the sequence does not depend on scheduling.
func TestIdleWatch(t *testing.T) {
	clk := newTimerClock()
	clk.armed = make(chan struct{}, 8)
	pr, pw := io.Pipe()
	b := &liveBody{rc: pr, release: func() {}}
	b.idle = &idleWatch{clock: clk, d: 30 * time.Second, onIdle: func() { _ = pr.Close() }}
	go func() {
		<-clk.armed // the first Read began
		clk.Advance(29 * time.Second)
		_, _ = pw.Write([]byte("x"))
		clk.Advance(2 * time.Second) // re-arms for the second Read, or disarms until it begins
		<-clk.armed
		clk.Advance(30 * time.Second)
	}()
	buf := make([]byte, 8)
	if n, err := b.Read(buf); n != 1 || err != nil {
		t.Fatalf("first read: %d, %v", n, err)
	}
	n, err := b.Read(buf)
	var idle *IdleTimeoutError
	if n != 0 || !errors.Is(err, ErrIdleTimeout) || !errors.As(err, &idle) || idle.Idle != 30*time.Second || !isTimeout(err) {
		t.Fatalf("second read: %d, %v", n, err)
	}
	if _, err := b.Read(buf); !errors.Is(err, ErrIdleTimeout) {
		t.Fatalf("read after the cut: %v", err)
	}
	_ = b.Close()
}
