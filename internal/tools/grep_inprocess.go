package tools

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// inProcessGrep searches with Go's regexp, a worker per core.
type inProcessGrep struct{}

// asksInfo: opening a file checks its size.
func (inProcessGrep) asksInfo() bool { return false }

func (inProcessGrep) search(ctx context.Context, q *grepQuery, files <-chan grepFile, found func(grepOutcome)) error {
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte
			for f := range files {
				found(searchOne(ctx, q, f, &buf))
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// keptBuffers is the most the searching goroutines keep between files in
// all: within it each keeps the storage of the biggest file it has read
// (allocating, and the kernel zeroing, a big file's storage for each big
// file was a sixth of a search's time on GOROOT/src); past it a big
// file's storage is let go after the file.
const keptBuffers = 64 << 20

// searchOne searches one file in-process through the workspace (its open
// document's text, else the regular file on disk), read into *buf, the
// storage one goroutine searching files in turn reuses.
func searchOne(ctx context.Context, q *grepQuery, f grepFile, buf *[]byte) grepOutcome {
	o := grepOutcome{file: f}
	if ctx.Err() != nil {
		return o
	}
	defer func() {
		if cap(*buf) > keptBuffers/runtime.GOMAXPROCS(0) {
			*buf = nil
		}
	}()
	content, err := q.ws.ReadEntryInto(ctx, f.entry, q.maxFileSize, buf)
	switch {
	case ctx.Err() != nil, errors.Is(err, workspace.ErrNotExist):
		return o // cut short, or gone since it was listed
	case errors.Is(err, workspace.ErrTooLarge):
		o.tooLarge = true // from the stat of the file opened
		return o
	case err != nil:
		// One file that cannot be read (permissions, replaced by a
		// special file since the listing) does not end the search.
		o.unreadable = true
		return o
	case readHidden(ctx, q.ws, f.entry.Path, content, q.noIgnore):
		return o // as an ignored file: not searched
	}
	// Binary content is told only for files with matches: few are.
	if o.matches = q.matcher.search(content.Content, q.maxMatches); len(o.matches) > 0 && isBinary(content.Content) {
		o.matches = nil
	}
	return o
}
