package acp

// Reads through the client's fs/read_text_file.

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// newWorkspace is the workspace of a session in cwd. When the client
// declared fs.readTextFile, the agent's single-file reads (read_file,
// @-mentions, and the text an edit is made from) take the
// editor's buffer through fs/read_text_file, unsaved changes included;
// the workspace still checks the path on disk first (inside the cwd, a
// regular text file within the size limit) and searches read disk (see
// workspace.Buffers).
func (sess *session) newWorkspace(cwd string) (*workspace.Workspace, error) {
	ws, err := workspace.New([]string{cwd}, nil)
	if err != nil {
		return nil, err
	}
	ws.ShareWriteLocks(sess.srv.writes) // two sessions may share a folder
	if sess.srv.capabilities().Fs.ReadTextFile {
		ws.SetBuffers(clientBuffers{sess})
	}
	return ws, nil
}

// clientBuffers reads the editor's text of a file with fs/read_text_file.
type clientBuffers struct{ sess *session }

// ReadBuffer asks the client for the whole text of path. The client always
// has a say (its buffer, else the file as it reads it), so its error fails
// the read: the model is told, rather than shown disk's text in place of
// the user's.
func (b clientBuffers) ReadBuffer(ctx context.Context, path string) (string, bool, error) {
	text, err := b.sess.readTextFile(ctx, path)
	if err != nil {
		return "", false, err
	}
	return text, true, nil
}

// readTextFile is fs/read_text_file of the whole of path.
func (sess *session) readTextFile(ctx context.Context, path string) (string, error) {
	text, err := sess.srv.readTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(sess.id), Path: path})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("fs/read_text_file: %s", clientError(err))
	}
	return text, nil
}
