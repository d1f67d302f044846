package generator

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	specparser "github.com/idemgen/idemgen/parser"
)

// hostileTexts are what an attacker writes into a document's strings: a line
// break followed by directives, a comment closer, a backtick, NUL, the line
// and paragraph separators, CR, and code.
var hostileTexts = map[string]string{
	"newline":  "x\n//go:generate sh -c \"echo PWNED\"\n",
	"kitchen":  "x\n//go:generate echo PWNED\n*/ `bt` \x00 \u2028//go:generate echo LS\u2029//go:generate echo PS \r//go:generate echo CR\n// +build ignore\n//go:build ignore\n//line evil.go:1\n//export Evil\n/*\n}\nfunc Evil() {}\n",
	"benign":   "x",
	"nosplit":  "\r\n//go:noinline\r//go:linkname x runtime.x\n\n+build linux\n",
	"trailing": "ok */ func Evil() {} /*",
}

// yamlQuoted escapes s for the inside of a YAML double-quoted scalar.
func yamlQuoted(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString("\\" + string(r))
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029:
			b.WriteString("\\u" + strconv.FormatInt(int64(r)+0x10000, 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSpecTextNeverBecomesCode feeds hostile text through every string of
// testdata/hostile-text.yaml (title, version, descriptions, summaries, tags,
// enum values, server URL, parameter and header names, examples, extension
// values, security scheme names) and, after loading, appends invalid UTF-8
// and NUL to every free-text field of the IR. The generated package must
// hold no directive or build constraint made of spec text, the same
// declarations as with benign text, only valid UTF-8 without NUL or line
// separators, and it must type-check (and vet, without -short).
func TestSpecTextNeverBecomesCode(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join("testdata", "hostile-text.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string][]string{}
	pkgs := map[string][]File{}
	for name, text := range hostileTexts {
		spec := bytes.ReplaceAll(tmpl, []byte("@@"), []byte(yamlQuoted(text)))
		api, diags, err := specparser.LoadData("hostile.yaml", spec, specparser.Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: the spec must load: %v %v", name, err, diags.Errors())
		}
		if name != "benign" {
			taintFreeText(reflect.ValueOf(api), map[uintptr]bool{})
		}
		out, err := Generate(api, Config{Package: "hostile"})
		if err != nil {
			t.Fatalf("%s: Generate: %v", name, err)
		}
		decls[name] = checkNoCodeFromText(t, name, out.Files)
		if err := typeCheckFiles(t, out.Files); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		pkgs["hostile"+name] = out.Files
	}
	// Hostile text may cost a declaration (a server URL that does not
	// parse gives no DefaultServerURL), never add one.
	for name, d := range decls {
		left := map[string]int{}
		for _, k := range decls["benign"] {
			left[k]++
		}
		for _, k := range d {
			// A member name encoding/json cannot carry in a tag (quotes,
			// newlines) makes its object a map of json.RawMessage, so such a
			// file may import encoding/json where the benign one does not;
			// import paths come from the generator, never from the text.
			if strings.Contains(k, ":import") {
				continue
			}
			if left[k]--; left[k] < 0 {
				t.Errorf("%s: an extra declaration %s (got %v, benign %v)", name, k, d, decls["benign"])
			}
		}
	}
	if testing.Short() {
		return
	}
	mod := writeModule(t, pkgs)
	if out, err := goTool(mod, "vet", "./..."); err != nil {
		t.Errorf("go vet: %v\n%s", err, out)
	}
}

// taintFreeText appends invalid UTF-8, NUL and a directive to every string
// field named Title, Version, Description or Summary reachable from v.
func taintFreeText(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		taintFreeText(v.Elem(), seen)
	case reflect.Slice:
		for i := range v.Len() {
			taintFreeText(v.Index(i), seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f, name := v.Field(i), v.Type().Field(i).Name
			switch {
			case f.Kind() == reflect.String && f.CanSet() && (name == "Title" || name == "Version" || name == "Description" || name == "Summary"):
				f.SetString(f.String() + " \xff\xfe\x00\n//go:generate echo INVALID\xc3\n")
			case f.CanInterface():
				taintFreeText(f, seen)
			}
		}
	}
}

// directivePrefixes are comment starts the go command, the compiler, cgo or
// vet read as instructions.
var directivePrefixes = []string{"//go:", "//line ", "//export ", "//extern ", "/*line ", "// +build", "//+build"}

// checkNoCodeFromText checks one generated package and returns its sorted
// top-level declarations (kind and position in file, names aside: names are
// made from the text).
func checkNoCodeFromText(t *testing.T, name string, files []File) []string {
	t.Helper()
	var decls []string
	for _, f := range files {
		if !utf8.Valid(f.Content) || bytes.ContainsAny(f.Content, "\x00\r\u2028\u2029\ufeff") {
			t.Errorf("%s: %s holds invalid UTF-8, NUL, CR, a line separator or a BOM", name, f.Name)
		}
		lines := strings.Split(string(f.Content), "\n")
		own := map[int]bool{}
		for i, line := range lines {
			switch {
			case isPagerNoinline(lines, i):
				own[i+1] = true
			case strings.HasPrefix(strings.TrimLeft(line, " \t"), "//go:"):
				t.Errorf("%s: %s:%d is a directive: %s", name, f.Name, i+1, line)
			}
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f.Name, f.Content, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %s does not parse: %v", name, f.Name, err)
			continue
		}
		for _, g := range file.Comments {
			for _, c := range g.List {
				if own[fset.Position(c.Pos()).Line] {
					continue
				}
				for _, p := range directivePrefixes {
					if strings.HasPrefix(c.Text, p) {
						t.Errorf("%s: %s:%d: comment %q reads as a directive", name, f.Name, fset.Position(c.Pos()).Line, c.Text)
					}
				}
			}
		}
		for _, d := range file.Decls {
			decls = append(decls, f.Name[:min(len(f.Name), 3)]+":"+declKind(d))
		}
	}
	return decls
}

// declKind describes a top-level declaration without its names.
func declKind(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			return "method"
		}
		return "func"
	case *ast.GenDecl:
		return d.Tok.String() + "x" + strconv.Itoa(len(d.Specs))
	}
	return "?"
}

// isPagerNoinline reports whether lines[i] is the one directive the
// generator writes itself: //go:noinline ending the doc comment of a
// <op>Pager method (emitPagerFunc). Nothing from a spec can stand there: spec
// text only ever reaches comments as "// " lines.
func isPagerNoinline(lines []string, i int) bool {
	if lines[i] != "//go:noinline" || i+1 >= len(lines) {
		return false
	}
	rest, ok := strings.CutPrefix(lines[i+1], "func (c *Client) ")
	name, _, _ := strings.Cut(rest, "(")
	return ok && strings.HasSuffix(name, "Pager")
}
