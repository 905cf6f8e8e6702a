package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// update_topic, as Gemini CLI 0.61 has it (topicTool.ts): the model names
// the phase of its work (a title, a summary of it) and its intent of the
// moment; the user follows along. It changes nothing but the session's
// topic, and needs no approval (read-only.toml allows it).

// TopicState is a session's current topic and intent.
type TopicState struct {
	mu     sync.Mutex
	title  string
	intent string
}

// set records a title (when not blank) and an intent (when not blank), and
// returns the topic now current; New when title changed it.
func (s *TopicState) set(title, summary, intent string) dialog.Topic {
	s.mu.Lock()
	defer s.mu.Unlock()
	title, intent = strings.TrimSpace(title), strings.TrimSpace(intent)
	t := dialog.Topic{Summary: summary, New: title != "" && title != s.title}
	if title != "" {
		s.title = title
	}
	if intent != "" {
		s.intent = intent
	}
	t.Title, t.Intent = s.title, s.intent
	return t
}

type updateTopicParams struct {
	waiting
	Title           string `json:"title,omitempty" jsonschema:"The title of the new topic or chapter."`
	Summary         string `json:"summary,omitempty" jsonschema:"(OPTIONAL) A detailed summary (5-10 sentences) covering both the work completed in the previous topic and the strategic intent of the new topic. This is required when transitioning between topics to maintain continuity."`
	StrategicIntent string `json:"strategic_intent" jsonschema:"A mandatory one-sentence statement of your immediate intent."`
}

// updateTopic is update_topic. It narrates the main agent's work, and
// runs alone, as Gemini CLI 0.61's scheduler runs it.
func updateTopic() *Defined[updateTopicParams] {
	return Define(Spec{
		Name:        UpdateTopicName,
		Description: "Manages your narrative flow. Include `title` and `summary` only when starting a new Chapter (logical phase) or shifting strategic intent.",
		Annotations: Annotations{Kind: dialog.KindThink, ReadOnly: true, RunsAlone: true, Narrates: true},
		Aliases:     []string{"UpdateTopicTool"},
	}, func(p updateTopicParams) (Call, error) {
		if strings.TrimSpace(p.StrategicIntent) == "" {
			return nil, errors.New("The 'strategic_intent' parameter must be non-empty.")
		}
		return &updateTopicCall{p: p}, nil
	})
}

type updateTopicCall struct{ p updateTopicParams }

func (c *updateTopicCall) Title() string {
	if c.p.Title != "" {
		return fmt.Sprintf("Update topic to: \"%s\"", c.p.Title)
	}
	return fmt.Sprintf("Update tactical intent: \"%s\"", c.p.StrategicIntent)
}

func (c *updateTopicCall) Confirmation() *Confirmation { return nil }

// Execute sets the session's topic and tells the model what it is now,
// in Gemini CLI's words.
func (c *updateTopicCall) Execute(_ context.Context, info CallInfo) (Result, error) {
	state := info.Topic
	if state == nil {
		state = &TopicState{}
	}
	t := state.set(c.p.Title, c.p.Summary, c.p.StrategicIntent)
	title, intent, summary := orEllipsis(t.Title), orEllipsis(t.Intent), orEllipsis(t.Summary)
	var llm, display string
	if t.New {
		llm = fmt.Sprintf("Current topic: \"%s\"\nTopic summary: %s", title, summary)
		display = fmt.Sprintf("## 📂 Topic: **%s**\n\n**Summary:**\n%s", title, summary)
		if in := strings.TrimSpace(c.p.StrategicIntent); in != "" {
			llm += "\n\nStrategic Intent: " + in
			display += "\n\n> [!STRATEGY]\n> **Intent:** " + in
		}
	} else {
		llm = "Strategic Intent: " + intent
		display = "> [!STRATEGY]\n> **Intent:** " + intent
	}
	return Result{Output: llm, Display: display, Topic: &t}, nil
}

func orEllipsis(s string) string {
	if strings.TrimSpace(s) == "" {
		return "..."
	}
	return s
}
