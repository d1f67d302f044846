package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/idemgen/idemgen/runtime/problem"
)

// formatOpts make formats part of validation: kin-openapi's own (date,
// date-time, email, byte, ...) and uuid (RFC 9562).
var formatOpts = []openapi3.SchemaValidationOption{
	openapi3.EnableFormatValidation(),
	openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
}

// schemaOpts are the options the mock's own request checks validate with:
// as a request, every error, formats, and JSON Schema 2020-12 for an
// OpenAPI 3.1 document (const, type lists), as openapi3filter does.
func (rt *route) schemaOpts() []openapi3.SchemaValidationOption {
	opts := append([]openapi3.SchemaValidationOption{openapi3.VisitAsRequest(), openapi3.MultiErrors()}, formatOpts...)
	if rt.kroute != nil && rt.kroute.Spec != nil && rt.kroute.Spec.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	return opts
}

// problemBase prefixes the type URIs of the mock's own problems.
const problemBase = "https://github.com/idemgen/idemgen/blob/main/docs/mock.md#"

// FieldError is one failing part of a request: where it is (in: path,
// query, header, cookie, body, security), which parameter, the RFC 6901
// pointer inside its value, and why.
type FieldError struct {
	In      string `json:"in"`
	Name    string `json:"name,omitempty"`
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
}

// Problem is an RFC 9457 problem document with the failing fields.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []FieldError `json:"errors,omitempty"`
}

func (p *Problem) summary() string {
	if len(p.Errors) == 0 {
		return p.Title
	}
	e := p.Errors[0]
	where := e.In
	if e.Name != "" {
		where += " " + e.Name
	}
	if e.Pointer != "" {
		where += " " + e.Pointer
	}
	return where + ": " + e.Reason
}

func writeProblem(w http.ResponseWriter, status int, typ, title, detail string, errs []FieldError) {
	b, _ := json.Marshal(Problem{Type: problemBase + typ, Title: title, Status: status, Detail: detail, Errors: errs})
	problem.WriteBody(w, status, append(b, '\n'))
}

// validateRequest checks content type, then everything openapi3filter
// checks; nil means valid.
func (s *Server) validateRequest(r *http.Request, rt *route, pathParams map[string]string, body []byte) *Problem {
	opts := &openapi3filter.Options{
		MultiError:          true,
		SkipSettingDefaults: true,
		AuthenticationFunc:  authPresent,
		// Formats (uuid, date-time, email, ...) are part of the contract.
		SchemaValidationOptions: formatOpts,
	}
	bodyFields, p := s.checkBody(r, rt, body, opts)
	if p != nil {
		return p
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: pathParams, Route: rt.kroute, Options: opts}
	err := openapi3filter.ValidateRequest(context.WithoutCancel(r.Context()), in)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var fields []FieldError
	security := false
	if err != nil {
		security = collect(err, &fields)
	}
	fields = dedupe(append(withOwnQueryParams(r, rt, fields), bodyFields...))
	if len(fields) == 0 {
		return nil
	}
	return invalidRequest(rt, fields, security)
}

// checkBody checks what comes before openapi3filter, or instead of it: the
// declared content type, the nesting of a body whose schema recurses
// through a union, and the bodies kin-openapi cannot read (it then tells
// opts to skip them).
func (s *Server) checkBody(r *http.Request, rt *route, body []byte, opts *openapi3filter.Options) ([]FieldError, *Problem) {
	rb := rt.op.RequestBody
	ct := r.Header.Get("Content-Type")
	if rb == nil || rb.Value == nil || len(body) == 0 && ct == "" {
		return nil, nil
	}
	mt := mediaBase(ct)
	media := declared(rb.Value.Content, mt)
	if media == nil {
		return nil, &Problem{
			Status: http.StatusUnsupportedMediaType, Type: "unsupported-media-type", Title: "Unsupported media type",
			Detail: fmt.Sprintf("%s accepts %s, not %q", rt.id, strings.Join(sortedKeys(rb.Value.Content), ", "), ct),
			Errors: []FieldError{{In: "header", Name: "Content-Type", Reason: fmt.Sprintf("%q is not a declared media type", ct)}},
		}
	}
	if p := s.nestingProblem(rt, media, mt, body); p != nil {
		return nil, p
	}
	switch {
	case mt == "multipart/form-data":
		return validateMultipart(rt, media, ct, body, opts), nil
	case mt == "application/x-www-form-urlencoded":
		// Nested forms (a[b][0]=v) are beyond kin-openapi's decoder:
		// the mock decodes and validates them itself.
		opts.ExcludeRequestBody = true
		return validateForm(rt, media, body), nil
	case openapi3filter.RegisteredBodyDecoder(mt) == nil:
		// Declared, but kin-openapi cannot decode it: the content type
		// was checked, the body cannot be.
		opts.ExcludeRequestBody = true
	}
	return nil, nil
}

// withOwnQueryParams puts the mock's verdict on the query parameters
// kin-openapi cannot decode in place of its own: deepObject ones (it
// refuses lists and nested objects in them) and form ones whose schema is
// a union (unionParams).
func withOwnQueryParams(r *http.Request, rt *route, fields []FieldError) []FieldError {
	deep, unions := deepObjectParams(rt), unionParams(rt)
	if len(deep)+len(unions) == 0 {
		return fields
	}
	kept := fields[:0]
	for _, f := range fields {
		if !(f.In == openapi3.ParameterInQuery && (deep[f.Name] != nil || unions[f.Name] != nil)) {
			kept = append(kept, f)
		}
	}
	return append(append(kept, validateDeepObjects(r, rt, deep)...), validateUnionParams(r, rt, unions)...)
}

// invalidRequest is the problem of a request with failing fields: 401 when
// only credentials are missing, else 400.
func invalidRequest(rt *route, fields []FieldError, security bool) *Problem {
	p := &Problem{Status: http.StatusBadRequest, Type: "invalid-request", Title: "The request does not match the document"}
	if security && len(fields) == countIn(fields, "security") {
		p.Status, p.Type, p.Title = http.StatusUnauthorized, "missing-credentials", "No credentials that the operation accepts"
	}
	var parts []string
	for _, f := range fields {
		where := f.In
		if f.Name != "" {
			where += " " + f.Name
		}
		if f.Pointer != "" {
			where += " " + f.Pointer
		}
		parts = append(parts, where+": "+f.Reason)
	}
	p.Detail = rt.id + ": " + strings.Join(parts, "; ")
	p.Errors = fields
	return p
}

// missingParts reports the required members of a multipart body that no
// part carries.
func missingParts(media *openapi3.MediaType, ct string, body []byte) []FieldError {
	if media == nil || media.Schema == nil || media.Schema.Value == nil || len(media.Schema.Value.Required) == 0 {
		return nil
	}
	_, params, err := mime.ParseMediaType(ct)
	if err != nil || params["boundary"] == "" {
		return []FieldError{{In: "header", Name: "Content-Type", Reason: "multipart/form-data without a boundary"}}
	}
	seen := map[string]bool{}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for n := 0; n < maxParts; n++ {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		seen[part.FormName()] = true
	}
	var out []FieldError
	for _, name := range media.Schema.Value.Required {
		if !seen[name] {
			out = append(out, FieldError{In: "body", Pointer: pointer([]string{name}), Reason: fmt.Sprintf("property %q is missing", name)})
		}
	}
	return out
}

// dedupe drops a second report of the same place and reason.
func dedupe(fs []FieldError) []FieldError {
	seen := map[FieldError]bool{}
	out := fs[:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func deepObjectParams(rt *route) map[string]*openapi3.Parameter {
	var out map[string]*openapi3.Parameter
	for _, p := range params(rt.item, rt.op) {
		if p.In == openapi3.ParameterInQuery && p.Style == openapi3.SerializationDeepObject {
			if out == nil {
				out = map[string]*openapi3.Parameter{}
			}
			out[p.Name] = p
		}
	}
	return out
}

// validateDeepObjects reads each deepObject parameter from the query as a
// form key (name[a][0][b]=v) and validates it against its schema.
func validateDeepObjects(r *http.Request, rt *route, deep map[string]*openapi3.Parameter) []FieldError {
	var out []FieldError
	q := r.URL.Query()
	for _, name := range sortedKeys(deep) {
		p := deep[name]
		sub := url.Values{}
		for k, vs := range q {
			if k == name || strings.HasPrefix(k, name+"[") {
				sub[k] = vs
			}
		}
		if len(sub) == 0 {
			if p.Required {
				out = append(out, FieldError{In: "query", Name: name, Reason: "value is required but missing"})
			}
			continue
		}
		form, ok := decodeForm([]byte(sub.Encode()))
		if !ok || p.Schema == nil || p.Schema.Value == nil {
			if !ok {
				out = append(out, FieldError{In: "query", Name: name, Reason: "malformed deepObject key"})
			}
			continue
		}
		out = append(out, validateParamValue(rt, p, form[name])...)
	}
	return out
}

// validateParamValue validates a query parameter's decoded value, its
// strings first given the schema's types.
func validateParamValue(rt *route, p *openapi3.Parameter, v any) []FieldError {
	v = coerceForm(v, p.Schema, 0)
	err := p.Schema.Value.VisitJSON(v, rt.schemaOpts()...)
	if err == nil {
		return nil
	}
	var out []FieldError
	schemaErrors(err, FieldError{In: "query", Name: p.Name}, &out)
	if len(out) == 0 {
		out = append(out, FieldError{In: "query", Name: p.Name, Reason: err.Error()})
	}
	return out
}

// validateForm checks a form body against its schema; nil means valid.
func validateForm(rt *route, media *openapi3.MediaType, body []byte) []FieldError {
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return nil
	}
	form, ok := decodeForm(body)
	if !ok {
		return []FieldError{{In: "body", Reason: "not a valid form (application/x-www-form-urlencoded) body"}}
	}
	return validateFormValue(rt, media, form)
}

// validateFormValue validates a decoded form (or multipart body) against
// the media type's schema, its strings first given the schema's types.
func validateFormValue(rt *route, media *openapi3.MediaType, form map[string]any) []FieldError {
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return nil
	}
	v := coerceForm(form, media.Schema, 0)
	err := media.Schema.Value.VisitJSON(v, rt.schemaOpts()...)
	if err == nil {
		return nil
	}
	var out []FieldError
	schemaErrors(err, FieldError{In: "body"}, &out)
	if len(out) == 0 {
		out = append(out, FieldError{In: "body", Reason: err.Error()})
	}
	return out
}

func countIn(fs []FieldError, in string) int {
	n := 0
	for _, f := range fs {
		if f.In == in {
			n++
		}
	}
	return n
}

// declared finds the media type of content that mt matches (exactly, by
// type/*, or */*).
func declared(content openapi3.Content, mt string) *openapi3.MediaType {
	if m := content[mt]; m != nil {
		return m
	}
	for k, m := range content {
		if mediaBase(k) == mt {
			return m
		}
	}
	typ, _, _ := strings.Cut(mt, "/")
	if m := content[typ+"/*"]; m != nil && mt != "" {
		return m
	}
	return content["*/*"]
}

// collect flattens openapi3filter's errors into fields; it reports whether
// a security requirement failed.
func collect(err error, out *[]FieldError) (security bool) {
	var multi openapi3.MultiError
	if errors.As(err, &multi) && !isRequestError(err) {
		for _, e := range multi {
			if collect(e, out) {
				security = true
			}
		}
		return security
	}
	var sec *openapi3filter.SecurityRequirementsError
	if errors.As(err, &sec) {
		reason := "no credentials for any accepted security requirement"
		if len(sec.Errors) > 0 {
			reason = sec.Errors[0].Error()
		}
		*out = append(*out, FieldError{In: "security", Reason: reason})
		return true
	}
	var re *openapi3filter.RequestError
	if errors.As(err, &re) {
		requestFields(re, out)
		return false
	}
	*out = append(*out, FieldError{In: "request", Reason: err.Error()})
	return false
}

// requestFields adds the fields of one failing parameter or body.
func requestFields(re *openapi3filter.RequestError, out *[]FieldError) {
	if undecodable(re.Err) {
		// A declared media type kin-openapi cannot decode (a multipart
		// part in text/markdown, application/sdp): not checkable, so not
		// a fault of the request.
		return
	}
	f := FieldError{In: "body"}
	if re.Parameter != nil {
		f.In, f.Name = re.Parameter.In, re.Parameter.Name
	}
	n := len(*out)
	schemaErrors(re.Err, f, out)
	if len(*out) > n {
		return
	}
	f.Reason = re.Reason
	if f.Reason == "" && re.Err != nil {
		f.Reason = re.Err.Error()
	} else if re.Err != nil && !strings.Contains(f.Reason, re.Err.Error()) {
		f.Reason += ": " + re.Err.Error()
	}
	*out = append(*out, f)
}

// undecodable reports a parse error whose root is a media type kin-openapi
// has no decoder for.
func undecodable(err error) bool {
	var pe *openapi3filter.ParseError
	if !errors.As(err, &pe) {
		return false
	}
	for depth := 0; pe != nil && depth < 32; depth++ {
		if pe.Kind == openapi3filter.KindUnsupportedFormat {
			return true
		}
		pe, _ = pe.Cause.(*openapi3filter.ParseError)
	}
	return false
}

func isRequestError(err error) bool {
	var re *openapi3filter.RequestError
	var sec *openapi3filter.SecurityRequirementsError
	_, multi := err.(openapi3.MultiError)
	return !multi && (errors.As(err, &re) || errors.As(err, &sec))
}

// schemaErrors adds one field per schema error inside err, located by its
// JSON pointer.
func schemaErrors(err error, base FieldError, out *[]FieldError) {
	if err == nil {
		return
	}
	if multi, ok := err.(openapi3.MultiError); ok {
		for _, e := range multi {
			schemaErrors(e, base, out)
		}
		return
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		f := base
		f.Pointer = pointer(se.JSONPointer())
		f.Reason = se.Reason
		*out = append(*out, f)
		return
	}
	var pe *openapi3filter.ParseError
	if errors.As(err, &pe) {
		f := base
		f.Pointer = pointer(pathStrings(pe.Path()))
		f.Reason = pe.Error()
		*out = append(*out, f)
	}
}

func pathStrings(p []any) []string {
	out := make([]string, len(p))
	for i, x := range p {
		out[i] = fmt.Sprint(x)
	}
	return out
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// authPresent checks that the credentials a scheme needs are present; the
// mock does not check their value.
func authPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	sc := in.SecurityScheme
	r := in.RequestValidationInput.Request
	if sc == nil {
		return nil
	}
	switch sc.Type {
	case "http":
		h := r.Header.Get("Authorization")
		scheme := strings.ToLower(sc.Scheme)
		if h == "" || scheme != "" && !strings.HasPrefix(strings.ToLower(h), scheme+" ") {
			return fmt.Errorf("%s: Authorization: %s credentials missing", in.SecuritySchemeName, sc.Scheme)
		}
	case "apiKey":
		ok := false
		switch sc.In {
		case "header":
			ok = r.Header.Get(sc.Name) != ""
		case "query":
			ok = r.URL.Query().Has(sc.Name)
		case "cookie":
			_, err := r.Cookie(sc.Name)
			ok = err == nil
		}
		if !ok {
			return fmt.Errorf("%s: API key %s (in %s) missing", in.SecuritySchemeName, sc.Name, sc.In)
		}
	case "oauth2", "openIdConnect":
		if r.Header.Get("Authorization") == "" {
			return fmt.Errorf("%s: Authorization missing", in.SecuritySchemeName)
		}
	}
	return nil
}
