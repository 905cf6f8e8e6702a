// Package workspacetest builds a file tree too big to build per test: a
// directory of 100,000 files (22,000 on Windows), built once per test
// binary and shared by the tests of walks, searches and listings.
package workspacetest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// OldCap is the entry count listings used to stop at: what a test
	// must find lies past it, in name order and in the file system's.
	OldCap = 10_000
	// Needle is the line BigTree.Late holds, and no other file.
	Needle = "the needle in the haystack"
)

// BigTree is a root holding many/, a directory of ManyFiles empty files
// named f000000.txt … f099999.txt (ManyFiles less one) but one.
type BigTree struct {
	Root string // holds many/ alone
	Dir  string // Root/many
	// Late holds Needle: the file system lists it after its first OldCap
	// entries, and its name sorts after the first OldCap names.
	Late string
	// Matches are the ten files MatchPattern matches, in name order.
	Matches []string
	// Newest is the one of Matches modified last, the one the file
	// system lists last of them: past its first OldCap entries.
	Newest string
}

// Shared builds a BigTree on first use; Remove, from TestMain, deletes it.
type Shared struct {
	once sync.Once
	tmp  string
	tree BigTree
	err  error
}

// Get is the tree, built now if it was not yet.
func (s *Shared) Get(tb testing.TB) BigTree {
	tb.Helper()
	s.once.Do(func() {
		if s.tmp, s.err = os.MkdirTemp("", "bigtree-"); s.err == nil {
			s.tree, s.err = Build(s.tmp)
		}
	})
	if s.err != nil {
		tb.Fatalf("building a directory of %d files: %v", ManyFiles, s.err)
	}
	return s.tree
}

// Remove deletes the tree, if it was built.
func (s *Shared) Remove() {
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// Build makes the tree in root, an empty directory.
func Build(root string) (BigTree, error) {
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return BigTree{}, err
	}
	t := BigTree{Root: root, Dir: filepath.Join(root, "many")}
	if err := os.Mkdir(t.Dir, 0o755); err != nil {
		return BigTree{}, err
	}
	// Created from the middle, so that the matches (the last names) sit
	// mid-listing whether the file system lists in creation order, its
	// reverse, or by hash.
	for k := range ManyFiles {
		name := fmt.Sprintf("f%06d.txt", (k+ManyFiles/2)%ManyFiles)
		if strings.HasPrefix(name, matchPrefix) {
			t.Matches = append(t.Matches, filepath.Join(t.Dir, name))
		}
		if err := os.WriteFile(filepath.Join(t.Dir, name), nil, 0o644); err != nil {
			return BigTree{}, err
		}
	}
	order, err := listingOrder(t.Dir)
	if err != nil {
		return BigTree{}, err
	}
	if err := t.pick(order); err != nil {
		return BigTree{}, err
	}
	if err := os.WriteFile(t.Late, []byte(Needle+"\n"), 0o644); err != nil {
		return BigTree{}, err
	}
	future := time.Now().Add(time.Hour)
	return t, os.Chtimes(t.Newest, future, future)
}

// pick chooses Late and Newest from the names in the file system's order.
func (t *BigTree) pick(order []string) error {
	pos := make(map[string]int, len(order))
	for i, name := range order {
		pos[name] = i
	}
	for _, name := range order[len(order)/2:] {
		if name > fmt.Sprintf("f%06d.txt", OldCap) {
			t.Late = filepath.Join(t.Dir, name)
			break
		}
	}
	t.Newest = t.Matches[0]
	for _, m := range t.Matches {
		if pos[filepath.Base(m)] > pos[filepath.Base(t.Newest)] {
			t.Newest = m
		}
	}
	if t.Late == "" || pos[filepath.Base(t.Newest)] < OldCap {
		return errors.New("the file system lists every match among its first entries")
	}
	slices.Sort(t.Matches)
	return nil
}

// listingOrder is the names of dir in the order the file system lists them.
func listingOrder(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return names, nil
}
