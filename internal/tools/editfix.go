package tools

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/models"
)

// The last stage of replace: when no deterministic stage finds old_string,
// the utility model is asked, as Gemini CLI's llm-edit-fixer does, for a
// corrected {search, replace} against the file's current text. Its search
// must then occur in the file exactly as often as expected, else the edit
// fails with the file untouched.

// DefaultEditFixTimeout bounds the LLM fix, as Gemini CLI does.
const DefaultEditFixTimeout = 40 * time.Second

// editFixCacheSize is how many answers an editFixer remembers.
const editFixCacheSize = 50

// llmEdit is the model's answer.
type llmEdit struct {
	Search            string `json:"search"`
	Replace           string `json:"replace"`
	Explanation       string `json:"explanation"`
	NoChangesRequired bool   `json:"noChangesRequired"`
}

// editFixRequest is what the model is shown.
type editFixRequest struct {
	instruction, oldString, newString, failure, content string
}

func (r editFixRequest) key() string {
	b, _ := json.Marshal([]string{r.content, r.oldString, r.newString, r.instruction, r.failure})
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// editFixer asks the utility model and caches its answers, so the same
// failed call made again (the model retrying it unchanged) does not ask
// twice. It belongs to one replace tool; calls may run concurrently.
type editFixer struct {
	utility Utility
	timeout time.Duration

	mu    sync.Mutex
	cache map[string]llmEdit
	order []string // cache keys, oldest first
}

// errFixTimeout is the fix not answering within its bound.
var errFixTimeout = errors.New("timed out")

func (f *editFixer) fix(ctx context.Context, req editFixRequest) (llmEdit, error) {
	key := req.key()
	f.mu.Lock()
	cached, ok := f.cache[key]
	f.mu.Unlock()
	if ok {
		return cached, nil
	}
	askCtx, cancel := context.WithTimeoutCause(ctx, f.timeout, errFixTimeout)
	defer cancel()
	resp, err := f.utility.GenerateContent(askCtx, models.LLMEditFixer, []*genai.Content{genai.NewContentFromText(req.prompt(), genai.RoleUser)}, editFixConfig())
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(askCtx), errFixTimeout) {
			return llmEdit{}, fmt.Errorf("no answer within %s", f.timeout)
		}
		return llmEdit{}, err
	}
	var answer llmEdit
	text := strings.TrimSpace(resp.Text())
	// Tolerate a fenced answer; the schema asks for bare JSON.
	text = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(text, "```json"), "```"), "```")
	if err := json.Unmarshal([]byte(text), &answer); err != nil {
		return llmEdit{}, fmt.Errorf("the answer is not the JSON asked for: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cache == nil {
		f.cache = map[string]llmEdit{}
	}
	if _, ok := f.cache[key]; !ok {
		if len(f.order) == editFixCacheSize {
			delete(f.cache, f.order[0])
			f.order = f.order[1:]
		}
		f.order = append(f.order, key)
	}
	f.cache[key] = answer
	return answer, nil
}

func editFixConfig() *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(editFixSystemPrompt, genai.RoleUser),
		ResponseMIMEType:  "application/json",
		ResponseJsonSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"explanation":       map[string]any{"type": "string"},
				"search":            map[string]any{"type": "string"},
				"replace":           map[string]any{"type": "string"},
				"noChangesRequired": map[string]any{"type": "boolean"},
			},
			"required": []string{"search", "replace", "explanation"},
		},
	}
}

func (r editFixRequest) prompt() string {
	instruction := r.instruction
	if strings.TrimSpace(instruction) == "" {
		instruction = "Apply the requested edit."
	}
	return strings.NewReplacer(
		"{instruction}", instruction,
		"{old_string}", r.oldString,
		"{new_string}", r.newString,
		"{error}", r.failure,
		"{current_content}", r.content,
	).Replace(editFixUserPrompt)
}

// The prompts are Gemini CLI's (packages/core/src/utils/llm-edit-fixer.ts).
const editFixSystemPrompt = `You are an expert code-editing assistant specializing in debugging and correcting failed search-and-replace operations.

# Primary Goal
Your task is to analyze a failed edit attempt and provide a corrected ` + "`search`" + ` string that will match the text in the file precisely. The correction should be as minimal as possible, staying very close to the original, failed ` + "`search`" + ` string. Do NOT invent a completely new edit based on the instruction; your job is to fix the provided parameters.

It is important that you do no try to figure out if the instruction is correct. DO NOT GIVE ADVICE. Your only goal here is to do your best to perform the search and replace task!

# Input Context
You will be given:
1. The high-level instruction for the original edit.
2. The exact ` + "`search` and `replace`" + ` strings that failed.
3. The error message that was produced.
4. The full content of the latest version of the source file.

# Rules for Correction
1.  **Minimal Correction:** Your new ` + "`search`" + ` string must be a close variation of the original. Focus on fixing issues like whitespace, indentation, line endings, or small contextual differences.
2.  **Explain the Fix:** Your ` + "`explanation`" + ` MUST state exactly why the original ` + "`search`" + ` failed and how your new ` + "`search`" + ` string resolves that specific failure. (e.g., "The original search failed due to incorrect indentation; the new search corrects the indentation to match the source file.").
3.  **Preserve the ` + "`replace`" + ` String:** Do NOT modify the ` + "`replace`" + ` string unless the instruction explicitly requires it and it was the source of the error. Do not escape any characters in ` + "`replace`" + `. Your primary focus is fixing the ` + "`search`" + ` string.
4.  **No Changes Case:** CRUCIAL: if the change is already present in the file,  set ` + "`noChangesRequired`" + ` to True and explain why in the ` + "`explanation`" + `. It is crucial that you only do this if the changes outline in ` + "`replace`" + ` are already in the file and suits the instruction.
5.  **Exactness:** The final ` + "`search`" + ` field must be the EXACT literal text from the file. Do not escape characters.
`

const editFixUserPrompt = `
# Goal of the Original Edit
<instruction>
{instruction}
</instruction>

# Failed Attempt Details
- **Original ` + "`search`" + ` parameter (failed):**
<search>
{old_string}
</search>
- **Original ` + "`replace`" + ` parameter:**
<replace>
{new_string}
</replace>
- **Error Encountered:**
<error>
{error}
</error>

# Full File Content
<file_content>
{current_content}
</file_content>

# Your Task
Based on the error and the file content, provide a corrected ` + "`search`" + ` string that will succeed. Remember to keep your correction minimal and explain the precise reason for the failure in your ` + "`explanation`" + `.
`
