package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/memory"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// MemorySectionHeader is the heading save_memory adds facts under, in the
// user's global GEMINI.md, as Gemini CLI spells it.
const MemorySectionHeader = "## Gemini Added Memories"

// MemoryFileName is the context file save_memory writes in the user's
// Gemini directory (~/.gemini), shared with Gemini CLI.
const MemoryFileName = "GEMINI.md"

// maxFactSize bounds one fact: a memory is a short statement, loaded with
// every request of every later session.
const maxFactSize = 4 << 10

// maxSaveAttempts bounds how often a save starts over because another
// program (Gemini CLI, which takes no lock) changed the file meanwhile.
const maxSaveAttempts = 8

// saveMemoryParams are save_memory's parameters.
type saveMemoryParams struct {
	Fact string `json:"fact" jsonschema:"The specific fact or piece of information to remember. Should be a clear, self-contained statement."`
}

// saveMemory is save_memory, adding facts to path, the global GEMINI.md
// ("" when there is no home directory). interleave, when set, runs in
// each save between reading the file and replacing it: the tests' other
// writer.
//
// Its annotations say only its kind: it writes the user's memory file
// itself, not as a proposed edit of the workspace.
func saveMemory(path string, interleave func(path string)) *Defined[saveMemoryParams] {
	return Define(Spec{
		Name: MemoryName,
		Description: "Saves a specific piece of information or fact to your long-term memory, " +
			"the user's global GEMINI.md, which is loaded as context in later sessions. " +
			"Use this when the user explicitly asks you to remember something, or states a clear, concise fact about themselves " +
			"or their preferences that seems important to retain for future interactions. " +
			"Do not use it for conversational context that is only relevant to the current session, or to save long, complex or rambling pieces of text. " +
			"The fact should be a short, single statement.",
		Annotations: Annotations{Kind: dialog.KindEdit},
		Aliases:     []string{"MemoryTool"},
	}, func(p saveMemoryParams) (Call, error) {
		if memoryItem(p.Fact) == "- " {
			return nil, errors.New(`Parameter "fact" must be a non-empty string.`)
		}
		if n := len(memoryItem(p.Fact)); n > maxFactSize {
			return nil, fmt.Errorf(`Parameter "fact" is %s; a memory must be at most %s, a short single statement: save a brief summary instead.`,
				workspace.FormatSize(int64(n)), workspace.FormatSize(maxFactSize))
		}
		if path == "" {
			return nil, errors.New("save_memory is unavailable: gemini-ls has no home directory (" + settings.HomeVariable + " is not set), so it has no global GEMINI.md")
		}
		return &saveMemoryCall{path: path, fact: p.Fact, interleave: interleave}, nil
	})
}

type saveMemoryCall struct {
	path       string
	fact       string
	interleave func(path string)
}

func (c *saveMemoryCall) Title() string { return "SaveMemory in " + c.path }

// Confirmation asks, as Gemini CLI does (its policy asks for save_memory
// in every mode but yolo), showing the change to GEMINI.md; Always Allow
// covers later memories of the session. The file is outside the workspace
// and shared with Gemini CLI, so it is written directly, not proposed to
// the editor.
func (c *saveMemoryCall) Confirmation() *Confirmation {
	details := "Add to " + c.path + ":\n" + memoryItem(c.fact)
	target := memoryTarget(c.path)
	if before, err := readMemoryFile(target); err == nil {
		details = workspace.UnifiedDiff(target, before, addMemory(before, c.fact))
	}
	return &Confirmation{
		Kind:      "edit",
		Title:     "Confirm Memory Save: " + c.path,
		Details:   details,
		AllowKeys: []string{MemoryName},
	}
}

func (c *saveMemoryCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
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

// errChanged is a save finding the file changed since it read it.
var errChanged = errors.New("GEMINI.md changed while the fact was being added")

// save adds the fact to the file as it is now (not as it was when the user
// was asked), and reports success only once the fact is on disk. Writers
// in gemini-ls (any session, any process) take turns through the file's
// lock (internal/sharedlock, Gemini CLI's kind); Gemini CLI 0.61 takes
// none on memory files, so the file is replaced only if it still holds
// what was read, and read back after, the save starting over when another
// write got in between.
func (c *saveMemoryCall) save(ctx context.Context) error {
	target := memoryTarget(c.path)
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return err
	}
	lock, err := sharedlock.Acquire(ctx, target)
	if err != nil {
		return err
	}
	defer lock.Release()
	for range maxSaveAttempts {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := c.saveOnce(target, lock)
		if !errors.Is(err, errChanged) {
			return err
		}
	}
	return fmt.Errorf("%s kept changing while the fact was being added (another program is writing it); the fact was not saved, try again", c.path)
}

// saveOnce adds the fact to target as read now; errChanged means another
// write got in the way and the fact is not on disk.
func (c *saveMemoryCall) saveOnce(target string, lock *sharedlock.Lock) error {
	before, err := readMemoryFile(target)
	if err != nil {
		return err
	}
	after := addMemory(before, c.fact)
	if len(after) > memory.MaxFileSize {
		return fmt.Errorf("adding this fact would make %s %s, over the %s a context file is loaded up to: "+
			"the whole file, the user's own instructions included, would no longer be loaded. "+
			"The file was left unchanged; ask the user to shorten it",
			c.path, workspace.FormatSize(int64(len(after))), workspace.FormatSize(memory.MaxFileSize))
	}
	if c.interleave != nil {
		c.interleave(target)
	}
	err = safefile.WriteIf(target, []byte(after), func() error {
		if err := lock.Held(); err != nil {
			return err
		}
		now, err := readMemoryFile(target)
		if err == nil && now != before {
			return errChanged
		}
		return err
	})
	if err != nil {
		return err
	}
	// A writer that read before the rename and wrote after it drops
	// the fact; it is then added again.
	now, err := readMemoryFile(target)
	if err != nil {
		return err
	}
	if item := memoryItem(c.fact); countLines(now, item) < countLines(after, item) {
		return errChanged
	}
	return nil
}

// memoryTarget is the file to write for path: the file a symlink points to,
// so a GEMINI.md kept in a dotfiles repository stays a link.
func memoryTarget(path string) string {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved
	}
	return path
}

// readMemoryFile returns the text of the file at path, "" when it is
// missing: a regular file the memory loader would load.
func readMemoryFile(path string) (string, error) {
	data, err := safefile.Read(path, memory.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return string(data), nil
}

// countLines counts the lines of text that are line.
func countLines(text, line string) int {
	n := 0
	for l := range strings.Lines(text) {
		if strings.TrimRight(l, "\r\n") == line {
			n++
		}
	}
	return n
}

// sanitizeFact is the fact on one line, as Gemini CLI quotes it back.
func sanitizeFact(fact string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(fact))
}

// leadingDashes are list markers the model put in front of a fact.
var leadingDashes = lazyregexp.New(`^(-+\s*)+`)

// memoryItem is the list item for fact: one line, so a fact cannot inject
// Markdown structure (headings) into the file, and no import.
func memoryItem(fact string) string {
	return "- " + escapeImports(strings.TrimSpace(leadingDashes.ReplaceAllString(sanitizeFact(fact), "")))
}

// escapeImports puts a backslash before each @ of text that would start an
// "@path" import in a context file: an @ at the start (the item's "- "
// comes before it) or after a space, tab or line break, which is how both
// memory's and Gemini CLI's import processors find them. A saved fact is
// data: "@./oauth_creds.json" must not make every later session load the
// file, in gemini-ls or in Gemini CLI reading the same GEMINI.md. "\@"
// is Markdown's escape for "@", so the text still reads the same.
func escapeImports(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '@' && (i == 0 || strings.IndexByte(" \t\r\n", text[i-1]) >= 0) {
			b.WriteByte('\\')
		}
		b.WriteByte(text[i])
	}
	return b.String()
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
