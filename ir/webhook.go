package ir

// Webhook is one delivery the API makes to its client: an entry of the
// document's webhooks (OpenAPI 3.1, or x-webhooks read as such), or a POST
// of an operation's callbacks. A generated receiver gives each one a
// handler method.
type Webhook struct {
	// Name is the webhook's key (under webhooks, or the callback's name): the
	// last path segment a delivery of it is posted to.
	Name string
	// ID is the operationId, or Name when there is none.
	ID string
	// GoName is the exported handler method name, unique among webhooks.
	GoName string
	// EventType is the value the payload's `type` member is pinned to (a
	// const, or an enum of one value), else Name; "" when another webhook
	// already claims it (it is then routed by path only).
	EventType   string
	Summary     string
	Description string
	Deprecated  bool
	// Payload is the schema of the JSON body (a use; a named component is a
	// KindRef shared with the client's models).
	Payload *Schema
	Source  Source
}
