package background

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// SessionArtifact is the artifact a run keeps its session file in (the
// action's session_artifact input's default).
const SessionArtifact = "gemini-ls-session"

// maxSession bounds the session file read out of the artifact, and the
// archive downloaded (sessionstore's own bound).
const maxSession = 256 << 20

// Session downloads run id's session file, from its SessionArtifact,
// into dir, and returns its path; "" when the run kept none.
func (r *Remote) Session(ctx context.Context, id int64, dir string) (string, error) {
	arts, err := r.gh.Artifacts(ctx, r.Repo, id)
	if err != nil {
		return "", err
	}
	for _, a := range arts {
		if a.Name != SessionArtifact || a.Expired {
			continue
		}
		data, err := r.gh.DownloadArtifact(ctx, a, maxSession)
		if err != nil {
			return "", err
		}
		return sessionOf(data, dir)
	}
	return "", nil
}

// sessionOf writes the session file (*.jsonl) the zip archive data
// holds into dir and returns its path.
func sessionOf(data []byte, dir string) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("reading the session artifact: %w", err)
	}
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".jsonl") || f.FileInfo().IsDir() {
			continue
		}
		if f.UncompressedSize64 > maxSession {
			return "", fmt.Errorf("the session artifact's %s is over %d bytes", f.Name, maxSession)
		}
		rc, err := f.Open()
		if err != nil {
			return "", fmt.Errorf("reading the session artifact's %s: %w", f.Name, err)
		}
		defer rc.Close()
		path := filepath.Join(dir, "session.jsonl") // never the archive's own name
		out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", err
		}
		n, err := io.Copy(out, io.LimitReader(rc, maxSession+1))
		err = errors.Join(err, out.Close())
		if err == nil && n > maxSession {
			err = fmt.Errorf("the session artifact's %s is over %d bytes", f.Name, maxSession)
		}
		if err != nil {
			return "", fmt.Errorf("reading the session artifact's %s: %w", f.Name, err)
		}
		return path, nil
	}
	return "", errors.New("the session artifact holds no session file (*.jsonl)")
}
