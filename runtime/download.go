package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrResumeRefused is matched by the read error of a download whose
// resumption the server did not honour: it answered the Range request with
// the whole resource (a 200: it changed since, so If-Range failed), with
// another range, or with a 206 of another representation (another or a
// weak ETag, another Last-Modified, another total length). The two parts
// are never spliced.
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
// server advertised Accept-Ranges: bytes and a strong validator (a strong
// ETag, or with no ETag a Last-Modified at least 60 s before the Date: RFC
// 9110 13.1.5 and 8.8.2.2): the engine asks for the rest (Range: bytes=N-,
// If-Range: the validator) and accepts only a 206 that starts at N with the
// same validator and the same total length. Otherwise Read fails with a
// *ResponseLostError that says how many bytes arrived (matching
// ErrResumeRefused when the server answered with something else). A Body is
// not safe for concurrent use.
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
	// ifRange is the strong validator of the first response (ifRangeOf),
	// ranges whether it accepted byte ranges; both are needed to resume.
	ifRange string
	ranges  bool
	err     error
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
	b.ifRange = ifRangeOf(resp.Header)
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
	if !b.ranges || b.ifRange == "" {
		return lost(nil)
	}
	wait, src, reason := b.g.gate(0, isTimeout(cause))
	if reason != nil {
		return lost(reason)
	}
	h := http.Header{"Range": {fmt.Sprintf("bytes=%d-", b.read)}, "If-Range": {b.ifRange}}
	resp, err := b.g.reopen(wait, src, h)
	if err != nil {
		return lost(err)
	}
	if !b.continues(resp) {
		_ = resp.Body.Close()
		return lost(fmt.Errorf("%w: the resume request got %d, Content-Range %q, ETag %q, Last-Modified %q", ErrResumeRefused,
			resp.StatusCode, resp.Header.Get("Content-Range"), resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")))
	}
	b.body = resp.Body
	return nil
}

// continues reports whether resp, the answer to the Range request, is the
// rest of the first response's representation: a 206 starting at the byte
// reached, with the total length the first response declared and the same
// strong validator (RFC 9110 15.3.7.3: partial responses combine only when
// they share one). A server that ignores If-Range (a cache or a balancer in
// front of two versions) is caught here, not spliced in.
func (b *Body) continues(resp *http.Response) bool {
	first, total, ok := contentRange(resp.Header.Get("Content-Range"))
	if resp.StatusCode != http.StatusPartialContent || !ok || first != b.read || (b.Size >= 0 && total != b.Size) {
		return false
	}
	etag := strings.TrimSpace(resp.Header.Get("ETag"))
	if isStrongETag(b.ifRange) {
		return etag == b.ifRange
	}
	// A Last-Modified validator: the 206 must name the same time and, as
	// the first response, no ETag.
	lm, err := http.ParseTime(resp.Header.Get("Last-Modified"))
	was, _ := http.ParseTime(b.ifRange)
	return etag == "" && err == nil && lm.Equal(was)
}

// ifRangeOf is the validator a resume of the response with header h sends
// in If-Range, "" for none. RFC 9110 13.1.5 forbids a weak ETag there, and
// a date unless the response had no ETag at all and the date is a strong
// validator: by 8.8.2.2, a Last-Modified at least 60 seconds before the
// response's Date.
func ifRangeOf(h http.Header) string {
	if e := strings.TrimSpace(h.Get("ETag")); e != "" {
		if isStrongETag(e) {
			return e
		}
		return ""
	}
	lm, err := http.ParseTime(h.Get("Last-Modified"))
	date, err2 := http.ParseTime(h.Get("Date"))
	if err != nil || err2 != nil || date.Sub(lm) < time.Minute {
		return ""
	}
	return h.Get("Last-Modified")
}

// isStrongETag reports whether e is a strong entity-tag: a quoted
// opaque-tag without the W/ of a weak one.
func isStrongETag(e string) bool {
	return len(e) >= 2 && e[0] == '"' && e[len(e)-1] == '"' && !strings.ContainsRune(e[1:len(e)-1], '"')
}

// Close releases the connection. It may be called more than once.
func (b *Body) Close() error {
	if b.err == errBodyClosed {
		return nil
	}
	b.err = errBodyClosed
	return b.body.Close()
}

// contentRange reads a Content-Range "bytes first-last/complete": the
// first byte and the complete length (-1 for "*"); ok is false for any
// other form, or a last byte before the first or past the end.
func contentRange(cr string) (first, total int64, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(cr), "bytes ")
	span, size, ok2 := strings.Cut(rest, "/")
	from, to, ok3 := strings.Cut(span, "-")
	if !ok || !ok2 || !ok3 {
		return 0, 0, false
	}
	first, err := strconv.ParseInt(from, 10, 64)
	last, err2 := strconv.ParseInt(to, 10, 64)
	total = -1
	var err3 error
	if size != "*" {
		total, err3 = strconv.ParseInt(size, 10, 64)
	}
	if err != nil || err2 != nil || err3 != nil || first < 0 || last < first || (total >= 0 && last >= total) {
		return 0, 0, false
	}
	return first, total, true
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
