package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// examplesFile emits example_test.go of a generated module: ExampleNewClient
// (compiled, not run: it names the real server) and, for each tag, one
// example calling a real operation against a loopback httptest server, with
// an "// Output:" block so that `go test` runs it. The server prints the
// request line it received; the example prints "ok" when the call decoded
// the answer. A tag whose operations need arguments the generator cannot
// make up (a union body, a non-simple path style) gets an example that is
// compiled but not run.
func (g *generation) examplesFile(ops []*ir.Operation) *jen.File {
	f := jen.NewFilePathName("", g.cfg.Package+"_test")
	f.HeaderComment(Header[3:])
	// An explicit name: the package's name need not be the path's last
	// element ("payments" in github.com/acme/payments-go).
	f.ImportAlias(g.cfg.Module, exampleImportName(g.cfg.Package))
	f.ImportAlias(rtPath, "idemrt")
	f.Add(g.exampleNewClient())
	for _, grp := range groupByFile(ops) {
		if op, ex := g.pickExample(grp.ops); op != nil {
			f.Line().Add(g.exampleCall(op, ex))
		}
	}
	return f
}

// exampleLocals are the variables the examples declare; a package of one of
// these names would be shadowed by them (`c, err := c.NewClient(...)` and
// then `c.GetOrderParams` is no longer the package).
var exampleLocals = map[string]bool{"c": true, "srv": true, "out": true, "w": true, "r": true}

// exampleImportName is the name example_test.go imports the package under.
func exampleImportName(pkg string) string {
	if exampleLocals[pkg] {
		return pkg + "api"
	}
	return pkg
}

// opExample is what an example of one operation passes and expects.
type opExample struct {
	args     []jen.Code // after ctx
	path     string     // the path the server sees
	runnable bool
	// status, contentType and body are the loopback server's answer.
	status      int
	contentType string
	body        string
}

// pickExample chooses the operation a tag's example calls: the runnable
// one that reads best (a GET, then one without a body, then the first in IR
// order); else the first that can at least be compiled.
func (g *generation) pickExample(ops []*ir.Operation) (*ir.Operation, opExample) {
	var best *ir.Operation
	var bex opExample
	bestScore := -1
	for _, op := range ops {
		ex, ok := g.exampleOf(op)
		if !ok {
			continue
		}
		score := 0
		if ex.runnable {
			score += 4
		}
		if op.Method == "GET" {
			score += 2
		}
		if requestBody(op) == nil {
			score++
		}
		if score > bestScore {
			best, bex, bestScore = op, ex, score
		}
	}
	return best, bex
}

// exampleOf builds the arguments of a call to op; ok is false when no
// argument list can be made.
func (g *generation) exampleOf(op *ir.Operation) (opExample, bool) {
	ex := opExample{path: op.Path, runnable: true}
	if plan := requestBody(op); plan != nil {
		arg, ok := g.exampleBody(plan)
		if !ok {
			return ex, false
		}
		ex.args = append(ex.args, arg)
	}
	if ids := g.opNames[op]; ids.params != "" {
		ex.args = append(ex.args, g.exampleParams(op, &ex))
	}
	g.exampleAnswer(op, &ex)
	if strings.ContainsFunc(ex.path, func(r rune) bool { return r < ' ' || r > '~' }) || op.Query != "" {
		// The Output block would not match byte for byte; compile only.
		ex.runnable = false
	}
	if mainReturn(op) != returnDecoded {
		// A stream or a reader is left to the caller to consume: compile only.
		ex.runnable = false
	}
	return ex, true
}

// exampleParams is the params literal, with a placeholder in every required
// scalar parameter; ex.path gets the placeholders of the path parameters.
func (g *generation) exampleParams(op *ir.Operation, ex *opExample) jen.Code {
	params, names := paramFields(op)
	var vals []jen.Code
	for i, p := range params {
		if !p.Required {
			continue
		}
		lit, text, ok := placeholder(p.Type)
		if !ok {
			ex.runnable = false
			continue
		}
		vals = append(vals, jen.Id(names[i]).Op(":").Add(lit))
		if p.In == ir.InPath {
			if p.Style != ir.StyleSimple && p.Style != "" {
				ex.runnable = false
			}
			ex.path = strings.ReplaceAll(ex.path, "{"+p.Name+"}", text)
		}
	}
	return jen.Qual(g.cfg.Module, g.opNames[op].params).Values(vals...)
}

// placeholder is an example value for a required parameter of schema s and
// its text on the wire.
func placeholder(s *ir.Schema) (jen.Code, string, bool) {
	d := declaration(s)
	kind := ir.KindAny
	if d != nil {
		kind = d.Kind
		if kind == ir.KindEnum {
			kind = d.EnumBase
		}
	}
	switch {
	case kind == ir.KindAny || kind == ir.KindString && plainString(d.Format):
		return jen.Lit("example"), "example", true
	case kind == ir.KindInteger || kind == ir.KindNumber:
		return jen.Lit(1), "1", true
	case kind == ir.KindBool:
		return jen.True(), "true", true
	}
	return nil, "", false
}

// plainString reports whether a string format maps to Go's string (not
// time.Time, idemrt.Date or []byte).
func plainString(format string) bool {
	switch format {
	case ir.FormatDateTime, ir.FormatDate, ir.FormatByte, ir.FormatBinary:
		return false
	}
	return true
}

// declaration follows references to the schema that says what a value is.
func declaration(s *ir.Schema) *ir.Schema {
	for i := 0; s != nil && s.Kind == ir.KindRef && i < 64; i++ {
		if s.Ref == s {
			return nil
		}
		s = s.Ref
	}
	if s != nil && s.Kind == ir.KindRef {
		return nil
	}
	return s
}

// exampleBody is the body argument: nil when optional, else a zero value.
func (g *generation) exampleBody(p *bodyPlan) (jen.Code, bool) {
	switch {
	case p.optional && p.kind != bodyRaw:
		return jen.Nil(), true
	case p.kind == bodyText:
		return jen.Lit(""), true
	case p.kind == bodyRaw:
		return jen.Qual("strings", "NewReader").Call(jen.Lit("")), true
	}
	s := p.media.Schema
	if s != nil && s.Kind == ir.KindRef {
		name, ok := g.typeNames[s.Ref]
		if !ok {
			return nil, false
		}
		switch s.Ref.Deref().Kind {
		case ir.KindObject, ir.KindUnion, ir.KindArray, ir.KindMap:
			return jen.Qual(g.cfg.Module, name).Values(), true
		}
		return jen.Op("*").New(jen.Qual(g.cfg.Module, name)), true
	}
	switch d := declaration(s); {
	case d == nil || d.Kind == ir.KindAny:
		return jen.Nil(), true
	case d.Kind == ir.KindArray || d.Kind == ir.KindMap:
		return jen.Nil(), true
	case d.Kind == ir.KindString:
		return jen.Lit(""), true
	case d.Kind == ir.KindInteger || d.Kind == ir.KindNumber:
		return jen.Lit(0), true
	case d.Kind == ir.KindBool:
		return jen.False(), true
	}
	return nil, false
}

// exampleAnswer sets the loopback server's answer: the first success
// response's status with the smallest body of its type.
func (g *generation) exampleAnswer(op *ir.Operation, ex *opExample) {
	ex.status = 200
	resps := successResponses(op)
	if len(resps) == 0 {
		return
	}
	if r := resps[0]; r.Status >= 200 && r.Status < 300 {
		ex.status = r.Status
	}
	bodies := responseBodies(resps[0])
	if len(bodies) == 0 || ex.status == 204 || ex.status == 205 {
		return
	}
	b := bodies[0]
	if len(b.types) > 0 {
		ex.contentType = b.types[0]
	}
	switch b.kind {
	case bodyText:
		ex.body = "example"
		return
	case bodyRaw:
		return
	}
	ex.body = "{}"
	d := declaration(b.schema)
	if d == nil {
		return
	}
	kind := d.Kind
	if kind == ir.KindEnum {
		kind = d.EnumBase
	}
	switch kind {
	case ir.KindArray:
		ex.body = "[]"
	case ir.KindString:
		ex.body = `""`
	case ir.KindInteger, ir.KindNumber:
		ex.body = "0"
	case ir.KindBool:
		ex.body = "false"
	case ir.KindUnion:
		ex.runnable = false
	}
}

// exampleNewClient emits ExampleNewClient: the client of the document's
// first server, with every authentication option (compiled, not run).
func (g *generation) exampleNewClient() jen.Code {
	server := jen.Lit("https://api.example.com")
	if defaultServer(g.api) != "" {
		server = jen.Qual(g.cfg.Module, "DefaultServerURL")
	}
	args := append([]jen.Code{server}, g.authOptions(nil)...)
	return jen.Comment("A client for the API's server. Authentication options apply only to the operations whose").Line().
		Comment("security requirements list their scheme.").Line().
		Func().Id("ExampleNewClient").Params().Block(
		jen.List(jen.Id("c"), jen.Err()).Op(":=").Qual(g.cfg.Module, "NewClient").Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Qual("fmt", "Println").Call(jen.Err()), jen.Return()),
		jen.Id("_").Op("=").Id("c"),
	)
}

// authOptions are the With<Scheme> options, with placeholder credentials,
// of the schemes op uses (all supported schemes when op is nil).
func (g *generation) authOptions(op *ir.Operation) []jen.Code {
	var used map[string]bool
	if op != nil {
		used = map[string]bool{}
		for _, s := range opSchemes(op) {
			used[s] = true
		}
	}
	var out []jen.Code
	for _, s := range g.api.SecuritySchemes {
		name, ok := g.schemeNames[s]
		if !ok || (used != nil && !used[s.Name]) {
			continue
		}
		var lits []jen.Code
		for _, a := range schemeArgs(s) {
			lits = append(lits, jen.Lit(a))
		}
		out = append(out, jen.Qual(g.cfg.Module, name).Call(lits...))
	}
	return out
}

// schemeArgs names the parameters of a scheme's option, as schemeEdit
// declares them.
func schemeArgs(s *ir.SecurityScheme) []string {
	switch {
	case s.Type == "apiKey":
		return []string{"key"}
	case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
		return []string{"username", "password"}
	case s.Type == "http" && s.Scheme != "" && !strings.EqualFold(s.Scheme, "bearer"):
		return []string{"credentials"}
	}
	return []string{"token"}
}

// exampleCall emits Example<Client_Method>.
func (g *generation) exampleCall(op *ir.Operation, ex opExample) jen.Code {
	handler := []jen.Code{jen.Qual("fmt", "Println").Call(jen.Id("r").Dot("Method"), jen.Id("r").Dot("URL").Dot("Path"))}
	if ex.contentType != "" {
		handler = append(handler, jen.Id("w").Dot("Header").Call().Dot("Set").Call(jen.Lit("Content-Type"), jen.Lit(ex.contentType)))
	}
	handler = append(handler, jen.Id("w").Dot("WriteHeader").Call(jen.Lit(ex.status)))
	if ex.body != "" {
		handler = append(handler, jen.Qual("io", "WriteString").Call(jen.Id("w"), jen.Lit(ex.body)))
	}
	call := g.exampleInvoke(op, ex)
	body := []jen.Code{
		jen.Id("srv").Op(":=").Qual("net/http/httptest", "NewServer").Call(jen.Qual("net/http", "HandlerFunc").Call(
			jen.Func().Params(jen.Id("w").Qual("net/http", "ResponseWriter"), jen.Id("r").Op("*").Qual("net/http", "Request")).Block(handler...))),
		jen.Defer().Id("srv").Dot("Close").Call(),
		jen.Line(),
		jen.List(jen.Id("c"), jen.Err()).Op(":=").Qual(g.cfg.Module, "NewClient").Call(
			append([]jen.Code{jen.Id("srv").Dot("URL")}, g.authOptions(op)...)...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Qual("fmt", "Println").Call(jen.Err()), jen.Return()),
		call,
		exampleClose(op),
		jen.Switch().Block(
			jen.Case(jen.Qual("errors", "Is").Call(jen.Err(), jen.Qual(rtPath, "ErrOutcomeUnknown"))).Block(
				jen.Comment("The server may have executed the call: reconcile by idemrt.KeyOf(err)."),
				jen.Qual("fmt", "Println").Call(jen.Lit("outcome unknown"))),
			jen.Case(jen.Err().Op("!=").Nil()).Block(jen.Qual("fmt", "Println").Call(jen.Lit("error:"), jen.Err())),
			jen.Default().Block(jen.Qual("fmt", "Println").Call(jen.Lit("ok"))),
		),
	}
	if ex.runnable {
		body = append(body, jen.Comment("Output:"), jen.Commentf("%s %s", op.Method, ex.path), jen.Comment("ok"))
	}
	doc := fmt.Sprintf("Calling %s against a loopback server. %s", op.GoName, op.Retry.Summary)
	if !ex.runnable {
		doc = fmt.Sprintf("Calling %s (compiled, not run: its arguments need real values). %s", op.GoName, op.Retry.Summary)
	}
	return g.comment(doc).Func().Id("ExampleClient_" + op.GoName).Params().Block(body...)
}

// exampleInvoke is the call statement: `_, err = c.Op(ctx, args...)`,
// `err = c.Op(...)` for a method returning only an error, or
// `out, err := c.Op(...)` for a stream or a download, which must be closed.
func (g *generation) exampleInvoke(op *ir.Operation, ex opExample) jen.Code {
	args := append([]jen.Code{jen.Qual("context", "Background").Call()}, ex.args...)
	call := jen.Id("c").Dot(op.GoName).Call(args...)
	if !g.returnsValue(op) {
		return jen.Err().Op("=").Add(call)
	}
	if mainReturn(op) != returnDecoded {
		return jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(call)
	}
	return jen.List(jen.Id("_"), jen.Err()).Op("=").Add(call)
}

// exampleClose closes the stream or the download a call returned:
//
//	if err == nil {
//		defer out.Close()
//	}
func exampleClose(op *ir.Operation) jen.Code {
	if mainReturn(op) == returnDecoded {
		return jen.Null()
	}
	return jen.If(jen.Err().Op("==").Nil()).Block(jen.Defer().Id("out").Dot("Close").Call())
}
