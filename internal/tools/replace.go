package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

type replaceTool struct {
	ws *workspace.Workspace
	// fixer is the LLM fix, nil when it is off (noFix says why).
	fixer *editFixer
	noFix string
}

// replace is replace over opts.Workspace, whose LLM fix asks
// opts.Utility unless opts.DisableLLMCorrection.
func replace(opts Options) *Defined[replaceParams] {
	return newReplaceTool(opts).define()
}

func newReplaceTool(opts Options) *replaceTool {
	t := &replaceTool{ws: opts.Workspace}
	switch {
	case opts.DisableLLMCorrection:
		t.noFix = "it is turned off (tools.disableLLMCorrection)"
	case opts.Utility == nil:
		t.noFix = "no model is available for it"
	default:
		t.fixer = &editFixer{utility: opts.Utility, timeout: DefaultEditFixTimeout}
	}
	return t
}

// define is replace with t's workspace and fix.
func (t *replaceTool) define() *Defined[replaceParams] {
	return Define(Spec{
		Name: ReplaceName,
		Description: "Replaces text within a file in the workspace (as open in the editor). By default, the tool expects to find and replace exactly ONE occurrence of `old_string`; " +
			"if you want to replace multiple occurrences of the exact same string, set `allow_multiple` to true. old_string must match the file literally, " +
			"whitespace and indentation included, with enough surrounding context (at least 3 lines before and after) to be unique. Always use the read_file tool to examine the file's current content before attempting a text replacement. " +
			"An empty old_string creates a new file holding new_string. NEVER escape old_string or new_string. " +
			"The user reviews the change in the editor and may accept, modify or decline it; if modified, the response says so.",
		Annotations: Annotations{Kind: dialog.KindEdit, EditsFiles: true},
		Aliases:     []string{"EditTool"},
	}, t.build)
}

// replaceParams are replace's parameters, as Gemini CLI 0.61 declares
// them. Older calls' expected_replacements still holds the edit to that
// many occurrences; one above 1 is normalized to allow_multiple.
type replaceParams struct {
	FilePath      string `json:"file_path" jsonschema:"The path to the file to modify: absolute, or relative to the workspace root."`
	Instruction   string `json:"instruction" param:"unenforced" jsonschema:"A clear, semantic instruction for the code change, acting as a high-quality prompt for an expert LLM assistant. It must be self-contained and explain the goal of the change: why it is needed, where it happens, what the high-level change is and what the desired outcome is."`
	OldString     string `json:"old_string" jsonschema:"The exact literal text to replace, preferably unescaped. For single replacements (default), include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely. Empty to create a new file."`
	NewString     string `json:"new_string" jsonschema:"The exact literal text to replace old_string with, preferably unescaped. Provide the EXACT text. Ensure the resulting code is correct and idiomatic. Do not use omission placeholders like '(rest of methods ...)', '...', or 'unchanged code'; provide exact literal code."`
	AllowMultiple bool   `json:"allow_multiple,omitempty" jsonschema:"If true, the tool will replace all occurrences of old_string. If false (default), it will only succeed if exactly one occurrence is found."`
	// ExpectedReplacements is what gemini-ls declared before allow_multiple.
	ExpectedReplacements *int `json:"expected_replacements,omitempty" param:"undeclared"`
}

// fromOlder gives an older call's expected_replacements above 1 the
// allow_multiple it needs now; expected_replacements stays, and still
// holds the edit to that count.
func (replaceParams) fromOlder(raw map[string]any) (map[string]any, error) {
	n, ok := wholeNumber(raw["expected_replacements"])
	if !ok || n <= 1 {
		return raw, nil
	}
	switch multiple := raw["allow_multiple"]; multiple {
	case true:
		return raw, nil
	case false:
		return nil, errors.New("expected_replacements above 1 needs allow_multiple: give allow_multiple true, or only allow_multiple")
	}
	args := maps.Clone(raw) // raw is the model's call, kept as made
	args["allow_multiple"] = true
	return args, nil
}

// build is the call p asks for.
func (t *replaceTool) build(p replaceParams) (Call, error) {
	expected := 1
	if p.AllowMultiple {
		expected = anyCount
	}
	if p.ExpectedReplacements != nil {
		if expected = *p.ExpectedReplacements; expected < 1 {
			return nil, errors.New("params/expected_replacements must be >= 1")
		}
	}
	if toLF(p.OldString) == toLF(p.NewString) {
		return nil, errors.New("No changes to apply. The old_string and new_string are identical.")
	}
	abs, err := resolvePath(t.ws, "file_path", p.FilePath)
	if err != nil {
		return nil, err
	}
	return &replaceCall{tool: t, path: abs, oldString: p.OldString, newString: p.NewString, expected: expected, instruction: p.Instruction}, nil
}

// anyCount is a replaceCall's expected count under allow_multiple: every
// occurrence, however many, at least one.
const anyCount = 0

type replaceCall struct {
	tool                 *replaceTool
	path                 string
	oldString, newString string // as the model wrote them
	expected             int
	instruction          string
	// hidden: read_file would refuse the file (ignored, or in .git).
	// Gemini CLI 0.61 edits it as any other; here no failure shows its
	// lines, and it is never sent to the correction model.
	hidden bool
	// prepared is the file as Prepare read it, which Execute runs on;
	// nil when it was not prepared (Execute reads it then).
	prepared *replaceRead
	// line is where the edit starts, as Prepare found it; 0 when not
	// found or not prepared.
	line int
}

// replaceRead is the file a replace call runs on, read once, and where
// old_string is in it.
type replaceRead struct {
	file  workspace.File
	text  string
	err   error
	loc   located
	found bool
}

func (c *replaceCall) Title() string { return "Edit " + c.tool.ws.Display(c.path) }

func (c *replaceCall) Confirmation() *Confirmation { return EditConfirmation(c.path) }

// Location is the file changed and, once prepared, the line the edit
// starts at. Gemini CLI 0.61's edit tool gives its file alone
// (toolLocations: {path}); the line is gemini-ls's, so an editor opens
// the file where the edit is.
func (c *replaceCall) Location() (string, int) { return c.path, c.line }

// Prepare reads the file as the edit runs on it (the editor's buffer
// where it is open) and finds the line old_string starts at, by the
// matching the edit uses: its first occurrence; none when not found. An
// empty old_string creates the file, which then starts at line 1.
func (c *replaceCall) Prepare(ctx context.Context) {
	if c.oldString == "" {
		if _, err := c.tool.ws.Stat(c.path); errors.Is(err, workspace.ErrNotExist) {
			c.line = 1
		}
		return
	}
	r := c.read(ctx)
	c.prepared = &r
	if r.found {
		c.line = lineOf(r.text, r.loc.splices[0].start)
	}
}

// read reads the file and finds old_string in it.
func (c *replaceCall) read(ctx context.Context) replaceRead {
	f, err := c.tool.ws.ReadFile(ctx, c.path, workspace.MaxFileSize)
	if err != nil {
		return replaceRead{err: err}
	}
	r := replaceRead{file: f, text: string(f.Content)}
	r.loc, r.found = locate(r.text, c.oldString, c.newString)
	return r
}

// takeRead is the file as Prepare read it, else as read now. A file
// changed since (by a BeforeTool hook) is caught where the change is
// prepared (apply): the edit then fails, saying so.
func (c *replaceCall) takeRead(ctx context.Context) replaceRead {
	if r := c.prepared; r != nil {
		c.prepared = nil
		return *r
	}
	return c.read(ctx)
}

func (c *replaceCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	ws := c.tool.ws
	c.hidden = hidden(ctx, ws, c.path, false)
	isDir, err := ws.Stat(c.path)
	if errors.Is(err, workspace.ErrNotExist) {
		if c.oldString != "" {
			return failure("File not found. Cannot apply edit. Use an empty old_string to create a new file."), nil
		}
		// As written, line endings included, as Gemini CLI writes a new
		// file (and write_file here).
		change, err := ws.PrepareChange(ctx, c.path, c.newString)
		if err != nil {
			return Result{}, fmt.Errorf("preparing change to %s: %w", c.path, err)
		}
		return propose(ws, change, fmt.Sprintf("Created new file: %s with provided content.", c.path), c.hidden)
	}
	if err != nil {
		return Result{}, fmt.Errorf("checking %s: %w", c.path, err)
	}
	if isDir {
		return failure("Path is a directory, not a file: " + c.path), nil
	}
	if c.oldString == "" {
		return failure("Failed to edit. Attempted to create a file that already exists."), nil
	}
	r := c.takeRead(ctx)
	if r.err != nil {
		return Result{}, fmt.Errorf("reading %s: %w", c.path, r.err)
	}
	// The rules hold of the file read, not only of its name.
	c.hidden = c.hidden || readHidden(ctx, ws, c.path, r.file, false)
	if r.found {
		return c.apply(ctx, r.text, r.loc, "")
	}
	return c.fix(ctx, r.text)
}

// apply proposes text with loc's splices made, when loc found exactly the
// expected number of separate occurrences.
func (c *replaceCall) apply(ctx context.Context, text string, loc located, why string) (Result, error) {
	n := len(loc.splices)
	if (c.expected != anyCount && n != c.expected) || loc.overlapping() {
		want := fmt.Sprintf("%d occurrence(s)", c.expected)
		if c.expected == anyCount {
			want = "separate occurrences"
		}
		msg := fmt.Sprintf("Failed to edit, expected %s but found %d for old_string in file: %s", want, n, c.path)
		if !loc.silent() {
			msg += " (matching after " + loc.how() + ")"
		}
		if n == 1 {
			msg += ". It starts at line " + occurrenceLines(text, loc) + "."
		} else {
			msg += ". They start at lines " + occurrenceLines(text, loc) + "."
		}
		switch {
		case n == c.expected || c.expected == anyCount:
			msg += " They overlap, so they cannot all be replaced. No edits made. Include more of the surrounding lines in old_string to make it unique."
		case c.expected == 1:
			msg += " No edits made. Include more of the surrounding lines in old_string to make it unique, or set allow_multiple to true to replace them all."
		case n > c.expected:
			msg += fmt.Sprintf(" No edits made. Include more of the surrounding lines in old_string to make it unique, or set expected_replacements to %d to replace them all.", n)
		default:
			msg += fmt.Sprintf(" No edits made. Set expected_replacements to %d to replace just these.", n)
		}
		return failure(msg), nil
	}
	if loc.unreindentable != nil {
		return failure(fmt.Sprintf("Failed to edit %s: old_string matched after %s, but new_string could not be given the file's indentation %v. No edits made. "+
			"Give old_string and new_string the file's exact indentation, as read_file shows it.", c.path, strings.TrimSuffix(loc.how(), reindented), loc.unreindentable)), nil
	}
	change, err := c.tool.ws.PrepareChange(ctx, c.path, loc.apply(text))
	if err != nil {
		return Result{}, fmt.Errorf("preparing change to %s: %w", c.path, err)
	}
	if change.Before != text {
		// The splices are offsets into text; on other text they would
		// undo whatever changed meanwhile.
		return failure(fmt.Sprintf("Failed to edit: %s changed while this edit was being prepared. No edits made. Read the file again and retry.", c.path)), nil
	}
	msg := fmt.Sprintf("Successfully modified file: %s (%d replacements).", c.path, len(loc.splices))
	if note := loc.note(text); note != "" {
		msg += " " + note
	}
	if why != "" {
		msg += " " + why
	}
	return propose(c.tool.ws, change, msg, c.hidden)
}

// fix is the last stage: old_string was not found by any deterministic
// stage, so the LLM fix is asked, when there is one.
func (c *replaceCall) fix(ctx context.Context, text string) (Result, error) {
	notFound := fmt.Sprintf("Failed to edit, 0 occurrences found for old_string in %s. No edits made. "+
		"The exact text in old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. "+
		"Use read_file tool to verify.", c.path)
	fail := func(llm string) Result {
		msg := notFound + " Also tried: the file's line endings, unescaping, ignoring indentation and surrounding whitespace, ignoring whitespace within lines, a fuzzy match. " + llm
		if c.hidden {
			msg += " The closest lines in the file are not shown: it is ignored by configured ignore patterns."
		} else if near := nearestLines(text, c.oldString); near != "" {
			msg += "\n" + near
		}
		return failure(msg)
	}
	fixer := c.tool.fixer
	if c.hidden {
		return fail("No LLM correction was tried: the file is ignored by configured ignore patterns, so it is not sent to a model."), nil
	}
	if fixer == nil {
		return fail("No LLM correction was tried: " + c.tool.noFix + "."), nil
	}
	if isJSONLike(c.path) {
		return fail("No LLM correction was tried: it is not made for JSON files and notebooks (.json, .jsonc, .json5, .ipynb)."), nil
	}
	edit, err := fixer.fix(ctx, editFixRequest{
		instruction: c.instruction,
		oldString:   c.oldString,
		newString:   c.newString,
		failure:     notFound,
		content:     toLF(text),
	})
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if err != nil {
		return fail(fmt.Sprintf("The LLM correction failed: %v.", err)), nil
	}
	if edit.NoChangesRequired {
		return failure(fmt.Sprintf("No changes required: an LLM correction found that the file already contains the change. No edits made. Explanation: %s. "+
			"Original error: %s", strings.TrimRight(edit.Explanation, ". "), notFound)), nil
	}
	// The corrected search must be the file's own text; only line endings
	// are forgiven, since the model sees the file with LF.
	loc := located{stage: stageLLM, splices: newLFView(text).find(toLF(edit.Search), toLF(edit.Replace))}
	switch {
	case len(loc.splices) == 0:
		return fail("The LLM correction's old_string was not found in the file either."), nil
	case toLF(edit.Search) == toLF(edit.Replace):
		return fail("The LLM correction proposed no change."), nil
	}
	why := ""
	if e := strings.TrimSpace(edit.Explanation); e != "" {
		why = "The correction: " + e
	}
	return c.apply(ctx, text, loc, why)
}

// isJSONLike reports whether path is a file Gemini CLI 0.61 never asks
// the LLM fix about: JSON and notebooks.
func isJSONLike(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".jsonc", ".json5", ".ipynb":
		return true
	}
	return false
}

// nearestLines shows the lines of text most like old, for a failure: the
// window where most of old's lines appear (ignoring whitespace), else
// the lines around the one most like old's longest line.
func nearestLines(text, old string) string {
	fl := splitLines(text)
	if len(fl.starts) == 0 {
		return ""
	}
	oldLines := strings.Split(strings.TrimSuffix(toLF(old), "\n"), "\n")
	if len(oldLines) > 50 {
		oldLines = oldLines[:50]
	}
	want := make([]string, len(oldLines))
	longest := 0
	for i, l := range oldLines {
		want[i] = squeezeSpace(l)
		if len(want[i]) > len(want[longest]) {
			longest = i
		}
	}
	have := make([]string, len(fl.starts))
	for i := range have {
		have[i] = squeezeSpace(fl.line(i))
	}
	best, bestScore := 0, 0
	for i := range have {
		score := 0
		for j := 0; j < len(want) && i+j < len(have); j++ {
			if want[j] != "" && want[j] == have[i+j] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if bestScore == 0 {
		sim := 0.0
		grams := bigrams(want[longest])
		for i, h := range have {
			if s := dice(grams, h); s > sim {
				best, sim = i-longest, s
			}
		}
		if sim < 0.5 {
			return ""
		}
	}
	from := max(0, best-2)
	to := min(len(have), max(best, 0)+len(oldLines)+2, from+40)
	var b strings.Builder
	fmt.Fprintf(&b, "The closest lines in the file (lines %d-%d):\n", from+1, to)
	for i := from; i < to; i++ {
		line, _ := cutLine(fl.line(i))
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func bigrams(s string) map[string]int {
	g := map[string]int{}
	for i := 0; i+2 <= len(s); i++ {
		g[s[i:i+2]]++
	}
	return g
}

// dice is the Sørensen–Dice similarity of s to a line's bigrams.
func dice(grams map[string]int, s string) float64 {
	if len(grams) == 0 || len(s) < 2 {
		return 0
	}
	total, shared := 0, 0
	for _, n := range grams {
		total += n
	}
	seen := map[string]int{}
	for i := 0; i+2 <= len(s); i++ {
		g := s[i : i+2]
		if seen[g] < grams[g] {
			shared++
		}
		seen[g]++
	}
	return 2 * float64(shared) / float64(total+len(s)-1)
}
