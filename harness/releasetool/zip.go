package main

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// zipModule builds m's module zip from the tracked files under its
// directory, the rewritten go.mod/go.sum/go.work in place of the disk's.
// modzip.Create leaves out what a proxy leaves out (nested modules, vendor
// directories, non-regular files) and enforces the size limits.
func (r *release) zipModule(m *published) ([]byte, error) {
	var files []modzip.File
	haveLicense := false
	// The tracked files, and the ones the release creates (a go.sum the
	// module lacked): the release commit holds both.
	paths := slices.Clone(r.files)
	for p := range r.rewritten {
		if !slices.Contains(r.files, p) {
			paths = append(paths, p)
		}
	}
	for _, f := range paths {
		rel, ok := under(m.dir, f)
		if !ok {
			continue
		}
		haveLicense = haveLicense || rel == "LICENSE"
		files = append(files, r.file(f, rel))
	}
	// The go command adds the repository root's LICENSE to the zip of a
	// module in a subdirectory that has none; the hash must match its zip.
	if !haveLicense && m.dir != "." && r.tracked("LICENSE") {
		files = append(files, r.file("LICENSE", "LICENSE"))
	}
	var buf bytes.Buffer
	if err := modzip.Create(&buf, module.Version{Path: m.path, Version: r.version}, files); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// under returns f relative to dir when dir holds it.
func under(dir, f string) (string, bool) {
	if dir == "." {
		return f, true
	}
	rel, ok := strings.CutPrefix(f, dir+"/")
	return rel, ok
}

func (r *release) tracked(p string) bool {
	for _, f := range r.files {
		if f == p {
			return true
		}
	}
	return false
}

// file is the zip entry rel for the repository file p.
func (r *release) file(p, rel string) modzip.File {
	if data, ok := r.rewritten[p]; ok {
		return memFile{rel: rel, data: data}
	}
	return diskFile{rel: rel, abs: filepath.Join(r.repo, filepath.FromSlash(p))}
}

type diskFile struct{ rel, abs string }

func (f diskFile) Path() string                 { return f.rel }
func (f diskFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.abs) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }

type memFile struct {
	rel  string
	data []byte
}

func (f memFile) Path() string                 { return f.rel }
func (f memFile) Lstat() (os.FileInfo, error)  { return memInfo(f), nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

// memInfo is a rewritten file's os.FileInfo: a regular file of its size.
type memInfo memFile

func (i memInfo) Name() string       { return path.Base(i.rel) }
func (i memInfo) Size() int64        { return int64(len(i.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// hashZip is the h1: hash go.sum records for a module zip: dirhash.Hash1
// over its entries, as dirhash.HashZip computes it from a file.
func hashZip(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(zr.File))
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		names = append(names, f.Name)
		entries[f.Name] = f
	}
	return dirhash.Hash1(names, func(name string) (io.ReadCloser, error) { return entries[name].Open() })
}

// hashGoMod is the h1: hash go.sum records for "module version/go.mod".
func hashGoMod(gomod []byte) (string, error) {
	return dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
}

// sumLine is one go.sum line: "path version hash", version possibly
// ending in /go.mod.
type sumLine struct{ path, version, hash string }

// rewriteGoSum drops the released modules' lines from a go.sum, adds lines,
// and writes them back in the go command's order, so a later `go mod tidy`
// moves nothing.
func rewriteGoSum(old []byte, released map[string]string, add []sumLine) []byte {
	lines := append([]sumLine(nil), add...)
	for _, l := range strings.Split(string(old), "\n") {
		fields := strings.Fields(l)
		if len(fields) != 3 {
			continue
		}
		if _, ok := released[fields[0]]; !ok {
			lines = append(lines, sumLine{fields[0], fields[1], fields[2]})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lessSum(lines[i], lines[j]) })
	var b strings.Builder
	for i, l := range lines {
		if i > 0 && l == lines[i-1] {
			continue
		}
		b.WriteString(l.path + " " + l.version + " " + l.hash + "\n")
	}
	return []byte(b.String())
}

// lessSum orders go.sum lines as module.Sort does: by path, then by the
// version's semver part, then by the suffix after it ("" before "/go.mod").
func lessSum(a, b sumLine) bool {
	if a.path != b.path {
		return a.path < b.path
	}
	av, asuf, _ := strings.Cut(a.version, "/")
	bv, bsuf, _ := strings.Cut(b.version, "/")
	if av != bv {
		return semver.Compare(av, bv) < 0
	}
	if asuf != bsuf {
		return asuf < bsuf
	}
	return a.hash < b.hash
}
