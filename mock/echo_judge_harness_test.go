package mock

// echoJudgeSource is judge.go of the harness program: the echo calls sent
// once more, through Stoplight Prism's validation proxy (prism proxy) in
// front of the same generated server. Prism is not ours: it checks every
// request the generated client sends and every answer the generated server
// gives against the document, and names what it finds wrong in the
// sl-violations header of the answer it relays. The harness records those
// violations, call by call; it does not compare values again (Prism
// re-encodes what it relays: a JSON body is parsed and written anew, a
// query is rebuilt, a multipart body is read as text).
//
// The client's requests go to Prism with the server's mount path (/echo)
// taken off, since Prism matches the document's paths as they are written,
// and Prism puts it back when it forwards to the server.
const echoJudgeSource = `package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"time"

	api "conformance/client"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// judgeResult is what Prism said of one call: its violations, or why the
// call did not go through Prism and back.
type judgeResult struct {
	Op         string      ` + "`json:\"op\"`" + `
	Violations []violation ` + "`json:\"violations,omitempty\"`" + `
	Error      string      ` + "`json:\"error,omitempty\"`" + `
}

// violation is one of Prism's findings, "<where>: <severity>: <message>"
// (where is request.body.amount, response.header...), and the media type
// of the answer Prism relayed with it.
type violation struct {
	Text   string ` + "`json:\"text\"`" + `
	Answer string ` + "`json:\"answer\"`" + `
}

// runJudged sends every Echo call through Prism, when the plan names it.
func runJudged(p plan, opts ...idemrt.Option) []judgeResult {
	if len(p.Prism) == 0 {
		return nil
	}
	s := newEchoState(p)
	srv, err := api.NewServer(s.handler(), idemsrv.WithoutLedger())
	if err != nil {
		return []judgeResult{{Op: "NewServer", Error: err.Error()}}
	}
	ts := httptest.NewServer(http.StripPrefix("/echo", srv))
	defer ts.Close()
	prism, stop, err := startPrism(p.Prism, p.Spec, ts.URL+"/echo")
	if err != nil {
		return []judgeResult{{Op: "prism", Error: err.Error()}}
	}
	defer stop()
	tap := &toPrism{prism: prism}
	c, err := api.NewClient(ts.URL+"/echo", append(opts, idemrt.WithHTTPClient(&http.Client{Transport: tap}), idemrt.NoRetry())...)
	if err != nil {
		return []judgeResult{{Op: "NewClient", Error: err.Error()}}
	}
	cv := reflect.ValueOf(c)
	var out []judgeResult
	for _, cl := range p.Calls {
		if !cl.Echo {
			continue
		}
		res := echoForms(s, cv, cl)
		r := judgeResult{Op: cl.Op, Violations: tap.take()}
		if res.Outcome == "error" || res.Outcome == "panic" || res.Outcome == "build" {
			r.Error = res.Detail
		}
		out = append(out, r)
	}
	return out
}

// toPrism sends the client's requests to Prism and keeps the violations
// Prism reports.
type toPrism struct {
	prism *url.URL
	mu    sync.Mutex
	seen  []violation
}

func (t *toPrism) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	u := *r.URL
	u.Scheme, u.Host = t.prism.Scheme, t.prism.Host
	u.Path = strings.TrimPrefix(u.Path, "/echo")
	u.RawPath = strings.TrimPrefix(u.RawPath, "/echo")
	r.URL, r.Host = &u, ""
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if v := resp.Header.Get("sl-violations"); v != "" {
		t.mu.Lock()
		answer, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
		for _, text := range readViolations(v) {
			t.seen = append(t.seen, violation{Text: text, Answer: strings.ToLower(strings.TrimSpace(answer))})
		}
		t.mu.Unlock()
	}
	return resp, nil
}

// take returns the violations seen since the last take.
func (t *toPrism) take() []violation {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.seen
	t.seen = nil
	return v
}

// readViolations turns Prism's header, a JSON list of
// {location, severity, code, message}, into lines.
func readViolations(h string) []string {
	var list []struct {
		Location []string
		Severity string
		Message  string
	}
	if err := json.Unmarshal([]byte(h), &list); err != nil {
		return []string{"unreadable sl-violations: " + h}
	}
	var out []string
	for _, v := range list {
		out = append(out, fmt.Sprintf("%s: %s: %s", strings.Join(v.Location, "."), v.Severity, v.Message))
	}
	return out
}

// startPrism runs "prism proxy" for the document on a free loopback port,
// in front of upstream, and waits until it listens.
func startPrism(argv []string, spec, upstream string) (*url.URL, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	args := append(append([]string(nil), argv[1:]...), "proxy", spec, upstream, "--host", "127.0.0.1", "--port", port, "--errors", "false")
	cmd := exec.Command(argv[0], args...)
	var log bytes.Buffer
	w := &tail{b: &log}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() { _ = cmd.Process.Kill(); <-exited }
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			return nil, nil, fmt.Errorf("prism exited before it listened (%v): %s", err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return &url.URL{Scheme: "http", Host: addr}, stop, nil
		}
	}
	stop()
	return nil, nil, fmt.Errorf("prism did not listen on %s within 3 minutes: %s", addr, log.String())
}

// tail keeps the last 8 KiB written to it (Prism logs every request).
type tail struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if n := t.b.Len(); n > 8<<10 {
		t.b.Next(n - 8<<10)
	}
	return len(p), nil
}
`
