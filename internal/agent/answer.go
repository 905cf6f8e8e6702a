package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// A plain answer is one streamed model call for a client that keeps the
// conversation itself (VS Code's language model API, through the LSP
// server): the client's messages and system instruction, no tools, no
// session, nothing of the agent's history or instructions, nothing
// recorded. The agent lends it only its model access: the credentials,
// the retries and the wording of API errors.

// Answer streams the answer of req's model to req's conversation,
// calling onText with each piece of its text as it arrives (thoughts
// left out), and returns all of it. A request that fails before any text
// came is retried as a prompt's would be; once text was shown it is not
// (the client already has it), and a stream that breaks off then is an
// error. An answer with no text that the model stopped for a reason
// (safety, recitation) is an error that says so.
func (a *Agent) Answer(ctx context.Context, req dialog.AnswerRequest, onText func(string)) (dialog.Answered, error) {
	model := models.Resolve(req.Model)
	out := dialog.Answered{Model: model}
	contents, err := answerContents(req.Messages)
	if err != nil {
		return out, err
	}
	config := &genai.GenerateContentConfig{}
	if req.System != "" {
		config.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	var text strings.Builder
	var finish genai.FinishReason
	var afterText error // a failure once text was shown: not retried
	start := a.cfg.Now()
	err = retrying(ctx, a.cfg.Retry, func() error {
		for resp, err := range a.cfg.Generator.GenerateContentStream(ctx, model, contents, config) {
			if err == nil {
				var piece string
				piece, finish, err = answerPiece(resp, finish)
				if piece != "" {
					text.WriteString(piece)
					onText(piece)
				}
			}
			if err != nil {
				if text.Len() > 0 {
					afterText = err
					return nil
				}
				return err
			}
		}
		return nil
	}, nil)
	err = errors.Join(err, afterText)
	if err == nil && text.Len() == 0 && finish != "" && finish != genai.FinishReasonStop {
		err = &EmptyAnswerError{What: "no text", FinishReason: finish, Attempts: 1}
	}
	if err != nil {
		a.log.error(model, "", a.cfg.Now().Sub(start), err)
		return out, apierror.Explain(err, apierror.Context{AuthType: a.cfg.AuthType, EditorKey: a.cfg.EditorKey, Model: model})
	}
	out.Text = text.String()
	return out, nil
}

// answerContents is msgs as the model's contents: the user's as user
// turns, the assistant's as the model's. The conversation must end with
// the user's message, which the model answers.
func answerContents(msgs []dialog.AnswerMessage) ([]*genai.Content, error) {
	if len(msgs) == 0 {
		return nil, errors.New("the conversation has no message to answer")
	}
	contents := make([]*genai.Content, 0, len(msgs))
	for i, m := range msgs {
		var role genai.Role
		switch m.Role {
		case dialog.AnswerUser:
			role = genai.RoleUser
		case dialog.AnswerModel:
			role = genai.RoleModel
		default:
			return nil, fmt.Errorf("message %d has the role %q, not %q or %q", i, m.Role, dialog.AnswerUser, dialog.AnswerModel)
		}
		contents = append(contents, genai.NewContentFromText(m.Text, role))
	}
	if msgs[len(msgs)-1].Role != dialog.AnswerUser {
		return nil, errors.New("the conversation ends with the assistant's message: there is nothing to answer")
	}
	return contents, nil
}

// answerPiece is the text of one streamed chunk (its thoughts left out)
// and the finish reason so far; a blocked prompt is an error.
func answerPiece(resp *genai.GenerateContentResponse, finish genai.FinishReason) (string, genai.FinishReason, error) {
	if f := resp.PromptFeedback; f != nil && f.BlockReason != "" {
		return "", finish, apierror.BlockedPrompt(string(f.BlockReason), f.BlockReasonMessage)
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return "", finish, nil
	}
	c := resp.Candidates[0]
	if c.FinishReason != "" {
		finish = c.FinishReason
	}
	if c.Content == nil {
		return "", finish, nil
	}
	var b strings.Builder
	for _, p := range c.Content.Parts {
		if p != nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String(), finish, nil
}
