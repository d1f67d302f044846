package verify

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/idemgen/idemgen/ir"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// verifier holds what every check of a run shares: the two transports
// (with and without credentials) and the inputs.
type verifier struct {
	api     *ir.API
	opts    Options
	base    string
	withKey *idemrt.Runner // with credentials
	anon    *idemrt.Runner // without: auth-status
}

func newVerifier(api *ir.API, opts Options) *verifier {
	client := opts.Client
	if client == nil {
		client = http.DefaultClient
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	creds := func(_ context.Context, r *http.Request) error {
		if opts.Credentials != nil {
			opts.Credentials(r)
		}
		return nil
	}
	return &verifier{
		api: api, opts: opts, base: strings.TrimSuffix(opts.Server, "/"),
		withKey: idemrt.NewRunner(idemrt.WithHTTPClient(client), idemrt.NoRetry(), idemrt.WithRequestEditor(creds)),
		anon:    idemrt.NewRunner(idemrt.WithHTTPClient(client), idemrt.NoRetry()),
	}
}

func (v *verifier) input(op *ir.Operation) Input {
	if v.opts.Inputs == nil {
		return Input{}
	}
	return v.opts.Inputs(op)
}

// redact replaces every secret in msg.
func (v *verifier) redact(msg string) string {
	for _, s := range v.opts.Secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	return msg
}

// exchange is one request and what came back: a status with its headers
// and body, or the transport error.
type exchange struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// sendOpts vary one request of a check.
type sendOpts struct {
	key     string // the idempotency key ("" for none)
	body    any    // the body value; nil with noBody false means in.Body
	noBody  bool
	anon    bool // without credentials
	ifMatch string
}

// send makes one attempt of op through the runtime's engine.
func (v *verifier) send(ctx context.Context, op *ir.Operation, in Input, so sendOpts) exchange {
	req, err := v.request(op, in, so)
	if err != nil {
		return exchange{err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, v.opts.Timeout)
	defer cancel()
	rop := runtimeOperation(op)
	if so.key == "" {
		rop.KeyHeader = "" // the engine would send one it made up
		rop.Safety = idemrt.Unsafe
	}
	runner := v.withKey
	if so.anon {
		runner = v.anon
	}
	resp, err := runner.Do(ctx, rop, req)
	return v.redactExchange(exchangeOf(resp, err))
}

// redactExchange takes every secret out of an answer before any check
// reads it: a server that echoes a credential (in a body, a header or an
// error) must not have it quoted, not even cut in half by a message's
// excerpt. Bodies compare the same with the secret replaced everywhere.
func (v *verifier) redactExchange(ex exchange) exchange {
	for _, s := range v.opts.Secrets {
		if s == "" {
			continue
		}
		ex.body = bytes.ReplaceAll(ex.body, []byte(s), []byte("[redacted]"))
		for k, vals := range ex.header {
			for i := range vals {
				vals[i] = strings.ReplaceAll(vals[i], s, "[redacted]")
			}
			ex.header[k] = vals
		}
	}
	if ex.err != nil {
		ex.err = errors.New(v.redact(ex.err.Error()))
	}
	return ex
}

// exchangeOf reads the engine's outcome: a response, a *StatusError for a
// status of 400 or more, or a transport error.
func exchangeOf(resp *http.Response, err error) exchange {
	var se *idemrt.StatusError
	if errors.As(err, &se) {
		return exchange{status: se.StatusCode, header: se.Header, body: se.Body}
	}
	if err != nil {
		return exchange{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return exchange{status: resp.StatusCode, header: resp.Header, body: b}
}

// runtimeOperation is op's contract as a generated client declares it.
func runtimeOperation(op *ir.Operation) *idemrt.Operation {
	rop := &idemrt.Operation{ID: op.ID, Method: op.Method, Path: op.Path, Safety: idemrt.Safety(op.Retry.Safety),
		KeyHeader: op.Retry.KeyName, Retryable: idemrt.StatusSet{Codes: op.Retry.Retryable.Codes, Classes: op.Retry.Retryable.Classes}}
	for _, r := range op.Responses {
		if r.Status >= 300 && r.Status < 400 {
			rop.Redirects.Codes = append(rop.Redirects.Codes, r.Status)
		}
	}
	return rop
}

// request builds the runtime's request of one attempt.
func (v *verifier) request(op *ir.Operation, in Input, so sendOpts) (*idemrt.Request, error) {
	path, query, header := op.Path, url.Values{}, http.Header{}
	for _, p := range op.Params {
		val, ok := in.Params[p.Name]
		if !ok && !p.Required && !(p.In == ir.InHeader && strings.EqualFold(p.Name, "If-Match")) {
			continue
		}
		if !ok {
			val = paramValue(p)
		}
		switch p.In {
		case ir.InPath:
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(val))
		case ir.InQuery:
			query.Add(p.Name, val)
		case ir.InHeader:
			if !strings.EqualFold(p.Name, op.Retry.KeyName) {
				header.Set(p.Name, val)
			}
		}
	}
	if so.ifMatch != "" {
		header.Set("If-Match", so.ifMatch)
	}
	u, err := url.Parse(v.base + path)
	if err != nil {
		return nil, err
	}
	u.RawQuery = joinQuery(op.Query, query.Encode())
	req := &idemrt.Request{Method: op.Method, URL: u, Header: header, Key: so.key}
	if body := so.body; !so.noBody && in.MediaType != "" {
		if body == nil {
			body = in.Body
		}
		req.Body = encodeBody(in.MediaType, body)
		header.Set("Content-Type", in.MediaType)
	}
	return req, nil
}

func joinQuery(fixed, q string) string {
	switch {
	case fixed == "":
		return q
	case q == "":
		return fixed
	}
	return fixed + "&" + q
}
