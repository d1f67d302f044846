package generator

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// readmeData is what templates/README.md.tmpl sees. Every string taken from
// the document is escaped for Markdown (mdText).
type readmeData struct {
	Header, Module, Package, Title, Version, Description, Generator string
	RuntimeModule, Require                                          string
	Devel                                                           bool
	// Import is the import spec: the package name, then the path, unless
	// the path's last element is the name.
	Import string
	// Server is the NewClient argument, as Go.
	Server  string
	Schemes []readmeScheme
	Tags    []readmeTag
	Ops     []readmeOp
	// Iter, Stream and Download name the package's first iterator, stream
	// and download methods, "" when it has none: the README shows one of
	// each kind the API has.
	Iter, Stream, Download string
}

type readmeScheme struct{ Name, Call, What string }

type readmeTag struct{ Name, Call string }

type readmeOp struct{ GoName, Method, Path, Safety, Retried, Unknown string }

// renderReadme renders README.md of a generated module.
func (g *generation) renderReadme(ops []*ir.Operation) ([]byte, error) {
	pkg := g.cfg.Package
	d := readmeData{Header: ReadmeHeader, Module: g.cfg.Module, Package: pkg, Title: mdText(g.api.Title),
		Version: mdText(g.api.Version), Description: mdText(g.api.Description), Generator: mdText(g.version()),
		RuntimeModule: RuntimeModule, Require: g.requireVersion(), Server: `"https://api.example.com"`}
	d.Devel = d.Require == PlaceholderVersion
	d.Import = fmt.Sprintf("%s %q", pkg, g.cfg.Module)
	if path.Base(g.cfg.Module) == pkg {
		d.Import = fmt.Sprintf("%q", g.cfg.Module)
	}
	if d.Title == "" {
		d.Title = "an HTTP API"
	}
	if defaultServer(g.api) != "" {
		d.Server = pkg + ".DefaultServerURL"
	}
	for _, s := range g.api.SecuritySchemes {
		if name, ok := g.schemeNames[s]; ok {
			_, _, what := schemeEdit(s)
			d.Schemes = append(d.Schemes, readmeScheme{Name: mdText(s.Name),
				Call: fmt.Sprintf("%s.%s(%s)", pkg, name, strings.Join(schemeArgs(s), ", ")), What: mdText(what)})
		}
	}
	for _, grp := range groupByFile(ops) {
		op := grp.ops[0]
		if picked, _ := g.pickExample(grp.ops); picked != nil {
			op = picked
		}
		name := op.Tag
		if name == "" {
			name = "untagged operations"
		}
		d.Tags = append(d.Tags, readmeTag{Name: mdText(name), Call: g.callText(op)})
	}
	for _, op := range ops {
		d.Ops = append(d.Ops, readmeRow(op))
		g.noteLongRunning(&d, op)
	}
	return renderTemplate("README.md.tmpl", d)
}

// noteLongRunning records op's iterator, stream and download methods in d
// when d has none of that kind yet.
func (g *generation) noteLongRunning(d *readmeData, op *ir.Operation) {
	ids := g.opNames[op]
	first := func(dst *string, name string) {
		if *dst == "" && name != "" {
			*dst = name
		}
	}
	first(&d.Iter, ids.iter)
	first(&d.Stream, ids.stream)
	first(&d.Download, ids.download)
	switch mainReturn(op) {
	case returnStream:
		first(&d.Stream, op.GoName)
	case returnDownload:
		first(&d.Download, op.GoName)
	}
}

// readmeRow is an operation's line in the retry contract table.
func readmeRow(op *ir.Operation) readmeOp {
	r := op.Retry
	row := readmeOp{GoName: op.GoName, Method: op.Method, Path: codeText(op.Path),
		Safety: r.Safety.String(), Retried: strings.Join(statusTexts(r.Retryable), ", ")}
	if row.Retried == "" {
		row.Retried = "-"
	}
	switch r.Safety {
	case ir.Keyed:
		row.Safety = "keyed (" + mdText(r.KeyName) + ")"
		row.Unknown = "retried with the same key"
	case ir.Idempotent:
		row.Unknown = "retried"
	default:
		row.Unknown = "error with the key: reconcile"
		row.Retried = "429 only, and never once sent"
		if !r.Retryable.Contains(429) {
			row.Retried = "never once sent"
		}
	}
	return row
}

// callText is a call of op as Go source for the README, with the
// placeholders the examples use.
func (g *generation) callText(op *ir.Operation) string {
	args := []string{"ctx"}
	if requestBody(op) != nil {
		args = append(args, "body")
	}
	if ids := g.opNames[op]; ids.params != "" {
		params, names := paramFields(op)
		var fields []string
		for i, p := range params {
			if lit, _, ok := placeholder(p.Type); ok && p.Required {
				fields = append(fields, fmt.Sprintf("%s: %#v", names[i], lit))
			}
		}
		args = append(args, fmt.Sprintf("%s.%s{%s}", g.cfg.Package, ids.params, strings.Join(fields, ", ")))
	}
	lhs := "res, err := "
	if !g.returnsValue(op) {
		lhs = "err := "
	}
	return lhs + "c." + op.GoName + "(" + strings.Join(args, ", ") + ")"
}

// codeText makes document text safe inside a Markdown code span in a table
// cell: one line, no backtick, and the cell separator escaped (GitHub's
// tables read \| inside code spans as a literal bar).
func codeText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(inlineText(s), "`", "'"), "|", `\|`)
}

// statusTexts renders a status set for the README: "408", "429", "5xx".
func statusTexts(s ir.StatusSet) []string {
	var out []string
	for _, c := range s.Codes {
		out = append(out, strconv.Itoa(c))
	}
	for _, c := range s.Classes {
		out = append(out, strconv.Itoa(c)+"xx")
	}
	return out
}
