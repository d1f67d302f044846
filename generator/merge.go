package generator

import (
	"bytes"
	"sort"
	"strings"
)

// mergeChunks joins separately rendered, gofmt-clean parts of one file into
// the bytes a single rendering would have produced: the header and package
// clause of the first part, the union of the imports (one spec per path,
// sorted by path, in jennifer's layout: a single import unparenthesised),
// then every part's declarations in order, one blank line apart. gofmt
// aligns only within a declaration, never across, so the parts' layout
// stays valid when they are concatenated.
func mergeChunks(parts [][]byte) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	var head []byte
	specs := map[string]string{}
	var bodies [][]byte
	for i, p := range parts {
		h, imports, body := splitRendered(p)
		if i == 0 {
			head = h
		}
		for _, spec := range imports {
			specs[importPath(spec)] = spec
		}
		if len(bytes.TrimSpace(body)) > 0 {
			bodies = append(bodies, body)
		}
	}
	var out bytes.Buffer
	out.Write(head)
	writeImports(&out, specs)
	out.Write(bytes.Join(bodies, []byte("\n")))
	return out.Bytes()
}

// splitRendered cuts a rendered file into the text up to and including the
// package clause (with the blank line after it), its import specs, and the
// declarations after the imports.
func splitRendered(src []byte) (head []byte, imports []string, body []byte) {
	i := bytes.Index(src, []byte("\npackage "))
	end := i + 1 + bytes.IndexByte(src[i+1:], '\n') + 1
	head, rest := src[:end], bytes.TrimLeft(src[end:], "\n")
	head = append(append([]byte(nil), head...), '\n')
	switch {
	case bytes.HasPrefix(rest, []byte("import (\n")):
		close := bytes.Index(rest, []byte("\n)\n"))
		for _, l := range strings.Split(string(rest[len("import (\n"):close]), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				imports = append(imports, l)
			}
		}
		rest = rest[close+len("\n)\n"):]
	case bytes.HasPrefix(rest, []byte("import ")):
		nl := bytes.IndexByte(rest, '\n')
		imports = append(imports, strings.TrimSpace(string(rest[len("import "):nl])))
		rest = rest[nl+1:]
	}
	return head, imports, bytes.TrimLeft(rest, "\n")
}

// importPath is the quoted path of an import spec (`idemrt "x/y"` -> `"x/y"`).
func importPath(spec string) string {
	return spec[strings.IndexByte(spec, '"'):]
}

// writeImports writes the import declaration followed by a blank line.
func writeImports(out *bytes.Buffer, specs map[string]string) {
	if len(specs) == 0 {
		return
	}
	paths := make([]string, 0, len(specs))
	for p := range specs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) == 1 {
		out.WriteString("import " + specs[paths[0]] + "\n\n")
		return
	}
	out.WriteString("import (\n")
	for _, p := range paths {
		out.WriteString("\t" + specs[p] + "\n")
	}
	out.WriteString(")\n\n")
}
