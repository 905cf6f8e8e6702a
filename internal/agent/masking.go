package agent

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// Gemini CLI 0.61 masks old tool outputs before every request, whatever
// its settings say (ToolOutputMaskingService, bundle
// chunk-JDPZ4CE3.js:343034-343255; its contextManagement.tools.outputMasking
// keys reach no code): the newest tool outputs, up to
// maskProtectedTokens, are kept whole, and once the older ones come to
// maskMinPrunableTokens, each is replaced by a preview and the path of a
// file that holds it whole. The latest turn is never masked.
const (
	maskProtectedTokens   = 50_000
	maskMinPrunableTokens = 30_000
	maskTag               = "tool_output_masked"
)

// maskable reports whether a function response of the tool named name
// may be masked: 0.61 exempts the calls whose answers steer the
// conversation.
func maskable(name string) bool {
	switch name {
	case tools.ActivateSkillName, tools.AskUserName, tools.EnterPlanModeName, tools.ExitPlanModeName:
		return false
	}
	return true
}

// prunable is a function response masking would replace.
type prunable struct {
	content, part int
	tokens        int
}

// masker masks a session's old tool outputs in what is sent; the history
// itself, and so the saved session, keeps them whole, as 0.61's recorded
// sessions do. done remembers each part masked, so that it is saved once
// and masked the same way in every later request.
type masker struct {
	done map[*genai.Part]*genai.Part
	// tokens are the estimated tokens of each function response the last
	// scan saw (-1: masked already): a response stays as it was made, and
	// encoding every earlier one again before each request made a
	// prompt's scans grow with the square of its calls.
	tokens map[*genai.FunctionResponse]int
	// spare is the map the next scan fills, kept from the scan before.
	spare map[*genai.FunctionResponse]int
	// save writes a masked output whole and returns the file's path.
	save func(name, callID, text string) (string, error)
}

// mask is contents with the older tool outputs masked as 0.61 masks them;
// contents are not changed, the parts replaced are new.
func (m *masker) mask(contents []*genai.Content) []*genai.Content {
	out := m.withDone(contents)
	found, total := m.prunables(out)
	if total < maskMinPrunableTokens {
		return out
	}
	for _, p := range found {
		original := contents[p.content].Parts[p.part]
		masked, err := m.masked(original)
		if err != nil {
			continue // the output stays whole: nothing is lost
		}
		if estimatePartTokens(masked) >= p.tokens {
			continue
		}
		if m.done == nil {
			m.done = map[*genai.Part]*genai.Part{}
		}
		m.done[original] = masked
	}
	return m.withDone(contents)
}

// withDone is contents with the parts masked before replaced.
func (m *masker) withDone(contents []*genai.Content) []*genai.Content {
	if len(m.done) == 0 {
		return contents
	}
	out := make([]*genai.Content, len(contents))
	for i, c := range contents {
		out[i] = c
		for j, p := range c.Parts {
			if masked, ok := m.done[p]; ok {
				if out[i] == c {
					cp := *c
					cp.Parts = append([]*genai.Part(nil), c.Parts...)
					out[i] = &cp
				}
				out[i].Parts[j] = masked
			}
		}
	}
	return out
}

// prunables are the tool outputs beyond the protected newest ones, newest
// first, and their tokens in all (0.61's scan).
func (m *masker) prunables(contents []*genai.Content) ([]prunable, int) {
	var found []prunable
	protected, total := 0, 0
	seen := m.spare
	if seen == nil {
		seen = map[*genai.FunctionResponse]int{}
	}
	clear(seen)
	// Those of responses no longer sent are dropped.
	defer func() { m.tokens, m.spare = seen, m.tokens }()
	for i := len(contents) - 2; i >= 0; i-- { // the latest turn is kept
		parts := contents[i].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			fr := parts[j].FunctionResponse
			if fr == nil || !maskable(fr.Name) || fr.Response == nil {
				continue
			}
			tokens, ok := m.tokens[fr]
			if !ok {
				tokens = responseTokens(fr)
			}
			seen[fr] = tokens
			if tokens < 0 {
				continue
			}
			if protected <= maskProtectedTokens {
				protected += tokens
				if protected <= maskProtectedTokens {
					continue
				}
			}
			total += tokens
			found = append(found, prunable{content: i, part: j, tokens: tokens})
		}
	}
	return found, total
}

// responseTokens is 0.61's estimate of fr's tokens, its name's and its
// compact JSON's characters, 4 a token; -1 when it is masked already.
func responseTokens(fr *genai.FunctionResponse) int {
	runes, masked := compactJSONRunes(fr.Response)
	if masked {
		return -1
	}
	return (utf8.RuneCountInString(fr.Name) + runes) / 4
}

// compactJSONRunes is how many characters v's compact JSON has (as
// JSON.stringify writes it; 0 when v has none), and whether it holds a
// masked output, counted as it is written rather than kept: a copy of
// every tool output the size of the output was made for its count.
func compactJSONRunes(v any) (runes int, masked bool) {
	var c jsonRunes
	enc := json.NewEncoder(&c)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return 0, false
	}
	return c.runes, c.masked
}

// jsonRunes counts the characters an Encoder writes to it, the line's
// end it adds left out, and whether they hold a masked output.
type jsonRunes struct {
	runes  int
	masked bool
}

// Write takes p, the whole encoding (an Encoder writes each value at
// once). The encoding is valid UTF-8 (encoding/json writes an invalid
// byte as U+FFFD): its characters are its bytes that do not continue
// one. utf8.RuneCount would copy a text beyond ASCII to count it.
func (c *jsonRunes) Write(p []byte) (int, error) {
	text := bytes.TrimSuffix(p, []byte("\n"))
	for _, b := range text {
		if b&0xC0 != 0x80 {
			c.runes++
		}
	}
	c.masked = c.masked || bytes.Contains(text, []byte("<"+maskTag))
	return len(p), nil
}

// masked is part's function response replaced by a preview and where the
// whole is saved (0.61's formatMaskedSnippet). The whole is the response
// as 0.61 saves it, indented; made here, for the outputs masked only,
// not for every one scanned before each request.
func (m *masker) masked(part *genai.Part) (*genai.Part, error) {
	fr := part.FunctionResponse
	text := indentedJSON(fr.Response)
	path, err := m.save(fr.Name, fr.ID, text)
	if err != nil {
		return nil, err
	}
	preview := text
	if fr.Name == tools.ShellName {
		preview = shellPreview(fr.Response)
	} else if len([]rune(preview)) > 500 {
		r := []rune(preview)
		preview = string(r[:250]) + "\n... [TRUNCATED] ...\n" + string(r[len(r)-250:])
	}
	snippet := fmt.Sprintf("<%s>\n%s\n\nOutput too large. Full output available at: %s\n</%s>", maskTag, preview, path, maskTag)
	cp := *fr
	cp.Response = map[string]any{"output": snippet}
	return &genai.Part{FunctionResponse: &cp}, nil
}

// shellSection starts a section of a shell command's output as the model
// is sent it.
var shellSection = lazyregexp.New(`(?m)^(Output|Error|Exit Code|Signal|Background PIDs|Process Group PGID): `)

// shellPreview is a shell command's response shortened section by
// section, its output to its first and last lines (0.61's
// formatShellPreview).
func shellPreview(response map[string]any) string {
	content, ok := response["output"].(string)
	if !ok {
		content, _ = response["error"].(string)
	}
	idx := shellSection.FindAllStringSubmatchIndex(content, -1)
	if len(idx) == 0 {
		return linesPreview(content)
	}
	var parts []string
	if head := strings.TrimSpace(content[:idx[0][0]]); head != "" {
		parts = append(parts, linesPreview(head))
	}
	for k, loc := range idx {
		name := content[loc[2]:loc[3]]
		end := len(content)
		if k+1 < len(idx) {
			end = idx[k+1][0]
		}
		body := strings.TrimSpace(content[loc[1]:end])
		if name == "Output" {
			body = linesPreview(body)
		}
		parts = append(parts, name+": "+body)
	}
	return strings.Join(parts, "\n")
}

// linesPreview is s's first and last 10 lines when it has more than 20
// (0.61's formatSimplePreview).
func linesPreview(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= 20 {
		return s
	}
	return fmt.Sprintf("%s\n\n... [%d lines omitted] ...\n\n%s", strings.Join(lines[:10], "\n"), len(lines)-20, strings.Join(lines[len(lines)-10:], "\n"))
}

// estimatePartTokens is 0.61's estimate of a function response's tokens:
// its name's and its response's JSON characters, 4 a token.
func estimatePartTokens(p *genai.Part) int {
	fr := p.FunctionResponse
	if fr == nil {
		return 0
	}
	runes, _ := compactJSONRunes(fr.Response)
	return (utf8.RuneCountInString(fr.Name) + runes) / 4
}

// indentedJSON is v as JSON.stringify(v, null, 2) writes it: no
// escaping of <, > and &.
func indentedJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maskedContents is contents, the session's history, with its old tool
// outputs masked as 0.61 masks them before each request.
func (t *turn) maskedContents(contents []*genai.Content) []*genai.Content {
	m := &t.s.chat.masks
	if m.save == nil {
		a, id := t.s.agent, t.s.id
		m.save = func(name, callID, text string) (string, error) { return a.saveMaskedOutput(id, name, callID, text) }
	}
	return m.mask(contents)
}

// saveMaskedOutput writes a masked tool output whole where 0.61 does:
// ~/.gemini/tmp/<project>/tool-outputs/session-<id>/<tool>_<call>_<random>.txt.
func (a *Agent) saveMaskedOutput(sessionID, name, callID, text string) (string, error) {
	var random [4]byte
	_, _ = rand.Read(random[:])
	file := fmt.Sprintf("%s_%s_%s.txt", strings.ToLower(filenamePart(name)), strings.ToLower(filenamePart(callID)), hex.EncodeToString(random[:]))
	path, err := a.writeToolOutput(sessionID, file, text)
	if err != nil {
		return "", fmt.Errorf("saving a masked tool output: %w", err)
	}
	return path, nil
}
