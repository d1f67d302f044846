// Package ir is idemgen's intermediate model: the resolved description of an
// API that sits between the parser and the generator.
//
// Everything here is plain data. Every $ref is resolved, every 3.0/3.1
// difference is normalised away, every retry decision is already made, and
// every slice is sorted, so the generator can emit code without knowing which
// OpenAPI version or which extension form a document used. The package imports
// nothing but the standard library so that neither side depends on the other.
package ir

import "strings"

// API is one loaded document.
type API struct {
	// Title, Version and Description come from the info object.
	Title       string
	Version     string
	Description string
	// OpenAPI is the version the document declared ("3.0.3", "3.1.0", or
	// "2.0" for a converted Swagger document).
	OpenAPI string
	// Servers lists the declared server URLs in document order.
	Servers []Server
	// BasePath is the path every operation is served under whatever the
	// host ("/v1"): a Swagger 2.0 document's basePath, or the path of a
	// relative first server of an OpenAPI 3 document; "" for none. A client
	// given a server URL without a path sends to that URL plus BasePath.
	BasePath string
	// Operations are sorted by GoName.
	Operations []*Operation
	// Schemas are the named types: every component schema plus every inline
	// schema the parser had to name (an inline object, enum or union). Sorted
	// by GoName; GoNames are unique.
	Schemas []*Schema
	// SecuritySchemes are sorted by GoName.
	SecuritySchemes []*SecurityScheme
	// Webhooks are the deliveries the API makes to its client, sorted by
	// GoName.
	Webhooks []*Webhook
	// Source points at the document root.
	Source Source
}

// Server is one entry of the servers list.
type Server struct {
	URL         string
	Description string
}

// AbsoluteServer reports whether a server URL is absolute (http or https)
// and has no variables, so that a client can send to it as written.
func AbsoluteServer(u string) bool {
	return !strings.Contains(u, "{") && (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://"))
}

// Source says where an element was written: the file, the JSON pointer inside
// it, and the line and column when the loader knows them (0 when not).
type Source struct {
	File    string
	Pointer string
	Line    int
	Column  int
}

// Operation is one method on one path.
type Operation struct {
	// ID is the operation's identity, unique within the client and the same
	// on every generation of the same document: the operationId as written
	// (or, without one, the name derived from the method and path,
	// "getOrdersOrderID") when no other operation's name is the same
	// compared without case and it reads like no other operation's binding;
	// otherwise its binding, the method and the path key as written
	// ("POST /cluster/nexus/endpoints"). It is the
	// runtime Operation's ID: journal entries, the reconciler, attempt
	// records, telemetry and the server's ledger name the operation by it.
	ID string
	// OperationID is the operationId as written, "" when there is none.
	OperationID string
	// GoName is the exported Go identifier of the client method
	// ("createPayment" -> "CreatePayment"), unique across the API.
	GoName string
	// Method is upper case ("POST").
	Method string
	// Path is the path template as written in the document ("/orders/{id}"),
	// without the fixed query string some documents put in path keys.
	Path string
	// Query is the fixed query string a path key carried after "?"
	// ("beta=true" for OpenAI's "/responses?beta=true"), to be sent with every
	// call; empty for ordinary paths.
	Query string
	// Tag is the first tag, used to group operations into files; "" when the
	// operation has none.
	Tag         string
	Tags        []string
	Summary     string
	Description string
	Deprecated  bool
	// Params holds every parameter (path item ones merged in, operation ones
	// winning), ordered: path parameters in template order, then query,
	// header, cookie, each group sorted by name.
	Params []*Parameter
	// Body is nil when the operation takes no request body.
	Body *RequestBody
	// Responses are sorted: exact codes ascending, then classes ("2XX"), then
	// default.
	Responses []*Response
	// Security lists the alternative requirements in force for this operation
	// (the operation's own, else the document's). Nil means none.
	Security []SecurityRequirement
	// Retry is the operation's resolved retry contract.
	Retry RetryContract
	// Pagination is how the operation's results are paged (x-pagination, or
	// inferred); nil when it is not paginated.
	Pagination *Pagination
	// Waiters are the operation's named waits (x-waiters), in document
	// order; nil for none.
	Waiters []*Waiter
	// Lookup is where a keyed or unsafe operation's result can be found
	// (x-lookup); nil for none.
	Lookup *Lookup
	// Servers are the servers the operation declares, else those of its
	// path item (Stripe's files.stripe.com for uploads); nil when the
	// document's servers apply.
	Servers []Server
	// Unsupported holds what the parser found that no client could send
	// (a header or cookie parameter, or a response header, whose name is
	// not an HTTP token), one located error each; the element is left out
	// of Params or Responses. The generator refuses the document over
	// them, or skips the operation under SkipUnsupported.
	Unsupported Diagnostics
	Source      Source
}

// ParamLocation is where a parameter travels.
type ParamLocation string

// The parameter locations of OpenAPI.
const (
	InPath   ParamLocation = "path"
	InQuery  ParamLocation = "query"
	InHeader ParamLocation = "header"
	InCookie ParamLocation = "cookie"
)

// ParamStyle is how a parameter, or a property of a form body, is
// serialised, as OpenAPI names it. The parser resolves it (a location's
// default included) and the generator passes it on as the runtime constant
// of the same name (wire.StyleForm for StyleForm).
type ParamStyle string

// Parameter serialisation styles, as OpenAPI names them. Adding one: a
// constant here and in StylesIn, and a constant of the same name in
// runtime/wire/param.go with its case in the switch of each location that
// allows it (runtime/wire/style.go); the generator emits the wire constant
// by name.
const (
	StyleSimple         ParamStyle = "simple"
	StyleForm           ParamStyle = "form"
	StyleLabel          ParamStyle = "label"
	StyleMatrix         ParamStyle = "matrix"
	StyleDeepObject     ParamStyle = "deepObject"
	StyleSpaceDelimited ParamStyle = "spaceDelimited"
	StylePipeDelimited  ParamStyle = "pipeDelimited"
)

// StylesIn lists the styles OpenAPI allows for a parameter in loc, the
// location's default first. The parser fills in that default; the generator
// refuses a style not listed (the client could not serialise it).
func StylesIn(loc ParamLocation) []ParamStyle {
	switch loc {
	case InPath:
		return []ParamStyle{StyleSimple, StyleLabel, StyleMatrix}
	case InQuery:
		return []ParamStyle{StyleForm, StyleSpaceDelimited, StylePipeDelimited, StyleDeepObject}
	case InHeader:
		return []ParamStyle{StyleSimple}
	case InCookie:
		return []ParamStyle{StyleForm}
	}
	return nil
}

// Parameter is one operation parameter.
type Parameter struct {
	// Name is the wire name as written ("If-Match", "customer_id").
	Name string
	// GoName is the exported field name in the params struct ("IfMatch",
	// "CustomerID"), unique within the operation.
	GoName string
	In     ParamLocation
	// Style and Explode are resolved: the defaults for the location are filled
	// in when the document leaves them out, so Style is never empty.
	Style         ParamStyle
	Explode       bool
	Required      bool
	AllowReserved bool
	// ContentType is set for a parameter described with `content` instead of
	// `schema` (the value is encoded with that media type, usually JSON).
	ContentType string
	Type        *Schema
	Description string
	Deprecated  bool
	Source      Source
}

// RequestBody is an operation's request body.
type RequestBody struct {
	Required    bool
	Description string
	// Content is sorted by media type name.
	Content []*MediaType
	Source  Source
}

// MediaType is one entry of a content map.
type MediaType struct {
	// Name is the media type as written, lower-cased, without parameters
	// ("application/json", "application/merge-patch+json", "text/plain").
	Name string
	// Schema is nil when the document gives none (any content).
	Schema *Schema
	// Encoding holds per-property encodings of form and multipart bodies,
	// sorted by property name.
	Encoding []*Encoding
	// Framing is set on a response media type whose body is a stream of
	// events (text/event-stream, JSON Lines, JSON text sequences); "" for a
	// body that is one document.
	Framing Framing
	// Event is the schema of one event of a streamed body: OpenAPI 3.2's
	// itemSchema when given (for text/event-stream, the schema of its data
	// member when the item describes the whole event), else Schema. Nil
	// means the events are plain strings.
	Event *Schema
	// Binary marks a response body the client hands to the caller as a
	// reader instead of decoding it (a download): a binary media type
	// (application/octet-stream, application/pdf, image/*, ...) or a string
	// schema of format binary.
	Binary bool
}

// Encoding is the encoding object of one form or multipart property.
type Encoding struct {
	Property    string
	ContentType string
	// Style is resolved: form when the document leaves it out.
	Style   ParamStyle
	Explode bool
}

// Response is one entry of an operation's responses.
type Response struct {
	// Status is the exact code (200, 404); 0 for a class or the default.
	Status int
	// Class is 1 to 5 for "1XX" to "5XX"; 0 otherwise.
	Class int
	// Default marks the `default` response.
	Default     bool
	Description string
	// Content is sorted by media type name; empty when there is no body.
	Content []*MediaType
	// Headers are the declared response headers, sorted by name.
	Headers []*Header
	Source  Source
}

// IsSuccess reports whether the response describes a 2xx outcome.
func (r *Response) IsSuccess() bool {
	return (r.Status >= 200 && r.Status < 300) || r.Class == 2
}

// Header is one declared response header.
type Header struct {
	Name        string
	GoName      string
	Required    bool
	Type        *Schema
	Description string
}

// SecurityRequirement is one alternative: every scheme listed must be applied.
type SecurityRequirement struct {
	// Schemes holds SecurityScheme names, sorted.
	Schemes []string
}

// SecurityScheme is one entry of components.securitySchemes.
type SecurityScheme struct {
	// Name is the key in components.securitySchemes.
	Name   string
	GoName string
	// Type is "http", "apiKey", "oauth2", "openIdConnect" or "mutualTLS".
	Type string
	// Scheme is the HTTP auth scheme for Type "http", lower case ("bearer",
	// "basic").
	Scheme       string
	BearerFormat string
	// In and ParamName locate an apiKey: In is "header", "query" or "cookie".
	In          ParamLocation
	ParamName   string
	Description string
	Source      Source
	// ClientCredentials is the OAuth2 client credentials flow of an
	// "oauth2" scheme (flows.clientCredentials), nil when it has none.
	ClientCredentials *OAuthFlow
	// Unsupported holds what makes the scheme unusable (an apiKey header
	// or cookie name that is not an HTTP token), one located error each. A
	// requirement naming a scheme the document does not declare gets a
	// placeholder scheme of that name, with only Name, GoName, Source and
	// one error per place the name is used here.
	// The generator refuses the document over it or, under
	// SkipUnsupported, drops the scheme: an operation keeps its other
	// alternatives, and one left with none is skipped.
	Unsupported Diagnostics
}

// PathTemplateNames returns the {names} of a path template in order
// ("/orders/{order_id}/items/{n}" -> order_id, n).
func PathTemplateNames(path string) []string {
	var names []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return names
		}
		names = append(names, path[i+1:i+j])
		path = path[i+j+1:]
	}
}
