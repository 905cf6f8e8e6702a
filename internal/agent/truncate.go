package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The head of a cut tool output is this fraction of what is kept, the
// rest its tail: 0.61's formatTruncatedToolOutput.
const truncatedHeadRatio = 0.2

// cutToolOutput is res as the model is sent it: a shell command's output,
// or an MCP tool's single text, longer than the session's threshold is
// cut to its head and tail with a note that says where the whole is
// saved, as Gemini CLI 0.61's truncateOutputIfNeeded does
// (tools.truncateToolOutputThreshold). Other tools' outputs are bounded
// by the tools themselves, as in 0.61.
func (t *turn) cutToolOutput(fc *genai.FunctionCall, res tools.Result) tools.Result {
	if res.Error != "" || !t.cutsOutputOf(fc.Name, res) {
		return res
	}
	limit := t.toolOutputLimit()
	if limit <= 0 || charCount(res.Output) <= limit {
		return res
	}
	path, err := t.s.agent.saveToolOutput(t.s.id, fc, res.Output)
	where := path
	if err != nil {
		// The model is told the truth: cut, and not saved.
		t.s.agent.log.log.Warn("the whole tool output was not saved", zap.String("tool", fc.Name), zap.Error(err))
		where = fmt.Sprintf("(not saved: %v)", err)
	}
	res.Output = truncatedToolOutput(res.Output, where, limit)
	return res
}

// cutsOutputOf reports whether the output of the tool named name is cut
// at the threshold: the shell's, and an MCP tool's text alone.
func (t *turn) cutsOutputOf(name string, res tools.Result) bool {
	if name == tools.ShellName {
		return true
	}
	tool, ok := t.s.agent.cfg.Tools.Get(name)
	if !ok {
		return false
	}
	_, mcp := tool.(interface{ MCPTrusted() bool })
	return mcp && len(res.Parts) == 0
}

// toolOutputLimit is the threshold in characters: the setting, or less
// when less of the context window is left (4 characters a token), as
// 0.61's getTruncateToolOutputThreshold; 0 or less cuts nothing.
func (t *turn) toolOutputLimit() int {
	a := t.s.agent
	if a.cfg.ToolOutputThreshold <= 0 {
		return 0
	}
	left := 4 * (a.tokenLimit(t.model()) - int(t.s.chat.promptTokens))
	return min(left, a.cfg.ToolOutputThreshold)
}

// truncatedToolOutput is s cut to limit characters, a fifth from its
// start and the rest from its end, in 0.61's words.
func truncatedToolOutput(s, where string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	head := int(float64(limit) * truncatedHeadRatio)
	tail := limit - head
	omitted := len(r) - head - tail
	return fmt.Sprintf("Output too large. Showing first %s and last %s characters. For full output see: %s\n%s\n\n... [%s characters omitted] ...\n\n%s",
		thousands(head), thousands(tail), where, string(r[:head]), thousands(omitted), string(r[len(r)-tail:]))
}

// charCount is how many characters s has. 0.61 counts UTF-16 units; a
// character outside the BMP counts once here, twice there.
func charCount(s string) int { return len([]rune(s)) }

// thousands writes n with commas between groups of three digits, as
// 0.61's toLocaleString does in English.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// saveToolOutput writes the whole output of call fc to where 0.61 saves
// it, ~/.gemini/tmp/<project>/tool-outputs/session-<id>/<tool>_<call>.txt
// (saveTruncatedToolOutput), and returns the file's path.
func (a *Agent) saveToolOutput(sessionID string, fc *genai.FunctionCall, output string) (string, error) {
	path, err := a.writeToolOutput(sessionID, toolOutputFileName(fc), output)
	if err != nil {
		return "", fmt.Errorf("saving the tool output: %w", err)
	}
	return path, nil
}

// writeToolOutput writes text to file in the session's directory of tool
// outputs, ~/.gemini/tmp/<project>/tool-outputs/session-<id>, readable by
// the user alone, and returns its path.
func (a *Agent) writeToolOutput(sessionID, file, text string) (string, error) {
	if a.cfg.ProjectTempDir == nil {
		return "", fmt.Errorf("no project directory to save it in")
	}
	tmp, err := a.cfg.ProjectTempDir()
	if err != nil {
		return "", fmt.Errorf("finding the project's temporary directory: %w", err)
	}
	dir := filepath.Join(tmp, "tool-outputs", "session-"+filenamePart(sessionID))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// toolOutputFileName is 0.61's name for the saved output of fc: the call
// id, after the tool's name unless the id starts with it.
func toolOutputFileName(fc *genai.FunctionCall) string {
	name, id := strings.ToLower(filenamePart(fc.Name)), strings.ToLower(filenamePart(fc.ID))
	if strings.HasPrefix(id, name) {
		return id + ".txt"
	}
	return name + "_" + id + ".txt"
}

// filenamePart is s with every character but ASCII letters, digits, _
// and - replaced by _ (0.61's sanitizeFilenamePart): no separator, no
// "..".
func filenamePart(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
