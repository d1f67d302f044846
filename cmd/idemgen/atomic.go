package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// fileSystem is the one file operation whose failure the tests need to
// simulate: the moves that put the new output in place.
type fileSystem interface {
	Rename(oldpath, newpath string) error
}

// osFS is the real file system.
type osFS struct{}

func (osFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// writeOutput puts files into dir so that a failure leaves dir as it was.
//
// Every new file is first written into a staging directory beside dir (the
// same file system, so the moves below are renames, never copies). When dir
// does not exist, the staging directory itself is renamed into place. When it
// does (it may hold the user's own files, so it cannot be swapped whole),
// the files to replace or remove are first moved aside into the staging
// directory, then the new ones moved in; if any move fails, the moves made so
// far are undone. Files that would not change are not touched at all.
func writeOutput(dir string, files []genFile, fsys fileSystem) error {
	plan, err := planOutput(dir, files)
	if err != nil || len(plan) == 0 {
		return err
	}
	// The staging directory must sit beside dir, not inside it: with
	// --out . the parent is only known from the absolute path.
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	parent, base := filepath.Split(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(parent, "."+base+".idemgen-")
	if err != nil {
		return err
	}
	if err := stageFiles(stage, plan); err != nil {
		os.RemoveAll(stage)
		return err
	}
	err = placeFiles(dir, stage, plan, fsys)
	var keep *keptError
	if !errors.As(err, &keep) {
		os.RemoveAll(stage)
	}
	return err
}

// placeFiles moves the staged files into dir.
func placeFiles(dir, stage string, plan []fileChange, fsys fileSystem) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		// MkdirTemp made the directory private; the output is an ordinary
		// source directory.
		if err := os.Chmod(stage, 0o755); err != nil {
			return err
		}
		return fsys.Rename(stage, dir)
	}
	return swapFiles(dir, stage, plan, fsys)
}

// stageFiles writes the new and changed files into stage.
func stageFiles(stage string, plan []fileChange) error {
	for _, c := range plan {
		if c.kind == changeRemoved {
			continue
		}
		if err := os.WriteFile(filepath.Join(stage, c.name), c.content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// swapFiles moves the old versions out of dir and the staged ones in,
// undoing every move when one fails.
func swapFiles(dir, stage string, plan []fileChange, fsys fileSystem) error {
	backup := filepath.Join(stage, ".previous")
	if err := os.Mkdir(backup, 0o700); err != nil {
		return err
	}
	var undo []func() error
	rollback := func(cause error) error {
		for i := len(undo) - 1; i >= 0; i-- {
			if err := undo[i](); err != nil {
				return &keptError{cause: cause, restore: err, backup: backup}
			}
		}
		return cause
	}
	for _, c := range plan {
		if c.kind == changeNew {
			continue
		}
		cur, old := filepath.Join(dir, c.name), filepath.Join(backup, c.name)
		if err := fsys.Rename(cur, old); err != nil {
			return rollback(err)
		}
		undo = append(undo, func() error { return fsys.Rename(old, cur) })
	}
	for _, c := range plan {
		if c.kind == changeRemoved {
			continue
		}
		staged, cur := filepath.Join(stage, c.name), filepath.Join(dir, c.name)
		if err := fsys.Rename(staged, cur); err != nil {
			return rollback(err)
		}
		undo = append(undo, func() error { return fsys.Rename(cur, staged) })
	}
	return nil
}

// keptError reports a failed move whose undo failed too: the previous output
// is left in the staging directory for the user to recover, not deleted.
type keptError struct {
	cause, restore error
	backup         string
}

func (e *keptError) Error() string {
	return fmt.Sprintf("%v; restoring the previous output also failed (%v): it is kept in %s", e.cause, e.restore, e.backup)
}

func (e *keptError) Unwrap() error { return e.cause }
