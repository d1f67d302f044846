package topology

import (
	"context"
	"fmt"
	"strings"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Links are Toxiproxy proxies run in this process, one per link the
// nemesis can poison: the clients' link to the balancer and each server's
// link to each database node.
type Links struct {
	server  *toxiproxy.ApiServer
	proxies map[string]*toxiproxy.Proxy
}

// NewLinks starts an in-process Toxiproxy with no proxies.
func NewLinks() *Links {
	return &Links{
		server:  toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop()),
		proxies: map[string]*toxiproxy.Proxy{},
	}
}

// Add starts a proxy named name on a free loopback port to upstream and
// returns its port.
func (l *Links) Add(name, upstream string) (int, error) {
	port, err := FreePort()
	if err != nil {
		return 0, err
	}
	p := toxiproxy.NewProxy(l.server, name, fmt.Sprintf("127.0.0.1:%d", port), upstream)
	if err := l.server.Collection.Add(p, true); err != nil {
		return 0, err
	}
	l.proxies[name] = p
	return port, nil
}

// Toxic is one toxic to put on a link, in Toxiproxy's JSON terms.
type Toxic struct {
	Name, Type, Stream string
	// Attributes is the JSON object of the toxic's attributes.
	Attributes string
}

// AddToxic puts t on link.
func (l *Links) AddToxic(link string, t Toxic) error {
	p, ok := l.proxies[link]
	if !ok {
		return fmt.Errorf("no link %q", link)
	}
	body := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, t.Name, t.Type, t.Stream, t.Attributes)
	_, err := p.Toxics.AddToxicJson(strings.NewReader(body))
	return err
}

// RemoveToxic takes the toxic named name off link.
func (l *Links) RemoveToxic(link, name string) error {
	p, ok := l.proxies[link]
	if !ok {
		return fmt.Errorf("no link %q", link)
	}
	return p.Toxics.RemoveToxic(context.Background(), name)
}

// Close stops every proxy.
func (l *Links) Close() {
	for _, p := range l.proxies {
		p.Stop()
	}
}
