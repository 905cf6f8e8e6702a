package dialog

// UserNoticeKey is the key of a log field, true on a record the user must
// be shown where they look, not only in a log: an MCP server that did not
// start, whose tools the model then lacks. The package that logs the
// record marks it; a front end that mirrors its log to the editor (the LSP
// server) picks such records out by it. It is a word of dialog's because
// both sides read it and a front end reaches the tools only through here.
const UserNoticeKey = "userNotice"
