package generator

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
	"text/template"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/templates"
)

// docData is what templates/doc.go.tmpl sees.
type docData struct {
	Header  string
	Package string
	Title   string
	Version string
	// Generator is the idemgen version that generated the package.
	Generator string
	// VersionConst asks for the APIVersion constant: the document has a
	// version and no generated identifier is already called APIVersion.
	VersionConst bool
	// Description holds the API description as comment lines.
	Description []string
}

// renderDoc renders the package documentation file from the template and
// gofmts it.
func renderDoc(api *ir.API, pkg, generatorVersion string, versionConst bool) ([]byte, error) {
	tmpl, err := template.ParseFS(templates.FS, "doc.go.tmpl")
	if err != nil {
		return nil, fmt.Errorf("doc template: %w", err)
	}
	// The title and version sit inside the first comment line: inlineText
	// keeps them on it (a line break there would start a line of code or a
	// //go:generate directive).
	data := docData{Header: Header, Package: pkg, Title: inlineText(api.Title), Version: inlineText(api.Version),
		Generator: inlineText(generatorVersion)}
	data.VersionConst = versionConst && data.Version != ""
	if data.Title == "" {
		data.Title = "an HTTP"
	}
	if lines := docLines(api.Description); len(lines) > 0 {
		data.Description = strings.Split(canonicalComment(lines), "\n")
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("doc template: %w", err)
	}
	out, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("doc template output does not parse: %w", err)
	}
	return out, nil
}
