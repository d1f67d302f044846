package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// HAProxyConfig is the balancer in front of the servers: round robin, an
// HTTP health check every 250ms (a server that misses two is out, one
// that answers two is back), and no retry of a request once it was sent
// to a server (HAProxy retries connection failures only), so it never
// turns one client attempt into two executions.
func HAProxyConfig(port int, servers []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
    maxconn 2000
defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 10s
    timeout check 500ms
    option redispatch
    retries 2
frontend shop
    bind 127.0.0.1:%d
    default_backend servers
backend servers
    balance roundrobin
    option httpchk GET /healthz
    default-server inter 250ms fall 2 rise 2
`, port)
	for i, p := range servers {
		fmt.Fprintf(&b, "    server s%d 127.0.0.1:%d check\n", i+1, p)
	}
	return b.String()
}

// StartHAProxy writes the configuration into dir and runs haproxy in the
// foreground (-db) as a child, waiting until it accepts.
func StartHAProxy(procs *Procs, dir string, port int, servers []int) (*Proc, error) {
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(HAProxyConfig(port, servers)), 0o644); err != nil {
		return nil, err
	}
	p, err := procs.Start("haproxy", nil, nil, "haproxy", "-db", "-f", cfg)
	if err != nil {
		return nil, err
	}
	return p, WaitTCP(fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second)
}
