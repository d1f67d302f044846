package idemsrv

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/problem"
)

// maxAcceptRanges bounds how many media ranges of an Accept header are read.
const maxAcceptRanges = 64

// mediaKey is the context key of the negotiated media type.
type mediaKey struct{}

// WithMediaType returns ctx carrying the media type negotiated for the
// answer; generated servers call it before the handler.
func WithMediaType(ctx context.Context, mediaType string) context.Context {
	return context.WithValue(ctx, mediaKey{}, mediaType)
}

// MediaType returns the media type the request's Accept header ranks first
// among those the operation answers ("" outside an operation that answers
// several): a handler fills the result field of that type.
func MediaType(ctx context.Context) string {
	s, _ := ctx.Value(mediaKey{}).(string)
	return s
}

// acceptRange is one media range of an Accept header.
type acceptRange struct {
	typ, sub string
	q        float64
}

// parseAccept reads the request's Accept header; nil means no header
// (everything is acceptable).
func parseAccept(r *http.Request) []acceptRange {
	var out []acceptRange
	for _, line := range r.Header.Values("Accept") {
		for item := range strings.SplitSeq(line, ",") {
			if len(out) == maxAcceptRanges || strings.TrimSpace(item) == "" {
				continue
			}
			mt, params, err := mime.ParseMediaType(item)
			if err != nil {
				continue
			}
			q := 1.0
			if s, ok := params["q"]; ok {
				if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && v <= 1 {
					q = v
				}
			}
			typ, sub, _ := strings.Cut(mt, "/")
			out = append(out, acceptRange{typ, sub, q})
		}
	}
	return out
}

// quality is the q the ranges give the media type mt: the most specific
// range that matches it wins (RFC 9110 12.5.1); -1 when none does.
func quality(ranges []acceptRange, mt string) float64 {
	typ, sub, _ := strings.Cut(strings.ToLower(mt), "/")
	q, spec := -1.0, -1
	for _, a := range ranges {
		s := -1
		switch {
		case a.typ == typ && a.sub == sub:
			s = 2
		case a.typ == typ && a.sub == "*":
			s = 1
		case a.typ == "*" && a.sub == "*":
			s = 0
		}
		if s > spec {
			q, spec = a.q, s
		}
	}
	return q
}

// Negotiate picks the media type of the answer among offered (the types the
// operation declares, in the spec's order): the one the Accept header
// gives the highest q, the first offered on a tie; the first offered when
// the request has no Accept header. ok is false when it accepts none.
func Negotiate(r *http.Request, offered []string) (string, bool) {
	ranges := parseAccept(r)
	if len(ranges) == 0 && len(offered) > 0 {
		return offered[0], true
	}
	best, bestQ := "", 0.0
	for _, mt := range offered {
		if q := quality(ranges, mt); q > bestQ {
			best, bestQ = mt, q
		}
	}
	return best, best != ""
}

// NotAcceptable answers 406, listing the media types the operation answers.
func NotAcceptable(w http.ResponseWriter, offered []string) {
	problem.Write(w, http.StatusNotAcceptable, problem.NotAcceptable,
		"the Accept header allows none of the media types this operation answers: "+strings.Join(offered, ", "))
}

// errUndeclaredMedia is what OnError receives for a handler whose result
// names a media type the response does not declare.
var errUndeclaredMedia = errors.New("idemsrv: the handler's result names a media type the operation does not declare for its status")

// AnswerMedia is the media type to send a response of several declared
// types (offered) in: the handler's own choice (the result's ContentType)
// when the request accepts it, else the negotiated one. A choice the
// request does not accept is answered 406, an undeclared one 500; ok is
// false then.
func (e *Engine) AnswerMedia(w http.ResponseWriter, r *http.Request, chosen string, offered []string) (string, bool) {
	if chosen == "" {
		mt, ok := Negotiate(r, offered)
		if !ok {
			NotAcceptable(w, offered)
		}
		return mt, ok
	}
	for _, mt := range offered {
		if !strings.EqualFold(mt, chosen) {
			continue
		}
		if ranges := parseAccept(r); len(ranges) > 0 && quality(ranges, mt) <= 0 {
			NotAcceptable(w, offered)
			return "", false
		}
		return mt, true
	}
	if e.cfg.onError != nil {
		e.cfg.onError(r, fmt.Errorf("%w: %q", errUndeclaredMedia, chosen))
	}
	writeInternal(w)
	return "", false
}

// Media is one body of a response that declares several media types: the
// types it is sent as, whether it is JSON, and the result field holding it
// (a string or []byte when not JSON).
type Media struct {
	Types []string
	JSON  bool
	Value any
}

// WriteMedia answers status with the body of the media type AnswerMedia
// picks from the handler's choice (chosen, the result's ContentType) and
// the request's Accept header.
func (e *Engine) WriteMedia(w http.ResponseWriter, r *http.Request, status int, chosen string, bodies ...Media) {
	var offered []string
	for _, b := range bodies {
		offered = append(offered, b.Types...)
	}
	ct, ok := e.AnswerMedia(w, r, chosen, offered)
	if !ok {
		return
	}
	for _, b := range bodies {
		for _, t := range b.Types {
			if t != ct {
				continue
			}
			if strings.Contains(ct, "*") {
				ct = "application/octet-stream" // a range names no type to send
			}
			if b.JSON {
				writeJSONAs(w, status, ct, b.Value)
				return
			}
			WriteText(w, status, ct, b.Value)
			return
		}
	}
}
