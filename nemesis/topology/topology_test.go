package topology

import (
	"strings"
	"testing"
)

// Ports come from below the kernel's ephemeral range, so that no outgoing
// connection of the run can take one before its process binds it, and a
// port is never handed out twice.
func TestFreePortIsBelowTheEphemeralRangeAndNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if p < 20000 || p >= 32768 {
			t.Fatalf("port %d outside 20000-32767", p)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}

// The balancer health-checks every server and never resends a request it
// has sent (retries cover connection failures only; no "retry-on" that
// would include a response timeout or an empty answer).
func TestHAProxyConfigChecksEveryServerAndNeverResends(t *testing.T) {
	cfg := HAProxyConfig(21000, []int{21001, 21002, 21003})
	for _, want := range []string{"bind 127.0.0.1:21000", "option httpchk GET /healthz",
		"server s1 127.0.0.1:21001 check", "server s3 127.0.0.1:21003 check"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
	if strings.Contains(cfg, "retry-on") {
		t.Errorf("config resends requests:\n%s", cfg)
	}
}
