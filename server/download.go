package idemsrv

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Download is the answer of an operation whose client method returns a
// download (*idemrt.Body): the server form of that reader. Content that is
// an io.ReadSeeker is served with http.ServeContent, so byte ranges work
// (Accept-Ranges: bytes, Range, If-Range, 206 and 416, If-None-Match and
// If-Modified-Since), and a client whose download was cut resumes where it
// stopped; any other reader is served whole, without ranges, and a cut
// download then starts over. Content that is an io.Closer is closed once
// served.
type Download struct {
	// Content is the bytes to send.
	Content io.Reader
	// ContentType is sent as the Content-Type; "" sends the operation's
	// first declared binary media type.
	ContentType string
	// Size is the length of a Content that is not an io.ReadSeeker, sent
	// as Content-Length when positive (a seeker's length is measured).
	Size int64
	// ETag is the representation's validator, quoted when it is not
	// already ("v1" is sent as "\"v1\""; W/"v1" stays weak). A client
	// resumes a cut download only with a strong ETag (or, without one, a
	// Last-Modified well before the answer's Date), and only while it is
	// unchanged: a new ETag makes the resumption refuse (the client's
	// ErrResumeRefused) rather than splice two versions.
	ETag string
	// LastModified is sent as Last-Modified when not zero.
	LastModified time.Time
	// Header holds other headers to send (Content-Disposition, say).
	Header http.Header
}

// WriteDownload answers status with d's content; a nil d is a 500. def is
// the Content-Type when d names none. Ranges apply to a 200 of a seekable
// content only: another status is sent whole. Generated code calls it.
//
// The request's WithMaxInFlight slot is given back before the content goes
// out, as a stream's is when it starts: the slot covers the handler's work
// to produce the answer, and a slow client taking a large file must not
// keep other requests out. A Content whose reading is itself costly work
// is bounded by the handler.
//
// When the server drains (WithStreamDrain), a download still going out is
// cut at its next write, as a stream is: a seekable one resumes with Range
// on another instance.
func (e *Engine) WriteDownload(w http.ResponseWriter, r *http.Request, status int, def string, d *Download) {
	if e.shed != nil {
		e.shed.Release(w)
	}
	if e.cfg.drain != nil {
		rc := http.NewResponseController(w)
		stop := context.AfterFunc(e.cfg.drain, func() { _ = rc.SetWriteDeadline(time.Now()) })
		defer stop()
	}
	writeDownload(w, r, status, def, d)
}

// writeDownload is WriteDownload past the overload limit.
func writeDownload(w http.ResponseWriter, r *http.Request, status int, def string, d *Download) {
	if d == nil || d.Content == nil {
		writeInternal(w)
		return
	}
	if c, ok := d.Content.(io.Closer); ok {
		defer c.Close()
	}
	h := w.Header()
	for k, v := range d.Header {
		h[k] = v
	}
	h.Set("Content-Type", cmpStr(d.ContentType, def))
	if d.ETag != "" {
		h.Set("ETag", quoteETag(d.ETag))
	}
	if rs, ok := d.Content.(io.ReadSeeker); ok && status == http.StatusOK {
		// ServeContent writes Last-Modified from the time it is given.
		http.ServeContent(w, r, "", d.LastModified, rs)
		return
	}
	if !d.LastModified.IsZero() {
		h.Set("Last-Modified", d.LastModified.UTC().Format(http.TimeFormat))
	}
	if d.Size > 0 {
		h.Set("Content-Length", strconv.FormatInt(d.Size, 10))
	}
	w.WriteHeader(status)
	io.Copy(w, d.Content)
}

// quoteETag makes an entity tag of a bare value; a quoted or weak one is
// sent as it is.
func quoteETag(s string) string {
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, `W/"`) {
		return s
	}
	return strconv.Quote(s)
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
