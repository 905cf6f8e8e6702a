package tools

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"
)

// responseText is the first candidate's answer: its text parts, thoughts
// left out, joined.
func responseText(resp *genai.GenerateContentResponse) string {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range resp.Candidates[0].Content.Parts {
		if p != nil && p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// groundingOf is the first candidate's grounding metadata, or nil.
func groundingOf(resp *genai.GenerateContentResponse) *genai.GroundingMetadata {
	if resp == nil || len(resp.Candidates) == 0 {
		return nil
	}
	return resp.Candidates[0].GroundingMetadata
}

// insertCitations puts "[n]" markers (chunk index + 1) at the end of each
// supported segment. Gemini measures segments in UTF-8 bytes; markers go in
// from the last offset back, so earlier offsets stay valid, and an offset
// past the text (or past a later one) is clamped, as Gemini CLI does.
func insertCitations(text string, supports []*genai.GroundingSupport) string {
	type insertion struct {
		at     int
		marker string
	}
	var ins []insertion
	for _, s := range supports {
		if s == nil || s.Segment == nil || s.GroundingChunkIndices == nil {
			continue
		}
		var marker strings.Builder
		for _, i := range s.GroundingChunkIndices {
			fmt.Fprintf(&marker, "[%d]", i+1)
		}
		ins = append(ins, insertion{at: int(s.Segment.EndIndex), marker: marker.String()})
	}
	if len(ins) == 0 {
		return text
	}
	slices.SortStableFunc(ins, func(a, b insertion) int { return cmp.Compare(b.at, a.at) })
	var pieces []string
	last := len(text)
	for _, in := range ins {
		at := max(0, min(in.at, last))
		pieces = append(pieces, text[at:last], in.marker)
		last = at
	}
	pieces = append(pieces, text[:last])
	slices.Reverse(pieces)
	out := strings.Join(pieces, "")
	if !utf8.ValidString(out) {
		// An offset inside a character; decoded as Gemini CLI's TextDecoder does.
		out = strings.ToValidUTF8(out, string(utf8.RuneError))
	}
	return out
}

// sourceList is "[n] title (uri)", a line per grounding chunk.
func sourceList(chunks []*genai.GroundingChunk, noURI string) []string {
	var lines []string
	for i, c := range chunks {
		title, uri := "Untitled", noURI
		if c != nil && c.Web != nil {
			if c.Web.Title != "" {
				title = c.Web.Title
			}
			if c.Web.URI != "" {
				uri = c.Web.URI
			}
		}
		lines = append(lines, fmt.Sprintf("[%d] %s (%s)", i+1, title, uri))
	}
	return lines
}
