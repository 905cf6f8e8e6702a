package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// gemini/answer is one model answer to a conversation the client keeps,
// for an editor that offers gemini-ls's models in its own chat (VS Code's
// language model API): no session, no tools, nothing recorded. The
// server makes the call with the credentials it has, so the editor never
// speaks to the model itself; the text streams back as LSP partial
// results ($/progress under the request's partialResultToken).

// answerParams are gemini/answer's params.
type answerParams struct {
	// Model is the model to ask, as gemini/models lists it.
	Model string `json:"model"`
	// System is the client's system instruction, if any.
	System string `json:"system,omitempty"`
	// Messages are the conversation, oldest first, ending with the
	// user's message.
	Messages []chatMessage `json:"messages"`
	// PartialResultToken, when set, has each piece of the answer's text
	// sent as it comes: $/progress with this token and an answerText.
	PartialResultToken string `json:"partialResultToken,omitempty"`
}

// chatMessage is one message of the conversation.
type chatMessage struct {
	// Role is "user" or "assistant".
	Role dialog.AnswerRole `json:"role"`
	Text string            `json:"text"`
}

// answerText is the value of each $/progress of a gemini/answer.
type answerText struct {
	Text string `json:"text"`
}

// answerResult is gemini/answer's result.
type answerResult struct {
	// Text is the whole answer, the pieces sent as partial results
	// included.
	Text string `json:"text"`
	// Model is the model that answered.
	Model string `json:"model"`
}

// answer answers gemini/answer once the model finished.
func (s *Server) answer(ctx context.Context, p answerParams) (answerResult, error) {
	switch {
	case p.Model == "":
		return answerResult{}, missingField("model")
	case len(p.Messages) == 0:
		return answerResult{}, missingField("messages")
	}
	req := dialog.AnswerRequest{Model: p.Model, System: p.System}
	for i, m := range p.Messages {
		if m.Role != dialog.AnswerUser && m.Role != dialog.AnswerModel {
			return answerResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: messages[%d].role is %q, not %q or %q", i, m.Role, dialog.AnswerUser, dialog.AnswerModel)
		}
		req.Messages = append(req.Messages, dialog.AnswerMessage{Role: m.Role, Text: m.Text})
	}
	if last := p.Messages[len(p.Messages)-1]; last.Role != dialog.AnswerUser {
		return answerResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: the last message is the assistant's: there is nothing to answer")
	}
	built, err := s.agentState.runner()
	if err != nil {
		return answerResult{}, err
	}
	onText := func(string) {}
	if p.PartialResultToken != "" {
		onText = func(text string) {
			s.notifyClient("$/progress", progressParams{Token: p.PartialResultToken, Value: answerText{Text: text}})
		}
	}
	got, err := s.host.Answer(ctx, built, req, onText)
	switch {
	case ctx.Err() != nil:
		return answerResult{}, jsonrpc2.NewError(codeRequestCancelled, "the answer was cancelled")
	case err != nil:
		return answerResult{}, requestFailed(fmt.Errorf("%s could not answer: %w", got.Model, err))
	}
	return answerResult{Text: got.Text, Model: got.Model}, nil
}
