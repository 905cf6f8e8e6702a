package agent

import (
	"testing"

	"google.golang.org/genai"
)

// forgettingGenerator records the conversations it is told are over.
type forgettingGenerator struct {
	ContentGenerator
	forgot []*genai.Content
}

func (g *forgettingGenerator) ForgetConversation(first *genai.Content) {
	g.forgot = append(g.forgot, first)
}

// A session leaving memory tells the generator its conversation is over,
// so that what the generator keeps of it (auth's encoding cache) does not
// keep its history alive after it.
func TestADroppedSessionIsForgottenByTheGenerator(t *testing.T) {
	g := &forgettingGenerator{}
	a := New(Config{Generator: g, Model: "gemini-2.5-flash"})
	s := a.NewSession()
	first := genai.NewContentFromText("hello", genai.RoleUser)
	s.chat.history = []*genai.Content{first}
	a.mu.Lock()
	a.drop(s)
	a.mu.Unlock()
	if len(g.forgot) != 1 || g.forgot[0] != first {
		t.Errorf("the generator was told of %v, want the session's first content", g.forgot)
	}
}
