package idemsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/runtime/problem"
)

// Secure binds the server's WithSecurity handler to the document's security
// schemes; a generated NewServer calls it after New and before Handle.
// secured names the keyed operations under a security requirement (the
// ledger scopes their keys by principal); bind returns the schemes bound to
// h's methods, or false when h is not the package's SecurityHandler (nil
// bind: the document declares no scheme). Without WithSecurity a server
// with a ledger and secured operations needs WithCredentialScopedKeys, or
// Secure returns an error wrapping ErrNoSecurity that names them.
func (e *Engine) Secure(secured []string, bind func(h any) ([]Scheme, bool)) error {
	h := e.cfg.security
	switch {
	case h != nil && e.cfg.credScoped:
		return errors.New("idemsrv: WithSecurity and WithCredentialScopedKeys were both given")
	case h == nil && len(secured) > 0 && e.cfg.ledger != nil && !e.cfg.credScoped:
		return fmt.Errorf("%w (keyed: %s)", ErrNoSecurity, strings.Join(secured, ", "))
	case h == nil:
		return nil
	case bind == nil:
		return errors.New("idemsrv: WithSecurity was given, but the document declares no security scheme")
	}
	schemes, ok := bind(h)
	if !ok {
		return fmt.Errorf("idemsrv: WithSecurity was given a %T, which is not this server's SecurityHandler", h)
	}
	e.schemes = make(map[string]Scheme, len(schemes))
	for _, s := range schemes {
		e.schemes[s.name] = s
	}
	return nil
}

// authenticate puts h behind the route's security requirements when the
// server has WithSecurity: the first requirement (in the document's order)
// whose every scheme's credentials the request carries is checked, and
// decides; a request that carries none gets 401, unless the operation
// allows anonymous callers.
func (e *Engine) authenticate(rt Route, h http.Handler) http.Handler {
	if e.schemes == nil || len(rt.Security) == 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, req := range rt.Security {
			if len(req) > 0 && e.carries(r, req) {
				if p, ok := e.checkRequirement(w, r, rt.Op.ID, req); ok {
					h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
				}
				return
			}
		}
		if rt.Anonymous {
			h.ServeHTTP(w, r)
			return
		}
		refuse(w, http.StatusUnauthorized, problem.Unauthorized, e.challenges(rt.Security, false),
			"the operation requires credentials and the request carries none")
	})
}

// carries reports whether r carries the credentials of every scheme of req.
func (e *Engine) carries(r *http.Request, req []string) bool {
	for _, name := range req {
		s, ok := e.schemes[name]
		if !ok || !s.present(r) {
			return false
		}
	}
	return true
}

// checkRequirement calls the method of each scheme of req, under the
// authentication deadline (verify); all must accept the request, and those
// that name a principal must name the same one. It answers the request
// itself when it returns false.
func (e *Engine) checkRequirement(w http.ResponseWriter, r *http.Request, op string, req []string) (string, bool) {
	v, inTime := e.verify(r, op, req)
	switch {
	case !inTime:
		w.Header().Set("Retry-After", strconv.Itoa(authRetryAfter))
		problem.Write(w, http.StatusServiceUnavailable, problem.AuthTimeout,
			"the credentials could not be checked in time; nothing ran, the request may be sent again")
		return "", false
	case v.panicked != nil:
		// Answered as any handler's panic is (recovered), stack and all.
		if v.panicked.Value == http.ErrAbortHandler {
			panic(http.ErrAbortHandler)
		}
		panic(v.panicked)
	case errors.Is(v.err, ErrForbidden):
		refuse(w, http.StatusForbidden, problem.Forbidden, "", "the credentials do not allow this operation")
		return "", false
	case v.err != nil:
		refuse(w, http.StatusUnauthorized, problem.CredentialsRefused, e.challenges([][]string{req}, true), "the credentials were refused")
		return "", false
	case v.conflict:
		refuse(w, http.StatusUnauthorized, problem.CredentialsRefused, e.challenges([][]string{req}, true),
			"the credentials of the operation's security requirement name different principals")
		return "", false
	}
	if err := checkPrincipal(v.principal); err != nil {
		// The SecurityHandler's fault, not the client's.
		if e.cfg.onError != nil {
			e.cfg.onError(r, fmt.Errorf("idemsrv: SecurityHandler (%s): %w", strings.Join(req, ", "), err))
		}
		writeInternal(w)
		return "", false
	}
	return v.principal, true
}

// authRetryAfter is the Retry-After, in seconds, of a request whose
// authentication ran out of time: the identity provider may answer the
// next one.
const authRetryAfter = 1

// verdict is what the methods of one requirement's schemes said: the
// principal they named, or the first refusal, two principals, or a panic.
type verdict struct {
	principal string
	err       error
	conflict  bool
	panicked  *ledger.PanicError
}

// verify runs callSchemes under the authentication deadline
// (WithAuthTimeout), whose end cancels the methods' context. They run in a
// goroutine of their own so that the deadline holds even for a method that
// ignores its context: the request is answered and its WithMaxInFlight
// slot freed when the deadline passes, and the method's late answer is
// dropped. inTime is false when the deadline passed (or the request's own
// context ended) first, including a method that returned because of it.
func (e *Engine) verify(r *http.Request, op string, req []string) (v verdict, inTime bool) {
	ctx, cancel := context.WithTimeout(r.Context(), e.cfg.authTimeout)
	defer cancel()
	done := make(chan verdict, 1)
	go func() { done <- e.callSchemes(ctx, r, op, req) }()
	select {
	case v = <-done:
		return v, v.err == nil || ctx.Err() == nil
	case <-ctx.Done():
		return verdict{}, false
	}
}

// callSchemes calls the method of each scheme of req in order, up to the
// first that refuses. A panic becomes the verdict, for verify's caller to
// raise where the server recovers it.
func (e *Engine) callSchemes(ctx context.Context, r *http.Request, op string, req []string) (v verdict) {
	defer func() {
		if p := recover(); p != nil {
			v = verdict{panicked: &ledger.PanicError{Value: p, Stack: debug.Stack()}}
		}
	}()
	for _, name := range req {
		p, err := e.schemes[name].check(ctx, r, op)
		switch {
		case err != nil:
			return verdict{err: err}
		case p != "" && v.principal != "" && p != v.principal:
			return verdict{conflict: true}
		case p != "":
			v.principal = p
		}
	}
	return v
}

// challenges is the WWW-Authenticate value of a 401: the challenge of each
// scheme of reqs, once each (refused: the form saying the credentials
// were refused).
func (e *Engine) challenges(reqs [][]string, refused bool) string {
	var out []string
	for _, req := range reqs {
		for _, name := range req {
			c := e.schemes[name].challenge
			if refused {
				c = e.schemes[name].refused
			}
			if c != "" && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return strings.Join(out, ", ")
}

// refuse answers an authentication failure; detail never holds the
// SecurityHandler's error, which may say why a token failed to verify.
func refuse(w http.ResponseWriter, status int, typ, challenge, detail string) {
	if challenge != "" {
		w.Header().Set("WWW-Authenticate", challenge)
	}
	problem.Write(w, status, typ, detail)
}

// caller is the ledger's caller of a keyed route: the principal
// authenticate found (prefixed, so it never meets another scope) when the
// server has WithSecurity, else a hash of the request's credentials.
func (e *Engine) caller(rt Route) func(*http.Request) (string, error) {
	if e.schemes == nil {
		return rt.caller
	}
	return func(r *http.Request) (string, error) {
		if p := Principal(r.Context()); p != "" {
			return principalScope + p, nil
		}
		if rt.Anonymous || len(rt.Security) == 0 {
			return anonymous, nil
		}
		return "", errNoCredentials
	}
}
