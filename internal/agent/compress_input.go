package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"google.golang.org/genai"
)

// What compression reads, so that a summary costs little and the
// threshold is judged as the API counts a request.
//
// The summary request and its check are given the part of the history
// summarised as it is now, masked (masking.go runs before compression),
// with each tool output longer than summaryOutputLimit cut to its head
// and tail, where the whole is saved said in 0.61's words. Gemini CLI
// 0.61 gives its summariser the outputs whole unless the part summarised
// is over the model's window (truncateHistoryToBudget, bundle
// chunk-JDPZ4CE3.js:335547, then cut at 40,000 characters beyond its
// newest 50,000 tokens of outputs): a 208 KB read costs it some 52,000
// tokens in each of the two requests, 2,500 here.
//
// Before a response has counted the session's prompt (a resumed
// session), the threshold is judged on an estimate; it counts the system
// instruction and the declared tools, as the API's count does, not the
// history alone.

// summaryOutputLimit bounds in characters (about 2,500 tokens) each tool
// output the summary request gives: a quarter of 0.61's default
// threshold for a shell output the model is sent (40,000). The summary
// keeps what an output showed (paths, results, errors), which its head
// and tail carry, not its text; the whole stays on disk at the path the
// summary can name for the agent to read it again.
const summaryOutputLimit = 10_000

// forSummary is contents as the summary request gives them: each tool
// output over summaryOutputLimit cut (cutForSummary). contents are not
// changed; a content with an output cut is a copy.
func (c *compressor) forSummary(contents []*genai.Content) []*genai.Content {
	out, copied := contents, false
	for i, content := range contents {
		cut, ok := c.cutForSummary(content)
		if !ok {
			continue
		}
		if !copied {
			out, copied = slices.Clone(contents), true
		}
		out[i] = cut
	}
	return out
}

// cutForSummary is content with its tool outputs over
// summaryOutputLimit cut to their head and tail, and whether one was.
func (c *compressor) cutForSummary(content *genai.Content) (*genai.Content, bool) {
	var cp *genai.Content
	for j, p := range content.Parts {
		fr := p.FunctionResponse
		if fr == nil || fr.Response == nil {
			continue
		}
		text := outputText(fr.Response)
		if utf8.RuneCountInString(text) <= summaryOutputLimit {
			continue
		}
		if cp == nil {
			copied := *content
			copied.Parts = slices.Clone(content.Parts)
			cp = &copied
		}
		response := *fr
		response.Response = map[string]any{"output": truncatedToolOutput(text, c.savedWhole(fr, text), summaryOutputLimit)}
		cp.Parts[j] = &genai.Part{FunctionResponse: &response}
	}
	return cp, cp != nil
}

// savedWhole is where the whole output text of fr is saved for the
// summary to name, or why it is not.
func (c *compressor) savedWhole(fr *genai.FunctionResponse, text string) string {
	if c.saveOutput == nil {
		return "(not saved: no project directory to save it in)"
	}
	path, err := c.saveOutput(fr.Name, fr.ID, text)
	if err != nil {
		return fmt.Sprintf("(not saved: %v)", err)
	}
	return path
}

// outputText is the text of a tool's response as 0.61's compression
// reads it: its "output", else its "content", else its indented JSON.
func outputText(response map[string]any) string {
	for _, key := range []string{"output", "content"} {
		if s, ok := response[key].(string); ok {
			return s
		}
	}
	return indentedJSON(response)
}

// fixed is the estimate of what every request sends besides its
// history; 0 when the compressor was given no way to know it.
func (c *compressor) fixed() int32 {
	if c.fixedTokens == nil {
		return 0
	}
	return c.fixedTokens()
}

// fixedTokens is 0.61's estimate of what every request of the session
// sends besides its history: the system instruction (system, or the
// session's as it is now when "") at a quarter token an ASCII
// character, and the tools declared in the session's mode, their JSON
// at four characters a token.
func (s *Session) fixedTokens(ctx context.Context, system string) int32 {
	a := s.agent
	if system == "" {
		system = a.systemInstruction(ctx, s.id)
	}
	mode, plansDir := s.requestMode()
	tokens := textTokens(system)
	for _, tool := range a.offeredTools(mode, plansDir) {
		b, _ := json.Marshal(tool)
		tokens += float64(len(b)) / 4
	}
	return int32(tokens)
}
