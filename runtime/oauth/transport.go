package oauth

import (
	"context"
	"errors"
	"net/http"

	"golang.org/x/oauth2"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// errRedirect refuses a token endpoint's redirect: the client secret (and
// the request body, with a 307 or 308) would follow it to wherever it
// points.
var errRedirect = errors.New("the token endpoint redirected; token requests are not redirected")

// tokenContext returns the context of a token request made for the
// attempt whose context is ctx, and its release: it ends when ctx does and
// has ctx's deadline, but none of its values (the attempt's httptrace hooks
// would count the token request's writes as the attempt's), and it names
// the HTTP client x/oauth2 sends with (oauth2.HTTPClient): the Runner's
// transport (idemrt.TransportOf), no redirects, no cookies.
func tokenContext(ctx context.Context) (context.Context, func()) {
	base := context.Background()
	var cancelDeadline context.CancelFunc = func() {}
	if d, ok := ctx.Deadline(); ok {
		base, cancelDeadline = context.WithDeadline(base, d)
	}
	tctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(ctx, cancel)
	rt := idemrt.TransportOf(ctx)
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect }}
	return context.WithValue(tctx, oauth2.HTTPClient, hc), func() {
		stop()
		cancel()
		cancelDeadline()
	}
}
