package dialog

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Each answer of the trust question says what it does, and the question
// says what declining does instead: "Don't trust" is remembered and
// asks no more; declining remembers nothing and asks again.
func TestTrustOptionsSayWhatEachDoes(t *testing.T) {
	want := map[string][]string{
		settings.TrustFolder: {"Use this folder's own settings", "remembered"},
		settings.TrustParent: {"the folder that holds this one", "remembered"},
		settings.DoNotTrust:  {"Restricted mode", "not asked again"},
	}
	for _, o := range TrustOptions() {
		for _, w := range want[o.Level] {
			if !strings.Contains(o.Description, w) {
				t.Errorf("%s's description %q does not say %q", o.Label, o.Description, w)
			}
		}
		delete(want, o.Level)
	}
	if len(want) != 0 {
		t.Errorf("no option for %v", want)
	}
	folder := filepath.FromSlash("/home/ada/proj")
	text := TrustRequest{Folder: folder}.Text()
	for _, w := range []string{"Trust parent folder: " + filepath.Dir(folder), "Don't trust: this folder runs in a restricted mode, and you are not asked again",
		"Declining, or closing the question, answers nothing and remembers nothing", "asked again the next time gemini-ls starts"} {
		if !strings.Contains(text, w) {
			t.Errorf("the question's text does not say %q:\n%s", w, text)
		}
	}
}
