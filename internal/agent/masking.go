package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
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

// pendingOutput is a tool output of the history not masked yet: where it
// is (content, part) and its estimated tokens.
type pendingOutput struct {
	content, part int
	tokens        int
}

// masker masks a session's old tool outputs in its history itself, as
// 0.61's setHistory does, so that what is saved, resumed and read by the
// utility calls (router, loop check, compression) is the masked form,
// and every later request repeats it byte for byte. It is incremental:
// each content is scanned once, when it stops being the latest, and each
// output encoded once; a request's work is the new contents and the
// outputs of the protected window, not the whole history.
type masker struct {
	// pending are the maskable outputs scanned and not masked, oldest
	// first; pendingTokens their tokens in all.
	pending       []pendingOutput
	pendingTokens int
	// scanned is how many contents of the history were scanned; last is
	// the content at scanned-1 and epoch the chat's then, which tell a
	// history replaced or cut (compressed, rewound, cleared) from one
	// that grew: the scan then starts again.
	scanned int
	last    *genai.Content
	epoch   int
	// save writes a masked output whole and returns the file's path.
	save func(name, callID, text string) (string, error)
}

// mask masks history's older tool outputs as 0.61 masks them: the newest,
// up to maskProtectedTokens, stay whole, and once the older ones come to
// maskMinPrunableTokens each is replaced by a preview and the path of
// the file that holds it whole. The latest content is never masked. A
// content with an output masked is replaced by a copy in history (the
// content itself, which others may hold, is not changed). It returns the
// tokens saved, 0 when nothing was masked.
func (m *masker) mask(history []*genai.Content, epoch int) (saved int) {
	m.scan(history, epoch)
	cut, total := m.prunable()
	if cut < 0 || total < maskMinPrunableTokens {
		return 0
	}
	kept := make([]pendingOutput, 0, len(m.pending)-cut)
	for _, p := range m.pending[:cut+1] {
		switch after, ok := m.maskOne(history, p); {
		case ok:
			saved += p.tokens - after
		case after < 0: // not saved: tried again at the next request
			kept = append(kept, p)
			continue
		}
		m.pendingTokens -= p.tokens // masked, or kept whole for good
	}
	m.pending = append(kept, m.pending[cut+1:]...)
	if m.scanned > 0 {
		m.last = history[m.scanned-1]
	}
	return saved
}

// scan adds the outputs of the contents that are no longer the latest to
// pending, starting again when the history is not the one last scanned
// grown.
func (m *masker) scan(history []*genai.Content, epoch int) {
	if epoch != m.epoch || m.scanned > len(history) || (m.scanned > 0 && history[m.scanned-1] != m.last) {
		*m = masker{save: m.save, epoch: epoch}
	}
	for i := m.scanned; i < len(history)-1; i++ {
		if history[i].Role == genai.RoleUser && unanswered(history[i+1]) {
			continue // never sent (chat.contents)
		}
		for j, part := range history[i].Parts {
			fr := part.FunctionResponse
			if fr == nil || !maskable(fr.Name) || fr.Response == nil {
				continue
			}
			if tokens := responseTokens(fr); tokens >= 0 {
				m.pending = append(m.pending, pendingOutput{content: i, part: j, tokens: tokens})
				m.pendingTokens += tokens
			}
		}
	}
	if n := len(history) - 1; n > m.scanned {
		m.scanned, m.last = n, history[n-1]
	}
}

// unanswered reports whether c is a model turn that answered nothing,
// which is left out of what is sent with the input it answered.
func unanswered(c *genai.Content) bool {
	return c.Role == genai.RoleModel && len(c.Parts) == 0
}

// prunable is the index in pending of the newest output beyond the
// protected newest ones (0.61's scan: the output that passes
// maskProtectedTokens is the first not protected), -1 for none, and the
// tokens of the outputs up to it.
func (m *masker) prunable() (cut, total int) {
	protected := 0
	for i := len(m.pending) - 1; i >= 0; i-- {
		protected += m.pending[i].tokens
		if protected > maskProtectedTokens {
			return i, m.pendingTokens - (protected - m.pending[i].tokens)
		}
	}
	return -1, 0
}

// maskOne replaces p's output in history by its masked form and returns
// the masked form's tokens; ok false with -1 when it could not be saved,
// with the masked tokens when the masked form would not be smaller (the
// output is then kept whole).
func (m *masker) maskOne(history []*genai.Content, p pendingOutput) (tokens int, ok bool) {
	c := history[p.content]
	masked, err := m.masked(c.Parts[p.part])
	if err != nil {
		return -1, false // the output stays whole: nothing is lost
	}
	if tokens = estimatePartTokens(masked); tokens >= p.tokens {
		return tokens, false
	}
	cp := *c
	cp.Parts = slices.Clone(c.Parts)
	cp.Parts[p.part] = masked
	history[p.content] = &cp
	return tokens, true
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

// maskHistory masks the old tool outputs of the session's history as
// 0.61 does before each request (its tryMaskToolOutputs, after
// compression and before the loop check and routing), so that every
// request and utility call sees them masked. What it masked is saved
// now (the session file is rewritten, as after a compression), so that
// the session resumed sends the same bytes, and the prompt's tokens
// counted by the last answer drop by those saved.
func (t *turn) maskHistory() {
	c := &t.s.chat
	m := &c.masks
	if m.save == nil {
		a, id := t.s.agent, t.s.id
		m.save = func(name, callID, text string) (string, error) { return a.saveMaskedOutput(id, name, callID, text) }
	}
	saved := m.mask(c.history, c.epoch)
	if saved == 0 {
		return
	}
	c.epoch++
	m.epoch = c.epoch
	c.promptTokens = max(0, c.promptTokens-int32(saved))
	if err := t.s.persist(t.ctx, dialog.Usage{}, nil); err != nil {
		t.s.agent.cfg.Logger.Warn("saving the session's masked tool outputs", zap.String("sessionId", t.s.id), zap.Error(err))
	}
}

// saveMaskedOutput writes a masked tool output whole where 0.61 does:
// ~/.gemini/tmp/<project>/tool-outputs/session-<id>/<tool>_<call>_<hash>.txt.
// 0.61 ends the name with a random part, so a session resumed masks its
// outputs again under new names, breaking the cache of every request
// after and leaving another copy each time; here the last part is the
// output's own hash: the same output of the same call of the session is
// one file, and a call id used again (ids a resumed session numbers
// anew) names another output's file apart.
func (a *Agent) saveMaskedOutput(sessionID, name, callID, text string) (string, error) {
	sum := sha256.Sum256([]byte(text))
	file := fmt.Sprintf("%s_%s_%s.txt", strings.ToLower(filenamePart(name)), strings.ToLower(filenamePart(callID)), hex.EncodeToString(sum[:6]))
	path, err := a.writeToolOutput(sessionID, file, text)
	if err != nil {
		return "", fmt.Errorf("saving a masked tool output: %w", err)
	}
	return path, nil
}
