package agent

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// Loop detection as Gemini CLI 0.61's LoopDetectionService does it (bundle
// chunk-JDPZ4CE3.js:342239-342716): the same tool calls repeated, the same
// text streamed over and over, or, from a prompt's 30th model request on,
// a utility model that finds the conversation stuck (checkWithModel).
// The first loop of a prompt is told to the model, which goes on; the
// second stops the turn with StopLoopDetected (stopLoop).
const (
	// toolCallLoopThreshold is how often a call, or a cycle of up to
	// maxToolCallCycle calls, must repeat in a row to be a loop.
	toolCallLoopThreshold = 5
	maxToolCallCycle      = 5
	// A content loop is a contentChunkSize-character chunk of the streamed
	// text seen contentLoopThreshold times, on average no more than five
	// chunk lengths apart, with few distinct texts between the repeats.
	contentLoopThreshold = 10
	contentChunkSize     = 50
	maxContentHistory    = 5000
)

// LoopError is the Err of a StopLoopDetected result.
type LoopError struct {
	// Repeated says what the model repeated, in words; "" when the loop
	// check model found the loop.
	Repeated string
	// Analysis is the loop check model's reasoning when it found the loop.
	Analysis string
}

func (e *LoopError) Error() string {
	return "A potential loop was detected: " + e.detail() + ". The request has been halted."
}

// detail says what looped.
func (e *LoopError) detail() string {
	if e.Analysis != "" {
		return "the loop check found the conversation stuck (" + strings.TrimSuffix(strings.TrimSpace(e.Analysis), ".") + ")"
	}
	return e.Repeated
}

// loopDetector watches one prompt's turn; a new turn starts afresh.
type loopDetector struct {
	// off: the user turned loop detection off (model.disableLoopDetection),
	// and no check here finds one.
	off     bool
	calls   []callKey // the latest calls, oldest first
	content contentLoop
	// found counts the loops found in the prompt: the first is
	// recovered from, the second ends the turn.
	found int
	// For the model-based check: the prompt's model requests, the one
	// last checked before, and how many requests apart the checks are
	// (0 for llmCheckInterval); userPrompt is the parts of the prompt's
	// input, whose text the check joins only when it is due: a prompt
	// may be 16 MiB, and the check is rare (llmCheckAfterTurns).
	requests, lastCheck, interval int
	userPrompt                    []*genai.Part
}

// foundOne counts a loop found in the prompt; stop says it is the
// second, which ends the turn: the first is told to the model (stopLoop).
func (d *loopDetector) foundOne() (stop bool) {
	d.found++
	return d.found > 1
}

// callKey identifies a call by its name and canonical arguments.
type callKey struct {
	hash [sha256.Size]byte
	name string
	args string // canonical JSON, for the message
}

// checkCalls takes the calls of one model answer, in order, and returns a
// *LoopError when they complete a loop. A call between texts ends any
// repetition of the text, as in the reference.
func (d *loopDetector) checkCalls(calls []*genai.FunctionCall) error {
	if d.off {
		return nil
	}
	d.content.reset()
	for _, fc := range calls {
		if err := d.checkCall(fc); err != nil {
			return err
		}
	}
	return nil
}

func (d *loopDetector) checkCall(fc *genai.FunctionCall) error {
	// encoding/json sorts map keys, so equal arguments encode equally.
	args, err := json.Marshal(fc.Args)
	if err != nil {
		args = fmt.Appendf(nil, "%v", fc.Args)
	}
	key := callKey{hash: sha256.Sum256(append([]byte(fc.Name+":"), args...)), name: fc.Name, args: string(args)}
	d.calls = append(d.calls, key)
	if keep := maxToolCallCycle * toolCallLoopThreshold; len(d.calls) > keep {
		d.calls = d.calls[len(d.calls)-keep:]
	}
	n := len(d.calls)
	for cycle := 1; cycle <= maxToolCallCycle; cycle++ {
		need := cycle * toolCallLoopThreshold
		if n < need {
			break
		}
		repeats := true
		for i := n - need; i < n-cycle; i++ {
			if d.calls[i].hash != d.calls[i+cycle].hash {
				repeats = false
				break
			}
		}
		if !repeats {
			continue
		}
		if cycle == 1 {
			return &LoopError{Repeated: fmt.Sprintf("the model called %s with the same arguments %s %d times in a row",
				key.name, key.args, toolCallLoopThreshold)}
		}
		names := make([]string, 0, cycle)
		for _, k := range d.calls[n-cycle:] {
			names = append(names, k.name)
		}
		return &LoopError{Repeated: fmt.Sprintf("the model repeated the same %d tool calls (%s), with the same arguments, %d times in a row",
			cycle, strings.Join(names, ", "), toolCallLoopThreshold)}
	}
	return nil
}

// checkEvent takes an event as it is streamed and returns a *LoopError
// when the model's text has started repeating itself.
func (d *loopDetector) checkEvent(ev dialog.Event) error {
	text, ok := ev.(dialog.TextEvent)
	if d.off || !ok {
		return nil
	}
	if chunk, ok := d.content.add(text.Text); ok {
		return &LoopError{Repeated: fmt.Sprintf("the model wrote the same text %d times: %q",
			contentLoopThreshold, strings.TrimSpace(chunk))}
	}
	return nil
}

// notRun answers the calls of an answer that looped: none of them ran.
func notRun(calls []*genai.FunctionCall, loop *LoopError) *genai.Content {
	msg := fmt.Sprintf("This call was not run: %s, a potential loop.", loop.Repeated)
	answer := &genai.Content{Role: genai.RoleUser}
	for _, fc := range calls {
		answer.Parts = append(answer.Parts, functionResponse(fc, tools.Result{Error: msg}))
	}
	return answer
}

// Markdown that legitimately repeats itself (tables, lists, headings,
// quotes, dividers) restarts the content tracking; code blocks are not
// tracked at all. The patterns are the reference's, with its character
// classes [*-+] and [+-_] written as the characters they mean.
var (
	tableRow   = lazyregexp.New(`(^|\n)\s*(\|.*\||[|+-]{3,})`)
	listItem   = lazyregexp.New(`(^|\n)\s*([-*+]|\d+\.)\s`)
	heading    = lazyregexp.New(`(^|\n)#+\s`)
	blockquote = lazyregexp.New(`(^|\n)>\s`)
	divider    = lazyregexp.New(`^[-+_=*\x{2500}-\x{257F}]+$`)
)

// contentLoop tracks the streamed text in characters (runes).
type contentLoop struct {
	history     []rune
	seen        map[string][]int // chunk → where it starts in history
	next        int              // the next chunk position to look at
	inCodeBlock bool
}

func (c *contentLoop) reset() {
	c.history = c.history[:0]
	clear(c.seen)
	c.next = 0
}

// add appends delta and reports the repeating chunk when a loop shows.
func (c *contentLoop) add(delta string) (string, bool) {
	fences := strings.Count(delta, "```")
	isDivider := divider.MatchString(delta)
	if fences > 0 || isDivider || tableRow.MatchString(delta) || listItem.MatchString(delta) ||
		heading.MatchString(delta) || blockquote.MatchString(delta) {
		c.reset()
	}
	wasInCodeBlock := c.inCodeBlock
	if fences%2 == 1 {
		c.inCodeBlock = !c.inCodeBlock
	}
	if wasInCodeBlock || c.inCodeBlock || isDivider {
		return "", false
	}
	c.history = append(c.history, []rune(delta)...)
	c.truncate()
	if c.seen == nil {
		c.seen = make(map[string][]int)
	}
	for ; c.next+contentChunkSize <= len(c.history); c.next++ {
		chunk := string(c.history[c.next : c.next+contentChunkSize])
		if c.repeats(chunk) {
			return chunk, true
		}
	}
	return "", false
}

// truncate keeps the latest maxContentHistory characters, moving the
// recorded positions with them.
func (c *contentLoop) truncate() {
	cut := len(c.history) - maxContentHistory
	if cut <= 0 {
		return
	}
	c.history = append(c.history[:0], c.history[cut:]...)
	c.next = max(0, c.next-cut)
	for chunk, at := range c.seen {
		kept := at[:0]
		for _, i := range at {
			if i-cut >= 0 {
				kept = append(kept, i-cut)
			}
		}
		if len(kept) == 0 {
			delete(c.seen, chunk)
		} else {
			c.seen[chunk] = kept
		}
	}
}

// repeats records the chunk at c.next and reports whether its latest
// occurrences make a loop: close together, and separated by the same text
// (a list of items sharing a prefix is separated by different texts).
func (c *contentLoop) repeats(chunk string) bool {
	at := append(c.seen[chunk], c.next)
	c.seen[chunk] = at
	if len(at) < contentLoopThreshold {
		return false
	}
	recent := at[len(at)-contentLoopThreshold:]
	average := float64(recent[len(recent)-1]-recent[0]) / float64(contentLoopThreshold-1)
	if average > 5*contentChunkSize {
		return false
	}
	periods := make(map[string]bool)
	for i := 0; i+1 < len(recent); i++ {
		periods[string(c.history[recent[i]:recent[i+1]])] = true
	}
	return len(periods) <= contentLoopThreshold/2
}

// loopDetected logs Gemini CLI's loop_detected event.
func (l apiLog) loopDetected(promptID string, err *LoopError) {
	l.log.Warn("loop_detected", l.event("loop_detected",
		zap.String("prompt_id", promptID),
		zap.String("detail", err.detail()),
	)...)
}
