package skills

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Gemini CLI's getFolderStructure defaults (utils/getFolderStructure.ts).
const (
	maxFolderItems      = 200
	truncationIndicator = "..."
)

// ignoredFolder reports whether a folder of this name is shown as "..."
// rather than walked.
func ignoredFolder(name string) bool {
	switch name {
	case "node_modules", ".git", "dist", "__pycache__":
		return true
	}
	return false
}

// folder is one directory of the structure, as Gemini CLI's FullFolderInfo.
type folder struct {
	name              string
	files             []string
	subFolders        []*folder
	ignored           bool
	hasMoreFiles      bool
	hasMoreSubfolders bool
}

// FolderStructure is dir's tree as Gemini CLI's getFolderStructure draws
// it for a skill's resources: breadth first, up to 200 files and folders,
// ignored folders shown with "...", and a summary line first.
func FolderStructure(dir string) string {
	return structure(dir, nil)
}

// WorkspaceStructure is FolderStructure of root, a root of ws, as 0.61's
// environment context draws a workspace directory (getFolderStructure
// with its file service): a file ws's ignore rules ignore is left out,
// an ignored folder is shown with "..." and not entered, so the model is
// told no name of what it may not read. A path whose rules cannot be
// told is taken as ignored.
func WorkspaceStructure(ctx context.Context, ws *workspace.Workspace, root string) string {
	return structure(root, func(path string) bool {
		ignored, err := ws.Ignored(ctx, path)
		return err != nil || ignored
	})
}

// structure draws dir, leaving out (or, for a folder, not entering) what
// ignored reports (nil: nothing).
func structure(dir string, ignored func(path string) bool) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Sprintf("Error processing directory %q: %v", dir, err)
	}
	root, err := readStructure(abs, ignored)
	if err != nil {
		return fmt.Sprintf("Error: Could not read directory %q. Check path and permissions.", abs)
	}
	var lines []string
	formatFolder(root, "", true, true, &lines)
	summary := fmt.Sprintf("Showing up to %d items (files + folders).", maxFolderItems)
	if truncated(root) {
		summary += fmt.Sprintf(" Folders or files indicated with %s contain more items not shown, were ignored, or the display limit (%d items) was reached.",
			truncationIndicator, maxFolderItems)
	}
	sep := string(filepath.Separator)
	return summary + "\n\n" + abs + sep + "\n" + strings.Join(lines, "\n")
}

// readStructure reads the tree under rootPath breadth first, up to
// maxFolderItems entries, without the files ignored reports (nil:
// none) and not entering such folders; an error is the root's.
func readStructure(rootPath string, ignored func(path string) bool) (*folder, error) {
	root := &folder{name: filepath.Base(rootPath)}
	type item struct {
		f    *folder
		path string
	}
	queue := []item{{root, rootPath}}
	seen := map[string]bool{}
	count := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if seen[it.path] || count >= maxFolderItems {
			continue
		}
		seen[it.path] = true
		entries, err := safefile.ReadDir(it.path, 0)
		if err != nil {
			if it.f == root {
				return nil, err
			}
			continue
		}
		slices.SortFunc(entries, func(a, b os.DirEntry) int { return localeCompare(a.Name(), b.Name()) })
		for _, e := range entries {
			if !e.Type().IsRegular() || ignored != nil && ignored(filepath.Join(it.path, e.Name())) {
				continue
			}
			if count >= maxFolderItems {
				it.f.hasMoreFiles = true
				break
			}
			it.f.files = append(it.f.files, e.Name())
			count++
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			if count >= maxFolderItems {
				it.f.hasMoreSubfolders = true
				break
			}
			sub := &folder{name: e.Name(), ignored: ignoredFolder(e.Name()) || ignored != nil && ignored(filepath.Join(it.path, e.Name()))}
			it.f.subFolders = append(it.f.subFolders, sub)
			count++
			if !sub.ignored {
				queue = append(queue, item{sub, filepath.Join(it.path, e.Name())})
			}
		}
	}
	return root, nil
}

// localeCompare orders names roughly as JavaScript's localeCompare does:
// case-insensitively, a lower-case letter before its capital.
func localeCompare(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return -strings.Compare(a, b)
}

// formatFolder draws node, as Gemini CLI's formatStructure.
func formatFolder(node *folder, indent string, isLast, isRoot bool, lines *[]string) {
	connector := "├───"
	if isLast {
		connector = "└───"
	}
	sep := string(filepath.Separator)
	if !isRoot || node.ignored {
		suffix := ""
		if node.ignored {
			suffix = truncationIndicator
		}
		*lines = append(*lines, indent+connector+node.name+sep+suffix)
	}
	childIndent := ""
	if !isRoot {
		childIndent = indent + "│   "
		if isLast {
			childIndent = indent + "    "
		}
	}
	noFolders := len(node.subFolders) == 0 && !node.hasMoreSubfolders
	for i, name := range node.files {
		c := "├───"
		if i == len(node.files)-1 && noFolders {
			c = "└───"
		}
		*lines = append(*lines, childIndent+c+name)
	}
	if node.hasMoreFiles {
		c := "├───"
		if noFolders {
			c = "└───"
		}
		*lines = append(*lines, childIndent+c+truncationIndicator)
	}
	for i, sub := range node.subFolders {
		formatFolder(sub, childIndent, i == len(node.subFolders)-1 && !node.hasMoreSubfolders, false, lines)
	}
	if node.hasMoreSubfolders {
		*lines = append(*lines, childIndent+"└───"+truncationIndicator)
	}
}

func truncated(node *folder) bool {
	if node.hasMoreFiles || node.hasMoreSubfolders || node.ignored {
		return true
	}
	return slices.ContainsFunc(node.subFolders, truncated)
}
