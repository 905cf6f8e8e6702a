package completion

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/workspace"
)

func TestNextEditCarriesARenameOn(t *testing.T) {
	before := "func sum(xs []int) int {\n\tcount := 0\n\tfor _, x := range xs {\n\t\tcount += x\n\t}\n\treturn count\n}\n"
	after := strings.Replace(before, "\tcount := 0", "\ttotal := 0", 1)
	predicted := strings.ReplaceAll(after, "count", "total")
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		// The model sees the recent edit and the region, the cursor in it,
		// and answers the region rewritten.
		prompt := req.Contents[0].Parts[0].Text
		if !strings.Contains(prompt, "-\tcount := 0\n+\ttotal := 0") && !strings.Contains(prompt, "-count\n+total") {
			return geminitest.TextTurn("no edit in the prompt:\n" + prompt)
		}
		if !strings.Contains(prompt, regionStart+"\n") || !strings.Contains(prompt, userCursor) {
			return geminitest.TextTurn("no region in the prompt")
		}
		return geminitest.TextTurn("```\n" + regionStart + "\n" + predicted + regionEnd + "\n```")
	}})
	req := r.open("sum.go", before+"|")
	r.change("sum.go", after)
	doc, _ := r.docs.Get(req.Path)
	got, err := r.e.NextEdit(context.Background(), NextEditRequest{Path: req.Path, Version: &doc.Version, Position: workspace.Position{Line: 1, Character: 6}, Encoding: workspace.UTF16})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Edits) != 2 {
		t.Fatalf("edits %+v, want the two other counts renamed", got.Edits)
	}
	for _, e := range got.Edits {
		if e.NewText != "total" || e.Range.End.Character-e.Range.Start.Character != len("count") {
			t.Errorf("edit %+v, want count → total, minimal", e)
		}
	}
	if text, err := workspace.ApplyEdits(after, got.Edits, workspace.UTF16); err != nil || text != predicted {
		t.Errorf("applied: %q, %v; want the prediction", text, err)
	}
	if got.Version != doc.Version {
		t.Errorf("version %d, want %d", got.Version, doc.Version)
	}
}

func TestNextEditAsksNothingWithoutRecentEdits(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil)
	req := r.open("a.go", "x := 1|\n")
	one := int32(1)
	got, err := r.e.NextEdit(context.Background(), NextEditRequest{Path: req.Path, Version: &one, Position: req.Position, Encoding: workspace.UTF8})
	if err != nil || len(got.Edits) != 0 || len(r.model.Requests()) != 0 {
		t.Errorf("edits %+v, err %v, %d requests: want nothing asked", got, err, len(r.model.Requests()))
	}
	// An old version is not predicted for either.
	r.change("a.go", "x := 2\n")
	got, err = r.e.NextEdit(context.Background(), NextEditRequest{Path: req.Path, Version: &one, Position: req.Position, Encoding: workspace.UTF8})
	if err != nil || len(got.Edits) != 0 || len(r.model.Requests()) != 0 {
		t.Errorf("for a stale version: edits %+v, err %v", got, err)
	}
}

func TestNextEditUnchangedRegionIsNoEdit(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		p := req.Contents[0].Parts[0].Text
		region := p[strings.Index(p, regionStart) : strings.Index(p, regionEnd)+len(regionEnd)]
		return geminitest.TextTurn(strings.ReplaceAll(region, userCursor, ""))
	}})
	req := r.open("a.go", "a\nb|\nc")
	r.change("a.go", "a\nbb\nc")
	got, err := r.e.NextEdit(context.Background(), NextEditRequest{Path: req.Path, Position: req.Position, Encoding: workspace.UTF8})
	if err != nil || len(got.Edits) != 0 {
		t.Errorf("edits %+v, err %v: the region came back as it was", got.Edits, err)
	}
}
