package completion

import (
	"context"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/workspace"
)

// The editable region a next edit may rewrite: lines before and after
// the cursor's.
const (
	regionBefore = 8
	regionAfter  = 12
)

// Markers of a next edit prompt, as Zed's Zeta marks the region.
const (
	regionStart = "<|editable_region_start|>"
	regionEnd   = "<|editable_region_end|>"
	userCursor  = "<|user_cursor_is_here|>"
)

const nextEditSystem = `You predict the next edit a programmer will make. You are shown their recent edits, as diffs, and an excerpt of the file they are in, where the part between ` + regionStart + ` and ` + regionEnd + ` may be rewritten and ` + userCursor + ` is where their cursor is.

Rewrite the editable region with the edit they most likely make next applied: carry on what the recent edits started (a rename through the rest of the region, the same change to similar lines, the code the edit calls for). Keep everything else exactly as it is. Answer with only the rewritten region, from ` + regionStart + ` to ` + regionEnd + `, both markers included, and no cursor marker. If no edit is likely, answer with the region unchanged.`

// NextEditRequest asks for the next edit in the document at Path, from
// the cursor at Position.
type NextEditRequest struct {
	Path     string
	Version  *int32 // the document's, as the editor sent it; nil for the current one
	Position workspace.Position
	Encoding workspace.Encoding
}

// NextEdit is a predicted edit: the document at Version, with Edits
// applied, is what the model predicts.
type NextEdit struct {
	Version int32
	Edits   []workspace.TextEdit
}

// NextEdit predicts the user's next edit near the cursor from their recent
// edits; no edits when there were none lately, the file is private, the
// model foresees no change or the document changed meanwhile.
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
	if b.Model == nil {
		return none, fmt.Errorf("%w: %v", ErrNoModel, b.Err)
	}
	ctx, done, err := e.flights.begin(ctx, "nextEdit\x00"+doc.Path)
	if err != nil {
		return none, nil
	}
	defer done()
	at := workspace.OffsetAt(doc.Text, req.Position, req.Encoding)
	r := regionAround(doc.Text, at)
	var p strings.Builder
	e.writeContext(ctx, &p, doc, b)
	fmt.Fprintf(&p, "<file path=%q language=%q>\n", e.display(doc.Path), doc.LanguageID)
	p.WriteString(doc.Text[r.excerptStart:r.start])
	p.WriteString(regionStart + "\n")
	p.WriteString(doc.Text[r.start:at] + userCursor + doc.Text[at:r.end])
	p.WriteString(regionEnd + "\n")
	p.WriteString(doc.Text[r.end:r.excerptEnd])
	p.WriteString("\n</file>\n")
	raw, err := e.generate(ctx, b, nextEditSystem, p.String(), nextEditBudget, false)
	if err != nil {
		if ctx.Err() != nil {
			return none, nil
		}
		return none, fmt.Errorf("predicting the next edit of %s: %w", doc.Path, err)
	}
	if e.changedSince(doc) {
		return none, nil
	}
	rewritten, ok := parseRegion(raw)
	if !ok {
		return none, nil
	}
	old := doc.Text[r.start:r.end]
	if !strings.HasSuffix(old, "\n") {
		rewritten = strings.TrimSuffix(rewritten, "\n") // the region ends the file
	}
	edits := workspace.ComputeEdits(old, rewritten, req.Encoding)
	startLine := strings.Count(doc.Text[:r.start], "\n")
	for i := range edits {
		edits[i].Range.Start.Line += startLine
		edits[i].Range.End.Line += startLine
	}
	return NextEdit{Version: doc.Version, Edits: edits}, nil
}

// region is the editable region around a cursor, and the excerpt around
// it that the prompt shows; byte offsets, at line starts.
type region struct {
	start, end               int
	excerptStart, excerptEnd int
}

func regionAround(text string, at int) region {
	lineStart := strings.LastIndexByte(text[:at], '\n') + 1
	back := func(from, lines int) int {
		for ; lines > 0 && from > 0; lines-- {
			from = strings.LastIndexByte(text[:from-1], '\n') + 1
		}
		return from
	}
	forward := func(from, lines int) int {
		for ; lines > 0 && from < len(text); lines-- {
			i := strings.IndexByte(text[from:], '\n')
			if i < 0 {
				return len(text)
			}
			from += i + 1
		}
		return from
	}
	r := region{start: back(lineStart, regionBefore), end: forward(lineStart, regionAfter+1)}
	r.excerptStart, r.excerptEnd = back(r.start, 2*regionBefore), forward(r.end, 2*regionAfter)
	return r
}

// parseRegion takes the rewritten region out of the model's answer: the
// text between the markers, with the cursor marker and a fence taken off.
func parseRegion(raw string) (string, bool) {
	s := unfence(strings.ReplaceAll(raw, "\r\n", "\n"))
	i := strings.Index(s, regionStart)
	j := strings.LastIndex(s, regionEnd)
	if i < 0 || j < i {
		return "", false
	}
	s = s[i+len(regionStart) : j]
	s = strings.TrimPrefix(s, "\n")
	return strings.ReplaceAll(s, userCursor, ""), true
}
