package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// MemorySectionHeader is the heading save_memory adds facts under, in the
// user's global GEMINI.md, as Gemini CLI spells it.
const MemorySectionHeader = "## Gemini Added Memories"

// MemoryFileName is the context file save_memory writes in the user's
// Gemini directory (~/.gemini), shared with Gemini CLI.
const MemoryFileName = "GEMINI.md"

// maxMemoryFileSize bounds the GEMINI.md save_memory reads and rewrites.
const maxMemoryFileSize = workspace.MaxFileSize

type saveMemoryTool struct {
	path string // the global GEMINI.md; "" when there is no home directory
}

func (t *saveMemoryTool) Name() string { return MemoryName }

// saveMemoryParams are save_memory's parameters.
type saveMemoryParams struct {
	Fact string `json:"fact" desc:"The specific fact or piece of information to remember. Should be a clear, self-contained statement."`
}

func (t *saveMemoryTool) Declaration() *genai.FunctionDeclaration {
	return declare[saveMemoryParams](MemoryName, "Saves a specific piece of information or fact to your long-term memory, "+
		"the user's global GEMINI.md, which is loaded as context in later sessions. "+
		"Use this when the user explicitly asks you to remember something, or states a clear, concise fact about themselves "+
		"or their preferences that seems important to retain for future interactions. "+
		"Do not use it for conversational context that is only relevant to the current session, or to save long, complex or rambling pieces of text. "+
		"The fact should be a short, single statement.")
}

func (t *saveMemoryTool) Build(raw map[string]any) (Call, error) {
	var p saveMemoryParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if memoryItem(p.Fact) == "- " {
		return nil, errors.New(`Parameter "fact" must be a non-empty string.`)
	}
	if t.path == "" {
		return nil, errors.New("save_memory is unavailable: gemini-ls has no home directory (HOME is not set), so it has no global GEMINI.md")
	}
	return &saveMemoryCall{path: t.path, fact: p.Fact}, nil
}

type saveMemoryCall struct {
	path string
	fact string
}

func (c *saveMemoryCall) Title() string { return "SaveMemory in " + c.path }

// Kind is edit: the call changes a file, if not one in the workspace.
func (c *saveMemoryCall) Kind() Kind { return KindEdit }

// Confirmation asks, as Gemini CLI does (its policy asks for save_memory
// in every mode but yolo), showing the change to GEMINI.md; Always Allow
// covers later memories of the session. The file is outside the workspace
// and shared with Gemini CLI, so it is written directly, not proposed to
// the editor.
func (c *saveMemoryCall) Confirmation() *Confirmation {
	details := "Add to " + c.path + ":\n" + memoryItem(c.fact)
	if target, before, err := readMemoryFile(c.path); err == nil {
		details = workspace.UnifiedDiff(target, before, addMemory(before, c.fact))
	}
	return &Confirmation{
		Kind:      "edit",
		Title:     "Confirm Memory Save: " + c.path,
		Details:   details,
		AllowKeys: []string{MemoryName},
	}
}

func (c *saveMemoryCall) Execute(ctx context.Context) (Result, error) {
	if err := c.save(ctx); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return failure("Failed to save memory. Detail: " + err.Error()), nil
	}
	msg := fmt.Sprintf("Okay, I've remembered that: %q", sanitizeFact(c.fact))
	// Gemini CLI's llmContent, to the byte.
	out, _ := json.Marshal(struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
	}{true, msg})
	return Result{Output: string(out), Display: msg}, nil
}

// save adds the fact to the file as it is now (not as it was when the user
// was asked, so a concurrent write by Gemini CLI is kept).
func (c *saveMemoryCall) save(ctx context.Context) error {
	target, before, err := readMemoryFile(c.path)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeFileAtomic(target, addMemory(before, c.fact))
}

// readMemoryFile returns the file's text and the path to write: the file a
// symlink points to, so a GEMINI.md kept in a dotfiles repository stays a
// link. A missing file reads as empty.
func readMemoryFile(path string) (target, text string, err error) {
	target = path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	info, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return target, "", nil
	}
	if err != nil {
		return "", "", err
	}
	if !info.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s is not a regular file", path)
	}
	if info.Size() > maxMemoryFileSize {
		return "", "", fmt.Errorf("%s is larger than %d MB", path, maxMemoryFileSize>>20)
	}
	data, err := os.ReadFile(target)
	return target, string(data), err
}

// writeFileAtomic replaces path with content through a temporary file in
// the same directory, keeping the file's mode, so a reader (Gemini CLI)
// sees the old file or the new one, never half of it.
func writeFileAtomic(path, content string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	return safefile.Replace(path, []byte(content), mode)
}

// sanitizeFact is the fact on one line, as Gemini CLI quotes it back.
func sanitizeFact(fact string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(fact))
}

// leadingDashes are list markers the model put in front of a fact.
var leadingDashes = regexp.MustCompile(`^(-+\s*)+`)

// memoryItem is the list item for fact: one line, so a fact cannot inject
// Markdown structure (headings) into the file.
func memoryItem(fact string) string {
	return "- " + strings.TrimSpace(leadingDashes.ReplaceAllString(sanitizeFact(fact), ""))
}

// addMemory returns content with fact added as the last item of the
// memories section, creating the section at the end when there is none.
// Every byte of content is kept: the item is only inserted, after the
// section's last non-blank line, in the file's line-break style.
func addMemory(content, fact string) string {
	item := memoryItem(fact)
	eol := "\n"
	if strings.Contains(content, "\r\n") {
		eol = "\r\n"
	}
	lines := strings.SplitAfter(content, "\n")
	header := -1
	for i, line := range lines {
		if strings.TrimRight(line, " \t\r\n") == MemorySectionHeader {
			header = i
			break
		}
	}
	if header < 0 {
		sep := ""
		switch {
		case content == "" || strings.HasSuffix(content, eol+eol):
		case strings.HasSuffix(content, "\n"):
			sep = eol
		default:
			sep = eol + eol
		}
		return content + sep + MemorySectionHeader + eol + item + eol
	}
	// The section runs to the next heading of level 1 or 2.
	end := len(lines)
	for i := header + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "# ") || strings.HasPrefix(lines[i], "## ") {
			end = i
			break
		}
	}
	last := header // the section's last non-blank line
	for i := header + 1; i < end; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			last = i
		}
	}
	var b strings.Builder
	for _, line := range lines[:last+1] {
		b.WriteString(line)
	}
	if !strings.HasSuffix(lines[last], "\n") {
		b.WriteString(eol)
	}
	b.WriteString(item + eol)
	for _, line := range lines[last+1:] {
		b.WriteString(line)
	}
	return b.String()
}
