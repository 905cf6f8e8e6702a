package langclient

const fakeModeEnv = "GEMINI_LS_TEST_FAKE_LSP"

func runFakeServer(mode string) int { return 0 }
