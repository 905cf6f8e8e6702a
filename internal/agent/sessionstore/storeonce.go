package sessionstore

import (
	"strings"

	"google.golang.org/genai"
)

// storeOnce leaves the prompt's text out of ls's running prompt (a begin
// line) or exchange (a prompt's end) when a message holds it already: the
// line's own (the prompt's input, last of a begin line; the exchange's
// message in a prompt saved whole), or stored's, a prompt begun by an
// earlier line whose message holds its text. ls.PromptOf then names that
// message, which a reader takes the text back from (shared.withPrompt),
// so a huge prompt is written once and not three times.
func storeOnce(ls *lsRecord, history []*genai.Content, msgs []message, stored *Exchange) {
	switch {
	case ls.Replace:
	case ls.Step == stepBegin && ls.Running != nil && len(msgs) > 0:
		last := msgs[len(msgs)-1]
		if last.Type == "user" && ls.Running.Prompt != "" && textIs(contentOf(history, msgs, last.ID), ls.Running.Prompt) {
			running := *ls.Running
			running.Prompt = ""
			ls.Running, ls.PromptOf = &running, last.ID
		}
	case ls.Exchange != nil && ls.Exchange.Prompt != "":
		ex := ls.Exchange // promptLine's copy
		own := contentOf(history, msgs, ex.MessageID)
		if (own != nil && textIs(own, ex.Prompt)) ||
			(own == nil && stored != nil && stored.MessageID != "" && ex.MessageID == stored.MessageID && ex.Prompt == stored.Prompt) {
			ls.PromptOf, ex.Prompt = ex.MessageID, ""
		}
	}
}

// contentOf is the content of history that message id of msgs is made
// of (messagesOf makes one message of each content but nil ones); nil
// when none is.
func contentOf(history []*genai.Content, msgs []message, id string) *genai.Content {
	i := 0
	for _, c := range history {
		if c == nil {
			continue
		}
		if i < len(msgs) && msgs[i].ID == id {
			return c
		}
		i++
	}
	return nil
}

// textIs reports whether c's text, as plainText joins it, is s, without
// joining it (a prompt may be tens of MiB).
func textIs(c *genai.Content, s string) bool {
	if c == nil {
		return false
	}
	for _, p := range c.Parts {
		if p == nil || p.Thought || p.FunctionCall != nil || p.FunctionResponse != nil {
			continue
		}
		if !strings.HasPrefix(s, p.Text) {
			return false
		}
		s = s[len(p.Text):]
	}
	return s == ""
}
