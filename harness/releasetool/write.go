package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// writeProxy lays every published module out as a GOPROXY=file://dir
// module proxy serves it: <escaped path>/@v/list, and the version's .info,
// .mod and .zip beside it. Versions already in a list stay.
func (r *release) writeProxy(dir string) error {
	for _, m := range r.published {
		esc, err := module.EscapePath(m.path)
		if err != nil {
			return err
		}
		vdir := filepath.Join(dir, filepath.FromSlash(esc), "@v")
		if err := os.MkdirAll(vdir, 0o755); err != nil {
			return err
		}
		info, err := json.Marshal(struct {
			Version string
			Time    string
		}{r.version, r.time.Format("2006-01-02T15:04:05Z")})
		if err != nil {
			return err
		}
		for ext, data := range map[string][]byte{".info": info, ".mod": m.gomod, ".zip": m.zip} {
			if err := os.WriteFile(filepath.Join(vdir, r.version+ext), data, 0o644); err != nil {
				return err
			}
		}
		if err := r.addToList(filepath.Join(vdir, "list")); err != nil {
			return err
		}
	}
	return nil
}

// addToList adds the release version to a proxy's version list, sorted.
func (r *release) addToList(p string) error {
	old, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions := strings.Fields(string(old))
	if !slices.Contains(versions, r.version) {
		versions = append(versions, r.version)
	}
	semver.Sort(versions)
	return os.WriteFile(p, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

// writeRepo writes the rewritten go.mod, go.sum and go.work files into the
// repository, keeping each file's permissions.
func (r *release) writeRepo() error {
	names := make([]string, 0, len(r.rewritten))
	for p := range r.rewritten {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		abs := filepath.Join(r.repo, filepath.FromSlash(p))
		mode := os.FileMode(0o644)
		if st, err := os.Stat(abs); err == nil {
			mode = st.Mode().Perm()
		}
		if err := os.WriteFile(abs, r.rewritten[p], mode); err != nil {
			return err
		}
	}
	return nil
}
