package mock

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// proxy validates the request, forwards it to Options.Proxy whatever the
// result, and validates the response; each mismatch is logged.
func (s *Server) proxy(w http.ResponseWriter, r *http.Request, rt *route, pathParams map[string]string, x *exchange) {
	body, err := readBody(r, s.opts.MaxBody)
	if err != nil {
		writeProblem(w, http.StatusRequestEntityTooLarge, "body-too-large", "Request body too large",
			fmt.Sprintf("the body exceeds %d bytes", s.opts.MaxBody), nil)
		return
	}
	reqInput := &openapi3filter.RequestValidationInput{Request: r, PathParams: pathParams, Route: rt.kroute,
		Options: &openapi3filter.Options{MultiError: true, SkipSettingDefaults: true, AuthenticationFunc: authPresent}}
	var mismatches []string
	if p := s.validateRequest(r, rt, pathParams, body); p != nil {
		mismatches = append(mismatches, "request: "+p.Detail)
		s.count(rt.id, func(st *OpStats) { st.Rejected++ })
	}
	target := s.opts.Proxy
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
			pr.Out.Body = io.NopCloser(bytes.NewReader(body))
			pr.Out.ContentLength = int64(len(body))
		},
		ModifyResponse: func(resp *http.Response) error {
			s.count(rt.id, func(st *OpStats) { st.Executions++ })
			found, err := s.checkUpstream(resp, reqInput)
			mismatches = append(mismatches, found...)
			return err
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			mismatches = append(mismatches, "upstream: "+err.Error())
			writeProblem(w, http.StatusBadGateway, "upstream", "Upstream failed", err.Error(), nil)
		},
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rp.ServeHTTP(w, r)
	if len(mismatches) > 0 {
		x.validation = strings.Join(mismatches, " | ")
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return s
}

// checkUpstream validates an upstream answer against the document when its
// body is at most 16 times MaxBody, and leaves the whole body for the
// client; it returns the mismatches found.
func (s *Server) checkUpstream(resp *http.Response, reqInput *openapi3filter.RequestValidationInput) ([]string, error) {
	limit := 16 * s.opts.MaxBody
	upstream := resp.Body
	rb, err := io.ReadAll(io.LimitReader(upstream, limit+1))
	if err != nil {
		upstream.Close()
		return nil, err
	}
	if int64(len(rb)) > limit {
		// The client still gets the whole answer: what was read, then
		// the rest straight from upstream.
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(rb), upstream), upstream}
		return []string{fmt.Sprintf("response: body over %d bytes not validated", limit)}, nil
	}
	upstream.Close()
	resp.Body = io.NopCloser(bytes.NewReader(rb))
	if reqInput.Route != nil && s.answerTooDeep(reqInput.Route.Operation, resp.Header.Get("Content-Type"), rb) {
		return []string{fmt.Sprintf("response: body nests deeper than %d levels under a schema that recurses through a union; not validated", maxUnionNesting)}, nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput, Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true,
			SchemaValidationOptions: formatOpts,
			ExcludeResponseBody:     openapi3filter.RegisteredBodyDecoder(mediaBase(resp.Header.Get("Content-Type"))) == nil},
	}
	in.SetBodyBytes(rb)
	if err := openapi3filter.ValidateResponse(context.WithoutCancel(reqInput.Request.Context()), in); err != nil {
		return []string{"response: " + oneLine(err.Error())}, nil
	}
	return nil, nil
}
