package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// ErrResumeRefused is matched by the read error of a download whose
// resumption the server did not honour: it answered the Range request with
// the whole resource (a 200: it changed since, so If-Range failed) or with
// another range. The two parts are never spliced.
var ErrResumeRefused = errors.New("the server did not resume the download where it was cut (the resource may have changed); the parts are not spliced")

// errBodyClosed is the error of a read after Close.
var errBodyClosed = errors.New("runtime: read on a closed download body")

// Body is the body of a download: a success response of an operation that
// answers with a binary or unknown-size media type, handed over unread
// instead of as a []byte. Read it, then Close it. The call's deadline
// covers the response headers; the body is read under the idle timeout
// (each Read must make progress within Policy.IdleTimeout), and the success
// body limit (Policy.MaxBody) does not apply.
//
// A body cut mid-way resumes on its own when the operation is safe and the
// server advertised Accept-Ranges: bytes and a strong ETag: the engine asks
// for the rest (Range: bytes=N-, If-Range: the ETag) and accepts only a 206
// that starts at N. Otherwise Read fails with a *ResponseLostError that
// says how many bytes arrived. A Body is not safe for concurrent use.
type Body struct {
	// ContentType is the response's Content-Type.
	ContentType string
	// Size is the body's length, -1 when the server did not declare it.
	Size int64
	// Header is the response's header.
	Header http.Header

	g      resumer
	body   io.ReadCloser
	status int
	read   int64
	// etag is the strong ETag of the first response, ranges whether it
	// accepted byte ranges; both are needed to resume.
	etag   string
	ranges bool
	err    error
}

// Download runs the call of op like Runner.Do up to the response headers,
// and returns the success body live. An error status or a call that failed
// before the headers returns the same errors as Do.
func Download(ctx context.Context, r *Runner, op *Operation, req *Request, opts ...CallOption) (*Body, error) {
	b := &Body{g: resumer{ctx: ctx, r: r, op: op, opts: opts}}
	if req != nil {
		b.g.req = *req
	}
	resp, c, err := r.open(ctx, op, &b.g.req, opts, openStart{})
	if err != nil {
		return nil, err
	}
	b.g.started(c)
	b.ContentType, b.Size, b.Header = resp.Header.Get("Content-Type"), resp.ContentLength, resp.Header
	b.body, b.status = resp.Body, resp.StatusCode
	// A body the Transport decompressed has no byte offsets to resume at.
	b.ranges = !resp.Uncompressed && hasToken(resp.Header.Values("Accept-Ranges"), "bytes")
	if e := resp.Header.Get("ETag"); !strings.HasPrefix(e, "W/") {
		b.etag = e
	}
	return b, nil
}

// Read reads the body, resuming it after a cut when it can.
func (b *Body) Read(p []byte) (int, error) {
	for {
		if b.err != nil {
			return 0, b.err
		}
		n, err := b.body.Read(p)
		b.read += int64(n)
		if n > 0 {
			b.g.progress()
		}
		if err == nil || (err == io.EOF && (b.Size < 0 || b.read >= b.Size)) {
			return n, err
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		// The loop returns the error, or reads the resumed body.
		if b.err = b.resume(err); n > 0 {
			return n, nil
		}
	}
}

// resume reopens the body at the offset reached, or returns the error that
// ends it: a *ResponseLostError with the bytes read.
func (b *Body) resume(cause error) error {
	_ = b.body.Close()
	lost := func(reason error) error {
		if reason != nil {
			cause = fmt.Errorf("%w (not resumed: %w)", cause, reason)
		}
		return &ResponseLostError{StatusCode: b.status, Read: b.read, Err: cause}
	}
	if !b.ranges || b.etag == "" {
		return lost(nil)
	}
	wait, src, reason := b.g.gate(0, isTimeout(cause))
	if reason != nil {
		return lost(reason)
	}
	h := http.Header{"Range": {fmt.Sprintf("bytes=%d-", b.read)}, "If-Range": {b.etag}}
	resp, err := b.g.reopen(wait, src, h)
	if err != nil {
		return lost(err)
	}
	if resp.StatusCode != http.StatusPartialContent || rangeStart(resp.Header.Get("Content-Range")) != b.read {
		_ = resp.Body.Close()
		return lost(fmt.Errorf("%w: the resume request got %d %q", ErrResumeRefused, resp.StatusCode, resp.Header.Get("Content-Range")))
	}
	b.body = resp.Body
	return nil
}

// Close releases the connection. It may be called more than once.
func (b *Body) Close() error {
	if b.err == errBodyClosed {
		return nil
	}
	b.err = errBodyClosed
	return b.body.Close()
}

// rangeStart is the first byte of a Content-Range "bytes first-last/size",
// or -1.
func rangeStart(cr string) int64 {
	rest, ok := strings.CutPrefix(cr, "bytes ")
	first, _, ok2 := strings.Cut(rest, "-")
	n, err := strconv.ParseInt(strings.TrimSpace(first), 10, 64)
	if !ok || !ok2 || err != nil {
		return -1
	}
	return n
}

// hasToken reports whether a comma-separated header list has token.
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
