package lsp

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// The garbage is collected between decoding a request's large params (a
// prompt's) and running its handler, so that what reading them left does
// not pile up under the handler's own copies; not for small params.
func TestLargeParamsCollectedBeforeTheHandler(t *testing.T) {
	var gcs uint32
	sig := request(func(_ *Server, _ context.Context, p promptParams) (nothing, error) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		gcs = m.NumGC
		return nil, nil
	})
	for _, tc := range []struct {
		size    int
		collect bool
	}{{largeParams, true}, {64 << 10, false}} {
		raw, err := json.Marshal(promptParams{Prompt: new(strings.Repeat("x", tc.size))})
		if err != nil {
			t.Fatal(err)
		}
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := sig.serve(nil, context.Background(), raw, paramsRequired); err != nil {
			t.Fatal(err)
		}
		if collected := gcs > before.NumGC; collected != tc.collect {
			t.Errorf("params of %d bytes: collected %v, want %v", len(raw), collected, tc.collect)
		}
	}
}
