// Command milliontree builds the synthetic tree of issue 22 under the
// directory given: 1,000,000 files in 10,000 directories, three of them
// holding 100,000 entries each, for the million-file benchmarks
// (bench/million_test.go, docs/benchmarks.md "A million files").
//
//	milliontree DIR
//
// The tree, below DIR:
//
//	t00/d00 … t99/d99   10,000 directories; 9,997 of them hold 70 files
//	                    (f00.txt … f69.txt, every seventh .go, every
//	                    eleventh .md), t00/d00, t33/d33 and t66/d66 hold
//	                    100,000 (f000000.txt …)
//	.gitignore          "ignored/" and "*.log"
//	.geminiignore       "secret/"
//	t01/ignored/        1,000 files .gitignore ignores, and a .log in
//	                    every hundredth directory
//	t02/secret/         100 files .geminiignore ignores
//	large/              five larger files, 1 to 12 MiB, one over
//	                    grep_search's 8 MiB cap
//
// Most files are empty, so the tree takes little space (about 450 MB of
// blocks, mostly inodes): every tenth file holds a line with the common
// word "the" (Common), and NeedleFiles files hold the line Needle.
//
// It is idempotent: a tree finished before (DIR/.milliontree holds its
// layout version) is left as it is; an unfinished one is completed.
// It prints the tree's path.
package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

const (
	// version names the layout; a tree of another version is refused.
	version = "milliontree 1\n"
	// Needle is a line NeedleFiles files hold and no other.
	Needle = "zebra-needle-7391"
	// NeedleFiles is how many files hold Needle.
	NeedleFiles = 5
	// Common is the line every tenth file holds.
	Common = "the quick brown fox jumps over the lazy dog"

	tops, subs   = 100, 100
	perDir       = 70
	hugeDirFiles = 100_000
)

// hugeDirs are the directories of hugeDirFiles entries.
var hugeDirs = []string{"t00/d00", "t33/d33", "t66/d66"}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: milliontree DIR")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root, err := build(ctx, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "milliontree:", err)
		os.Exit(1)
	}
	fmt.Println(root)
}

// build makes the tree under dir, unless it is there already, and returns
// dir's absolute path.
func build(ctx context.Context, dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	marker := filepath.Join(root, ".milliontree")
	switch got, err := os.ReadFile(marker); {
	case err == nil && string(got) == version:
		return root, nil
	case err == nil:
		return "", fmt.Errorf("%s holds a tree of another layout (%q): remove it first", root, strings.TrimSpace(string(got)))
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if err := writeExtras(root); err != nil {
		return "", err
	}
	if err := writeDirs(ctx, root); err != nil {
		return "", err
	}
	return root, os.WriteFile(marker, []byte(version), 0o644)
}

// writeDirs fills the 10,000 directories, a few at a time.
func writeDirs(ctx context.Context, root string) error {
	jobs := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for k := range jobs {
				if err := writeDir(root, k); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	var err error
feed:
	for k := range tops * subs {
		select {
		case jobs <- k:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

// writeDir writes directory k (t<k/100>/d<k%100>) and its files; files
// already there are kept.
func writeDir(root string, k int) error {
	rel := fmt.Sprintf("t%02d/d%02d", k/subs, k%subs)
	dir := filepath.Join(root, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n, width := perDir, 2
	for _, h := range hugeDirs {
		if rel == h {
			n, width = hugeDirFiles, 6
		}
	}
	for i := range n {
		name := fmt.Sprintf("f%0*d%s", width, i, extension(i))
		if err := writeNew(filepath.Join(dir, name), content(k, i)); err != nil {
			return err
		}
	}
	if k%100 == 7 {
		return writeNew(filepath.Join(dir, "debug.log"), []byte(Common+"\n"))
	}
	return nil
}

func extension(i int) string {
	switch {
	case i%7 == 3:
		return ".go"
	case i%11 == 5:
		return ".md"
	}
	return ".txt"
}

// content is file i of directory k's: Needle in NeedleFiles files spread
// over the tree, Common in every tenth, nothing in the rest.
func content(k, i int) []byte {
	switch {
	case i == 1 && k%(tops*subs/NeedleFiles) == 1234:
		return []byte("package needle\n\n// " + Needle + "\n")
	case i%10 == 0:
		return []byte(Common + "\n")
	}
	return nil
}

// writeExtras writes the ignore files, ignored directories and large files.
func writeExtras(root string) error {
	files := map[string][]byte{
		".gitignore":    []byte("ignored/\n*.log\n"),
		".geminiignore": []byte("secret/\n"),
	}
	for i := range 1000 {
		files[fmt.Sprintf("t01/ignored/g%04d.txt", i)] = []byte(Common + "\n")
	}
	for i := range 100 {
		files[fmt.Sprintf("t02/secret/s%03d.txt", i)] = []byte(Common + "\n")
	}
	for i, mib := range []int{1, 2, 4, 6, 12} {
		files[fmt.Sprintf("large/large%d.txt", i)] = []byte(strings.Repeat(Common+" and more words to make it long\n", mib<<20/75))
	}
	for rel, data := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := writeNew(path, data); err != nil {
			return err
		}
	}
	return nil
}

// writeNew writes a file unless it exists with that size.
func writeNew(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}
