package lsp

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// window/showMessageRequest's fallback offers "always" only where it
// holds, the permanent answer under its label where it is offered, first
// when it is the suggested one (security.autoAddToPolicyByDefault).
func TestConfirmActions(t *testing.T) {
	const forGood = "Allow for all future sessions"
	for _, tc := range []struct {
		req  dialog.ConfirmRequest
		want []string
	}{
		{dialog.ConfirmRequest{}, []string{actionAllowOnce, actionReject}},
		{dialog.ConfirmRequest{CanAllowAlways: true}, []string{actionAllowOnce, actionAlwaysAllow, actionReject}},
		{dialog.ConfirmRequest{CanAllowAlways: true, Permanent: forGood}, []string{actionAllowOnce, actionAlwaysAllow, forGood, actionReject}},
		{dialog.ConfirmRequest{CanAllowAlways: true, Permanent: forGood, SaveByDefault: true}, []string{forGood, actionAllowOnce, actionAlwaysAllow, actionReject}},
	} {
		if got := confirmActions(tc.req); !slices.Equal(got, tc.want) {
			t.Errorf("confirmActions(%+v) = %q, want %q", tc.req, got, tc.want)
		}
	}
}
