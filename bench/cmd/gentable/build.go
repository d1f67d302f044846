package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// countLines counts the .go files under dir and their lines.
func countLines(dir string) (files, lines int, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		lines += bytes.Count(b, []byte{'\n'})
		return nil
	})
	return files, lines, err
}

// timeBuild times `go build` of the package in dir, a directory inside the
// module at moduleDir. The package's dependencies are built first and not
// timed, so the figure is the generated code's own compile plus the go
// command's fixed cost; the package itself is never in the build cache
// because its import path is new on every run.
func timeBuild(ctx context.Context, moduleDir, dir string) sample {
	rel, err := filepath.Rel(moduleDir, dir)
	if err != nil {
		return sample{err: err}
	}
	pkg := "./" + filepath.ToSlash(rel)
	if err := warmDeps(ctx, moduleDir, pkg); err != nil {
		return sample{err: err}
	}
	return runOnce(ctx, moduleDir, nil, "go", "build", pkg)
}

// warmDeps builds every dependency of pkg, but not pkg itself.
func warmDeps(ctx context.Context, moduleDir, pkg string) error {
	list := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{if not .DepOnly}}{{else}}{{.ImportPath}}{{end}}", pkg)
	list.Dir = moduleDir
	var stderr bytes.Buffer
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		return fmt.Errorf("go list: %w: %s", err, firstErrorLine(stderr.String()))
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		return nil
	}
	s := runOnce(ctx, moduleDir, nil, append([]string{"go", "build"}, deps...)...)
	if s.err != nil {
		return fmt.Errorf("building dependencies: %w", s.err)
	}
	return nil
}
