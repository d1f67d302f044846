package parser

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// refRoots are the folder trees local $refs may read from: the folder of the
// root document, and Options.RefRoot when set. Each is kept both as written
// (made absolute) and with symbolic links resolved, so a link inside the
// tree that points outside it is caught, and a tree reached through a link
// is still recognised.
type refRoots struct {
	dirs []string
}

// newRefRoots returns the trees for a root document in docDir.
func newRefRoots(docDir, extra string) refRoots {
	var r refRoots
	for _, d := range []string{docDir, extra} {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		r.dirs = append(r.dirs, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			r.dirs = append(r.dirs, real)
		}
	}
	return r
}

// errOutsideRoot is why a local file outside the allowed trees is not read.
var errOutsideRoot = errors.New("outside the folder tree of the document")

// check returns errOutsideRoot when the local file key is outside every tree,
// either as written or once its symbolic links are resolved. It never reads
// the file.
func (r refRoots) check(key string) error {
	abs, err := filepath.Abs(filepath.FromSlash(key))
	if err != nil || !r.contains(abs) {
		return errOutsideRoot
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// A file that does not exist is refused later as dangling; one whose
		// links cannot be followed is not read.
		if _, statErr := os.Lstat(abs); errors.Is(statErr, os.ErrNotExist) {
			return nil
		}
		return errOutsideRoot
	}
	if !r.contains(real) {
		return errOutsideRoot
	}
	return nil
}

// contains reports whether the absolute path p is inside one of the trees.
func (r refRoots) contains(p string) bool {
	for _, d := range r.dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// checkRemote refuses a remote key that is not an http(s) URL (file://,
// ftp://...): only the web may be fetched, and only when allowed.
func checkRemote(key string) error {
	u, err := url.Parse(key)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("only http and https references can be fetched")
	}
	return nil
}
