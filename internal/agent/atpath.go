package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Markers of the files an @path prompt attaches, as Gemini CLI writes them.
const (
	referenceContentStart = "--- Content from referenced files ---"
	noReferencedFiles     = "No files matching the criteria were found or all were skipped."
)

// notFoundReason is why an @path that names nothing in the workspace was
// not attached.
const notFoundReason = "no file or directory in the workspace matches it"

// notAttached says to the user, in one line, which @ references were not
// attached and why (the model reads skippedNote): nothing for none.
func notAttached(skipped []tools.SkippedFile) string {
	if len(skipped) == 0 {
		return ""
	}
	var b strings.Builder
	for i, s := range skipped {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s was not attached: %s", s.Path, s.Reason)
	}
	return b.String() + "."
}

// ExpandReferences turns the text of a user's prompt into the parts sent
// to the model, attaching the files its @path references name, read as
// Gemini CLI reads them (tools.ReadReferences), laid out as Gemini CLI lays them out: the
// prompt (each resolved reference rewritten to the path read), then
// "--- Content from referenced files ---", "Content from @path:" and the
// text of each file (explicitly named images, audio and PDFs as data), and
// "--- End of content ---".
//
// A reference is "@" at the start of the text or after whitespace or an
// opening bracket or quote (so "user@example.com" is left alone), followed
// by a path; "\ " escapes a space in it (on Windows, where "\" is a
// separator, a path with a space is quoted instead: unescapePathOn). A
// path naming a file reads it, a directory everything below it; else the
// newest file matching "**/*path*" is read. References that lead nowhere stay as typed; they,
// those ignore files ignore, and files that could not be read, are listed
// for the model with the reason (and told the user: notAttached). A reference ending in a line range,
// "@path#L10-20" or "@path#L10", sends only those lines of the file, each
// labelled with the lines it holds of how many; a range that runs past the
// end stops there and says so, and one that starts after it is not read.
// Every front end calls this for the user's text.
func ExpandReferences(ctx context.Context, ws *workspace.Workspace, prompt string) ([]*genai.Part, error) {
	return ExpandReferencesAndAgents(ctx, ws, prompt, nil)
}

// referents are what an @name may name besides a path: an enabled
// subagent (atagent.go) or an MCP resource (atresource.go); either nil
// for none.
type referents struct {
	isAgent   AgentNamed
	resources Resources
	// exactPaths: an @path that names no file or directory is not
	// searched for (Config.NoReferenceSearch).
	exactPaths bool
}

// expandReferences is ExpandReferences with the agents and MCP resources
// the prompt names taken out of its references, as 0.61's
// handleAtCommand lays them out: the prompt, the note that asks for the
// agents, then the resources' content ahead of the files'.
func expandReferences(ctx context.Context, ws *workspace.Workspace, prompt string, with referents) ([]*genai.Part, error) {
	parts, _, err := expandReferencesTelling(ctx, ws, prompt, with)
	return parts, err
}

// expandReferencesTelling is expandReferences, with the references not
// attached, for the user to be told (notAttached).
func expandReferencesTelling(ctx context.Context, ws *workspace.Workspace, prompt string, with referents) ([]*genai.Part, []tools.SkippedFile, error) {
	refs, agents := splitAgents(parseReferences(prompt), with.isAgent)
	refs, resources := splitResources(prompt, refs, with.resources)
	attached, err := readResources(ctx, with.resources, resources)
	if err != nil {
		return nil, nil, err
	}
	files, err := readPaths(ctx, ws, prompt, refs, with.exactPaths)
	if err != nil {
		return nil, nil, err
	}
	if !files.resolved && len(agents) == 0 && len(attached) == 0 {
		parts := []*genai.Part{genai.NewPartFromText(prompt)}
		if len(files.skipped) > 0 {
			parts = append(parts, genai.NewPartFromText(skippedNote(files.skipped)))
		}
		return parts, files.skipped, nil
	}
	parts := []*genai.Part{genai.NewPartFromText(strings.TrimSpace(files.query))}
	if len(agents) > 0 {
		parts = append(parts, agentNote(agents))
	}
	if files.resolved || len(attached) > 0 {
		parts = append(parts, genai.NewPartFromText("\n"+referenceContentStart))
	}
	parts = append(parts, attached...)
	parts = append(parts, files.content...)
	if files.resolved && files.read == 0 {
		parts = append(parts, genai.NewPartFromText(noReferencedFiles))
	}
	if len(files.skipped) > 0 {
		parts = append(parts, genai.NewPartFromText(skippedNote(files.skipped)))
	}
	if files.read > 0 || len(attached) > 0 {
		parts = append(parts, genai.NewPartFromText("\n"+tools.ReferenceContentEnd))
	}
	return parts, files.skipped, nil
}

// pathsRead is what a prompt's @path references attach.
type pathsRead struct {
	// query is the prompt with each resolved reference rewritten to what
	// was read; the prompt when none resolved.
	query string
	// resolved: a reference led to files to read, read or skipped.
	resolved bool
	// content is each file's label and text (or data), and each line
	// range's; read how many files and ranges it holds.
	content []*genai.Part
	read    int
	// skipped are the references, and files, not read, and why.
	skipped []tools.SkippedFile
}

// readPaths reads the files refs name (tools.ReadReferences); a
// reference that names no file or directory is searched for unless
// exact.
func readPaths(ctx context.Context, ws *workspace.Workspace, prompt string, refs []reference, exact bool) (pathsRead, error) {
	out := pathsRead{query: prompt}
	if ws == nil || len(refs) == 0 {
		return out, nil
	}
	resolved, specs, err := resolveReferences(ctx, ws, refs, exact, &out)
	if err != nil {
		return out, err
	}
	ranges, rangesSkipped, err := readRanges(ctx, ws, refs, resolved)
	if err != nil {
		return out, err
	}
	out.skipped = append(out.skipped, rangesSkipped...)
	// A range that could not be read stays in the prompt as typed.
	for i, r := range refs {
		if _, read := ranges[i]; r.lines != nil && !read {
			delete(resolved, i)
		}
	}
	if len(specs) == 0 && len(ranges) == 0 {
		return out, nil
	}
	out.resolved = true
	var got tools.ManyFiles
	if len(specs) > 0 {
		if got, err = tools.ReadReferences(ctx, ws, specs); err != nil {
			return out, fmt.Errorf("reading the files @ references name: %w", err)
		}
	}
	out.skipped = append(out.skipped, got.Skipped...)
	query, labels := rewriteReferences(prompt, refs, resolved)
	out.query = query
	out.content = append(filesContent(got.Files, labels), rangesContent(refs, resolved, ranges)...)
	out.read = len(got.Files) + len(ranges)
	return out, nil
}

// resolveReferences resolves each of refs (by index), noting in out the
// ones that name nothing or an ignored file; specs are the whole files
// to read, each once.
func resolveReferences(ctx context.Context, ws *workspace.Workspace, refs []reference, exact bool, out *pathsRead) (map[int]tools.Reference, []string, error) {
	resolved := map[int]tools.Reference{}
	seen := map[string]bool{}
	var specs []string
	for i, r := range refs {
		ref, ok, err := resolveReference(ctx, ws, r.name, exact)
		if err != nil {
			return nil, nil, fmt.Errorf("resolving @%s: %w", r.name, err)
		}
		switch {
		case !ok:
			// Named to the model and the user, as 0.61 names a path its
			// search found nothing for: the prompt goes as typed.
			out.skipped = append(out.skipped, tools.SkippedFile{Path: "@" + r.name + r.lines.suffix(), Reason: notFoundReason})
			continue
		case ref.Ignored:
			out.skipped = append(out.skipped, tools.SkippedFile{Path: "@" + r.name + r.lines.suffix(), Reason: "ignored by .gitignore or .geminiignore"})
			continue
		}
		resolved[i] = ref
		if r.lines == nil && !seen[ref.Spec] {
			seen[ref.Spec] = true
			specs = append(specs, ref.Spec)
		}
	}
	return resolved, specs, nil
}

// rewriteReferences is the prompt with each resolved reference rewritten
// to what was read; labels are the references as typed, by file path.
func rewriteReferences(prompt string, refs []reference, resolved map[int]tools.Reference) (string, map[string]string) {
	var query strings.Builder
	last := 0
	labels := map[string]string{} // file path → the reference as typed
	for i, r := range refs {
		ref, ok := resolved[i]
		if !ok {
			continue
		}
		query.WriteString(prompt[last:r.start])
		query.WriteString("@" + ref.Spec + r.lines.suffix())
		last = r.end
		if r.lines != nil {
			continue
		}
		if filepath.IsAbs(r.name) {
			labels[ref.Path] = ref.Spec
		} else {
			labels[ref.Path] = r.name
		}
	}
	query.WriteString(prompt[last:])
	return query.String(), labels
}

// filesContent is each whole file's label and text, or its data.
func filesContent(files []tools.ManyFile, labels map[string]string) []*genai.Part {
	var content []*genai.Part
	for _, f := range files {
		if f.Part != nil {
			content = append(content, f.Part)
			continue
		}
		label, ok := labels[f.Path]
		if !ok {
			label = tools.QuoteName(f.Rel)
		}
		text := f.Text
		if f.Truncated {
			text = "[WARNING: This file was truncated. To view the full content, use the 'read_file' tool on this specific file.]\n\n" + text
		}
		content = append(content, genai.NewPartFromText("\nContent from @"+label+":\n"), genai.NewPartFromText(strings.TrimSpace(text)))
	}
	return content
}

// rangesContent is each line range's label and lines, in the prompt's
// order.
func rangesContent(refs []reference, resolved map[int]tools.Reference, ranges map[int]tools.Lines) []*genai.Part {
	var content []*genai.Part
	for i, r := range refs {
		if lines, ok := ranges[i]; ok {
			label := r.name
			if filepath.IsAbs(r.name) {
				label = resolved[i].Spec
			}
			content = append(content, genai.NewPartFromText("\nContent from @"+label+r.lines.suffix()+" ("+r.lines.told(lines)+"):\n"),
				genai.NewPartFromText(strings.TrimSuffix(lines.Text, "\n")))
		}
	}
	return content
}

// resolveReference is tools.ResolveReference, without its search when
// exact.
func resolveReference(ctx context.Context, ws *workspace.Workspace, name string, exact bool) (tools.Reference, bool, error) {
	if exact {
		ref, ok := tools.ResolvePath(ctx, ws, name)
		return ref, ok, nil
	}
	return tools.ResolveReference(ctx, ws, name)
}

// readRanges reads the lines the resolved references with a line range
// name, by index in refs, each range once; skipped says which could not
// be read, and why.
func readRanges(ctx context.Context, ws *workspace.Workspace, refs []reference, resolved map[int]tools.Reference) (map[int]tools.Lines, []tools.SkippedFile, error) {
	ranges := map[int]tools.Lines{}
	var skipped []tools.SkippedFile
	seen := map[string]bool{}
	for i, r := range refs {
		ref, ok := resolved[i]
		if !ok || r.lines == nil {
			continue
		}
		key := ref.Path + r.lines.suffix()
		if seen[key] {
			continue
		}
		seen[key] = true
		lines, why, err := tools.ReadLines(ctx, ws, ref.Path, r.lines.first, r.lines.last)
		switch {
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		case err != nil:
			why = err.Error()
		}
		if why != "" {
			skipped = append(skipped, tools.SkippedFile{Path: "@" + r.name + r.lines.suffix(), Reason: why})
			continue
		}
		ranges[i] = lines
	}
	return ranges, skipped, nil
}

// skippedNote tells the model which references were not read, and why.
func skippedNote(skipped []tools.SkippedFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nSkipped %d item(s):", len(skipped))
	for _, s := range skipped {
		fmt.Fprintf(&b, "\n- %s (Reason: %s)", tools.QuoteName(s.Path), s.Reason)
	}
	return b.String()
}

// reference is one @path in a prompt: the bytes [start, end) of "@path"
// and the path with its escapes undone, less the line range that ends it
// ("@path#L10-20").
type reference struct {
	start, end int
	name       string
	lines      *lineRange // nil: the whole file
}

// lineRange is the lines an @path#L reference names, 1-based, inclusive.
type lineRange struct{ first, last int }

// splitRange takes the line range off the end of name: "#L10", "#L10-20"
// or "#L10-L20", as Claude Code and GitHub write one.
func splitRange(name string) (string, *lineRange) {
	at := strings.LastIndex(name, "#L")
	if at <= 0 {
		return name, nil
	}
	firstText, lastText, isRange := strings.Cut(name[at+2:], "-")
	first, ok := lineNumber(firstText)
	last := first
	if isRange {
		var okLast bool
		last, okLast = lineNumber(strings.TrimPrefix(lastText, "L"))
		ok = ok && okLast
	}
	if !ok {
		return name, nil
	}
	return name[:at], &lineRange{first: first, last: last}
}

// lineNumber reads a line number of a range: up to nine digits.
func lineNumber(s string) (int, bool) {
	if s == "" || len(s) > 9 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// suffix is the range as a reference ends with it; "" for none.
func (r *lineRange) suffix() string {
	switch {
	case r == nil:
		return ""
	case r.first == r.last:
		return fmt.Sprintf("#L%d", r.first)
	}
	return fmt.Sprintf("#L%d-%d", r.first, r.last)
}

// told is what the model is told of the lines read for r: which, of how
// many, and why they are fewer than asked.
func (r *lineRange) told(got tools.Lines) string {
	note := fmt.Sprintf("lines %d-%d of %d", got.First, got.Last, got.Total)
	if got.First == got.Last {
		note = fmt.Sprintf("line %d of %d", got.First, got.Total)
	}
	switch {
	case got.Last == r.last:
		return note
	case got.Last == got.Total:
		return fmt.Sprintf("%s; lines %d-%d were asked for, and the file ends at line %d", note, r.first, r.last, got.Total)
	}
	return fmt.Sprintf("%s; lines %d-%d were asked for, and a range is read %d lines at most", note, r.first, r.last, got.Last-got.First+1)
}

// parseReferences finds the @path references of prompt, as Gemini CLI's
// pattern does, except that "@" must start the text or follow whitespace,
// an opening bracket or a quote: an address such as user@example.com is
// not a reference.
func parseReferences(prompt string) []reference {
	return parseReferencesOn(runtime.GOOS, prompt)
}

// parseReferencesOn is parseReferences as typed on goos, whose paths
// unescapePathOn reads.
func parseReferencesOn(goos, prompt string) []reference {
	var refs []reference
	for i := 0; i < len(prompt); i++ {
		if prompt[i] != '@' || !referenceMayStart(prompt, i) {
			continue
		}
		end := scanPath(prompt, i+1)
		if end == i+1 {
			continue
		}
		name, lines := splitRange(unescapePathOn(goos, prompt[i+1:end]))
		if name != "" {
			refs = append(refs, reference{start: i, end: end, name: name, lines: lines})
		}
		i = end - 1
	}
	return refs
}

// referenceMayStart reports whether the "@" at i can start a reference.
func referenceMayStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	return strings.ContainsRune(" \t\n\r([{<\"'`", prev)
}

// scanPath returns the end of the path starting at i: a run of quoted
// strings, backslash-escaped characters and anything but whitespace,
// ",;!?()[]{}", or a "." that ends the text or precedes whitespace.
func scanPath(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			if k := strings.IndexByte(s[i+1:], '"'); k >= 0 {
				i += k + 2
				continue
			}
			i++
		case c == '\\' && i+1 < len(s):
			_, size := utf8.DecodeRuneInString(s[i+1:])
			i += 1 + size
		case strings.IndexByte(" \t\n\r,;!?()[]{}", c) >= 0:
			return i
		case c == '.':
			if i+1 == len(s) || strings.IndexByte(" \t\n\r", s[i+1]) >= 0 {
				return i
			}
			i++
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
	}
	return i
}

// unescapePath is the path of a reference as typed on this system
// (unescapePathOn).
func unescapePath(p string) string { return unescapePathOn(runtime.GOOS, p) }

// unescapePathOn is the path of a reference as typed on goos: quotes
// around the whole path are taken off; then, as 0.61's unescapePath, on
// Windows that is all, a backslash being the separator (@src\main.go),
// so a name with a space is quoted (@"my file.txt"); elsewhere a
// backslash escapes the character after it (@my\ file.txt).
func unescapePathOn(goos, p string) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		p = p[1 : len(p)-1]
	}
	if goos == "windows" {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
