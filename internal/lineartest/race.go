//go:build race

package lineartest

const raceEnabled = true
