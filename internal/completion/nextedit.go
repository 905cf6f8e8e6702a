package completion

import (
	"context"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// What a next edit prompt shows of the document, in bytes: a file up to
// nextEditFile whole; of a longer one that much around the cursor, and
// up to elsewhereBudget of the lines beyond it that mention what the
// user's recent edits of it took away (a rename's other occurrences).
const (
	nextEditFile    = 24000
	elsewhereBudget = 4000
)

// Markers of a next edit prompt and of the model's answer.
const (
	userCursor    = "<|user_cursor_is_here|>"
	searchMarker  = "<|search|>"
	replaceMarker = "<|replace|>"
	endMarker     = "<|end|>"
)

const nextEditSystem = `You predict the next edit a programmer will make. You are shown their recent edits, as diffs, and the file they are in, with ` + userCursor + ` where their cursor is (of a long file, the part around the cursor and, as excerpts, the lines elsewhere that mention what they changed).

Carry on what the recent edits started: a rename through the rest of the file, the same change to similar lines, the code the edit calls for. The next edit may be anywhere in the file, far from the cursor. Answer with each change as a block:
` + searchMarker + `
the lines as they are now: whole lines, copied exactly, enough of them to occur only once
` + replaceMarker + `
the same lines as they become
` + endMarker + `
One block for each place that changes, and nothing else: no explanation, no Markdown fence, no cursor marker. If no edit is likely, answer with nothing.`

// NextEditRequest asks for the next edit in the document at Path, from
// the cursor at Position.
type NextEditRequest struct {
	Path     string
	Version  *int32 // the document's, as the editor sent it; nil for the current one
	Position workspace.Position
	Encoding workspace.Encoding
}

// NextEdit is a predicted edit: the document at Version, with Edits
// applied, is what the model predicts the user does next.
type NextEdit struct {
	Version int32
	Edits   []workspace.TextEdit
}

// NextEdit predicts the user's next edit from their recent edits: the
// change the model foresees that the user reaches first from the cursor,
// going down the file and then from its top, wherever in the file it is.
// The other changes foreseen are kept: once the user has made that one,
// the next request answers the following without asking the model. No
// edits when there were none lately, the file is private, the model
// foresees no change or the document changed meanwhile.
func (e *Engine) NextEdit(ctx context.Context, req NextEditRequest) (NextEdit, error) {
	e.counts.nextEdits.Add(1)
	b := e.currentBackend()
	doc, ok := e.docs.Get(req.Path)
	if !ok {
		return NextEdit{}, fmt.Errorf("predicting the next edit of %s: the document is not open", req.Path)
	}
	none := NextEdit{Version: doc.Version}
	if req.Version != nil && *req.Version != doc.Version {
		return none, nil // asked of a version that has moved on
	}
	if !b.Settings.NextEditOn() || !b.Settings.On(doc.LanguageID) || e.private.isPrivate(ctx, doc.Path) {
		return none, nil
	}
	if _, ok := e.history.lastIn(doc.Path); !ok {
		return none, nil // nothing to carry on from
	}
	at := workspace.OffsetAt(doc.Text, req.Position, req.Encoding)
	flight := "nextEdit\x00" + doc.Path
	if rest, ok := e.predictions.carryOn(doc.Path, doc.Text); ok {
		e.flights.supersede(flight)
		return nextEditOf(doc, rest, at, req.Encoding), nil
	}
	if b.Model == nil {
		return none, fmt.Errorf("%w: %v", ErrNoModel, b.Err)
	}
	ctx, done, err := e.flights.begin(ctx, flight)
	if err != nil {
		return none, nil
	}
	defer done()
	raw, err := e.generate(ctx, b, nextEditSystem, e.nextEditPrompt(ctx, doc, at, b), nextEditBudget, false)
	if err != nil {
		if ctx.Err() != nil {
			return none, nil
		}
		return none, fmt.Errorf("predicting the next edit of %s: %w", doc.Path, err)
	}
	if e.changedSince(doc) {
		return none, nil
	}
	changes := locate(doc.Text, parseBlocks(raw), at)
	e.predictions.keep(doc.Path, doc.Text, changes)
	return nextEditOf(doc, changes, at, req.Encoding), nil
}

// nextEditOf is the next edit of doc among changes: the first that ends
// at or after the cursor, else the first in the file.
func nextEditOf(doc workspace.Document, changes []change, at int, enc workspace.Encoding) NextEdit {
	out := NextEdit{Version: doc.Version}
	if len(changes) == 0 {
		return out
	}
	next := changes[0]
	for _, c := range changes {
		if c.offset+len(c.old) >= at {
			next = c
			break
		}
	}
	out.Edits = workspace.ComputeEdits(next.old, next.new, enc)
	line := strings.Count(doc.Text[:next.offset], "\n") // next starts a line
	for i := range out.Edits {
		out.Edits[i].Range.Start.Line += line
		out.Edits[i].Range.End.Line += line
	}
	return out
}

// nextEditPrompt shows the model the recent edits, the related buffers
// and doc with the cursor at byte offset at: whole, or the part around
// the cursor and the lines elsewhere that mention what the user's edits
// of it took away.
func (e *Engine) nextEditPrompt(ctx context.Context, doc workspace.Document, at int, b Backend) string {
	var p strings.Builder
	e.writeContext(ctx, &p, doc, b)
	text := doc.Text
	from, to := 0, len(text)
	if len(text) > nextEditFile {
		from, to = aroundBounds(text, at, nextEditFile)
		from = min(from, strings.LastIndexByte(text[:at], '\n')+1)
		to = max(to, at)
	}
	fmt.Fprintf(&p, "<file path=%q language=%q", e.display(doc.Path), doc.LanguageID)
	if from > 0 || to < len(text) {
		fmt.Fprintf(&p, " excerpt=\"lines %d-%d of %d\"", lineOf(text, from), lineOf(text, to), lineOf(text, len(text)))
	}
	p.WriteString(">\n")
	shown := text[from:at] + userCursor + text[at:to]
	p.WriteString(shown)
	if !strings.HasSuffix(shown, "\n") {
		p.WriteString("\n") // the closing tag on a line of its own, adding no blank line
	}
	p.WriteString("</file>\n")
	for _, x := range elsewhere(text, from, to, e.removedWords(doc.Path)) {
		fmt.Fprintf(&p, "<file_excerpt path=%q lines=\"%d-%d\">\n%s\n</file_excerpt>\n", e.display(doc.Path), x.first, x.last, x.text)
	}
	return p.String()
}

// lineOf is the 1-based number of the line byte offset at is on.
func lineOf(text string, at int) int { return strings.Count(text[:at], "\n") + 1 }

// removedWords are the words (identifiers, mostly) the recent edits of
// path took away: what a rename renamed.
func (e *Engine) removedWords(path string) []string {
	const most = 8
	var out []string
	seen := map[string]bool{}
	for _, ed := range e.history.recent() {
		if ed.Path != path {
			continue
		}
		kept := map[string]bool{}
		for _, w := range words(ed.New) {
			kept[w] = true
		}
		for _, w := range words(ed.Old) {
			if len(w) > 1 && !kept[w] && !seen[w] && len(out) < most {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// excerpt is lines first to last (1-based) of a document.
type excerpt struct {
	first, last int
	text        string
}

// elsewhere are the lines of text outside [from, to) that mention one of
// words, consecutive ones together, up to elsewhereBudget bytes.
func elsewhere(text string, from, to int, words []string) []excerpt {
	if len(words) == 0 || from == 0 && to == len(text) {
		return nil
	}
	var out []excerpt
	used := 0
	line := 1
	for start := 0; start < len(text) && used < elsewhereBudget; line++ {
		end := start + strings.IndexByte(text[start:], '\n')
		if end < start {
			end = len(text)
		}
		if l := text[start:end]; (start < from || start >= to) && mentionsAny(l, words) {
			if n := len(out); n > 0 && out[n-1].last == line-1 {
				out[n-1].last, out[n-1].text = line, out[n-1].text+"\n"+l
			} else {
				out = append(out, excerpt{first: line, last: line, text: l})
			}
			used += len(l) + 1
		}
		start = end + 1
	}
	return out
}

// mentionsAny reports whether line has one of words as a whole word.
func mentionsAny(line string, words []string) bool {
	for _, w := range words {
		for i := 0; ; {
			j := strings.Index(line[i:], w)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(w)
			if !isWordRune(lastRune(line[:start])) && !isWordRune(firstRune(line[end:])) {
				return true
			}
			i = end
		}
	}
	return false
}
