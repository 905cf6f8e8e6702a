package langclient

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxLanguageLook bounds the directory entries read to find whether the
// workspace holds a file a server on PATH serves: a few milliseconds at
// start, however large the tree.
const maxLanguageLook = 5000

// holdsServedFile reports whether a file one of specs serves (by its
// filetypes) is among the first maxLanguageLook entries of roots, read
// breadth first (a project's sources and manifests sit near its top),
// hidden directories and node_modules left out, no link followed.
func holdsServedFile(roots []string, specs []serverSpec) bool {
	queue := slices.Clone(roots)
	for read := 0; len(queue) > 0 && read < maxLanguageLook; {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // unreadable: nothing of it counts
		}
		for _, e := range entries[:min(len(entries), maxLanguageLook-read)] {
			read++
			path := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if !strings.HasPrefix(e.Name(), ".") && e.Name() != "node_modules" {
					queue = append(queue, path)
				}
			case e.Type().IsRegular() && servesAny(specs, path):
				return true
			}
		}
	}
	return false
}

// servesAny reports whether one of specs serves the file at path.
func servesAny(specs []serverSpec, path string) bool {
	for _, ft := range filetypes(path, "") {
		for _, s := range specs {
			if slices.Contains(s.filetypes, ft) {
				return true
			}
		}
	}
	return false
}
