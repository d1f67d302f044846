package generator

import "github.com/idemgen/idemgen/ir"

// The fixture is a hand-built IR exercising every construct the emitters
// handle, so the generator is tested without the parser.

func ref(d *ir.Schema) *ir.Schema      { return &ir.Schema{Kind: ir.KindRef, Ref: d} }
func str() *ir.Schema                  { return &ir.Schema{Kind: ir.KindString} }
func strf(format string) *ir.Schema    { return &ir.Schema{Kind: ir.KindString, Format: format} }
func integer(format string) *ir.Schema { return &ir.Schema{Kind: ir.KindInteger, Format: format} }
func arrayOf(s *ir.Schema) *ir.Schema  { return &ir.Schema{Kind: ir.KindArray, Items: s} }
func prop(name, goName string, t *ir.Schema, required bool) *ir.Property {
	return &ir.Property{Name: name, GoName: goName, Type: t, Required: required}
}
func jsonContent(s *ir.Schema) []*ir.MediaType {
	return []*ir.MediaType{{Name: "application/json", Schema: s}}
}

// fixture returns a fresh API each call (the generator must not depend on
// state left by a previous run).
func fixture() *ir.API {
	status := &ir.Schema{Name: "OrderStatus", GoName: "OrderStatus", Kind: ir.KindEnum, EnumBase: ir.KindString,
		Enum: []ir.EnumValue{{Value: "pending", GoName: "Pending"}, {Value: "paid", GoName: "Paid"}}}
	priority := &ir.Schema{Name: "Priority", GoName: "Priority", Kind: ir.KindEnum, EnumBase: ir.KindInteger,
		Enum: []ir.EnumValue{{Value: "1", GoName: "1"}, {Value: "2", GoName: "2"}, {Value: "2", GoName: "Two"}}}
	errModel := &ir.Schema{Name: "Error", GoName: "Error", Kind: ir.KindObject, Properties: []*ir.Property{
		prop("code", "Code", str(), true), prop("message", "Message", str(), true)}}
	node := &ir.Schema{Name: "Node", GoName: "Node", Kind: ir.KindObject}
	node.Properties = []*ir.Property{prop("children", "Children", arrayOf(ref(node)), false),
		prop("self", "Self", ref(node), true), prop("value", "Value", str(), true)}
	cat := &ir.Schema{Name: "Cat", GoName: "Cat", Kind: ir.KindObject, Properties: []*ir.Property{
		prop("kind", "Kind", str(), true), prop("lives", "Lives", integer("int32"), false)}}
	dog := &ir.Schema{Name: "Dog", GoName: "Dog", Kind: ir.KindObject, Properties: []*ir.Property{
		prop("kind", "Kind", str(), true), prop("bark", "Bark", &ir.Schema{Kind: ir.KindBool}, false)}}
	pet := &ir.Schema{Name: "Pet", GoName: "Pet", Kind: ir.KindUnion, Union: ir.OneOf,
		Variants: []*ir.Schema{ref(cat), ref(dog)}, Discriminator: &ir.Discriminator{Property: "kind",
			Mapping: []ir.DiscriminatorMapping{{Value: "cat", Schema: cat}, {Value: "dog", Schema: dog}}}}
	idOrName := &ir.Schema{Name: "IDOrName", GoName: "IDOrName", Kind: ir.KindUnion, Union: ir.AnyOf,
		Variants: []*ir.Schema{integer("int64"), str(), arrayOf(str())}}
	tags := &ir.Schema{Name: "Tags", GoName: "Tags", Kind: ir.KindArray, Items: str()}
	labels := &ir.Schema{Name: "Labels", GoName: "Labels", Kind: ir.KindMap, AdditionalProperties: str()}
	stamp := &ir.Schema{Name: "Stamp", GoName: "Stamp", Kind: ir.KindString, Format: ir.FormatDateTime}
	client := &ir.Schema{Name: "Client", GoName: "Client", Kind: ir.KindObject, Properties: []*ir.Property{
		prop("name", "Name", str(), true)}}
	order := &ir.Schema{Name: "Order", GoName: "Order", Kind: ir.KindObject, Properties: []*ir.Property{
		prop("id", "ID", strf(ir.FormatUUID), true),
		prop("status", "Status", ref(status), true),
		prop("priority", "Priority", ref(priority), false),
		prop("note", "Note", &ir.Schema{Kind: ir.KindString, Nullable: true}, true),
		prop("due", "Due", strf(ir.FormatDate), false),
		prop("created_at", "CreatedAt", strf(ir.FormatDateTime), true),
		prop("blob", "Blob", strf(ir.FormatByte), false),
		prop("pet", "Pet", ref(pet), false),
		prop("tags", "Tags", ref(tags), false),
		prop("labels", "Labels", ref(labels), false),
		prop("client", "Client", ref(client), false),
		prop("shipping", "Shipping", &ir.Schema{Kind: ir.KindObject, Properties: []*ir.Property{
			prop("address", "Address", str(), false)}}, false),
		prop("stamp", "Stamp", ref(stamp), false),
		prop("score", "Score", &ir.Schema{Kind: ir.KindNumber, Format: ir.FormatFloat}, false),
	}, AdditionalProperties: &ir.Schema{Kind: ir.KindAny}, Description: "An order.\n\nSecond paragraph */ with a comment closer."}
	upload := &ir.Schema{Name: "Upload", GoName: "Upload", Kind: ir.KindObject, Properties: []*ir.Property{
		prop("file", "File", strf(ir.FormatBinary), true), prop("title", "Title", str(), false)}}
	schemas := []*ir.Schema{cat, client, dog, errModel, idOrName, labels, node, order, pet, priority, stamp, status, tags, upload}
	return &ir.API{Title: "Fixture", Version: "1.0", Description: "A fixture.", OpenAPI: "3.0.3",
		Servers: []ir.Server{{URL: "https://api.example.com/v1"}}, Schemas: schemas,
		SecuritySchemes: fixtureSchemes(), Operations: withSummaries(fixtureOps(order, errModel, upload, status)),
		Source: ir.Source{File: "fixture.yaml"}}
}

func fixtureSchemes() []*ir.SecurityScheme {
	return []*ir.SecurityScheme{
		{Name: "apiKeyCookie", GoName: "APIKeyCookie", Type: "apiKey", In: ir.InCookie, ParamName: "sid"},
		{Name: "apiKeyHeader", GoName: "APIKeyHeader", Type: "apiKey", In: ir.InHeader, ParamName: "X-API-Key"},
		{Name: "apiKeyQuery", GoName: "APIKeyQuery", Type: "apiKey", In: ir.InQuery, ParamName: "api_key"},
		{Name: "basicAuth", GoName: "BasicAuth", Type: "http", Scheme: "basic"},
		{Name: "bearerAuth", GoName: "BearerAuth", Type: "http", Scheme: "bearer"},
		{Name: "mtls", GoName: "Mtls", Type: "mutualTLS"},
	}
}

func retry(safety ir.Safety) ir.RetryContract {
	r := ir.RetryContract{Safety: safety, Retryable: ir.DefaultRetryable()}
	if safety == ir.Keyed {
		r.KeyIn, r.KeyName = "header", "Idempotency-Key"
	}
	return r
}

// withSummaries sets each operation's contract sentence the way the parser
// words it for the default retryable set (the generator only prints it).
func withSummaries(ops []*ir.Operation) []*ir.Operation {
	tails := map[ir.Safety]string{
		ir.Keyed:      " is keyed: every attempt sends one Idempotency-Key; retried on 408, 429, 502, 503, 504 and on unknown outcomes.",
		ir.Idempotent: " is idempotent: retried on 408, 429, 502, 503, 504 and on unknown outcomes.",
		ir.Unsafe:     " is not idempotent: never resent once the request may have reached the server; retried only when it was not sent or on 429.",
	}
	for _, op := range ops {
		op.Retry.Summary = op.GoName + tails[op.Retry.Safety]
	}
	return ops
}

func errorResponses4xx(errModel *ir.Schema) []*ir.Response {
	return []*ir.Response{
		{Status: 404, Content: jsonContent(ref(errModel))},
		{Status: 409, Content: jsonContent(ref(errModel))},
		{Class: 5, Content: jsonContent(ref(errModel))},
		{Default: true, Content: jsonContent(ref(errModel))},
	}
}

func fixtureOps(order, errModel, upload, status *ir.Schema) []*ir.Operation {
	orderID := &ir.Parameter{Name: "order_id", GoName: "OrderID", In: ir.InPath, Style: "simple", Required: true, Type: str()}
	return []*ir.Operation{
		{ID: "createOrder", GoName: "CreateOrder", Method: "POST", Path: "/orders", Tag: "orders", Retry: retry(ir.Keyed),
			Params: []*ir.Parameter{{Name: "Idempotency-Key", GoName: "IdempotencyKey", In: ir.InHeader, Style: "simple", Type: str()}},
			Body:   &ir.RequestBody{Required: true, Content: jsonContent(ref(order))},
			Responses: append([]*ir.Response{{Status: 201, Content: jsonContent(ref(order))}},
				errorResponses4xx(errModel)...)},
		{ID: "deleteOrder", GoName: "DeleteOrder", Method: "DELETE", Path: "/orders/{order_id}", Tag: "orders",
			Retry: retry(ir.Idempotent), Params: []*ir.Parameter{orderID}, Responses: []*ir.Response{{Status: 204}}},
		{ID: "getOrder", GoName: "GetOrder", Method: "GET", Path: "/orders/{order_id}", Tag: "orders", Retry: retry(ir.Idempotent),
			Params: []*ir.Parameter{orderID,
				{Name: "status", GoName: "Status", In: ir.InQuery, Style: "form", Explode: true, Type: arrayOf(ref(status))},
				{Name: "If-None-Match", GoName: "IfNoneMatch", In: ir.InHeader, Style: "simple", Type: str()},
				{Name: "session", GoName: "Session", In: ir.InCookie, Style: "form", Explode: true, Type: str()},
				{Name: "hint", GoName: "Hint", In: ir.InQuery, Style: "form", Explode: true, Type: &ir.Schema{Kind: ir.KindAny}}},
			Responses: []*ir.Response{{Status: 200, Content: jsonContent(ref(order)), Headers: []*ir.Header{
				{Name: "ETag", GoName: "ETag", Type: str()}, {Name: "X-Rate", GoName: "XRate", Type: integer("")}}},
				{Status: 404, Content: jsonContent(ref(errModel))}}},
		{ID: "sendReceipt", GoName: "SendReceipt", Method: "POST", Path: "/orders/{order_id}/receipt", Retry: retry(ir.Unsafe),
			Params: []*ir.Parameter{orderID}, Body: &ir.RequestBody{Content: []*ir.MediaType{{Name: "text/plain", Schema: str()}}},
			Responses: []*ir.Response{{Status: 200, Content: []*ir.MediaType{{Name: "text/plain", Schema: str()}}},
				{Status: 202, Content: jsonContent(ref(order))}}},
		{ID: "uploadFile", GoName: "UploadFile", Method: "POST", Path: "/files", Tag: "files", Retry: retry(ir.Unsafe),
			Body:      &ir.RequestBody{Required: true, Content: []*ir.MediaType{{Name: "multipart/form-data", Schema: ref(upload)}}},
			Responses: []*ir.Response{{Status: 200, Content: []*ir.MediaType{{Name: "application/octet-stream", Schema: strf(ir.FormatBinary)}}}}},
		{ID: "putRaw", GoName: "PutRaw", Method: "PUT", Path: "/files/{order_id}", Tag: "files", Retry: retry(ir.Idempotent),
			Params: []*ir.Parameter{orderID},
			Body:   &ir.RequestBody{Required: true, Content: []*ir.MediaType{{Name: "application/octet-stream", Schema: strf(ir.FormatBinary)}}}},
		{ID: "getStatus", GoName: "GetStatus", Method: "GET", Path: "/status", Retry: retry(ir.Idempotent),
			Responses: []*ir.Response{{Default: true, Content: jsonContent(ref(status))}}},
		{ID: "submitForm", GoName: "SubmitForm", Method: "POST", Path: "/forms", Tag: "files", Retry: retry(ir.Unsafe),
			Body: &ir.RequestBody{Content: []*ir.MediaType{{Name: "application/x-www-form-urlencoded", Schema: ref(order),
				Encoding: []*ir.Encoding{{Property: "labels", Style: "deepObject", Explode: true}, {Property: "tags", Style: "form"}}}}}},
	}
}
