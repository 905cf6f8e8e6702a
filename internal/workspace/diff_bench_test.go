package workspace

import "testing"

// The diffs a write_file of 50 changed lines in a 20,000-line document
// costs besides ComputeEdits (BenchmarkApplyEdits50On20000Lines): the
// +/− summary of the proposal and the unified diff shown with the result.
// bench.BenchmarkWriteFile50ChangesOn20000Lines measures them in place.

// The summary counts the lines of the diff the edits are made from.
func BenchmarkStat50On20000Lines(b *testing.B) {
	before, after := bigEditPair()
	d := DiffLines(before, after)
	b.ReportAllocs()
	for b.Loop() {
		if added, removed := d.Stat(); added != 50 || removed != 50 {
			b.Fatalf("Stat = +%d −%d, want +50 −50", added, removed)
		}
	}
}

func BenchmarkUnifiedDiff50On20000Lines(b *testing.B) {
	before, after := bigEditPair()
	b.ReportAllocs()
	for b.Loop() {
		if d := UnifiedDiff("big.go", before, after); d == "" {
			b.Fatal("no diff")
		}
	}
}
