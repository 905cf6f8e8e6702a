package settings

import "testing"

// general.maxAttempts as 0.61 reads it: capped at 10; below 1 (which
// fails every request in 0.61) the default, with an error saying so.
func TestRetryAttempts(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, c := range []struct {
		set     *int
		want    int
		wantErr bool
	}{{nil, 10, false}, {n(2), 2, false}, {n(1), 1, false}, {n(25), 10, false}, {n(0), 10, true}, {n(-3), 10, true}} {
		got, err := General{MaxAttempts: c.set}.RetryAttempts()
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("maxAttempts %v: %d, %v; want %d, error %v", c.set, got, err, c.want, c.wantErr)
		}
	}
}
