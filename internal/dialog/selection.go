package dialog

// SelectionEdit asks for a selection of a file rewritten as an
// instruction says, by one model call outside any session: no tools, no
// history, nothing recorded.
type SelectionEdit struct {
	// Path is the file; Text its text as the editor has it (the open
	// document's, else the disk's), which the selection is in.
	Path string
	Text string
	// Start and End are the selection's byte offsets in Text.
	Start, End int
	// Language is the editor's language id of the file; "" when unknown.
	Language    string
	Instruction string
}

// SelectionUnchanged is the Outcome of a SelectionEdit whose rewrite is the
// selection as it was: nothing was proposed.
const SelectionUnchanged Outcome = "unchanged"

// SelectionEdited is what became of a SelectionEdit: the landing's
// decision, or SelectionUnchanged; Model is the model that wrote the rewrite.
type SelectionEdited struct {
	Decision
	Model string
}
