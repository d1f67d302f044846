package mock_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

// sleepRecorder is an injected Options.Sleep that waits for nothing and
// keeps every wait asked for.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return nil
}

func (s *sleepRecorder) total() (time.Duration, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum time.Duration
	for _, d := range s.waits {
		sum += d
	}
	n := len(s.waits)
	s.waits = nil
	return sum, n
}

func TestFaultWaitsAddUpToTheCap(t *testing.T) {
	rec := &sleepRecorder{}
	u := startData(t, exampleSpec, idemgenmock.Options{Sleep: rec.sleep})
	// Stacked latencies, then a slow body whose 3 intervals would add 3s
	// more: the request waits one minute in all.
	_, b := do(t, "GET", u+"/pets/1", "", idemgenmock.FaultHeader,
		"latency=1m, latency=1m, latency=1m, latency=1m, slow-body=10/1s")
	if string(b) != `{"id":1,"kind":"cat","name":"Tom"}` {
		t.Errorf("body %s", b)
	}
	if sum, _ := rec.total(); sum != time.Minute {
		t.Errorf("waited %v in all, want the 1m cap", sum)
	}
	// A configured fault is capped too: Latency takes any duration.
	u = startData(t, exampleSpec, idemgenmock.Options{Sleep: rec.sleep,
		Faults: []idemgenmock.Fault{idemgenmock.Latency(3 * time.Hour)}})
	do(t, "GET", u+"/pets/1", "")
	if sum, _ := rec.total(); sum != time.Minute {
		t.Errorf("Latency(3h) waited %v, want the 1m cap", sum)
	}
	// An event stream's waits count against the same budget.
	do(t, "GET", u+"/events", "", idemgenmock.FaultHeader, "slow-body=1/1s")
	if sum, _ := rec.total(); sum != time.Minute {
		t.Errorf("stream waited %v, want the 1m cap", sum)
	}
}

func TestFaultHeaderIsBoundedInEntriesAndLength(t *testing.T) {
	rec := &sleepRecorder{}
	u := startData(t, exampleSpec, idemgenmock.Options{Sleep: rec.sleep})
	stacked := strings.TrimSuffix(strings.Repeat("latency=1m,", 600), ",")
	long := "latency=1ms@" + strings.Repeat("x", 2000)
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"600 stacked latencies", []string{stacked}, "at most 1024 bytes"},
		{"17 stacked latencies", []string{stacked[:len("latency=1m,")*17-1]}, "at most 16"},
		{"17 header lines", strings.Split(strings.Repeat("latency=1ms,", 17), ",")[:17], "at most 16"},
		{"2 KB header", []string{long}, "at most 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", u+"/pets/1", nil)
			for _, v := range tc.values {
				req.Header.Add(idemgenmock.FaultHeader, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b := readAll(t, resp)
			p := problemOf(t, b)
			if resp.StatusCode != 400 || !strings.HasSuffix(p.Type, "#bad-fault") || !strings.Contains(p.Detail, tc.want) {
				t.Errorf("%d %s: want 400 bad-fault saying %q", resp.StatusCode, b, tc.want)
			}
			if sum, n := rec.total(); n != 0 {
				t.Errorf("waited %v (%d waits) before refusing", sum, n)
			}
		})
	}
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
