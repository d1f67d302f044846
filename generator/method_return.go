package generator

import (
	"mime"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// returnKind is what an operation's main method returns: a decoded value, a
// stream or a download.
type returnKind int

const (
	// returnDecoded decodes the answer into a value.
	returnDecoded returnKind = iota
	// returnStream returns *idemrt.Stream[T]: the operation only streams.
	returnStream
	// returnDownload returns *idemrt.Body: the operation only answers bytes
	// the caller reads (and may stream events besides).
	returnDownload
)

// mainReturn decides what the method named after the operation returns: a
// decoded value when any success body decodes into one (JSON, text,
// undeclared kinds of bytes), else a download when a binary body is
// declared, else a stream when one is. The other kinds each get a method of
// their own (altStream, altDownload).
func mainReturn(op *ir.Operation) returnKind {
	var binary, stream bool
	for _, r := range successResponses(op) {
		for _, m := range r.Content {
			switch {
			case m.Framing != "":
				stream = true
			case m.Binary:
				binary = true
			default:
				return returnDecoded
			}
		}
	}
	switch {
	case binary:
		return returnDownload
	case stream:
		return returnStream
	}
	return returnDecoded
}

// streamFramings orders the framings an operation may declare several of:
// the method streams the first.
var streamFramings = []ir.Framing{ir.FramingSSE, ir.FramingJSONLines, ir.FramingJSONSeq}

// streamMedia returns the streamed media type of the success responses
// (Server-Sent Events preferred, then JSON Lines, then JSON text sequences,
// then IR order), or nil.
func streamMedia(op *ir.Operation) *ir.MediaType {
	for _, f := range streamFramings {
		for _, r := range successResponses(op) {
			for _, m := range r.Content {
				if m.Framing == f {
					return m
				}
			}
		}
	}
	return nil
}

// binaryTypes lists, once each and in IR order, the binary media types of
// the success responses: what a download accepts.
func binaryTypes(op *ir.Operation) []string {
	var out []string
	for _, r := range successResponses(op) {
		for _, m := range r.Content {
			if m.Binary && !contains(out, m.Name) {
				out = append(out, m.Name)
			}
		}
	}
	return out
}

// altStream reports whether the operation gets an <Op>Stream method: it
// streams, and its main method returns something else.
func altStream(op *ir.Operation) bool {
	return mainReturn(op) != returnStream && streamMedia(op) != nil
}

// altDownload reports whether the operation gets an <Op>Download method:
// it declares a binary body beside bodies its main method decodes.
func altDownload(op *ir.Operation) bool {
	return mainReturn(op) == returnDecoded && len(binaryTypes(op)) > 0
}

// mainAccept is the Accept header of the main method: every media type the
// operation's responses declare, so that a server negotiating by Accept
// answers the API's way (Kratos takes a request that does not ask for JSON
// for a browser's and redirects it to its UI). First the types the method
// reads as success, in its order of preference (JSON, text, bytes, by
// response), or the binary types of a method that only downloads; then,
// ranked below them with q=0.9, the types only other responses declare
// (error models, redirect bodies), so that a server able to answer both
// picks the success's. Streams are <Op>Stream's to ask for. An operation
// whose responses declare no content sends no Accept: nothing of the answer
// is decoded, and "*/*" would say nothing a missing header does not.
func mainAccept(op *ir.Operation) string {
	var first []string
	if mainReturn(op) == returnDownload {
		first = appendNew(nil, binaryTypes(op)...)
	} else {
		for _, b := range successBodies(op) {
			first = appendNew(first, b.types...)
		}
	}
	success := successResponses(op)
	var rest []string
	for _, r := range op.Responses {
		if slices.Contains(success, r) {
			continue
		}
		for _, m := range r.Content {
			if m.Framing == "" && !contains(first, m.Name) {
				rest = appendNew(rest, m.Name)
			}
		}
	}
	if len(first) == 0 {
		return strings.Join(rest, ", ")
	}
	for i := range rest {
		rest[i] += ";q=0.9"
	}
	return strings.Join(append(first, rest...), ", ")
}

// appendNew appends the names list does not hold yet, in order, leaving
// out those that are not media ranges (acceptable).
func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		if acceptable(n) && !contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}

// acceptable reports whether a declared media type name may go in an
// Accept header: one type/subtype with its parameters. A document can name
// a type "application/json\r\nX-Evil: 1" or "text/plain, */*"; net/http
// refuses to send a CR/LF, so every call would fail unsent, and a list
// would ask for what the document does not declare.
func acceptable(name string) bool {
	mt, _, err := mime.ParseMediaType(name)
	return err == nil && strings.Count(mt, "/") == 1 && !strings.ContainsAny(name, ",\r\n")
}

// returnsValue reports whether the main method returns something besides
// the error.
func (g *generation) returnsValue(op *ir.Operation) bool {
	return mainReturn(op) != returnDecoded || g.opNames[op].result != "" || len(successBodies(op)) > 0
}

// reserveAltMethods names the <Op>Stream and <Op>Download methods, after
// every operation's own method name is taken (a "_" on collision:
// CreateCompletionStream_ when the document has a createCompletionStream).
func (g *generation) reserveAltMethods(ops []*ir.Operation) {
	methods := namespace{}
	for _, op := range ops {
		methods[op.GoName] = true
	}
	for _, op := range ops {
		if altStream(op) {
			g.opNames[op].stream = methods.claim(op.GoName+"Stream", "_")
		}
		if altDownload(op) {
			g.opNames[op].download = methods.claim(op.GoName+"Download", "_")
		}
	}
}
