package apisguru

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// modulePath is the path of the scratch module the packages are vetted in.
const modulePath = "example.com/apisguru"

// Outcome is what became of one document.
type Outcome struct {
	Doc Doc
	// Dir is the package's folder in the scratch module; "" when refused.
	Dir string
	// Skipped counts what --skip-unsupported left out (operations, and
	// unusable security schemes).
	Skipped int
	// Class is "" for a package that generated and vetted; else why not:
	// the rule of a refusal's first error ("dangling-ref"), "load" for a
	// document that did not load, "panic", or "vet".
	Class string
	// Detail is the first line of what went wrong.
	Detail string
}

// Generate loads doc and writes its client, generated with SkipUnsupported
// (as `idemgen generate --skip-unsupported`), as package api into
// moduleDir/dir. A refusal or a panic is an outcome, not an error: the run
// goes on with the next document.
func Generate(doc Doc, moduleDir, dir string) (o Outcome) {
	o = Outcome{Doc: doc}
	defer func() {
		if r := recover(); r != nil {
			o = Outcome{Doc: doc, Class: "panic", Detail: firstLine(fmt.Sprint(r))}
		}
	}()
	api, diags, err := parser.Load(doc.Path, parser.Options{})
	if err != nil {
		o.Class, o.Detail = "load", firstLine(err.Error())
		return o
	}
	if diags.HasErrors() {
		first := firstError(diags)
		o.Class, o.Detail = first.Rule, first.String()
		return o
	}
	out, err := generator.Generate(api, generator.Config{Package: "api", SkipUnsupported: true})
	if err != nil {
		o.Class, o.Detail = "generate", firstLine(err.Error())
		return o
	}
	for _, f := range out.Files {
		path := filepath.Join(moduleDir, dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			o.Class, o.Detail = "write", err.Error()
			return o
		}
		if err := os.WriteFile(path, f.Content, 0o644); err != nil {
			o.Class, o.Detail = "write", err.Error()
			return o
		}
	}
	o.Dir, o.Skipped = dir, len(out.Skipped)
	return o
}

// WriteModule makes moduleDir a module whose packages import this
// checkout's runtime (root is the repository root).
func WriteModule(root, moduleDir string) error {
	gomod := "module " + modulePath + "\n\ngo 1.26\n\nrequire github.com/idemgen/idemgen v0.0.0\n\n" + testutil.LocalReplaces(root)
	if err := os.MkdirAll(moduleDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(moduleDir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(moduleDir, "go.sum"), sum, 0o644)
}

// Vet runs one `go vet` over the packages of outs that generated (one
// process for them all: much cheaper than one per package) and marks
// those it reports with Class "vet". It returns go vet's output when it
// failed without naming a package of outs.
func Vet(moduleDir string, outs []Outcome) (string, error) {
	args := []string{"vet"}
	index := map[string]int{}
	for i, o := range outs {
		if o.Class == "" && o.Dir != "" {
			args = append(args, "./"+o.Dir)
			index[o.Dir] = i
		}
	}
	if len(index) == 0 {
		return "", nil
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	raw, err := cmd.CombinedOutput()
	if err == nil {
		return "", nil
	}
	named := false
	for dir, lines := range vetFindings(string(raw)) {
		if i, ok := index[dir]; ok {
			outs[i].Class, outs[i].Detail, named = "vet", lines, true
		}
	}
	if !named {
		return string(raw), err
	}
	return "", nil
}

// vetFindings groups go vet's output by package folder: the lines under
// a "# example.com/apisguru/DIR" header, and lines starting with "DIR/".
func vetFindings(out string) map[string]string {
	found := map[string]string{}
	current := ""
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		if pkg, ok := strings.CutPrefix(line, "# "+modulePath+"/"); ok {
			current = pkg
			continue
		}
		dir := current
		if d, _, ok := strings.Cut(strings.TrimPrefix(line, "vet: "), "/"); ok && strings.HasPrefix(d, "p") {
			dir = d
		}
		if dir != "" && found[dir] == "" {
			found[dir] = line
		}
	}
	return found
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
