package tools

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

func runWebSearch(t *testing.T, u Utility, query string) Result {
	t.Helper()
	call, err := webSearch(u).Build(map[string]any{"query": query})
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func grounded(text string, chunks []*genai.GroundingChunk, supports ...*genai.GroundingSupport) geminitest.Turn {
	turn := geminitest.TextTurn(text)
	turn.Grounding = &genai.GroundingMetadata{GroundingChunks: chunks, GroundingSupports: supports}
	return turn
}

func support(end int32, chunks ...int32) *genai.GroundingSupport {
	return &genai.GroundingSupport{Segment: &genai.Segment{EndIndex: end}, GroundingChunkIndices: chunks}
}

func TestWebSearchCitesSources(t *testing.T) {
	// "ö" is two bytes: Gemini's offsets count bytes, not characters.
	text := "Go is fast. Gö compiles quickly."
	srv, u := newFakeUtility(t, grounded(text,
		[]*genai.GroundingChunk{
			{Web: &genai.GroundingChunkWeb{URI: "https://go.dev", Title: "Go"}},
			{Web: &genai.GroundingChunkWeb{URI: "https://example.com/go"}},
		},
		support(11, 0),
		support(int32(len(text)), 0, 1),
		&genai.GroundingSupport{Segment: &genai.Segment{EndIndex: 5}}, // no chunks: no marker
	))
	res := runWebSearch(t, u, "go speed")
	want := "Web search results for \"go speed\":\n\n" +
		"Go is fast.[1] Gö compiles quickly.[1][2]\n\n" +
		"Sources:\n[1] Go (https://go.dev)\n[2] Untitled (https://example.com/go)"
	if res.Output != want || res.Error != "" {
		t.Errorf("Output =\n%q\nwant\n%q", res.Output, want)
	}
	if res.Display != `Search results for "go speed" returned.` {
		t.Errorf("Display = %q", res.Display)
	}
	req := srv.Requests()[0]
	if req.Method != "generateContent" || len(req.Tools) != 1 || req.Tools[0].GoogleSearch == nil || requestText(req) != "go speed" {
		t.Errorf("request = %s %+v %q, want generateContent with googleSearch and the query", req.Method, req.Tools, requestText(req))
	}
	// The fake utility names the model after the call's alias.
	if req.Model != models.WebSearch {
		t.Errorf("the search was asked as %q, want 0.61's %q", req.Model, models.WebSearch)
	}
}

func TestWebSearchCitationOrder(t *testing.T) {
	// Two supports ending at one offset: the later one's marker ([2]) comes
	// first, as Gemini CLI's stable descending sort puts it; an offset
	// past the text is clamped to its end.
	_, u := newFakeUtility(t, grounded("Fact.",
		[]*genai.GroundingChunk{{Web: &genai.GroundingChunkWeb{URI: "u1", Title: "a"}}, {Web: &genai.GroundingChunkWeb{URI: "u2", Title: "b"}}},
		support(5, 0), support(5, 1), support(99, 0),
	))
	res := runWebSearch(t, u, "q")
	want := "Web search results for \"q\":\n\nFact.[2][1][1]\n\nSources:\n[1] a (u1)\n[2] b (u2)"
	if res.Output != want {
		t.Errorf("Output = %q, want %q", res.Output, want)
	}
}

func TestWebSearchWithoutGroundingOrText(t *testing.T) {
	_, u := newFakeUtility(t, geminitest.TextTurn("Plain answer."), geminitest.TextTurn(" "), geminitest.ErrorTurn(400, "bad request"))
	if res := runWebSearch(t, u, "q"); res.Output != "Web search results for \"q\":\n\nPlain answer." {
		t.Errorf("ungrounded: %q", res.Output)
	}
	if res := runWebSearch(t, u, "q"); res.Output != `No search results or information found for query: "q"` || res.Display != "No information found." {
		t.Errorf("empty answer: %+v", res)
	}
	if res := runWebSearch(t, u, "q"); !strings.HasPrefix(res.Error, `Error during web search for query "q": `) || !strings.Contains(res.Error, "bad request") {
		t.Errorf("API error: %+v", res)
	}
	if res := runWebSearch(t, nil, "q"); !strings.Contains(res.Error, "needs a model") {
		t.Errorf("no utility: %+v", res)
	}
	if _, err := webSearch(nil).Build(map[string]any{"query": "  "}); err == nil || err.Error() != "The 'query' parameter cannot be empty." {
		t.Errorf("empty query: %v", err)
	}
	if _, err := webSearch(nil).Build(map[string]any{}); err == nil || err.Error() != "params must have required property 'query'" {
		t.Errorf("missing query: %v", err)
	}
}
