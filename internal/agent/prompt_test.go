package agent

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The system prompt tells the model that its calls run at once and how
// to order one after the others, as Gemini CLI 0.61's does ("Parallelism
// & Sequencing"): the argument it names is the one the scheduler reads.
func TestSystemPromptTellsOfParallelCalls(t *testing.T) {
	for _, want := range []string{"run in parallel by default", "`" + tools.WaitForPrevious + "` parameter to `true`"} {
		if !strings.Contains(DefaultSystemPrompt, want) {
			t.Errorf("the system prompt does not say %q", want)
		}
	}
}
