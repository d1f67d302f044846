package idemsrv

import (
	"net/http"
	"strings"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// WithStream returns a copy of rt that answers as a stream of framing f
// and mediaType: the route of an operation's <Op>Stream form, beside the
// plain answer of rt.
func (rt Route) WithStream(f idemrt.Framing, mediaType string) Route {
	rt.Stream = &StreamFormat{Framing: f, MediaType: mediaType}
	return rt
}

// HandleEither routes an operation that answers either plainly (serve,
// on route rt) or as a stream (stream, on route srt, made with WithStream),
// chosen by the request's Accept: a request that names the stream's media
// type, and nothing it prefers to it, gets the stream, as the generated
// client's <Op>Stream method asks; so does one whose body's stream switch
// is true (WithStreamSwitch). Each form is checked as Handle checks
// it, under the same body deadline; the stream form never runs through
// the ledger.
func (e *Engine) HandleEither(rt Route, serve http.HandlerFunc, srt Route, stream http.HandlerFunc) error {
	plain, streamed := e.guard(rt, serve), e.guard(srt, stream)
	media := srt.Stream.MediaType
	return e.router.handle(rt.Op.ID, rt.Op.Method, rt.template(), e.bodyDeadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wantsStream(r, media) || e.switchedOn(w, r, srt.Stream.Switch) {
			streamed.ServeHTTP(w, r)
			return
		}
		plain.ServeHTTP(w, r)
	})))
}

// wantsStream reports whether r's Accept names media (q above 0) and no
// other range with a higher q. Wildcards do not ask for a stream: a client
// that takes anything gets the plain answer.
func wantsStream(r *http.Request, media string) bool {
	typ, sub, _ := strings.Cut(media, "/")
	streamQ, otherQ := 0.0, 0.0
	for _, a := range parseAccept(r) {
		if a.typ == typ && a.sub == sub {
			streamQ = max(streamQ, a.q)
		} else {
			otherQ = max(otherQ, a.q)
		}
	}
	return streamQ > 0 && streamQ >= otherQ
}
