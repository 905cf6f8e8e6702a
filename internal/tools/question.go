package tools

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// AskFunc puts q to the user and waits for the answer. Its error wraps
// the front end's reason when nobody can be asked.
type AskFunc func(ctx context.Context, q dialog.Question) (dialog.Answer, error)
